import os from "node:os";
import { SOCKET_PING_INTERVAL_MS } from "../lib/constants";
import { ADDRESSES, JOIN_WINDOW, REPS, WORKERS, type SchoolOptions } from "./cli";
import { log } from "./log";
import { now, type SchoolCommand, type SchoolEvent, type SchoolRoom, type SchoolRoomStats, type ServerKind } from "./messages";
import { busyShare, cpuMs, machineTicks } from "./proc";
import { startServer, type RunningServer } from "./servers";
import { METRICS_ENV, readingAfterGc, scrapeStats, serverCpuMs } from "./serverUsage";
import { fmt, maxOf, median, p99, ratio, runMedian } from "./stats";
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
 * student. See bench/README.md.
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

const RECEIPT_TIMEOUT_MS = 10_000;
/** The browser client's ack timeout. */
const ACK_TIMEOUT_MS = 8_000;
const VOTE_SPREAD_MS = 1_000;
/** One ping interval of the product's (SOCKET_PING_INTERVAL_MS). */
const IDLE_WINDOW_MS = SOCKET_PING_INTERVAL_MS;

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
    // pings every 10 s, the baseline every 25 s, socket.io's default). A scrape of /metrics ends it, so the server's
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

// ---------------------------------------------------------------------------
// Report

function table(header: string[], rows: string[][]): string {
  const lines = [`| ${header.join(" | ")} |`, `|${header.map(() => "---").join("|")}|`];
  for (const r of rows) lines.push(`| ${r.join(" | ")} |`);
  return lines.join("\n");
}

export function schoolPlan(o: SchoolOptions): string {
  return (
    `school: ${o.rooms} rooms × ${o.classSize} students on one server; ${o.seconds} s of lessons, each room acting every ` +
    `${o.intervalMs / 1000} s on average (every ${o.pollEvery}th action a poll); ${WORKERS} client workers; ${REPS} run${REPS === 1 ? "" : "s"} of product and bare, interleaved`
  );
}

export function schoolReport(results: SchoolResult[], o: SchoolOptions): string {
  const runsOf = (k: ServerKind) => results.filter((r) => r.kind === k);
  const cell = (k: ServerKind, pick: (r: SchoolResult) => number, digits: number) => {
    const xs = runsOf(k)
      .map(pick)
      .filter((x) => Number.isFinite(x));
    if (!xs.length) return { text: "–", med: NaN };
    const med = runMedian(xs);
    const spread = xs.length > 1 ? ` [${fmt(Math.min(...xs), digits)}–${fmt(Math.max(...xs), digits)}]` : "";
    return { text: `${fmt(med, digits)}${spread}`, med };
  };
  const num = (measure: string, pick: (r: SchoolResult) => number, digits: number, ratioed: boolean, target = ""): string[] => {
    const p = cell("product", pick, digits);
    const b = cell("bare", pick, digits);
    return [measure, p.text, b.text, ratioed ? ratio(p.med, b.med) : "", target];
  };
  const text = (measure: string, show: (r: SchoolResult) => string, target = ""): string[] => {
    const col = (k: ServerKind) => {
      const texts = runsOf(k).map(show);
      return texts.length === 0 ? "–" : new Set(texts).size === 1 ? texts[0] : texts.join(", ");
    };
    return [measure, col("product"), col("bare"), "", target];
  };
  const mib = (x: number) => fmt(x / 2 ** 20, 1);
  const students = o.rooms * o.classSize;
  const rows: string[][] = [
    text("students joined / of", (r) => `${r.join.ok} / ${students}`, "all"),
    num("join: all joined (ms)", (r) => r.join.allMs, 0, true),
    num("join: server CPU per student (µs)", (r) => r.join.serverUsPerStudent, 0, true),
    text("steps / polls done", (r) => `${r.lessons.steps} / ${r.lessons.polls}`),
    num("fan-out to the room's last student, p50 of all steps (ms)", (r) => r.lessons.stepLastP50, 1, true),
    num("fan-out to the room's last student, p99 of all steps (ms)", (r) => r.lessons.stepLastP99, 1, true, "< 100 ms"),
    num("fan-out, slowest step (ms)", (r) => r.lessons.stepLastMax, 1, false),
    num("fan-out, each room's p99: median room (ms)", (r) => r.lessons.roomP99Median, 1, true),
    num("fan-out, each room's p99: worst room (ms)", (r) => r.lessons.roomP99Worst, 1, false),
    num("rooms whose p99 is over 100 ms", (r) => r.lessons.roomsP99Over100, 0, false, "0"),
    num("fan-out to the median student, p50 (ms)", (r) => r.lessons.stepMedianStudentP50, 1, true),
    text("votes sent / acked", (r) => `${r.lessons.votesSent} / ${r.lessons.votesAcked}`),
    num("vote → ack, p50 (ms)", (r) => r.lessons.voteAckP50, 1, true),
    num("vote → ack, p99 (ms)", (r) => r.lessons.voteAckP99, 1, true),
    num("close → the room's last student has the final tally, p50 (ms)", (r) => r.lessons.finalLastP50, 1, true),
    num("close → the room's last student has the final tally, p99 (ms)", (r) => r.lessons.finalLastP99, 1, true),
    text(
      "missing messages: step snapshots + closed-poll snapshots never received",
      (r) => `${r.lessons.stepMissing + r.lessons.finalMissing}`,
      "0",
    ),
    text("votes lost / wrong final totals", (r) => `${r.lessons.votesLost} / ${r.lessons.finalWrong}`, "0 / 0"),
    num(`server CPU, everyone connected and idle, over ${IDLE_WINDOW_MS / 1000} s (ms per s)`, (r) => r.cpu.idleServerMsPerS, 1, true),
    num("server CPU during the lessons (ms per s; 1,000 = one core)", (r) => r.cpu.serverMsPerS, 0, true),
    num("server CPU per connected student (µs per s)", (r) => r.cpu.serverUsPerStudentS, 2, true),
    num("server CPU per action, step or poll (ms)", (r) => r.cpu.serverMsPerAction, 2, true),
    num("server event-loop delay during the lessons, p99 (ms)", (r) => r.loopDelay?.p99Ms ?? NaN, 1, true),
    num("server event-loop delay during the lessons, max (ms)", (r) => r.loopDelay?.maxMs ?? NaN, 0, true),
    num("client workers' CPU (ms per s)", (r) => r.cpu.workersMsPerS, 0, false),
    num(`machine busy during the lessons (% of ${os.cpus().length} cores)`, (r) => r.cpu.machineBusy * 100, 0, false),
    num("RSS per student after GC (KiB)", (r) => r.memory.perStudentBytes / 1024, 1, true, "≤1.5x"),
    num("V8 heap used per student after GC (KiB)", (r) => r.memory.heapPerStudentBytes / 1024, 1, true),
    num("RSS per room: session + teacher, after GC (KiB)", (r) => r.memory.perRoomBytes / 1024, 1, true),
    text(
      "RSS after GC: empty → rooms → students → after the lessons (MiB)",
      (r) =>
        `${mib(r.memory.startBytes)} → ${mib(r.memory.roomsBytes)} → ${mib(r.memory.studentsBytes)} → ${mib(r.memory.afterLessonsBytes)}`,
    ),
  ];
  const out: string[] = [];
  out.push(
    `## 7. A whole school on one server: ${o.rooms} rooms × ${o.classSize} students (${students.toLocaleString("en-US")}), ` +
      `each teacher acting every ${o.intervalMs / 1000} s on average (staggered; every ${o.pollEvery}th action a poll), ${o.seconds} s; ` +
      `median of ${REPS} interleaved runs [min–max]`,
  );
  out.push(table(["measure", "product", "bare", "product/bare", "target"], rows));
  out.push(
    "\nFan-out: per step, the teacher's command → the last of that room's students holding the new step; p50/p99 over every step of every room " +
      `(steps where a student never got it within ${RECEIPT_TIMEOUT_MS / 1000} s are counted as missing, not timed). ` +
      "RSS per student: (RSS with the students − RSS with the rooms and teachers) / students, each after a forced GC.",
  );
  const problems = results.flatMap((r) => r.errors.map((e) => `- school ${r.kind} run ${r.run}: ${e}`));
  if (problems.length) out.push(`\n## Anomalies\n${problems.join("\n")}`);
  return out.join("\n");
}
