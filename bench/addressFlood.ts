import { execFileSync, fork, spawn, type ChildProcess } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { SERVER_NODE_FLAGS } from "../lib/constants";
import type { Patch } from "../lib/protocol";
import { freePort, stopProcess } from "../tests/support/loopback";
import type { FloodMode, FlooderCommand, FlooderEvent } from "./addressFlooder";
import { FLOOD_ADDRESS, METRICS_TOKEN, STEP_TIMEOUT_MS, parseOptions, type Options } from "./addressFloodOptions";
import { report, type PhaseResult, type RunResult } from "./addressFloodReport";
import { joined, prepareRoomA, prepareRoomB, type RoomA } from "./addressFloodRooms";
import { now } from "./messages";
import { cpuMs } from "./proc";
import { classSession } from "./patch";
import { ROOT, tempDir, track } from "./processes";
import { fmt, maxOf, median } from "./stats";
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
// A phase: steps in room A, late joiners, the server's event-loop delay

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
