import type { ChildProcess } from "node:child_process";
import type { Socket } from "socket.io-client";
import { Flooder } from "./flooder";
import { now, type DriverCommand, type FloodStats, type WorkerEvent } from "./messages";
import type { NoisyOptions } from "./noisyOptions";
import { NoisyProbes } from "./noisyProbes";
import { summarizePhases, type NoisyResult, type Phase } from "./noisyResults";
import { cpuMs, machineTicks } from "./proc";
import { count, maxOf, median, p99 } from "./stats";
import { sleep } from "./wait";

/**
 * The noisy-neighbour scenario (`npm run bench -- --noisy`): one product
 * server, room A with N quiet students (the client workers) and a teacher
 * stepping, and a flooder (bench/flood.ts, its own process) that floods room B
 * from one other address with the worst frames it can send. Room A's step
 * fan-out is measured quiet and under the flood, interleaved (quiet, flood,
 * quiet, flood, …), with the server's CPU time, the flood's frames and
 * replies, and whether new students and GET /api/health get through during
 * each phase. bench/run.ts calls runNoisy with its own server start-up,
 * teacher and workers, and prints noisyReport (bench/noisyReport.ts). Its
 * parts: noisyOptions.ts (the options), flooder.ts (the flood's process),
 * noisyProbes.ts (late students and /api/health), noisyResults.ts (the
 * result and its summary). See bench/README.md.
 */

// ---------------------------------------------------------------------------
// What bench/run.ts lends: its server start-up, teacher and client workers.

interface ServerLike {
  procs: ChildProcess[];
  url: string;
  output(): string;
  stop(): Promise<void>;
}
interface TeacherLike {
  socket: Socket;
  code: string;
  command(event: string, payload: unknown): Promise<{ ok?: boolean; error?: { code: string } }>;
}
interface WorkerLike {
  send(command: DriverCommand): void;
  next<E extends WorkerEvent["ev"]>(ev: E, timeoutMs: number): Promise<Extract<WorkerEvent, { ev: E }>>;
  close(): Promise<void>;
}
export interface NoisyDeps<S extends ServerLike> {
  /** a product server, started as for the product cells */
  startServer(): Promise<S>;
  /** creates a session on the server and connects its teacher */
  connectTeacher(server: S): Promise<TeacherLike>;
  newWorker(index: number): WorkerLike;
  /** registers a child process to be killed on any exit path */
  track(child: ChildProcess): ChildProcess;
  stop(child: ChildProcess, graceMs?: number): Promise<void>;
  log(line: string): void;
  /** the students' source addresses */
  addresses: string[];
  /** connections in flight per worker during the join */
  joinWindow: number;
}

// ---------------------------------------------------------------------------
// The scenario

const STEP_TIMEOUT_MS = 10_000;
/** A phase stops stepping after this long (a drowned server must not stall the run for hours). */
const PHASE_BUDGET_MS = 90_000;
/** Before a quiet phase: the server drains what the flood left; before a flood phase's measurement: the flood ramps up. */
const SETTLE_MS = 1_000;

export async function runNoisy<S extends ServerLike>(deps: NoisyDeps<S>, o: NoisyOptions): Promise<NoisyResult> {
  const started = now();
  const errors: string[] = [];
  const log = (line: string) => deps.log(`noisy N=${o.n}: ${line}`);
  const flooder = new Flooder(deps);
  const [server, workers, ready] = await Promise.all([
    deps.startServer(),
    (async () => {
      const ws = Array.from({ length: Math.min(o.workers, o.n) }, (_, i) => deps.newWorker(i));
      await Promise.all(ws.map((w) => w.next("ready", 30_000)));
      return ws;
    })(),
    flooder.next("ready", 30_000),
  ]);
  let teacher: TeacherLike | null = null;
  let teacherB: TeacherLike | null = null;
  try {
    const serverPid = server.procs[0].pid!;
    const flooderPid = flooder.proc.pid!;
    teacher = await deps.connectTeacher(server);
    // Room B: a second session with its teacher; the flood joins it as students.
    teacherB = await deps.connectTeacher(server);
    const t = teacher;
    await t.command("step:go", { stepIndex: 1 });
    await t.command("step:go", { stepIndex: 0 });

    // Room A's quiet class.
    log(`${o.n} students join room A`);
    const shares = workers.map((_, i) => Math.floor(o.n / workers.length) + (i < o.n % workers.length ? 1 : 0));
    const joinTimeoutMs = 30_000 + o.n * 20;
    let offset = 0;
    workers.forEach((w, i) => {
      w.send({
        cmd: "join",
        kind: "product",
        urls: [server.url],
        code: t.code,
        offset,
        count: shares[i],
        total: o.n,
        addresses: deps.addresses,
        window: deps.joinWindow,
        timeoutMs: joinTimeoutMs,
      });
      offset += shares[i];
    });
    const joined = await Promise.all(workers.map((w) => w.next("joined", joinTimeoutMs + 10_000)));
    const join = { ok: 0, failed: 0, errors: {} as Record<string, number> };
    for (const j of joined) {
      join.ok += j.ok;
      join.failed += j.failed;
      for (const [k, v] of Object.entries(j.errors)) count(join.errors, k, v);
    }
    if (join.failed) errors.push(`join: ${join.failed} of ${o.n} students failed: ${JSON.stringify(join.errors)}`);
    if (join.ok === 0) throw new Error(`no student could join room A: ${JSON.stringify(join.errors)}`);
    await sleep(1_500);

    let seq = 0;
    const probes = new NoisyProbes(server.url, t.code);

    /** The teacher's steps, as in the product cells (bench/run.ts), seq continuing across phases so every step changes. */
    async function steps(name: string): Promise<Pick<Phase, "lastMs" | "medianStudentMs" | "stepsIncomplete" | "missing">> {
      const lastMs: number[] = [];
      const medianStudentMs: number[] = [];
      let stepsIncomplete = 0;
      let missing = 0;
      const begin = now();
      for (let i = 0; i < o.steps; i++) {
        if (server.procs[0].exitCode !== null || server.procs[0].signalCode !== null) {
          throw new Error(`${name}: the server exited (${server.procs[0].exitCode ?? server.procs[0].signalCode})`);
        }
        if (now() - begin > PHASE_BUDGET_MS) {
          errors.push(`${name}: stopped after ${i} of ${o.steps} steps (over ${PHASE_BUDGET_MS / 1000} s)`);
          break;
        }
        const stepIndex = seq % 2 === 0 ? 1 : 2;
        const s = seq++;
        workers.forEach((w) => w.send({ cmd: "armStep", seq: s, stepIndex, timeoutMs: STEP_TIMEOUT_MS }));
        await Promise.all(workers.map((w) => w.next("armed", 10_000)));
        const sentAt = now();
        const ack = t.command("step:go", { stepIndex });
        const reports = await Promise.all(workers.map((w) => w.next("step", STEP_TIMEOUT_MS + 5_000)));
        const res = await ack;
        if (!res?.ok) errors.push(`${name}, step ${i}: ${JSON.stringify(res)}`);
        const latencies = reports.flatMap((r) => r.times).map((x) => x - sentAt);
        const lost = reports.reduce((sum, r) => sum + r.missing, 0);
        missing += lost;
        if (lost > 0) stepsIncomplete += 1;
        if (latencies.length > 0) {
          // A step some student never saw counts as the timeout: a lower bound, not a figure to average away.
          lastMs.push(lost > 0 ? STEP_TIMEOUT_MS : maxOf(latencies));
          medianStudentMs.push(median(latencies));
        }
        await sleep(100);
      }
      if (missing) errors.push(`${name}: ${missing} snapshot receipts missing in ${stepsIncomplete} steps`);
      return { lastMs, medianStudentMs, stepsIncomplete, missing };
    }

    async function phase(mode: Phase["mode"], run: number): Promise<Phase> {
      const name = `${mode} ${run}`;
      if (mode === "flood") {
        flooder.send({
          cmd: "start",
          url: server.url,
          code: teacherB!.code,
          address: o.floodAddress,
          sockets: o.floodSockets,
          fresh: o.floodFresh,
          joinTimeoutMs: 10_000,
        });
        const f = await flooder.next("flooding", 20_000);
        if (f.studentsJoined < o.floodSockets) errors.push(`${name}: ${f.studentsJoined} of ${o.floodSockets} flood sockets joined room B`);
      }
      await sleep(SETTLE_MS);
      log(`${name}: ${o.steps} steps`);
      const cpu0 = cpuMs(serverPid);
      const flooderCpu0 = cpuMs(flooderPid);
      const machine0 = machineTicks();
      const t0 = now();
      let measuring = true;
      const probing = probes.run(() => measuring);
      const stepped = await steps(name);
      measuring = false;
      const seconds = (now() - t0) / 1000;
      const serverCpuMsPerS = (cpuMs(serverPid) - cpu0) / seconds;
      const flooderCpuMsPerS = (cpuMs(flooderPid) - flooderCpu0) / seconds;
      const machine1 = machineTicks();
      const machineBusyPercent = (100 * (machine1.busy - machine0.busy)) / Math.max(1, machine1.total - machine0.total);
      const { joins, health } = await probing;
      let flood: FloodStats | null = null;
      if (mode === "flood") {
        flooder.send({ cmd: "stop" });
        flood = (await flooder.next("stopped", 15_000)).stats;
        log(`${name}: ${flood.framesSent} frames sent, ${flood.replies} replies, ${flood.opened.student + flood.opened.fresh} connections`);
      }
      if (joins.failed)
        errors.push(`${name}: ${joins.failed} of ${joins.tried} new students failed to join room A: ${JSON.stringify(joins.errors)}`);
      if (health.failed)
        errors.push(`${name}: ${health.failed} of ${health.tried} GET /api/health failed: ${JSON.stringify(health.errors)}`);
      return {
        mode,
        run,
        ...stepped,
        lastMedian: median(stepped.lastMs),
        lastP99: p99(stepped.lastMs),
        medianStudentMedian: median(stepped.medianStudentMs),
        seconds,
        serverCpuMsPerS,
        flooderCpuMsPerS,
        machineBusyPercent,
        joins,
        health,
        flood,
      };
    }

    const phases: Phase[] = [];
    for (let run = 1; run <= o.reps; run++) {
      phases.push(await phase("quiet", run));
      phases.push(await phase("flood", run));
    }

    return {
      options: { ...o, stepTimeoutMs: STEP_TIMEOUT_MS, frameChars: ready.frameChars, floodKinds: ready.kinds },
      join,
      phases,
      ...summarizePhases(phases, o.reps),
      errors,
      seconds: (now() - started) / 1000,
    };
  } catch (err) {
    throw new Error(`noisy N=${o.n}: ${(err as Error).message}\n--- server output (tail) ---\n${server.output().slice(-4_000)}`, {
      cause: err,
    });
  } finally {
    const t0 = Date.now();
    teacher?.socket.close();
    teacherB?.socket.close();
    await Promise.all([flooder.close(), ...workers.map((w) => w.close())]);
    await server.stop();
    log(`stopped in ${Date.now() - t0} ms`);
  }
}
