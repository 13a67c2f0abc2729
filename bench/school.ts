import { SOCKET_PING_INTERVAL_MS } from "../lib/constants";
import { ADDRESSES, JOIN_WINDOW, REPS, WORKERS, type SchoolOptions } from "./cli";
import { log } from "./log";
import { now, type SchoolCommand, type SchoolEvent, type SchoolRoom, type SchoolRoomStats, type ServerKind } from "./messages";
import { busyShare, cpuMs, machineTicks } from "./proc";
import { startServer, type RunningServer } from "./servers";
import { METRICS_ENV, readingAfterGc, scrapeStats, serverCpuMs } from "./serverUsage";
import { fmt, maxOf, median, p99 } from "./stats";
import { sleep } from "./wait";
import { Worker } from "./workers";

/**
 * A whole school on one server (`npm run bench -- --school`): ROOMS rooms of
 * S students each (200 × 30), every room with its own teacher stepping and now
 * and then polling on its own staggered schedule, on one product process and,
 * interleaved, on the bare socket.io baseline holding the same sockets in the
 * same number of rooms. The rooms live in the school workers
 * (bench/schoolWorker.ts), each room whole in one worker so a step is timed
 * from its teacher's emit to its last student with one clock. Measured: the
 * step fan-out to each room's last student (p50, p99 over every step of every
 * room), votes and closed-poll tallies, messages that never arrived, the
 * server's CPU over the lesson window and its RSS after a forced GC per
 * student. Its log line and table: bench/schoolReport.ts. See bench/README.md.
 */

type SchoolWorker = Worker<SchoolCommand, SchoolEvent>;

export interface SchoolResult {
  kind: ServerKind;
  run: number;
  rooms: number;
  classSize: number;
  teachers: number;
  join: { ok: number; failed: number; errors: Record<string, number>; allMs: number; serverUsPerStudent: number };
  /** RSS after a forced GC: the empty server, with the rooms and teachers, with the students, after the lessons */
  memory: {
    startBytes: number;
    roomsBytes: number;
    studentsBytes: number;
    afterLessonsBytes: number;
    perRoomBytes: number;
    perStudentBytes: number;
    /** V8's heap used after the GC (the server's /metrics), per student: the same delta without the allocator's pages */
    heapPerStudentBytes: number;
    settled: boolean;
  };
  /** the server's event loop over the lesson window, beyond the 10 ms sampling period (its /metrics) */
  loopDelay: { p50Ms: number; p99Ms: number; maxMs: number };
  lessons: {
    seconds: number;
    steps: number;
    polls: number;
    /** over every step of every room: teacher's command → the room's last student */
    stepLastP50: number;
    stepLastP99: number;
    stepLastMax: number;
    stepMedianStudentP50: number;
    /** each room's p99 of its own steps: the median room and the worst */
    roomP99Median: number;
    roomP99Worst: number;
    roomsP99Over100: number;
    stepMissing: number;
    stepsIncomplete: number;
    votesSent: number;
    votesAcked: number;
    voteAckP50: number;
    voteAckP99: number;
    finalLastP50: number;
    finalLastP99: number;
    finalMissing: number;
    finalWrong: number;
    votesLost: number;
    errors: Record<string, number>;
  };
  cpu: {
    /** with every student connected and nobody acting (pings only), over IDLE_WINDOW_MS */
    idleServerMsPerS: number;
    serverMsPerS: number;
    /** server CPU per connected student per second of lessons */
    serverUsPerStudentS: number;
    serverMsPerAction: number;
    workersMsPerS: number;
    machineBusy: number;
  };
  errors: string[];
}

export const RECEIPT_TIMEOUT_MS = 10_000;
/** The browser client's ack timeout. */
const ACK_TIMEOUT_MS = 8_000;
const VOTE_SPREAD_MS = 1_000;
/** One ping interval of the product's (SOCKET_PING_INTERVAL_MS). */
export const IDLE_WINDOW_MS = SOCKET_PING_INTERVAL_MS;

/** Room codes for the baseline: six characters like the product's. */
const bareCode = (i: number) => `S${String(i).padStart(5, "0")}`;

/** POST /api/sessions for every room, a few at a time. */
async function createSessions(server: RunningServer, count: number): Promise<SchoolRoom[]> {
  const rooms: SchoolRoom[] = new Array<SchoolRoom>(count);
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const index = next++;
      const res = await fetch(`${server.url}/api/sessions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ title: "Benchmark" }),
        signal: AbortSignal.timeout(10_000),
      });
      if (res.status !== 201) throw new Error(`POST /api/sessions: ${res.status} ${await res.text()}`);
      const session = (await res.json()) as { code: string; hostKey: string };
      rooms[index] = { index, code: session.code, hostKey: session.hostKey };
    }
  };
  await Promise.all(Array.from({ length: 8 }, lane));
  return rooms;
}

export async function runSchool(kind: ServerKind, run: number, o: SchoolOptions): Promise<SchoolResult> {
  const errors: string[] = [];
  const students = o.rooms * o.classSize;
  const tag = `school ${kind} ${o.rooms}×${o.classSize} run ${run}/${REPS}`;
  const [server, workers] = await Promise.all([
    // 200 sessions from one address in a few seconds: over the default creation limit (10 a minute).
    // METRICS_ENV: the event-loop delay and the heap come from the product's GET /metrics.
    startServer(kind, { SESSION_CREATE_LIMIT: "100000", ...METRICS_ENV }),
    (async () => {
      const ws = Array.from({ length: Math.min(WORKERS, o.rooms) }, (_, i) => new Worker<SchoolCommand, SchoolEvent>(i, "schoolWorker.ts"));
      await Promise.all(ws.map((w) => w.next("ready", 30_000)));
      return ws;
    })(),
  ]);
  const all = <E extends SchoolEvent["ev"]>(ev: E, timeoutMs: number) =>
    Promise.all(workers.map((w: SchoolWorker) => w.next(ev, timeoutMs)));
  const gcReading = () => readingAfterGc(server);
  try {
    await sleep(1_000);
    const start = await gcReading();

    // Rooms and teachers: room i lives whole in worker i mod W.
    log(`${tag}: ${o.rooms} rooms and their teachers`);
    const sessions =
      kind === "bare"
        ? Array.from({ length: o.rooms }, (_, index) => ({ index, code: bareCode(index), hostKey: "" }))
        : await createSessions(server, o.rooms);
    const teachersTimeoutMs = 30_000 + o.rooms * 100;
    workers.forEach((w, i) =>
      w.send({
        cmd: "teachers",
        kind,
        url: server.url,
        rooms: sessions.filter((r) => r.index % workers.length === i),
        address: "127.0.0.1",
        timeoutMs: 10_000,
      }),
    );
    const teachers = await all("teachers", teachersTimeoutMs);
    const teachersOk = teachers.reduce((s, t) => s + t.ok, 0);
    if (teachersOk < o.rooms)
      errors.push(`teachers: ${o.rooms - teachersOk} of ${o.rooms} could not connect: ${JSON.stringify(teachers.map((t) => t.errors))}`);
    if (teachersOk === 0) throw new Error("no teacher could connect");
    await sleep(1_000);
    const withRooms = await gcReading();

    // Students: every room's class, 100 connections in flight per worker.
    log(`${tag}: ${students} students join`);
    const joinTimeoutMs = 30_000 + students * 20;
    const joinCpu0 = serverCpuMs(server);
    workers.forEach((w) => w.send({ cmd: "join", classSize: o.classSize, addresses: ADDRESSES, window: JOIN_WINDOW, timeoutMs: 30_000 }));
    const joined = await all("joined", joinTimeoutMs);
    const joinServerMs = serverCpuMs(server) - joinCpu0;
    const joinErrors: Record<string, number> = {};
    for (const j of joined) for (const [k, v] of Object.entries(j.errors)) joinErrors[k] = (joinErrors[k] ?? 0) + v;
    const join = {
      ok: joined.reduce((s, j) => s + j.ok, 0),
      failed: joined.reduce((s, j) => s + j.failed, 0),
      errors: joinErrors,
      allMs: maxOf(joined.map((j) => j.allMs)),
      serverUsPerStudent: 0,
    };
    join.serverUsPerStudent = (joinServerMs * 1000) / Math.max(1, join.ok);
    if (join.failed) errors.push(`join: ${join.failed} of ${students} students failed: ${JSON.stringify(joinErrors)}`);
    if (join.ok === 0) throw new Error(`no student could join: ${JSON.stringify(joinErrors)}`);
    await sleep(1_500);
    const withStudents = await gcReading();

    // Idle: everyone connected, nobody acting, the join's garbage collected: what holding the sockets costs (the product
    // and the baseline both ping every 25 s, socket.io's default). A scrape of /metrics ends it, so the server's
    // event-loop histogram starts afresh for the lessons.
    const idleCpu0 = { server: serverCpuMs(server), at: now() };
    await sleep(IDLE_WINDOW_MS);
    const idleServerMsPerS = (serverCpuMs(server) - idleCpu0.server) / ((now() - idleCpu0.at) / 1000);
    await scrapeStats(server);

    // The lessons: every room on its own staggered schedule, for o.seconds.
    log(`${tag}: ${o.seconds} s of lessons`);
    const workersCpu = () => workers.reduce((sum, w) => sum + cpuMs(w.proc.pid!), 0);
    const cpu0 = { server: serverCpuMs(server), workers: workersCpu(), machine: machineTicks(), at: now() };
    const startAt = now() + 500;
    const endAt = startAt + o.seconds * 1000;
    workers.forEach((w) =>
      w.send({
        cmd: "run",
        startAt,
        endAt,
        intervalMs: o.intervalMs,
        pollEvery: o.pollEvery,
        voteSpreadMs: VOTE_SPREAD_MS,
        receiptTimeoutMs: RECEIPT_TIMEOUT_MS,
        ackTimeoutMs: ACK_TIMEOUT_MS,
        seed: run,
      }),
    );
    const ran = await all("ran", endAt - now() + 4 * (RECEIPT_TIMEOUT_MS + ACK_TIMEOUT_MS) + 30_000);
    const seconds = (now() - cpu0.at) / 1000;
    const serverMs = serverCpuMs(server) - cpu0.server;
    const workersMs = workersCpu() - cpu0.workers;
    const machineBusy = busyShare(cpu0.machine, machineTicks());
    const afterLessons = await gcReading();
    const loopDelay = afterLessons.loopDelay;

    const rooms: SchoolRoomStats[] = ran.flatMap((r) => r.rooms);
    const flat = (pick: (s: SchoolRoomStats) => number[]) => rooms.flatMap(pick);
    const sum = (pick: (s: SchoolRoomStats) => number) => rooms.reduce((acc, s) => acc + pick(s), 0);
    const roomP99s = rooms.filter((s) => s.stepLastMs.length).map((s) => p99(s.stepLastMs));
    const lessonErrors: Record<string, number> = {};
    for (const s of rooms) for (const [k, v] of Object.entries(s.errors)) lessonErrors[k] = (lessonErrors[k] ?? 0) + v;
    const lessons: SchoolResult["lessons"] = {
      seconds,
      steps: sum((s) => s.steps),
      polls: sum((s) => s.polls),
      stepLastP50: median(flat((s) => s.stepLastMs)),
      stepLastP99: p99(flat((s) => s.stepLastMs)),
      stepLastMax: maxOf(flat((s) => s.stepLastMs)),
      stepMedianStudentP50: median(flat((s) => s.stepMedianMs)),
      roomP99Median: median(roomP99s),
      roomP99Worst: maxOf(roomP99s),
      roomsP99Over100: roomP99s.filter((x) => x > 100).length,
      stepMissing: sum((s) => s.stepMissing),
      stepsIncomplete: sum((s) => s.stepsIncomplete),
      votesSent: sum((s) => s.votesSent),
      votesAcked: sum((s) => s.votesAcked),
      voteAckP50: median(flat((s) => s.voteAckMs)),
      voteAckP99: p99(flat((s) => s.voteAckMs)),
      finalLastP50: median(flat((s) => s.finalLastMs)),
      finalLastP99: p99(flat((s) => s.finalLastMs)),
      finalMissing: sum((s) => s.finalMissing),
      finalWrong: sum((s) => s.finalWrong),
      votesLost: sum((s) => s.votesLost),
      errors: lessonErrors,
    };
    if (lessons.stepMissing) errors.push(`fan-out: ${lessons.stepMissing} step snapshots never arrived (${lessons.stepsIncomplete} steps)`);
    if (lessons.finalMissing || lessons.finalWrong)
      errors.push(`polls: ${lessons.finalMissing} closed-poll snapshots never arrived, ${lessons.finalWrong} had a wrong total`);
    if (lessons.votesLost) errors.push(`polls: ${lessons.votesLost} acked votes missing from the closed polls' totals`);
    if (Object.keys(lessonErrors).length) {
      const notes = rooms.flatMap((s) => s.notes.map((n) => `room ${s.index}: ${n}`)).slice(0, 5);
      errors.push(`commands and votes refused or unanswered: ${JSON.stringify(lessonErrors)} (${notes.join("; ")})`);
    }
    const disconnects: Record<string, number> = {};
    for (const r of ran) for (const [k, v] of Object.entries(r.disconnects)) disconnects[k] = (disconnects[k] ?? 0) + v;
    if (Object.keys(disconnects).length) errors.push(`disconnected during the run: ${JSON.stringify(disconnects)}`);

    const memory = {
      startBytes: start.bytes,
      roomsBytes: withRooms.bytes,
      studentsBytes: withStudents.bytes,
      afterLessonsBytes: afterLessons.bytes,
      perRoomBytes: (withRooms.bytes - start.bytes) / Math.max(1, teachersOk),
      perStudentBytes: (withStudents.bytes - withRooms.bytes) / join.ok,
      heapPerStudentBytes: (withStudents.after.heapUsedBytes - withRooms.after.heapUsedBytes) / join.ok,
      settled: start.settled && withRooms.settled && withStudents.settled && afterLessons.settled,
    };
    if (!memory.settled) errors.push("memory: the RSS did not settle within 5 s of a forced GC (read anyway)");
    const cpu = {
      idleServerMsPerS,
      serverMsPerS: serverMs / seconds,
      serverUsPerStudentS: (serverMs * 1000) / seconds / join.ok,
      serverMsPerAction: serverMs / Math.max(1, lessons.steps + lessons.polls),
      workersMsPerS: workersMs / seconds,
      machineBusy,
    };
    log(
      `${tag}: ${lessons.steps} steps, ${lessons.polls} polls; fan-out p50 ${fmt(lessons.stepLastP50)} ms, p99 ${fmt(lessons.stepLastP99)} ms; ` +
        `server ${fmt(cpu.serverMsPerS, 0)} ms/s; ${fmt(memory.perStudentBytes / 1024)} KiB per student`,
    );
    return { kind, run, rooms: o.rooms, classSize: o.classSize, teachers: teachersOk, join, memory, loopDelay, lessons, cpu, errors };
  } catch (err) {
    throw new Error(`${tag}: ${(err as Error).message}\n--- server output (tail) ---\n${server.output().slice(-4_000)}`, { cause: err });
  } finally {
    const t0 = Date.now();
    await Promise.all(workers.map((w) => w.close()));
    await server.stop();
    log(`${tag}: stopped in ${Date.now() - t0} ms`);
  }
}
