import { execFileSync, fork, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { io, type ManagerOptions, type Socket, type SocketOptions } from "socket.io-client";
import { PROTOCOL_VERSION } from "../lib/protocol";
import {
  now,
  emptyFloodStats,
  type DriverCommand,
  type FloodCommand,
  type FloodEvent,
  type FloodStats,
  type WorkerEvent,
} from "./messages";

/**
 * The noisy-neighbour scenario (`npm run bench -- --noisy`): one product
 * server, room A with N quiet students (the client workers) and a teacher
 * stepping, and a flooder (bench/flood.ts, its own process) that floods room B
 * from one other address with the worst frames it can send. Room A's step
 * fan-out is measured quiet and under the flood, interleaved (quiet, flood,
 * quiet, flood, …), with the server's CPU time, the flood's frames and
 * replies, and whether new students and GET /api/health get through during
 * each phase. bench/run.ts calls runNoisy with its own server start-up,
 * teacher and workers, and prints noisyReport. See bench/README.md.
 */

const ROOT = path.resolve(__dirname, "..");

export interface NoisyOptions {
  /** quiet students in room A */
  n: number;
  /** quiet/flood pairs */
  reps: number;
  /** steps per phase */
  steps: number;
  workers: number;
  floodAddress: string;
  /** the flood's student sockets in room B */
  floodSockets: number;
  /** the flood's fresh CONNECT-only connections */
  floodFresh: number;
}

/** The --noisy options: --noisy[=N] (default 200), --noisy-reps=R (3), --flood-sockets=S (10), --flood-fresh=F (4); steps from --steps, at least 20. */
export function noisyOptions(arg: (name: string) => string | undefined, base: { steps: number; workers: number }): NoisyOptions {
  const noisy = arg("noisy");
  const num = (value: string | undefined, fallback: number) => (value === undefined || value === "true" ? fallback : Number(value));
  const o: NoisyOptions = {
    n: num(noisy, 200),
    reps: num(arg("noisy-reps"), 3),
    steps: Math.max(20, base.steps),
    workers: base.workers,
    floodAddress: "127.0.0.99",
    floodSockets: num(arg("flood-sockets"), 10),
    floodFresh: num(arg("flood-fresh"), 4),
  };
  const bad = (what: string) => {
    console.error(what);
    process.exit(2);
  };
  if (!(Number.isInteger(o.n) && o.n >= 1 && o.n <= 10_000)) bad("--noisy[=N] takes room A's class size, 1..10000 (default 200).");
  if (!(Number.isInteger(o.reps) && o.reps >= 1 && o.reps <= 20))
    bad("--noisy-reps takes the number of quiet/flood pairs, 1..20 (default 3).");
  if (!(Number.isInteger(o.floodSockets) && o.floodSockets >= 1 && o.floodSockets <= 200))
    bad("--flood-sockets takes 1..200 (default 10).");
  if (!(Number.isInteger(o.floodFresh) && o.floodFresh >= 0 && o.floodFresh <= 200)) bad("--flood-fresh takes 0..200 (default 4).");
  return o;
}

/** One line for the run's log. */
export function noisyPlan(o: NoisyOptions): string {
  return `noisy neighbour: N = ${o.n}; ${o.reps} × (quiet, flood) of ${o.steps} steps; ${o.workers} client workers; ${o.floodSockets} + ${o.floodFresh} flood connections from ${o.floodAddress}`;
}

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
// Results

interface Probe {
  tried: number;
  ok: number;
  failed: number;
  errors: Record<string, number>;
  ms: number[];
}

interface Phase {
  mode: "quiet" | "flood";
  run: number;
  /** per step: the last student's latency (a step with a missing receipt counts as the step timeout) */
  lastMs: number[];
  medianStudentMs: number[];
  /** steps where some student got no snapshot within the step timeout */
  stepsIncomplete: number;
  missing: number;
  lastMedian: number;
  lastP99: number;
  medianStudentMedian: number;
  /** the measured window: from the first step to the last */
  seconds: number;
  serverCpuMsPerS: number;
  flooderCpuMsPerS: number;
  /** the whole machine (all processes, all cores) busy, % */
  machineBusyPercent: number;
  joins: Probe;
  health: Probe;
  /** the flooder's counts, from its start to its stop (flood phases) */
  flood: FloodStats | null;
}

interface Spread {
  median: number;
  min: number;
  max: number;
}

interface ModeSummary {
  runs: number;
  steps: number;
  lastMedian: Spread;
  lastP99: Spread;
  medianStudentMedian: Spread;
  serverCpuMsPerS: Spread;
  flooderCpuMsPerS: Spread;
  machineBusyPercent: Spread;
  stepsIncomplete: number;
  joins: Probe & { medianMs: number; maxMs: number };
  health: Probe & { medianMs: number; maxMs: number };
}

export interface NoisyResult {
  options: NoisyOptions & { stepTimeoutMs: number; frameChars: number; floodKinds: string[] };
  join: { ok: number; failed: number; errors: Record<string, number> };
  phases: Phase[];
  quiet: ModeSummary;
  flood: ModeSummary;
  /** flood / quiet, of the medians over the runs */
  ratio: { lastMedian: number; lastP99: number; medianStudentMedian: number; serverCpu: number };
  /** flood / quiet of the last-student median, run by run */
  pairRatios: number[];
  /** the flood phases' counts, summed */
  floodTotals: FloodStats & { framesPerSecond: Spread; mibPerSecond: Spread };
  errors: string[];
  seconds: number;
}

// ---------------------------------------------------------------------------
// Helpers

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil(q * sorted.length) - 1; // nearest rank
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))];
}
const sortNum = (xs: number[]) => [...xs].sort((a, b) => a - b);
const median = (xs: number[]) => quantile(sortNum(xs), 0.5);
const p99 = (xs: number[]) => quantile(sortNum(xs), 0.99);
const maxOf = (xs: number[]) => xs.reduce((m, x) => Math.max(m, x), -Infinity);
const spread = (xs: number[]): Spread => ({ median: median(xs), min: Math.min(...xs), max: Math.max(...xs) });
const count = (map: Record<string, number>, key: string, by = 1) => {
  map[key] = (map[key] ?? 0) + by;
};

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU time (user + system) a process has used, in ms (Linux: /proc/<pid>/stat fields 14 and 15). */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" "); // fields[0] is field 3 (state)
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

/** The machine's CPU counters (all cores, clock ticks): busy and total, from the first line of /proc/stat. */
function machineTicks(): { busy: number; total: number } {
  const fields = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1, 9).map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  return { busy: total - fields[3] - fields[4], total }; // minus idle and iowait
}

/** bench/flood.ts as a child process, with the same bounded waits as the client workers. */
class Flooder {
  readonly proc: ChildProcess;
  private inbox: FloodEvent[] = [];
  private waiters: { ev: FloodEvent["ev"]; resolve: (e: FloodEvent) => void }[] = [];

  constructor(private readonly deps: Pick<NoisyDeps<ServerLike>, "track" | "stop" | "log">) {
    this.proc = deps.track(
      fork(path.join(__dirname, "flood.ts"), [], {
        cwd: ROOT,
        execArgv: ["--import", "tsx"],
        stdio: ["ignore", "inherit", "inherit", "ipc"],
      }),
    );
    this.proc.on("message", (event: FloodEvent) => {
      if (event.ev === "error") deps.log(`flooder: ${event.message}`);
      const i = this.waiters.findIndex((w) => w.ev === event.ev);
      if (i >= 0) this.waiters.splice(i, 1)[0].resolve(event);
      else this.inbox.push(event);
    });
  }

  send(command: FloodCommand): void {
    this.proc.send(command);
  }

  next<E extends FloodEvent["ev"]>(ev: E, timeoutMs: number): Promise<Extract<FloodEvent, { ev: E }>> {
    const i = this.inbox.findIndex((e) => e.ev === ev);
    if (i >= 0) return Promise.resolve(this.inbox.splice(i, 1)[0] as Extract<FloodEvent, { ev: E }>);
    return new Promise((resolve, reject) => {
      const waiter = {
        ev,
        resolve: (e: FloodEvent) => {
          clearTimeout(timer);
          resolve(e as Extract<FloodEvent, { ev: E }>);
        },
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`timed out after ${timeoutMs} ms: flooder: ${ev}`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  async close(): Promise<void> {
    if (this.proc.exitCode !== null || !this.proc.connected) return;
    try {
      this.send({ cmd: "close" });
      await this.next("closed", 5_000);
    } catch {
      // killed below
    }
    await this.deps.stop(this.proc, 2_000);
  }
}

function emptyProbe(): Probe {
  return { tried: 0, ok: 0, failed: 0, errors: {}, ms: [] };
}

function sumFlood(all: FloodStats[]): FloodStats {
  const total = emptyFloodStats();
  for (const s of all) {
    total.durationMs += s.durationMs;
    total.framesSent += s.framesSent;
    total.bytesSent += s.bytesSent;
    total.replies += s.replies;
    total.otherMessages += s.otherMessages;
    total.opened.student += s.opened.student;
    total.opened.fresh += s.opened.fresh;
    total.joined += s.joined;
    total.closedByServer += s.closedByServer;
    for (const [k, v] of Object.entries(s.framesByKind)) count(total.framesByKind, k, v);
    for (const [k, v] of Object.entries(s.repliesByCode)) count(total.repliesByCode, k, v);
    for (const [k, v] of Object.entries(s.handshakeRefusals)) count(total.handshakeRefusals, k, v);
    for (const [k, v] of Object.entries(s.socketErrors)) count(total.socketErrors, k, v);
    for (const [kind, codes] of Object.entries(s.repliesByKind))
      for (const [k, v] of Object.entries(codes)) count((total.repliesByKind[kind] ??= {}), k, v);
  }
  return total;
}

// ---------------------------------------------------------------------------
// The scenario

const STEP_TIMEOUT_MS = 10_000;
/** A phase stops stepping after this long (a drowned server must not stall the run for hours). */
const PHASE_BUDGET_MS = 90_000;
/** Before a quiet phase: the server drains what the flood left; before a flood phase's measurement: the flood ramps up. */
const SETTLE_MS = 1_000;
const PROBE_INTERVAL_MS = 250;
const PROBE_TIMEOUT_MS = 10_000;

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
    let late = 0;

    /** New students joining room A (one every other probe tick) and GET /api/health (every tick), while active() holds. */
    async function probes(active: () => boolean): Promise<{ joins: Probe; health: Probe }> {
      const joins = emptyProbe();
      const health = emptyProbe();
      const tasks: Promise<void>[] = [];
      for (let tick = 0; active(); tick++) {
        tasks.push(probeHealth(health));
        if (tick % 2 === 0) tasks.push(probeJoin(joins, late++));
        await sleep(PROBE_INTERVAL_MS);
      }
      await Promise.all(tasks);
      return { joins, health };
    }

    async function probeHealth(p: Probe): Promise<void> {
      p.tried += 1;
      const at = now();
      try {
        const res = await fetch(`${server.url}/api/health`, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
        await res.text();
        if (res.ok) {
          p.ok += 1;
          p.ms.push(now() - at);
        } else {
          p.failed += 1;
          count(p.errors, `HTTP ${res.status}`);
        }
      } catch (err) {
        p.failed += 1;
        count(p.errors, (err as Error).name === "TimeoutError" ? "timeout" : (err as Error).message.slice(0, 60));
      }
    }

    /** A student arriving late in room A, from its own address: connect → first snapshot, then leave. */
    function probeJoin(p: Probe, k: number): Promise<void> {
      p.tried += 1;
      const at = now();
      return new Promise((resolve) => {
        const socket = io(server.url, {
          transports: ["websocket"],
          reconnection: false,
          forceNew: true,
          timeout: PROBE_TIMEOUT_MS,
          auth: { v: PROTOCOL_VERSION, role: "student", code: t.code, nickname: `late ${k}` },
          localAddress: `127.0.0.${40 + (k % 10)}`,
        } as Partial<ManagerOptions & SocketOptions>);
        let settled = false;
        const done = (error: string | null) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          socket.close();
          if (error === null) {
            p.ok += 1;
            p.ms.push(now() - at);
          } else {
            p.failed += 1;
            count(p.errors, error);
          }
          resolve();
        };
        const timer = setTimeout(() => done("timeout"), PROBE_TIMEOUT_MS);
        socket.once("session:snapshot", () => done(null));
        socket.once("connect_error", (err: Error & { data?: { code?: string } }) => done(err.data?.code ?? err.message));
        socket.once("disconnect", (reason: string) => done(`disconnect: ${reason}`));
      });
    }

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
      const probing = probes(() => measuring);
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

    const summarize = (mode: Phase["mode"]): ModeSummary => {
      const ps = phases.filter((p) => p.mode === mode);
      const probe = (pick: (p: Phase) => Probe) => {
        const all = emptyProbe();
        for (const p of ps) {
          const x = pick(p);
          all.tried += x.tried;
          all.ok += x.ok;
          all.failed += x.failed;
          all.ms.push(...x.ms);
          for (const [k, v] of Object.entries(x.errors)) count(all.errors, k, v);
        }
        return { ...all, medianMs: median(all.ms), maxMs: maxOf(all.ms) };
      };
      return {
        runs: ps.length,
        steps: ps.reduce((s, p) => s + p.lastMs.length, 0),
        lastMedian: spread(ps.map((p) => p.lastMedian)),
        lastP99: spread(ps.map((p) => p.lastP99)),
        medianStudentMedian: spread(ps.map((p) => p.medianStudentMedian)),
        serverCpuMsPerS: spread(ps.map((p) => p.serverCpuMsPerS)),
        flooderCpuMsPerS: spread(ps.map((p) => p.flooderCpuMsPerS)),
        machineBusyPercent: spread(ps.map((p) => p.machineBusyPercent)),
        stepsIncomplete: ps.reduce((s, p) => s + p.stepsIncomplete, 0),
        joins: probe((p) => p.joins),
        health: probe((p) => p.health),
      };
    };
    const quiet = summarize("quiet");
    const flood = summarize("flood");
    const floods = phases.filter((p) => p.flood).map((p) => p.flood!);
    const floodTotals = {
      ...sumFlood(floods),
      framesPerSecond: spread(floods.map((f) => f.framesSent / (f.durationMs / 1000))),
      mibPerSecond: spread(floods.map((f) => f.bytesSent / 2 ** 20 / (f.durationMs / 1000))),
    };
    const ratio = {
      lastMedian: flood.lastMedian.median / quiet.lastMedian.median,
      lastP99: flood.lastP99.median / quiet.lastP99.median,
      medianStudentMedian: flood.medianStudentMedian.median / quiet.medianStudentMedian.median,
      serverCpu: flood.serverCpuMsPerS.median / quiet.serverCpuMsPerS.median,
    };
    const pairRatios = Array.from({ length: o.reps }, (_, i) => {
      const q = phases.find((p) => p.mode === "quiet" && p.run === i + 1);
      const f = phases.find((p) => p.mode === "flood" && p.run === i + 1);
      return q && f ? f.lastMedian / q.lastMedian : NaN;
    });
    return {
      options: { ...o, stepTimeoutMs: STEP_TIMEOUT_MS, frameChars: ready.frameChars, floodKinds: ready.kinds },
      join,
      phases,
      quiet,
      flood,
      ratio,
      pairRatios,
      floodTotals,
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

// ---------------------------------------------------------------------------
// Report

const fmt = (x: number | null | undefined, digits = 1) => (x === null || x === undefined || !Number.isFinite(x) ? "–" : x.toFixed(digits));
const int = (x: number) => (Number.isFinite(x) ? Math.round(x).toLocaleString("en-US") : "–");
const times = (x: number) => (Number.isFinite(x) ? `${x.toFixed(2)}x` : "–");
const showSpread = (s: Spread, digits = 1) => `${fmt(s.median, digits)} [${fmt(s.min, digits)}–${fmt(s.max, digits)}]`;
const codes = (map: Record<string, number>) =>
  Object.entries(map)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${int(v)}`)
    .join(", ") || "none";

function table(header: string[], rows: string[][]): string {
  const lines = [`| ${header.join(" | ")} |`, `|${header.map(() => "---").join("|")}|`];
  for (const r of rows) lines.push(`| ${r.join(" | ")} |`);
  return lines.join("\n");
}

export function noisyReport(r: NoisyResult | null): string {
  if (!r) return "## 6. Noisy neighbour\nThe scenario did not run (see Failed scenarios).";
  const o = r.options;
  const q = r.quiet;
  const f = r.flood;
  const t = r.floodTotals;
  const out: string[] = [];
  out.push(
    `## 6. Noisy neighbour: room A (${o.n} students) steps while ${o.floodAddress} floods room B ` +
      `(${o.floodSockets} student sockets + ${o.floodFresh} fresh connections); median of ${o.reps} runs [min–max], ${o.steps} steps each, interleaved`,
  );
  const latency = (p: ModeSummary["joins"]) => `${fmt(p.medianMs)} / ${fmt(p.maxMs)}`;
  const rows: string[][] = [
    ["fan-out, last student, median (ms)", showSpread(q.lastMedian), showSpread(f.lastMedian), times(r.ratio.lastMedian), "≤2x"],
    ["fan-out, last student, p99 (ms)", showSpread(q.lastP99), showSpread(f.lastP99), times(r.ratio.lastP99), ""],
    [
      "fan-out, median student, median (ms)",
      showSpread(q.medianStudentMedian),
      showSpread(f.medianStudentMedian),
      times(r.ratio.medianStudentMedian),
      "",
    ],
    ["steps some student missed (of all steps)", `${q.stepsIncomplete} / ${q.steps}`, `${f.stepsIncomplete} / ${f.steps}`, "", "0"],
    ["server CPU (ms per s)", showSpread(q.serverCpuMsPerS, 0), showSpread(f.serverCpuMsPerS, 0), times(r.ratio.serverCpu), ""],
    ["flooder CPU (ms per s)", "–", showSpread(f.flooderCpuMsPerS, 0), "", ""],
    [
      `machine CPU busy, all ${os.cpus().length} cores and processes (%)`,
      showSpread(q.machineBusyPercent, 0),
      showSpread(f.machineBusyPercent, 0),
      "",
      "",
    ],
    ["new students in room A: joined / tried", `${q.joins.ok} / ${q.joins.tried}`, `${f.joins.ok} / ${f.joins.tried}`, "", "all"],
    ["new student → first snapshot, median / max (ms)", latency(q.joins), latency(f.joins), times(f.joins.medianMs / q.joins.medianMs), ""],
    ["GET /api/health: 200 / sent", `${q.health.ok} / ${q.health.tried}`, `${f.health.ok} / ${f.health.tried}`, "", "all"],
    ["GET /api/health, median / max (ms)", latency(q.health), latency(f.health), times(f.health.medianMs / q.health.medianMs), ""],
    [
      "flood: frames sent / replies received",
      "–",
      `${int(t.framesSent)} / ${int(t.replies)} (${fmt((100 * t.replies) / t.framesSent, 0)} %)`,
      "",
      "",
    ],
    ["flood: frames per second / MiB per second", "–", `${showSpread(t.framesPerSecond, 0)} / ${showSpread(t.mibPerSecond, 1)}`, "", ""],
    ["flood: replies by code", "–", codes(t.repliesByCode), "", ""],
    [
      "flood: connections opened (student + fresh) / closed by the server",
      "–",
      `${int(t.opened.student)} + ${int(t.opened.fresh)} / ${int(t.closedByServer)}`,
      "",
      "",
    ],
    ["flood: handshakes refused, by code", "–", codes(t.handshakeRefusals), "", ""],
  ];
  out.push(table(["measure", "quiet", "flood", "flood/quiet", "target"], rows));
  out.push(
    `\nflood/quiet divides the medians over the runs; run by run (last student, median): ${r.pairRatios.map(times).join(", ")}. ` +
      `Flood totals are summed over the ${o.reps} flood phases (${fmt(t.durationMs / 1000)} s of flooding); every flood frame is ${int(o.frameChars)} characters and asks for an ack.`,
  );
  if (r.errors.length) out.push(`\n## Anomalies\n${r.errors.map((e) => `- noisy N=${o.n}: ${e}`).join("\n")}`);
  return out.join("\n");
}
