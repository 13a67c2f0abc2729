import { execFileSync, fork, spawn, type ChildProcess } from "node:child_process";
import os from "node:os";
import path from "node:path";
import type { Socket } from "socket.io-client";
import { SERVER_NODE_FLAGS } from "../lib/constants";
import { PROTOCOL_VERSION, type Patch } from "../lib/protocol";
import { freePort, stopProcess } from "../tests/support/loopback";
import type { AddressFloodStats, FloodMode, FlooderCommand, FlooderEvent } from "./addressFlooder";
import { connectSocket } from "./client";
import { now } from "./messages";
import { cpuMs } from "./proc";
import { classSession, firstClassSession } from "./patch";
import { ROOT, tempDir, track } from "./processes";
import { fmt, maxOf, median, ratio, runMedian, table } from "./stats";
import { sleep, withTimeout } from "./wait";

/**
 * One address must not stall other rooms (issue 28). Room A, a quiet class
 * (a teacher and `--students` students from other addresses), steps while one
 * address floods room B, the attacker's own room, from `--sockets` WebSockets
 * (bench/addressFlooder.ts, its own process):
 *
 * - `resync`: room B holds `--questions` questions of 280 characters (about
 *   145 KB in a whole patch of the class's records) and every flood socket
 *   sends `session:sync` at `--rate` a second, the per-socket limit;
 * - `frames`: every flood socket sends 16 KiB frames nested to the depth
 *   limit as fast as the server reads them.
 *
 * The server is pinned to core 0 (`taskset -c 0`); the flooder and this driver
 * (room A's sockets) to core 1, the flooder at `nice 10` so that the driver's
 * timings are the server's, not the flooder's. Per run: room A's step fan-out
 * to its last student (quiet, then under the flood), a late joiner's time to
 * its first snapshot, the server's event-loop delay p99 (prom-client's, from
 * /metrics, reset at each phase's start) and what the flood got.
 *
 * `--before=<dir>`: a checkout of the code before a change (a `git worktree`
 * with node_modules) whose server runs interleaved with this one's, fresh for
 * every run: before, after, before, after… Figures print side by side.
 *
 *   node --import tsx bench/addressFlood.ts --before=/tmp/before
 *   node --import tsx bench/addressFlood.ts --kinds=resync --reps=3 --sockets=300
 */

interface Options {
  roots: { name: string; dir: string }[];
  kinds: FloodMode[];
  reps: number;
  sockets: number;
  students: number;
  /** How long each phase (quiet, flood) steps room A, in seconds. */
  seconds: number;
  questions: number;
  rate: number;
  /** A late joiner every this many ms of a phase. */
  lateEveryMs: number;
}

function parseOptions(argv: string[]): Options {
  const arg = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const before = arg("before");
  const kinds = (arg("kinds") ?? "resync,frames").split(",").filter((k): k is FloodMode => k === "resync" || k === "frames");
  const only = arg("only");
  const roots = [...(before ? [{ name: "before", dir: path.resolve(before) }] : []), { name: before ? "after" : "this", dir: ROOT }];
  return {
    roots: roots.filter((r) => !only || r.name === only),
    kinds,
    reps: Number(arg("reps") ?? 2),
    sockets: Number(arg("sockets") ?? 300),
    students: Number(arg("students") ?? 30),
    seconds: Number(arg("seconds") ?? 15),
    questions: Number(arg("questions") ?? 300),
    rate: Number(arg("rate") ?? 2),
    lateEveryMs: Number(arg("late-every") ?? 2_000),
  };
}

const METRICS_TOKEN = "bench-metrics-0123456789abcdef";
const FLOOD_ADDRESS = "127.0.0.99";
const STEP_TIMEOUT_MS = 10_000;

// ---------------------------------------------------------------------------
// Processes

interface Server {
  proc: ChildProcess;
  url: string;
  output(): string;
}

/** `--cpu-prof=<dir>`: V8 CPU profiles of the servers, written when each stops. */
const CPU_PROF = process.argv.find((a) => a.startsWith("--cpu-prof="))?.slice("--cpu-prof=".length);

async function startServer(dir: string): Promise<Server & { remove(): void }> {
  const port = await freePort();
  const data = tempDir("address-flood-");
  const proc = track(
    spawn(
      "taskset",
      [
        "-c",
        "0",
        process.execPath,
        ...SERVER_NODE_FLAGS,
        ...(CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${CPU_PROF}`] : []),
        "--import",
        "tsx",
        "server/index.ts",
      ],
      {
        cwd: dir,
        env: {
          ...process.env,
          NODE_ENV: "production",
          SERVE_PAGES: "0",
          HOST: "127.0.0.1",
          PORT: String(port),
          DATA_DIR: data.dir,
          LOG_LEVEL: "warn",
          METRICS_TOKEN,
          SESSION_CREATE_LIMIT: "100000",
        },
        stdio: ["ignore", "pipe", "pipe"],
      },
    ),
  );
  let out = "";
  const keep = (d: Buffer) => (out = (out + d.toString()).slice(-16_000));
  proc.stdout!.on("data", keep);
  proc.stderr!.on("data", keep);
  const url = `http://127.0.0.1:${port}`;
  const start = Date.now();
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`server exited: ${out}`);
    try {
      if ((await fetch(`${url}/api/health`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() - start > 45_000) throw new Error(`server did not start: ${out}`);
    await sleep(50);
  }
  return { proc, url, output: () => out, remove: data.remove };
}

class Flooder {
  readonly proc: ChildProcess;
  private waiting = new Map<string, (e: FlooderEvent) => void>();
  private inbox: FlooderEvent[] = [];

  constructor() {
    // `nice`: on the driver's core, room A's sockets are served first, so their timings are the server's.
    this.proc = track(
      fork(path.join(__dirname, "addressFlooder.ts"), [], {
        cwd: ROOT,
        execArgv: ["--import", "tsx"],
        stdio: ["ignore", "inherit", "inherit", "ipc"],
      }),
    );
    os.setPriority(this.proc.pid!, 10);
    this.proc.on("message", (e: FlooderEvent) => {
      const w = this.waiting.get(e.ev);
      if (w) {
        this.waiting.delete(e.ev);
        w(e);
      } else this.inbox.push(e);
    });
  }

  send(c: FlooderCommand): void {
    this.proc.send(c);
  }

  next<E extends FlooderEvent["ev"]>(ev: E, ms: number): Promise<Extract<FlooderEvent, { ev: E }>> {
    const i = this.inbox.findIndex((e) => e.ev === ev);
    if (i >= 0) return Promise.resolve(this.inbox.splice(i, 1)[0] as Extract<FlooderEvent, { ev: E }>);
    return withTimeout(new Promise((resolve) => this.waiting.set(ev, resolve as (e: FlooderEvent) => void)), ms, `flooder: ${ev}`);
  }
}

// ---------------------------------------------------------------------------
// The rooms

async function createSession(url: string): Promise<{ code: string; hostKey: string }> {
  const res = await fetch(`${url}/api/sessions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ title: "Address flood" }),
  });
  if (res.status !== 201) throw new Error(`POST /api/sessions: ${res.status} ${await res.text()}`);
  return (await res.json()) as { code: string; hostKey: string };
}

/** A socket that has joined (its first snapshot arrived), or an error with the refusal's code. */
async function joined(
  url: string,
  auth: Record<string, unknown>,
  address: string,
): Promise<{ socket: Socket; token?: string; ms: number }> {
  const t0 = now();
  const socket = connectSocket(url, { v: PROTOCOL_VERSION, ...auth }, address, 10_000);
  let token: string | undefined;
  socket.once("session:welcome", (w: { token?: string }) => (token = w.token));
  try {
    await withTimeout(firstClassSession(socket), 15_000, "join");
  } catch (err) {
    socket.close();
    throw err;
  }
  return { socket, token, ms: now() - t0 };
}

/** ~280 characters of question text, different per question. */
const questionText = (i: number) =>
  `Question ${i}: ${"why does the claim wait for the pod before the volume is bound? ".repeat(5)}`.slice(0, 280);

/** Room B as the attacker prepares it: questions asked by many students (from many addresses), and flood identities. */
async function prepareRoomB(url: string, o: Options): Promise<{ code: string; tokens: string[]; wholeBytes: number }> {
  const room = await createSession(url);
  const askers = Math.ceil(o.questions / 3);
  for (let i = 0; i < askers; i += 20) {
    await Promise.all(
      Array.from({ length: Math.min(20, askers - i) }, async (_, k) => {
        const n = i + k;
        const { socket } = await joined(url, { role: "student", code: room.code, nickname: `Asker ${n}` }, `127.0.3.${1 + (n % 250)}`);
        for (let q = 0; q < 3 && n * 3 + q < o.questions; q++) {
          const ack = (await socket
            .timeout(10_000)
            .emitWithAck("question:ask", { text: questionText(n * 3 + q), target: { kind: "step", stepIndex: 0 } })) as { ok: boolean };
          if (!ack.ok) throw new Error(`question:ask: ${JSON.stringify(ack)}`);
        }
        socket.close();
      }),
    );
  }
  const tokens: string[] = [];
  for (let i = 0; i < o.sockets; i += 25) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(25, o.sockets - i) }, async (_, k) => {
        const n = i + k;
        const j = await joined(url, { role: "student", code: room.code, nickname: `Flood ${n}` }, `127.0.4.${1 + (n % 250)}`);
        j.socket.close();
        return j.token!;
      }),
    );
    tokens.push(...batch);
  }
  // What a whole patch of the class's records weighs now (the question batches are sent within 250 ms).
  await sleep(500);
  const probe = connectSocket(url, { v: PROTOCOL_VERSION, role: "projector", code: room.code }, "127.0.0.98", 10_000);
  const wholeBytes = await withTimeout(
    new Promise<number>((resolve) => probe.on("session:patch", (p: Patch) => p.whole && resolve(JSON.stringify(p).length))),
    10_000,
    "room B's whole patch",
  );
  probe.close();
  return { code: room.code, tokens, wholeBytes };
}

interface RoomA {
  code: string;
  teacher: Socket;
  students: Socket[];
}

async function prepareRoomA(url: string, o: Options): Promise<RoomA> {
  const room = await createSession(url);
  const teacher = connectSocket(url, { v: PROTOCOL_VERSION, role: "host", code: room.code, hostKey: room.hostKey }, "127.0.0.1", 10_000);
  await withTimeout(new Promise((r) => teacher.once("session:patch", r)), 10_000, "teacher join");
  const students = await Promise.all(
    Array.from(
      { length: o.students },
      async (_, i) => (await joined(url, { role: "student", code: room.code, nickname: `A${i}` }, `127.0.0.${2 + (i % 20)}`)).socket,
    ),
  );
  return { code: room.code, teacher, students };
}

// ---------------------------------------------------------------------------
// A phase: steps in room A, late joiners, the server's event-loop delay

interface PhaseResult {
  fanoutMs: number[];
  lateJoinMs: number[];
  lateJoinFailed: number;
  loopP99Ms: number;
  loopMaxMs: number;
}

async function loopDelay(url: string): Promise<{ p99: number; max: number }> {
  const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  const text = await res.text();
  const read = (name: string) => Number(new RegExp(`^${name} ([0-9.e+-]+)`, "m").exec(text)?.[1] ?? NaN) * 1000;
  return { p99: read("nodejs_eventloop_lag_p99_seconds"), max: read("nodejs_eventloop_lag_max_seconds") };
}

let stepSeq = 0;

async function phase(url: string, a: RoomA, o: Options, lateFrom: number): Promise<PhaseResult> {
  await loopDelay(url); // prom-client resets its histogram at each scrape: what follows is this phase's
  const fanoutMs: number[] = [];
  const lateJoinMs: number[] = [];
  let lateJoinFailed = 0;
  let measuring = true;
  // Late joiners: one every lateEveryMs, each from an address of its own, new to room A.
  const late = (async () => {
    for (let i = 0; measuring; i++) {
      await sleep(o.lateEveryMs);
      if (!measuring) break;
      try {
        const j = await joined(
          url,
          { role: "student", code: a.code, nickname: `Late ${lateFrom + i}` },
          `127.0.1.${1 + ((lateFrom + i) % 250)}`,
        );
        lateJoinMs.push(j.ms);
        j.socket.close();
      } catch {
        lateJoinFailed += 1;
      }
    }
  })();
  // Steps the whole phase through, one after another: a freeze of the server cannot fall between two of them.
  const endAt = now() + o.seconds * 1000;
  while (now() < endAt) {
    const stepIndex = 1 + (stepSeq++ % 2);
    const sentAt = now();
    const arrivals = a.students.map(
      (s) =>
        new Promise<number>((resolve) => {
          const timer = setTimeout(() => {
            s.off("session:patch", on);
            resolve(STEP_TIMEOUT_MS);
          }, STEP_TIMEOUT_MS);
          const on = (p: Patch) => {
            if (classSession(p)?.stepIndex !== stepIndex) return;
            clearTimeout(timer);
            s.off("session:patch", on);
            resolve(now() - sentAt);
          };
          s.on("session:patch", on);
        }),
    );
    a.teacher.emit("step:go", { stepIndex }, () => undefined);
    fanoutMs.push(maxOf(await Promise.all(arrivals)));
    await sleep(150);
  }
  measuring = false;
  await late;
  const loop = await loopDelay(url);
  return { fanoutMs, lateJoinMs, lateJoinFailed, loopP99Ms: loop.p99, loopMaxMs: loop.max };
}

// ---------------------------------------------------------------------------
// One run: a fresh server of one checkout, quiet then flooded

interface RunResult {
  root: string;
  kind: FloodMode;
  rep: number;
  wholeBytes: number;
  quiet: PhaseResult;
  flood: PhaseResult;
  stats: AddressFloodStats;
  joined: number;
  serverCpuMsPerS: { quiet: number; flood: number };
}

/** The node process under `taskset` (its only child, once it has exec'd: taskset execs in place). */
const serverPid = (s: Server) => s.proc.pid!;

async function run(root: { name: string; dir: string }, kind: FloodMode, rep: number, o: Options, flooder: Flooder): Promise<RunResult> {
  const server = await startServer(root.dir);
  const log = (line: string) => console.error(`[${root.name} ${kind} ${rep}] ${line}`);
  try {
    const b = await prepareRoomB(server.url, o);
    log(`room B: ${o.questions} questions, whole patch ${(b.wholeBytes / 1024).toFixed(0)} KiB; ${b.tokens.length} flood identities`);
    const a = await prepareRoomA(server.url, o);
    await sleep(1_000);
    const pid = serverPid(server);
    let t0 = now();
    let c0 = cpuMs(pid);
    const quiet = await phase(server.url, a, o, rep * 100);
    const quietCpu = (cpuMs(pid) - c0) / ((now() - t0) / 1000);
    flooder.send({ cmd: "start", mode: kind, url: server.url, code: b.code, tokens: b.tokens, address: FLOOD_ADDRESS, perSecond: o.rate });
    const f = await flooder.next("flooding", 40_000);
    log(`${f.joined} flood sockets joined in ${f.joinMs.toFixed(0)} ms`);
    await sleep(1_000);
    t0 = now();
    c0 = cpuMs(pid);
    const flood = await phase(server.url, a, o, rep * 100 + 50);
    const floodCpu = (cpuMs(pid) - c0) / ((now() - t0) / 1000);
    flooder.send({ cmd: "stop" });
    const { stats } = await flooder.next("stopped", 60_000);
    log(`fan-out median quiet ${fmt(median(quiet.fanoutMs))} ms, flood ${fmt(median(flood.fanoutMs))} ms; flood ${JSON.stringify(stats)}`);
    a.teacher.close();
    for (const s of a.students) s.close();
    return {
      root: root.name,
      kind,
      rep,
      wholeBytes: b.wholeBytes,
      quiet,
      flood,
      stats,
      joined: f.joined,
      serverCpuMsPerS: { quiet: quietCpu, flood: floodCpu },
    };
  } catch (err) {
    throw new Error(`${root.name} ${kind} ${rep}: ${(err as Error).message}\n--- server output ---\n${server.output().slice(-3_000)}`, {
      cause: err,
    });
  } finally {
    await stopProcess(server.proc, 5_000);
    server.remove();
  }
}

// ---------------------------------------------------------------------------
// The report

const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.max(0, Math.ceil(0.95 * xs.length) - 1))] ?? NaN;

function report(results: RunResult[], o: Options): string {
  const out: string[] = [];
  for (const kind of o.kinds) {
    const rows: string[][] = [];
    const cell = (root: string) => results.filter((r) => r.kind === kind && r.root === root);
    for (const root of o.roots) {
      const runs = cell(root.name);
      if (runs.length === 0) continue;
      const m = (f: (r: RunResult) => number) => runMedian(runs.map(f));
      const spread = (f: (r: RunResult) => number) => `${fmt(m(f))} [${fmt(Math.min(...runs.map(f)))}–${fmt(Math.max(...runs.map(f)))}]`;
      const quietFan = m((r) => median(r.quiet.fanoutMs));
      const floodFan = m((r) => median(r.flood.fanoutMs));
      const sec = (r: RunResult) => Math.max(1, r.stats.seconds);
      rows.push([
        root.name,
        spread((r) => median(r.quiet.fanoutMs)),
        spread((r) => median(r.flood.fanoutMs)),
        ratio(floodFan, quietFan),
        `${fmt(quietFan * 2 + 5)}`,
        spread((r) => p95(r.flood.fanoutMs)),
        spread((r) => maxOf(r.flood.fanoutMs)),
        spread((r) => median(r.quiet.lateJoinMs)),
        spread((r) => median(r.flood.lateJoinMs)),
        spread((r) => maxOf(r.flood.lateJoinMs)),
        `${runs.reduce((s, r) => s + r.flood.lateJoinFailed, 0)}`,
        `${fmt(m((r) => r.quiet.loopP99Ms))} → ${fmt(m((r) => r.flood.loopP99Ms))}`,
        `${fmt(
          m((r) => r.serverCpuMsPerS.quiet),
          0,
        )} → ${fmt(
          m((r) => r.serverCpuMsPerS.flood),
          0,
        )}`,
        `${fmt(
          m((r) => r.stats.bytesReceived / sec(r) / 1024 / 1024),
          2,
        )}`,
        `${fmt(
          m((r) => (r.stats.acks.ok ?? 0) / sec(r)),
          0,
        )} / ${fmt(
          m((r) => (r.stats.framesSent - (r.stats.acks.ok ?? 0)) / sec(r)),
          0,
        )}`,
        `${fmt(
          m((r) => r.stats.wholePatches / sec(r)),
          1,
        )}`,
        `${fmt(
          m((r) => r.stats.closedByServer),
          0,
        )}`,
      ]);
    }
    const whole = results.find((r) => r.kind === kind)?.wholeBytes ?? 0;
    out.push(
      `\n### ${kind} flood: ${o.sockets} sockets from ${FLOOD_ADDRESS}${kind === "resync" ? ` at ${o.rate}/s each` : ", 16 KiB nested frames"}; room B's whole class patch ${(whole / 1024).toFixed(0)} KiB; room A: ${o.students} students stepped for ${o.seconds} s a phase (quiet, then flooded), a late joiner every ${o.lateEveryMs} ms; ${o.reps} runs (median of runs [min–max])\n`,
    );
    out.push(
      table(
        [
          "server",
          "fan-out quiet (ms)",
          "fan-out flood (ms)",
          "flood/quiet",
          "bound 2x+5 (ms)",
          "fan-out flood p95 (ms)",
          "fan-out flood max (ms)",
          "late join quiet (ms)",
          "late join flood (ms)",
          "late join flood max (ms)",
          "late joins failed",
          "loop delay p99 quiet → flood (ms)",
          "server CPU ms/s quiet → flood",
          "sent to flooder (MiB/s)",
          "flood frames answered ok / refused-or-unanswered per s",
          "whole patches to flooder /s",
          "flood sockets closed",
        ],
        rows,
      ),
    );
  }
  return out.join("\n");
}

async function main(): Promise<void> {
  const o = parseOptions(process.argv.slice(2));
  // This driver (room A's sockets) on core 1 with the flooder; the servers on core 0.
  try {
    execFileSync("taskset", ["-a", "-p", "-c", "1", String(process.pid)], { stdio: "ignore" });
  } catch {
    console.error("taskset failed: the driver is not pinned");
  }
  const flooder = new Flooder();
  await flooder.next("ready", 30_000);
  execFileSync("taskset", ["-a", "-p", "-c", "1", String(flooder.proc.pid)], { stdio: "ignore" });
  const results: RunResult[] = [];
  const started = now();
  for (let rep = 1; rep <= o.reps; rep++) {
    for (const kind of o.kinds) {
      for (const root of o.roots) results.push(await run(root, kind, rep, o, flooder));
    }
  }
  console.log(report(results, o));
  console.log(`\n${o.roots.map((r) => `${r.name}: ${r.dir}`).join("; ")}; ${((now() - started) / 1000).toFixed(0)} s`);
  flooder.proc.kill();
  process.exit(0);
}

void main();
