import { fork, spawn, type ChildProcess } from "node:child_process";
import { accessSync, constants as fsConstants, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { createClient } from "redis";
import { io, type ManagerOptions, type Socket, type SocketOptions } from "socket.io-client";
import { PROTOCOL_VERSION } from "../lib/protocol";
import { now, type DriverCommand, type ServerKind, type WorkerEvent } from "./messages";
import { noisyOptions, noisyPlan, noisyReport, runNoisy, type NoisyResult } from "./noisy";
import { busyShare, CLOCK_TICKS, cpuMs, machineTicks, rssBytes } from "./proc";

/**
 * The load benchmark: the product's real server and a bare socket.io server
 * (bench/bareServer.ts) under the same simulated class, in one run.
 *
 *   npm run bench                       # N = 100, 1000; 25 steps; every cell 3 times, interleaved
 *   npm run bench -- --n=100,1000,5000 --steps=30
 *   npm run bench -- --reps=5           # every cell 5 times (median [min–max])
 *   npm run bench -- --only=product     # or bare
 *   npm run bench -- --cpu-prof=/tmp/prof   # CPU profiles of the servers
 *   npm run bench -- --cluster=3        # also K product nodes on one Redis
 *   npm run bench -- --noisy            # only the noisy-neighbour scenario (bench/noisy.ts)
 *
 * Every (server, N) cell runs --reps times (3), interleaved: product, bare
 * (, cluster), product, bare, ... Prints a table per metric with product,
 * bare and product/bare (and, with --cluster=K, product×K (Redis) and its
 * ratio to bare): each cell is the median of the runs with [min–max], each
 * ratio divides medians. Writes bench/results/latest.json (every run).
 * Figures, not pass/fail. See bench/README.md.
 */

const ROOT = path.resolve(__dirname, "..");
const RESULTS_DIR = path.join(__dirname, "results");

// ---------------------------------------------------------------------------
// Options

function arg(name: string): string | undefined {
  const hit = process.argv.slice(2).find((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (!hit) return undefined;
  return hit.includes("=") ? hit.slice(hit.indexOf("=") + 1) : "true";
}

/** The default class sizes; 5,000 on request (--n=100,1000,5000): 3 interleaved runs of it would take the default run past 6 minutes. */
const DEFAULT_NS = "100,1000";
const NS = (arg("n") ?? DEFAULT_NS)
  .split(",")
  .map((s) => Number(s.trim().replace(/_/g, "")))
  .filter((n) => Number.isInteger(n) && n > 0);
const STEPS = Math.max(2, Math.min(200, Number(arg("steps") ?? 25)));
const WORKERS = Math.max(1, Math.min(8, Number(arg("workers") ?? 2)));
/** --reps=N: runs of every (server, N) cell, interleaved across the servers (3). */
const REPS = Number(arg("reps") ?? 3);
const ONLY = arg("only") as ServerKind | undefined;
/** --cluster=K: also run K product processes sharing one redis-server (REDIS_URL), students round-robin over them. */
const CLUSTER_ARG = arg("cluster");
const CLUSTER = CLUSTER_ARG === undefined ? 0 : Number(CLUSTER_ARG);
const ALL_KINDS: ServerKind[] = CLUSTER ? ["product", "bare", "cluster"] : ["product", "bare"];
const KINDS: ServerKind[] = ONLY && ALL_KINDS.includes(ONLY) ? [ONLY] : ALL_KINDS;
/** Source addresses for the students: 127.0.0.2 .. 127.0.0.31, round-robin. */
const ADDRESSES = Array.from({ length: 30 }, (_, i) => `127.0.0.${i + 2}`);
/** --cpu-prof=DIR: write a V8 CPU profile of each server process into DIR (open it in Chrome DevTools). */
const CPU_PROF_DIR = arg("cpu-prof");
const profileArgs = CPU_PROF_DIR ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(CPU_PROF_DIR)}`] : [];
const JOIN_WINDOW = 100; // connections in flight per worker
const VOTE_SPREAD_MS = 1_000;
/** --noisy[=N]: instead of the cells above, the noisy-neighbour scenario (bench/noisy.ts) with N quiet students (200). */
const NOISY = arg("noisy") !== undefined ? noisyOptions(arg, { steps: STEPS, workers: WORKERS }) : null;

if (CLUSTER_ARG !== undefined && !(Number.isInteger(CLUSTER) && CLUSTER >= 2 && CLUSTER <= 8)) {
  console.error("--cluster=K takes the number of product nodes, 2..8 (e.g. --cluster=3).");
  process.exit(2);
}
if (ONLY && !ALL_KINDS.includes(ONLY)) {
  console.error(`--only takes ${ALL_KINDS.join(" or ")}${CLUSTER ? "" : " (cluster needs --cluster=K)"}.`);
  process.exit(2);
}
if (!(Number.isInteger(REPS) && REPS >= 1 && REPS <= 20)) {
  console.error("--reps=N takes the number of runs of every cell, 1..20 (default 3).");
  process.exit(2);
}
if (NS.length === 0 || NS.some((n) => n > 10_000)) {
  console.error("--n takes a comma-separated list of class sizes, each 1..10000 (the product caps a session at 10,000).");
  process.exit(2);
}

// ---------------------------------------------------------------------------
// Child processes: every one is tracked and killed on any exit path.

const children = new Set<ChildProcess>();
const tempDirs = new Set<string>();

function track(child: ChildProcess): ChildProcess {
  children.add(child);
  child.once("exit", () => children.delete(child));
  return child;
}

function killAll(): void {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  tempDirs.clear();
}

process.on("exit", killAll);
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(signal, () => {
    console.error(`\n${signal}: stopping the benchmark`);
    killAll();
    process.exit(130);
  });
}
process.on("uncaughtException", (err) => {
  console.error(err);
  killAll();
  process.exit(1);
});
process.on("unhandledRejection", (err) => {
  console.error(err);
  killAll();
  process.exit(1);
});

async function stop(child: ChildProcess, graceMs = 3_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
  await exited;
  clearTimeout(timer);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
    }),
  ]);
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** The product×K column's name, e.g. "product×3 (Redis)". */
const label = (kind: ServerKind) => (kind === "cluster" ? `product×${CLUSTER} (Redis)` : kind);

/** RSS of the server: the sum over the cluster's nodes (Redis itself not included). */
function serverRss(server: RunningServer): number {
  return server.procs.reduce((sum, p) => sum + rssBytes(p.pid!), 0);
}

/**
 * RSS after a forced full GC: every server process is started with
 * --expose-gc and runs global.gc() on SIGUSR2 (server/index.ts,
 * bench/bareServer.ts). Two GCs 300 ms apart (the second collects what the
 * first one's finalisers freed), then the RSS is read every 100 ms until three
 * readings in a row are within 0.5 % of each other (V8 and the allocator give
 * pages back over a few hundred ms after the collection), at most 5 s.
 */
async function rssAfterGc(server: RunningServer): Promise<{ bytes: number; beforeGcBytes: number; settleMs: number; settled: boolean }> {
  const beforeGcBytes = serverRss(server);
  const start = Date.now();
  for (let i = 0; i < 2; i++) {
    for (const p of server.procs) p.kill("SIGUSR2");
    await sleep(300);
  }
  const readings: number[] = [];
  for (;;) {
    readings.push(serverRss(server));
    const last = readings.slice(-3);
    const settled = last.length === 3 && (Math.max(...last) - Math.min(...last)) / Math.max(...last) < 0.005;
    if (settled || Date.now() - start > 5_000)
      return { bytes: readings[readings.length - 1], beforeGcBytes, settleMs: Date.now() - start, settled };
    await sleep(100);
  }
}

/** CPU time (utime + stime) used so far by the server's processes, in ms; the cluster's includes its redis-server. */
function serverCpuMs(server: RunningServer): number {
  return server.cpuPids.reduce((sum, pid) => sum + cpuMs(pid), 0);
}

// ---------------------------------------------------------------------------
// Servers

interface RunningServer {
  kind: ServerKind;
  /** the server processes whose RSS is measured: one, or the K cluster nodes */
  procs: ChildProcess[];
  /** where the teacher connects and the session is created (cluster: node 1) */
  url: string;
  /** where students connect, round-robin by global index */
  urls: string[];
  /** the processes whose CPU time is measured: the server processes, and for the cluster its redis-server too */
  cpuPids: number[];
  output(): string;
  stop(): Promise<void>;
}

const serverGraceMs = () => (CPU_PROF_DIR ? 20_000 : 3_000);

function spawnTracked(args: string[], env: NodeJS.ProcessEnv): { proc: ChildProcess; output: () => string } {
  const proc = track(spawn(process.execPath, args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] }));
  let out = "";
  const keep = (d: Buffer) => {
    out = (out + d.toString()).slice(-16_000);
  };
  proc.stdout!.on("data", keep);
  proc.stderr!.on("data", keep);
  return { proc, output: () => out };
}

async function waitHealthy(url: string, proc: ChildProcess, output: () => string): Promise<void> {
  const start = Date.now();
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`server exited (${proc.exitCode}):\n${output()}`);
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() - start > 30_000) throw new Error(`server did not start within 30 s:\n${output()}`);
    await sleep(50);
  }
}

async function startServer(kind: ServerKind): Promise<RunningServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  if (kind === "bare") {
    const { proc, output } = spawnTracked(
      [...profileArgs, "--expose-gc", "--import", "tsx", path.join(__dirname, "bareServer.ts"), `--port=${port}`],
      {
        ...process.env,
        NODE_ENV: "production",
      },
    );
    await waitHealthy(url, proc, output);
    return { kind, procs: [proc], url, urls: [url], cpuPids: [proc.pid!], output, stop: () => stop(proc, serverGraceMs()) };
  }
  if (kind === "cluster") return startCluster(CLUSTER);
  const node = await startProductNode(port, {});
  return {
    kind,
    procs: [node.proc],
    url,
    urls: [url],
    cpuPids: [node.proc.pid!],
    output: node.output,
    stop: () => stop(node.proc, serverGraceMs()),
  };
}

/** One `node --expose-gc --import tsx server/index.ts` with a temporary DATA_DIR (removed when it exits); SIGUSR2 runs a full GC. */
async function startProductNode(port: number, env: Record<string, string>): Promise<{ proc: ChildProcess; output: () => string }> {
  const url = `http://127.0.0.1:${port}`;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "classroom-bench-"));
  tempDirs.add(dataDir);
  const { proc, output } = spawnTracked([...profileArgs, "--expose-gc", "--import", "tsx", "server/index.ts"], {
    ...process.env,
    NODE_ENV: "production",
    SERVE_PAGES: "0",
    HOST: "127.0.0.1",
    PORT: String(port),
    DATA_DIR: dataDir,
    LOG_LEVEL: "warn",
    ...env,
  });
  proc.once("exit", () => {
    rmSync(dataDir, { recursive: true, force: true });
    tempDirs.delete(dataDir);
  });
  await waitHealthy(`${url}/api/health`, proc, output);
  return { proc, output };
}

// --- The cluster: one throwaway redis-server and K product nodes with REDIS_URL

/** redis-server from PATH, or null. */
function redisServerPath(): string | null {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, "redis-server");
    try {
      accessSync(candidate, fsConstants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

async function startRedis(): Promise<{ proc: ChildProcess; url: string; output: () => string }> {
  const bin = redisServerPath();
  if (!bin) throw new Error("--cluster needs redis-server on PATH (Debian: apt-get install -y redis-server).");
  const port = await freePort();
  const proc = track(
    spawn(
      bin,
      ["--bind", "127.0.0.1", "--port", String(port), "--save", "", "--appendonly", "no", "--daemonize", "no", "--protected-mode", "yes"],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    ),
  );
  let out = "";
  const keep = (d: Buffer) => {
    out = (out + d.toString()).slice(-8_000);
  };
  proc.stdout!.on("data", keep);
  proc.stderr!.on("data", keep);
  const start = Date.now();
  while (!/Ready to accept connections/.test(out)) {
    if (proc.exitCode !== null || proc.signalCode !== null)
      throw new Error(`redis-server exited (${proc.exitCode ?? proc.signalCode}):\n${out}`);
    if (Date.now() - start > 10_000) throw new Error(`redis-server did not start within 10 s:\n${out}`);
    await sleep(50);
  }
  return { proc, url: `redis://127.0.0.1:${port}`, output: () => out };
}

/** A short-lived Redis connection (the product's own client library) for one or two bounded queries. */
interface QueryClient {
  keys(pattern: string): Promise<string[]>;
  get(key: string): Promise<string | null>;
}
async function withRedis<T>(url: string, fn: (client: QueryClient) => Promise<T>): Promise<T> {
  const client = createClient({ url, RESP: 2, socket: { connectTimeout: 5_000, reconnectStrategy: false } });
  client.on("error", () => undefined); // surfaced by the commands below
  await withTimeout(client.connect(), 5_000, "redis connect");
  try {
    return await withTimeout(fn(client as unknown as QueryClient), 5_000, "redis query");
  } finally {
    client.destroy();
  }
}

/** The node ids heartbeating in Redis (server/scaleout/clusterGateway.ts: cls:node:{id}). */
async function liveNodeIds(redisUrl: string): Promise<string[]> {
  const keys = await withRedis(redisUrl, (c) => c.keys("cls:node:*"));
  return keys.map((k) => k.slice("cls:node:".length)).sort();
}

/** The owners recorded for live sessions (cls:owner:{sessionId} → node id). */
async function sessionOwners(redisUrl: string): Promise<string[]> {
  return withRedis(redisUrl, async (c) => {
    const keys = await c.keys("cls:owner:*");
    const owners: string[] = [];
    for (const k of keys) owners.push(String(await c.get(k)));
    return owners;
  });
}

interface ClusterInfo {
  redisUrl: string;
  /** node ids by node index (node 1 = index 0), read from the heartbeat keys as the nodes started */
  nodeIds: string[];
}
const clusterInfo = new WeakMap<RunningServer, ClusterInfo>();

async function startCluster(k: number): Promise<RunningServer> {
  const redis = await startRedis();
  const nodes: { proc: ChildProcess; output: () => string; url: string }[] = [];
  const nodeIds: string[] = [];
  const stopAll = async () => {
    await Promise.all(nodes.map((nd) => stop(nd.proc, serverGraceMs())));
    await stop(redis.proc, 3_000);
  };
  const output = () =>
    [
      ...nodes.map((nd, i) => `--- node ${i + 1} (${nd.url})\n${nd.output().slice(-3_000)}`),
      `--- redis\n${redis.output().slice(-1_000)}`,
    ].join("\n");
  try {
    const env = { REDIS_URL: redis.url, SESSION_CREATE_LIMIT: "100000" };
    // Node 1 alone first, so its heartbeat key tells us its id; then the others together.
    for (const batch of [[0], Array.from({ length: k - 1 }, (_, i) => i + 1)]) {
      const before = new Set(await liveNodeIds(redis.url));
      const started = await Promise.all(
        batch.map(async () => {
          const port = await freePort();
          const node = await startProductNode(port, env);
          return { ...node, url: `http://127.0.0.1:${port}` };
        }),
      );
      nodes.push(...started);
      if (batch.length === 1 && batch[0] === 0) {
        const fresh = (await liveNodeIds(redis.url)).filter((id) => !before.has(id));
        if (fresh.length !== 1) throw new Error(`expected node 1's heartbeat key in Redis, found ${fresh.length}`);
        nodeIds.push(fresh[0]);
      } else {
        nodeIds.push(...(await liveNodeIds(redis.url)).filter((id) => !before.has(id) && id !== nodeIds[0]));
      }
    }
    if (new Set(await liveNodeIds(redis.url)).size < k) throw new Error(`fewer than ${k} cluster nodes are heartbeating in Redis`);
  } catch (err) {
    const message = `${(err as Error).message}\n${output()}`;
    await stopAll();
    throw new Error(message, { cause: err });
  }
  const server: RunningServer = {
    kind: "cluster",
    procs: nodes.map((nd) => nd.proc),
    url: nodes[0].url,
    urls: nodes.map((nd) => nd.url),
    cpuPids: [...nodes.map((nd) => nd.proc.pid!), redis.proc.pid!],
    output,
    stop: stopAll,
  };
  clusterInfo.set(server, { redisUrl: redis.url, nodeIds });
  return server;
}

// ---------------------------------------------------------------------------
// Teacher (in this process) and client workers (separate processes)

type Snap = { stepIndex?: number; poll?: { id: string; options?: { id: string }[] } | null };

interface Teacher {
  socket: Socket;
  /** the product: a room code; the bare server: "" */
  code: string;
  latestSnapshot: Snap | null;
  /** sends a command and resolves with its ack (bounded) */
  command(event: string, payload: unknown): Promise<{ ok?: boolean; data?: unknown; error?: { code: string } }>;
}

async function connectTeacher(server: RunningServer): Promise<Teacher> {
  let code = "";
  let auth: Record<string, unknown> = { role: "host" };
  if (server.kind !== "bare") {
    const res = await fetch(`${server.url}/api/sessions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ title: "Benchmark" }),
    });
    if (res.status !== 201) throw new Error(`POST /api/sessions: ${res.status} ${await res.text()}`);
    const session = (await res.json()) as { code: string; hostKey: string };
    code = session.code;
    auth = { v: PROTOCOL_VERSION, role: "host", code, hostKey: session.hostKey };
  }
  const socket = io(server.url, {
    transports: ["websocket"],
    reconnection: false,
    forceNew: true,
    auth,
    localAddress: "127.0.0.1",
  } as Partial<ManagerOptions & SocketOptions>);
  const teacher: Teacher = {
    socket,
    code,
    latestSnapshot: null,
    // Never rejects (a late ack must not become an unhandled rejection while the driver waits elsewhere).
    command: (event, payload) =>
      socket
        .timeout(30_000)
        .emitWithAck(event, payload)
        .catch((err: Error) => ({ ok: false, error: { code: `no ack: ${err.message}` } })),
  };
  socket.on("session:snapshot", (snap: Snap) => {
    teacher.latestSnapshot = snap;
  });
  await withTimeout(
    new Promise<void>((resolve, reject) => {
      socket.once("connect", () => resolve());
      socket.once("connect_error", (err) => reject(err));
    }),
    10_000,
    "teacher connect",
  );
  return teacher;
}

class Worker {
  readonly proc: ChildProcess;
  private inbox: WorkerEvent[] = [];
  private waiters: { match: (e: WorkerEvent) => boolean; resolve: (e: WorkerEvent) => void }[] = [];

  constructor(readonly index: number) {
    this.proc = track(
      fork(path.join(__dirname, "worker.ts"), [], {
        cwd: ROOT,
        execArgv: ["--import", "tsx"],
        stdio: ["ignore", "inherit", "inherit", "ipc"],
      }),
    );
    this.proc.on("message", (event: WorkerEvent) => {
      if (event.ev === "error") console.error(`worker ${index}: ${event.message}`);
      const i = this.waiters.findIndex((w) => w.match(event));
      if (i >= 0) this.waiters.splice(i, 1)[0].resolve(event);
      else this.inbox.push(event);
    });
  }

  send(command: DriverCommand): void {
    this.proc.send(command);
  }

  /** The next event of this kind (buffered if it already came), or a timeout error. */
  next<E extends WorkerEvent["ev"]>(ev: E, timeoutMs: number): Promise<Extract<WorkerEvent, { ev: E }>> {
    const match = (e: WorkerEvent) => e.ev === ev;
    const i = this.inbox.findIndex(match);
    if (i >= 0) return Promise.resolve(this.inbox.splice(i, 1)[0] as Extract<WorkerEvent, { ev: E }>);
    let waiter: { match: (e: WorkerEvent) => boolean; resolve: (e: WorkerEvent) => void };
    const promise = new Promise<WorkerEvent>((resolve) => {
      waiter = { match, resolve };
      this.waiters.push(waiter);
    });
    return withTimeout(promise, timeoutMs, `worker ${this.index}: ${ev}`).catch((err) => {
      this.waiters = this.waiters.filter((w) => w !== waiter);
      throw err;
    }) as Promise<Extract<WorkerEvent, { ev: E }>>;
  }

  async close(): Promise<void> {
    if (this.proc.exitCode !== null || !this.proc.connected) return;
    try {
      this.send({ cmd: "close" });
      await this.next("closed", 5_000);
    } catch {
      // killed below
    }
    await stop(this.proc, 2_000);
  }
}

// ---------------------------------------------------------------------------
// Statistics

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil(q * sorted.length) - 1; // nearest rank
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))];
}
const sortNum = (xs: number[]) => [...xs].sort((a, b) => a - b);
const median = (xs: number[]) => quantile(sortNum(xs), 0.5);
const p99 = (xs: number[]) => quantile(sortNum(xs), 0.99);
const maxOf = (xs: number[]) => xs.reduce((m, x) => Math.max(m, x), -Infinity);

// ---------------------------------------------------------------------------
// One scenario: one server, N students

interface ScenarioResult {
  kind: ServerKind;
  n: number;
  /** 1-based: the run of this cell (--reps) */
  run: number;
  join: { ok: number; failed: number; errors: Record<string, number>; allMs: number; medianMs: number; p99Ms: number };
  /** RSS after a forced GC (rssAfterGc); the *NoGc figures are the readings just before it */
  memory: {
    beforeBytes: number;
    afterBytes: number;
    perStudentBytes: number;
    beforeNoGcBytes: number;
    afterNoGcBytes: number;
    gcSettleMs: number[];
    gcSettled: boolean;
  };
  /**
   * CPU time (utime + stime, /proc/<pid>/stat) over a phase. Server: the server
   * process (cluster: every node and redis-server); workers: the client worker
   * processes; machineBusy: the share of all cores busy (every process).
   */
  cpu: {
    joinServerMs: number;
    joinServerUsPerStudent: number;
    stepServerMs: number;
    stepServerMsPerStep: number;
    stepWorkersMsPerStep: number;
    stepMachineBusy: number;
    voteServerMs: number;
    voteServerUsPerVote: number;
    voteWorkersUsPerVote: number;
    voteMachineBusy: number;
  };
  fanout: {
    steps: number;
    lastMs: number[];
    medianStudentMs: number[];
    missing: number;
    lastMedian: number;
    lastP99: number;
    medianStudentMedian: number;
  };
  vote: {
    sent: number;
    acked: number;
    ackErrors: Record<string, number>;
    ackTimeouts: number;
    ackMedianMs: number;
    ackP99Ms: number;
    ackMaxMs: number;
    finalTotal: number | null;
    lost: number;
    closeToAllMs: number;
    studentsWithFinal: number;
    studentsWrongTotal: number;
    studentsMissingFinal: number;
    tallyMessages: number;
    talliesPerStudent: number;
    talliesMaxPerStudent: number;
    pollSeconds: number;
    talliesPerStudentPerSecond: number;
    disconnects: Record<string, number>;
  } | null;
  errors: string[];
}

function log(line: string): void {
  process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
}

async function runScenario(kind: ServerKind, n: number, run: number): Promise<ScenarioResult> {
  const errors: string[] = [];
  const tag = `${label(kind)} N=${n} run ${run}/${REPS}`;
  const [server, workers] = await Promise.all([
    startServer(kind),
    (async () => {
      const ws = Array.from({ length: Math.min(WORKERS, n) }, (_, i) => new Worker(i));
      await Promise.all(ws.map((w) => w.next("ready", 30_000)));
      return ws;
    })(),
  ]);
  let teacher: Teacher | null = null;
  try {
    teacher = await connectTeacher(server);
    const t = teacher;
    const stepCommand = (stepIndex: number) => (kind !== "bare" ? t.command("step:go", { stepIndex }) : t.command("step", { stepIndex }));

    // Warm-up: the code paths the measurement uses, then let the heap settle.
    await stepCommand(1);
    await stepCommand(0);
    await sleep(1_000);
    const before = await rssAfterGc(server);
    const workersCpu = () => workers.reduce((sum, w) => sum + cpuMs(w.proc.pid!), 0);

    // Cluster: node 1 must own the session (the teacher joined there first), so
    // students on the other nodes exercise the forwarding and the adapter.
    const cluster = clusterInfo.get(server);
    let owner: string | null = null;
    if (cluster) {
      const owners = await sessionOwners(cluster.redisUrl);
      owner = owners.length === 1 ? owners[0] : null;
      if (owner !== cluster.nodeIds[0])
        errors.push(`cluster: the session's owner is ${JSON.stringify(owners)}, not node 1 (${cluster.nodeIds[0]})`);
      log(`${tag}: session owned by node ${cluster.nodeIds.indexOf(owner ?? "") + 1} of ${cluster.nodeIds.length}`);
    }

    // --- 4. Join storm
    log(`${tag}: join storm`);
    const shares = workers.map((_, i) => Math.floor(n / workers.length) + (i < n % workers.length ? 1 : 0));
    const joinTimeoutMs = 30_000 + n * 20;
    const joinCpu0 = serverCpuMs(server);
    const joinStart = now();
    let offset = 0;
    workers.forEach((w, i) => {
      w.send({
        cmd: "join",
        kind,
        urls: server.urls,
        code: t.code,
        offset,
        count: shares[i],
        total: n,
        addresses: ADDRESSES,
        window: JOIN_WINDOW,
        timeoutMs: joinTimeoutMs,
      });
      offset += shares[i];
    });
    const joined = await Promise.all(workers.map((w) => w.next("joined", joinTimeoutMs + 10_000)));
    const joinServerMs = serverCpuMs(server) - joinCpu0;
    const firstAt = joined.flatMap((j) => j.firstSnapshotAt).map((at) => at - joinStart);
    const joinErrors: Record<string, number> = {};
    for (const j of joined) for (const [k, v] of Object.entries(j.errors)) joinErrors[k] = (joinErrors[k] ?? 0) + v;
    const joinedCount = joined.reduce((s, j) => s + j.ok, 0);
    const join = {
      ok: joinedCount,
      failed: joined.reduce((s, j) => s + j.failed, 0),
      errors: joinErrors,
      allMs: maxOf(firstAt),
      medianMs: median(firstAt),
      p99Ms: p99(firstAt),
    };
    if (join.failed > 0) errors.push(`join: ${join.failed} of ${n} students failed: ${JSON.stringify(joinErrors)}`);
    if (joinedCount === 0) throw new Error(`no student could join: ${JSON.stringify(joinErrors)}\n${server.output()}`);

    // --- 3. Memory, after every student joined and presence broadcasts settled
    await sleep(1_500);
    const after = await rssAfterGc(server);
    const memory = {
      beforeBytes: before.bytes,
      afterBytes: after.bytes,
      perStudentBytes: (after.bytes - before.bytes) / joinedCount,
      beforeNoGcBytes: before.beforeGcBytes,
      afterNoGcBytes: after.beforeGcBytes,
      gcSettleMs: [before.settleMs, after.settleMs],
      gcSettled: before.settled && after.settled,
    };
    if (!memory.gcSettled) errors.push(`memory: the RSS did not settle within 5 s of the forced GC (read anyway)`);

    // --- 1. Step fan-out
    log(`${tag}: ${STEPS} steps`);
    const lastMs: number[] = [];
    const medianStudentMs: number[] = [];
    let missing = 0;
    const stepTimeoutMs = 15_000;
    const stepCpu0 = { server: serverCpuMs(server), workers: workersCpu(), machine: machineTicks() };
    for (let seq = 0; seq < STEPS; seq++) {
      const stepIndex = seq % 2 === 0 ? 1 : 2; // alternate so every command changes the step
      workers.forEach((w) => w.send({ cmd: "armStep", seq, stepIndex, timeoutMs: stepTimeoutMs }));
      await Promise.all(workers.map((w) => w.next("armed", 10_000)));
      const sentAt = now();
      const ack = stepCommand(stepIndex);
      const reports = await Promise.all(workers.map((w) => w.next("step", stepTimeoutMs + 5_000)));
      const res = await ack;
      if (!res?.ok) errors.push(`step ${seq}: ${JSON.stringify(res)}`);
      const latencies = reports.flatMap((r) => r.times).map((at) => at - sentAt);
      const missed = reports.reduce((s, r) => s + r.missing, 0);
      missing += missed;
      if (missed > 0 || !res?.ok) log(`${tag}: step ${seq}: ${missed} students missed it; ack ${JSON.stringify(res)}`);
      if (latencies.length > 0) {
        lastMs.push(maxOf(latencies));
        medianStudentMs.push(median(latencies));
      }
      await sleep(100);
    }
    const stepServerMs = serverCpuMs(server) - stepCpu0.server;
    const stepWorkersMs = workersCpu() - stepCpu0.workers;
    const stepMachineBusy = busyShare(stepCpu0.machine, machineTicks());
    if (missing > 0) errors.push(`fan-out: ${missing} snapshot receipts missing over ${STEPS} steps`);
    const fanout = {
      steps: STEPS,
      lastMs,
      medianStudentMs,
      missing,
      lastMedian: median(lastMs),
      lastP99: p99(lastMs),
      medianStudentMedian: median(medianStudentMs),
    };

    // --- 2. Vote burst
    log(`${tag}: vote burst`);
    let vote: ScenarioResult["vote"] = null;
    let pollId: string;
    let options: string[];
    if (kind !== "bare") {
      const opened = await t.command("poll:open", { kind: "next-step" });
      if (!opened?.ok) throw new Error(`poll:open: ${JSON.stringify(opened)}`);
      pollId = (opened.data as { pollId: string }).pollId;
      // One process sends the host snapshot with the new poll before the ack. A
      // cluster node delivers broadcasts (even to its own sockets) only after the
      // Redis adapter's XADD returns, so there the ack can come first: wait for it.
      const openedAt = Date.now();
      while (t.latestSnapshot?.poll?.id !== pollId && Date.now() - openedAt < 5_000) await sleep(5);
      if (t.latestSnapshot?.poll?.id === pollId && Date.now() - openedAt > 1)
        log(`${tag}: the teacher's poll snapshot came ${Date.now() - openedAt} ms after the poll:open ack`);
      const poll = t.latestSnapshot?.poll;
      if (!poll || poll.id !== pollId || !poll.options) throw new Error("the teacher did not receive the opened poll");
      options = poll.options.map((o) => o.id);
      const shown = await t.command("results:show", { visible: true });
      if (!shown?.ok) throw new Error(`results:show: ${JSON.stringify(shown)}`);
    } else {
      const opened = await t.command("open", {});
      ({ pollId, options } = opened.data as { pollId: string; options: string[] });
    }
    await sleep(500); // the open/visible snapshots reach the class
    const startAt = now() + 200;
    const ackTimeoutMs = 30_000;
    const voteCpu0 = { server: serverCpuMs(server), workers: workersCpu(), machine: machineTicks() };
    workers.forEach((w) => w.send({ cmd: "vote", pollId, options, startAt, spreadMs: VOTE_SPREAD_MS, total: n, ackTimeoutMs }));
    const voted = await Promise.all(workers.map((w) => w.next("voted", 200 + VOTE_SPREAD_MS + ackTimeoutMs + 10_000)));
    const voteServerMs = serverCpuMs(server) - voteCpu0.server;
    const voteWorkersMs = workersCpu() - voteCpu0.workers;
    const voteMachineBusy = busyShare(voteCpu0.machine, machineTicks());
    const acked = voted.reduce((s, v) => s + v.ok, 0);
    const sent = voted.reduce((s, v) => s + v.sent, 0);
    const ackErrors: Record<string, number> = {};
    for (const v of voted) for (const [k, c] of Object.entries(v.errors)) ackErrors[k] = (ackErrors[k] ?? 0) + c;
    const finalTimeoutMs = 20_000;
    workers.forEach((w) => w.send({ cmd: "armFinal", pollId, expected: acked, timeoutMs: finalTimeoutMs }));
    await Promise.all(workers.map((w) => w.next("armed", 10_000)));
    const closedAt = now();
    const closeAck = kind !== "bare" ? t.command("poll:close", { pollId }) : t.command("close", { pollId });
    const finals = await Promise.all(workers.map((w) => w.next("final", finalTimeoutMs + 5_000)));
    const closed = await closeAck;
    if (!closed?.ok) errors.push(`poll close: ${JSON.stringify(closed)}`);
    const totals = [...new Set(finals.flatMap((f) => f.totals))];
    const finalTotal = totals.length === 1 ? totals[0] : totals.length ? Math.max(...totals) : null;
    const finalTimes = finals.flatMap((f) => f.times).map((at) => at - closedAt);
    const tallyMessages = finals.reduce((s, f) => s + f.tallies, 0);
    const pollSeconds = (closedAt - startAt) / 1000;
    vote = {
      sent,
      acked,
      ackErrors,
      ackTimeouts: voted.reduce((s, v) => s + v.timeouts, 0),
      ackMedianMs: median(voted.flatMap((v) => v.ackMs)),
      ackP99Ms: p99(voted.flatMap((v) => v.ackMs)),
      ackMaxMs: maxOf(voted.flatMap((v) => v.ackMs)),
      finalTotal,
      lost: sent - (finalTotal ?? 0),
      closeToAllMs: maxOf(finalTimes),
      studentsWithFinal: finals.reduce((s, f) => s + f.matched + f.mismatched, 0),
      studentsWrongTotal: finals.reduce((s, f) => s + f.mismatched, 0),
      studentsMissingFinal: finals.reduce((s, f) => s + f.missing, 0),
      tallyMessages,
      talliesPerStudent: tallyMessages / joinedCount,
      talliesMaxPerStudent: Math.max(...finals.map((f) => f.talliesMaxPerStudent)),
      pollSeconds,
      talliesPerStudentPerSecond: tallyMessages / joinedCount / pollSeconds,
      disconnects: {},
    };
    for (const f of voted) for (const [k, c] of Object.entries(f.disconnects)) vote.disconnects[k] = (vote.disconnects[k] ?? 0) + c;
    if (totals.length > 1) errors.push(`vote: students saw different final totals ${JSON.stringify(totals)}`);
    if (vote.lost !== 0) errors.push(`vote: ${vote.lost} votes lost (sent ${sent}, final total ${finalTotal})`);
    if (Object.keys(ackErrors).length || vote.ackTimeouts)
      errors.push(`vote: ack errors ${JSON.stringify(ackErrors)}, ${vote.ackTimeouts} ack timeouts`);
    if (vote.studentsMissingFinal || vote.studentsWrongTotal)
      errors.push(`vote: ${vote.studentsMissingFinal} students without the final tally, ${vote.studentsWrongTotal} with a wrong total`);
    const dropped = Object.values(vote.disconnects).reduce((a, b) => a + b, 0);
    if (dropped) errors.push(`${dropped} students were disconnected during the run: ${JSON.stringify(vote.disconnects)}`);

    if (cluster) {
      const owners = await sessionOwners(cluster.redisUrl).catch((err: Error) => [`? ${err.message}`]);
      if (owners.length !== 1 || owners[0] !== owner)
        errors.push(`cluster: the session changed owner during the run: ${owner} → ${JSON.stringify(owners)}`);
      const live = await liveNodeIds(cluster.redisUrl).catch(() => []);
      if (live.length !== cluster.nodeIds.length)
        errors.push(`cluster: ${live.length} of ${cluster.nodeIds.length} nodes heartbeating at the end`);
    }

    const cpu = {
      joinServerMs,
      joinServerUsPerStudent: (joinServerMs * 1000) / joinedCount,
      stepServerMs,
      stepServerMsPerStep: stepServerMs / STEPS,
      stepWorkersMsPerStep: stepWorkersMs / STEPS,
      stepMachineBusy,
      voteServerMs,
      voteServerUsPerVote: (voteServerMs * 1000) / Math.max(1, acked),
      voteWorkersUsPerVote: (voteWorkersMs * 1000) / Math.max(1, acked),
      voteMachineBusy,
    };
    return { kind, n, run, join, memory, cpu, fanout, vote, errors };
  } catch (err) {
    throw new Error(`${tag}: ${(err as Error).message}\n--- server output (tail) ---\n${server.output().slice(-4_000)}`, { cause: err });
  } finally {
    const t0 = Date.now();
    teacher?.socket.close();
    await Promise.all(workers.map((w) => w.close()));
    await server.stop();
    log(`${tag}: stopped in ${Date.now() - t0} ms`);
  }
}

// ---------------------------------------------------------------------------
// Page weight

interface RouteSize {
  route: string;
  rawBytes: number;
  gzipBytes: number;
  chunks: number;
  missingChunks: string[];
}

async function pageWeight(): Promise<{ route: string; rawBytes: number; gzipBytes: number; note: string | null } | null> {
  const mod = (await import(pathToFileURL(path.join(ROOT, "scripts/route-sizes.mjs")).href)) as {
    routeSizes(root: string): RouteSize[] | null;
  };
  const rows = mod.routeSizes(ROOT);
  if (!rows) return null;
  const row = rows.find((r) => r.route === "/join/[code]");
  if (!row) return { route: "/join/[code]", rawBytes: NaN, gzipBytes: NaN, note: "route not in route-bundle-stats.json" };
  const note = row.missingChunks.length ? `${row.missingChunks.length} chunk files missing: rebuild` : null;
  return { route: row.route, rawBytes: row.rawBytes, gzipBytes: row.gzipBytes, note };
}

// ---------------------------------------------------------------------------
// Report: every cell is the median of its runs with [min–max]; every ratio divides medians.

const fmt = (x: number | null | undefined, digits = 1) => (x === null || x === undefined || !Number.isFinite(x) ? "–" : x.toFixed(digits));
/** p/b; "–" when either is missing or not positive (an RSS delta within the noise can come out negative). */
const ratio = (p: number | null | undefined, b: number | null | undefined) =>
  p === null || p === undefined || b === null || b === undefined || !Number.isFinite(p) || !Number.isFinite(b) || b <= 0 || p <= 0
    ? "–"
    : `${(p / b).toFixed(2)}x`;

/** The median of the runs (the mean of the middle two for an even count). */
function runMedian(xs: number[]): number {
  const s = sortNum(xs);
  if (s.length === 0) return NaN;
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

function table(header: string[], rows: string[][]): string {
  const lines = [`| ${header.join(" | ")} |`, `|${header.map(() => "---").join("|")}|`];
  for (const r of rows) lines.push(`| ${r.join(" | ")} |`);
  return lines.join("\n");
}

function report(results: ScenarioResult[], page: Awaited<ReturnType<typeof pageWeight>>): string {
  const runsOf = (kind: ServerKind, n: number) => results.filter((r) => r.kind === kind && r.n === n);
  const out: string[] = [];
  const clusterName = label("cluster");
  const header = ["N", "measure", "product", "bare", "product/bare", ...(CLUSTER ? [clusterName, `×${CLUSTER}/bare`] : []), "target"];
  const kinds = ["product", "bare", "cluster"] as const;
  /** " (2 runs)" when a cell has fewer runs than asked for (a run failed). */
  const short = (k: ServerKind, n: number) => {
    const got = runsOf(k, n).length;
    return got > 0 && got < REPS ? ` (${got} run${got === 1 ? "" : "s"})` : "";
  };
  /**
   * A figure per run → median [min–max] in each server's column; `ratioed`:
   * product/bare (and ×K/bare) from the medians.
   */
  function numRow(
    n: number,
    measure: string,
    pick: (r: ScenarioResult) => number | null | undefined,
    digits: number,
    ratioed: boolean,
    target: string,
  ): string[] {
    const meds: Partial<Record<ServerKind, number>> = {};
    const cells = kinds.map((k) => {
      const xs = runsOf(k, n)
        .map(pick)
        .filter((x): x is number => x !== null && x !== undefined && Number.isFinite(x));
      if (xs.length === 0) return "–";
      const med = runMedian(xs);
      meds[k] = med;
      const spread = xs.length > 1 ? ` [${fmt(Math.min(...xs), digits)}–${fmt(Math.max(...xs), digits)}]` : "";
      return `${fmt(med, digits)}${spread}${short(k, n)}`;
    });
    const rat = (k: ServerKind) => (ratioed && meds[k] !== undefined && meds.bare !== undefined ? ratio(meds[k], meds.bare) : "");
    return [String(n), measure, cells[0], cells[1], rat("product"), ...(CLUSTER ? [cells[2], rat("cluster")] : []), target];
  }
  /** A text per run: shown once when every run gave the same, else run by run ("0, 3, 0"). */
  function textRow(n: number, measure: string, show: (r: ScenarioResult) => string, target: string): string[] {
    const cells = kinds.map((k) => {
      const texts = runsOf(k, n).map(show);
      if (texts.length === 0) return "–";
      return new Set(texts).size === 1 ? `${texts[0]}${short(k, n)}` : texts.join(", ");
    });
    return [String(n), measure, cells[0], cells[1], "", ...(CLUSTER ? [cells[2], ""] : []), target];
  }
  /** Medians of two figures, "a → b" (no ratio). */
  function pairRow(
    n: number,
    measure: string,
    a: (r: ScenarioResult) => number,
    b: (r: ScenarioResult) => number,
    digits: number,
  ): string[] {
    const cells = kinds.map((k) => {
      const runs = runsOf(k, n);
      return runs.length ? `${fmt(runMedian(runs.map(a)), digits)} → ${fmt(runMedian(runs.map(b)), digits)}` : "–";
    });
    return [String(n), measure, cells[0], cells[1], "", ...(CLUSTER ? [cells[2], ""] : []), ""];
  }
  const runsNote = REPS > 1 ? `median of ${REPS} interleaved runs [min–max]; ratios divide the medians` : "one run (--reps=1)";
  const tick = 1000 / CLOCK_TICKS;

  out.push(`Each cell: ${runsNote}.${CLUSTER ? ` ${clusterName}: CPU summed over the ${CLUSTER} nodes and redis-server.` : ""}`);
  out.push(
    `CPU: utime + stime from /proc/<pid>/stat (all threads; ${fmt(tick, 0)} ms ticks) over the phase, divided by its steps or votes.\n`,
  );

  out.push(`## 1. Step fan-out: teacher's command → last student's snapshot (ms, ${STEPS} steps), and CPU per step`);
  const fanRows: string[][] = [];
  for (const n of NS) {
    const target = n >= 1000 ? "≤1.25x" : "";
    fanRows.push(numRow(n, "last student, median", (r) => r.fanout.lastMedian, 1, true, target));
    fanRows.push(numRow(n, "last student, p99", (r) => r.fanout.lastP99, 1, true, target));
    fanRows.push(numRow(n, "median student, median", (r) => r.fanout.medianStudentMedian, 1, true, ""));
    fanRows.push(numRow(n, "server CPU per step (ms)", (r) => r.cpu.stepServerMs / STEPS, 2, true, ""));
    fanRows.push(numRow(n, "client workers' CPU per step (ms)", (r) => r.cpu.stepWorkersMsPerStep, 2, false, ""));
    fanRows.push(
      numRow(
        n,
        "machine busy during the steps (% of 2 cores)".replace("2", String(os.cpus().length)),
        (r) => r.cpu.stepMachineBusy * 100,
        0,
        false,
        "",
      ),
    );
  }
  out.push(table(header, fanRows));

  out.push("\n## 2. Vote burst: every student votes once, spread over 1 s; then the poll closes");
  const voteRows: string[][] = [];
  type Vote = NonNullable<ScenarioResult["vote"]>;
  const v = (pickVote: (x: Vote) => number) => (r: ScenarioResult) => (r.vote ? pickVote(r.vote) : null);
  for (const n of NS) {
    const is1k = n === 1000;
    voteRows.push(textRow(n, "votes sent / acked", (r) => (r.vote ? `${r.vote.sent} / ${r.vote.acked}` : "–"), ""));
    voteRows.push(
      numRow(
        n,
        "vote → ack, median vote (ms)",
        v((x) => x.ackMedianMs),
        1,
        true,
        "",
      ),
    );
    voteRows.push(
      numRow(
        n,
        "vote → ack, slowest vote (ms)",
        v((x) => x.ackMaxMs),
        1,
        false,
        "",
      ),
    );
    voteRows.push(numRow(n, "server CPU per vote, vote → last ack (µs)", (r) => r.cpu.voteServerUsPerVote, 0, true, ""));
    voteRows.push(numRow(n, "client workers' CPU per vote (µs)", (r) => r.cpu.voteWorkersUsPerVote, 0, false, ""));
    voteRows.push(textRow(n, "votes lost (sent − final total)", (r) => (r.vote ? String(r.vote.lost) : "–"), "0"));
    voteRows.push(
      numRow(
        n,
        "close → final tally at every student (ms)",
        v((x) => x.closeToAllMs),
        1,
        true,
        is1k ? "≤250 ms" : "",
      ),
    );
    voteRows.push(
      numRow(
        n,
        "tally messages sent (sum over students)",
        v((x) => x.tallyMessages),
        0,
        true,
        "∝ N",
      ),
    );
    voteRows.push(
      numRow(
        n,
        "poll length, first vote → close (s)",
        v((x) => x.pollSeconds),
        2,
        false,
        "",
      ),
    );
    voteRows.push(
      numRow(
        n,
        "tallies per student per second of poll",
        v((x) => x.talliesPerStudentPerSecond),
        2,
        true,
        is1k ? "≤10" : "",
      ),
    );
  }
  out.push(table(header, voteRows));

  out.push(
    `\n## 3. Memory after a forced GC: server RSS growth per connected student (KiB)${CLUSTER ? `; ${clusterName}: summed over the ${CLUSTER} nodes, Redis not included` : ""}`,
  );
  const memRows: string[][] = [];
  for (const n of NS) {
    memRows.push(numRow(n, "RSS after join − before, per student, after GC", (r) => r.memory.perStudentBytes / 1024, 1, true, "≤1.5x"));
    memRows.push(
      pairRow(
        n,
        "RSS before → after, after GC (MiB)",
        (r) => r.memory.beforeBytes / 2 ** 20,
        (r) => r.memory.afterBytes / 2 ** 20,
        1,
      ),
    );
    memRows.push(
      numRow(
        n,
        "same without the GC, per student (KiB)",
        (r) => (r.memory.afterNoGcBytes - r.memory.beforeNoGcBytes) / 1024 / r.join.ok,
        1,
        false,
        "",
      ),
    );
  }
  out.push(table(header, memRows));

  out.push(
    `\n## 4. Join storm: N students connect (100 in flight per worker) and get their first snapshot (ms)${CLUSTER ? `; ${clusterName}: round-robin over the nodes` : ""}`,
  );
  const joinRows: string[][] = [];
  for (const n of NS) {
    joinRows.push(numRow(n, "all joined", (r) => r.join.allMs, 1, true, ""));
    joinRows.push(textRow(n, "joined / failed", (r) => `${r.join.ok} / ${r.join.failed}`, ""));
    joinRows.push(numRow(n, "server CPU per join (µs)", (r) => r.cpu.joinServerUsPerStudent, 0, true, ""));
  }
  out.push(table(header, joinRows));

  out.push("\n## 5. Page weight: first-load JS of the student page, from the production build");
  if (!page) out.push("route-bundle-stats.json not found: run npm run build first (a Turbopack build).");
  else
    out.push(
      table(
        ["route", "raw kB", "gzip kB", "target"],
        [[page.route, fmt(page.rawBytes / 1000), fmt(page.gzipBytes / 1000), "< 200 kB gzip"]],
      ) + (page.note ? `\n(${page.note})` : ""),
    );

  const problems = results.flatMap((r) => r.errors.map((e) => `- ${label(r.kind)} N=${r.n} run ${r.run}: ${e}`));
  if (problems.length) out.push(`\n## Anomalies\n${problems.join("\n")}`);
  return out.join("\n");
}

// ---------------------------------------------------------------------------

async function main(): Promise<void> {
  if (!NOISY && CLUSTER && KINDS.includes("cluster") && !redisServerPath()) {
    console.error("--cluster needs redis-server on PATH, and none was found. On Debian: apt-get install -y redis-server.");
    process.exit(2);
  }
  const started = Date.now();
  const load = os.loadavg();
  const plan = NOISY
    ? noisyPlan(NOISY)
    : `N = ${NS.join(", ")}; ${STEPS} steps; ${WORKERS} client workers; servers: ${KINDS.map(label).join(", ")}; ${REPS} run${REPS === 1 ? "" : "s"} of each, interleaved`;
  log(`${plan}; load average ${load.map((l) => l.toFixed(1)).join(" ")}`);
  const results: ScenarioResult[] = [];
  const failures: string[] = [];
  let noisy: NoisyResult | null = null;
  if (NOISY) {
    try {
      const deps = { startServer: () => startServer("product"), connectTeacher, newWorker: (i: number) => new Worker(i), track, stop, log };
      noisy = await runNoisy({ ...deps, addresses: ADDRESSES, joinWindow: JOIN_WINDOW }, NOISY); // the product cells' start-up and clients
    } catch (err) {
      failures.push((err as Error).message);
      log(`FAILED ${(err as Error).message.split("\n")[0]}`);
    }
  }
  // Interleaved: product, bare (, cluster), product, bare, ... so a drift in the machine's load reaches every column alike.
  for (const n of NOISY ? [] : NS) {
    for (let run = 1; run <= REPS; run++) {
      for (const kind of KINDS) {
        try {
          results.push(await runScenario(kind, n, run));
        } catch (err) {
          failures.push((err as Error).message);
          log(`FAILED ${(err as Error).message.split("\n")[0]}`);
        }
      }
    }
  }
  const page = NOISY ? null : await pageWeight();
  const text = NOISY ? noisyReport(noisy) : report(results, page);
  const title = NOISY
    ? "noisy neighbour on the product server"
    : `product vs bare socket.io 4.8${CLUSTER ? ` vs ${label("cluster")}` : ""}`;
  console.log(`\n# Benchmark: ${title} (${new Date().toISOString()})\n`);
  console.log(text);
  if (failures.length) console.log(`\n## Failed scenarios\n${failures.map((f) => `- ${f}`).join("\n")}`);
  const seconds = (Date.now() - started) / 1000;
  console.log(
    `\nNode ${process.version}, ${os.cpus().length} CPUs, load average at start ${load.map((l) => l.toFixed(1)).join(" ")}, at end ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}; ${seconds.toFixed(0)} s. Figures, not pass/fail; on a shared machine treat them as ±30 %.`,
  );
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = path.join(RESULTS_DIR, "latest.json");
  writeFileSync(
    file,
    JSON.stringify(
      {
        at: new Date().toISOString(),
        node: process.version,
        cpus: os.cpus().length,
        loadAverage: { start: load, end: os.loadavg() },
        options: {
          n: NS,
          reps: REPS,
          steps: STEPS,
          workers: WORKERS,
          servers: KINDS,
          clusterNodes: CLUSTER || null,
          joinWindowPerWorker: JOIN_WINDOW,
          voteSpreadMs: VOTE_SPREAD_MS,
        },
        results,
        noisy,
        pageWeight: page,
        failures,
        seconds,
      },
      null,
      2,
    ) + "\n",
  );
  console.log(`Results: ${path.relative(ROOT, file)}`);
  killAll();
  process.exit(failures.length ? 1 : 0);
}

main().catch((err) => {
  console.error(err);
  killAll();
  process.exit(1);
});
