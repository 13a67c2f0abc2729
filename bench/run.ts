import { fork, spawn, type ChildProcess } from "node:child_process";
import { accessSync, constants as fsConstants, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { createClient } from "redis";
import { io, type ManagerOptions, type Socket, type SocketOptions } from "socket.io-client";
import { PROTOCOL_VERSION } from "../lib/protocol";
import { now, type DriverCommand, type ServerKind, type WorkerEvent } from "./messages";
import { noisyOptions, noisyPlan, noisyReport, runNoisy, type NoisyResult } from "./noisy";

/**
 * The load benchmark: the product's real server and a bare socket.io server
 * (bench/bareServer.ts) under the same simulated class, in one run.
 *
 *   npm run bench                       # N = 100, 1000, 5000; 25 steps
 *   npm run bench -- --n=100,1000 --steps=30
 *   npm run bench -- --only=product     # or bare
 *   npm run bench -- --cpu-prof=/tmp/prof   # CPU profiles of the servers
 *   npm run bench -- --cluster=3        # also K product nodes on one Redis
 *   npm run bench -- --noisy            # only the noisy-neighbour scenario (bench/noisy.ts)
 *
 * Prints a table per metric with product, bare and product/bare (and, with
 * --cluster=K, product×K (Redis) and its ratio to bare), and writes
 * bench/results/latest.json. Figures, not pass/fail. See bench/README.md.
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

const NS = (arg("n") ?? "100,1000,5000")
  .split(",")
  .map((s) => Number(s.trim().replace(/_/g, "")))
  .filter((n) => Number.isInteger(n) && n > 0);
const STEPS = Math.max(2, Math.min(200, Number(arg("steps") ?? 25)));
const WORKERS = Math.max(1, Math.min(8, Number(arg("workers") ?? 2)));
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

/** Resident set size of a process, in bytes (Linux). */
function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  if (!match) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(match[1]) * 1024;
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
    const { proc, output } = spawnTracked([...profileArgs, "--import", "tsx", path.join(__dirname, "bareServer.ts"), `--port=${port}`], {
      ...process.env,
      NODE_ENV: "production",
    });
    await waitHealthy(url, proc, output);
    return { kind, procs: [proc], url, urls: [url], output, stop: () => stop(proc, serverGraceMs()) };
  }
  if (kind === "cluster") return startCluster(CLUSTER);
  const node = await startProductNode(port, {});
  return { kind, procs: [node.proc], url, urls: [url], output: node.output, stop: () => stop(node.proc, serverGraceMs()) };
}

/** One `node --import tsx server/index.ts` with a temporary DATA_DIR (removed when it exits). */
async function startProductNode(port: number, env: Record<string, string>): Promise<{ proc: ChildProcess; output: () => string }> {
  const url = `http://127.0.0.1:${port}`;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "classroom-bench-"));
  tempDirs.add(dataDir);
  const { proc, output } = spawnTracked([...profileArgs, "--import", "tsx", "server/index.ts"], {
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
    spawn(bin, ["--bind", "127.0.0.1", "--port", String(port), "--save", "", "--appendonly", "no", "--daemonize", "no", "--protected-mode", "yes"], {
      stdio: ["ignore", "pipe", "pipe"],
    }),
  );
  let out = "";
  const keep = (d: Buffer) => {
    out = (out + d.toString()).slice(-8_000);
  };
  proc.stdout!.on("data", keep);
  proc.stderr!.on("data", keep);
  const start = Date.now();
  while (!/Ready to accept connections/.test(out)) {
    if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`redis-server exited (${proc.exitCode ?? proc.signalCode}):\n${out}`);
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
    [...nodes.map((nd, i) => `--- node ${i + 1} (${nd.url})\n${nd.output().slice(-3_000)}`), `--- redis\n${redis.output().slice(-1_000)}`].join("\n");
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
    throw new Error(message);
  }
  const server: RunningServer = {
    kind: "cluster",
    procs: nodes.map((nd) => nd.proc),
    url: nodes[0].url,
    urls: nodes.map((nd) => nd.url),
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
  join: { ok: number; failed: number; errors: Record<string, number>; allMs: number; medianMs: number; p99Ms: number };
  memory: { beforeBytes: number; afterBytes: number; perStudentBytes: number };
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

async function runScenario(kind: ServerKind, n: number): Promise<ScenarioResult> {
  const errors: string[] = [];
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
    const stepCommand = (stepIndex: number) =>
      kind !== "bare" ? t.command("step:go", { stepIndex }) : t.command("step", { stepIndex });

    // Warm-up: the code paths the measurement uses, then let the heap settle.
    await stepCommand(1);
    await stepCommand(0);
    await sleep(1_000);
    const beforeBytes = serverRss(server);

    // Cluster: node 1 must own the session (the teacher joined there first), so
    // students on the other nodes exercise the forwarding and the adapter.
    const cluster = clusterInfo.get(server);
    let owner: string | null = null;
    if (cluster) {
      const owners = await sessionOwners(cluster.redisUrl);
      owner = owners.length === 1 ? owners[0] : null;
      if (owner !== cluster.nodeIds[0])
        errors.push(`cluster: the session's owner is ${JSON.stringify(owners)}, not node 1 (${cluster.nodeIds[0]})`);
      log(`${label(kind)} N=${n}: session owned by node ${cluster.nodeIds.indexOf(owner ?? "") + 1} of ${cluster.nodeIds.length}`);
    }

    // --- 4. Join storm
    log(`${label(kind)} N=${n}: join storm`);
    const shares = workers.map((_, i) => Math.floor(n / workers.length) + (i < n % workers.length ? 1 : 0));
    const joinTimeoutMs = 30_000 + n * 20;
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
    const afterBytes = serverRss(server);
    const memory = { beforeBytes, afterBytes, perStudentBytes: (afterBytes - beforeBytes) / joinedCount };

    // --- 1. Step fan-out
    log(`${label(kind)} N=${n}: ${STEPS} steps`);
    const lastMs: number[] = [];
    const medianStudentMs: number[] = [];
    let missing = 0;
    const stepTimeoutMs = 15_000;
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
      missing += reports.reduce((s, r) => s + r.missing, 0);
      if (latencies.length > 0) {
        lastMs.push(maxOf(latencies));
        medianStudentMs.push(median(latencies));
      }
      await sleep(100);
    }
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
    log(`${label(kind)} N=${n}: vote burst`);
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
        log(`${label(kind)} N=${n}: the teacher's poll snapshot came ${Date.now() - openedAt} ms after the poll:open ack`);
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
    workers.forEach((w) =>
      w.send({ cmd: "vote", pollId, options, startAt, spreadMs: VOTE_SPREAD_MS, total: n, ackTimeoutMs }),
    );
    const voted = await Promise.all(workers.map((w) => w.next("voted", 200 + VOTE_SPREAD_MS + ackTimeoutMs + 10_000)));
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
      if (owners.length !== 1 || owners[0] !== owner) errors.push(`cluster: the session changed owner during the run: ${owner} → ${JSON.stringify(owners)}`);
      const live = await liveNodeIds(cluster.redisUrl).catch(() => []);
      if (live.length !== cluster.nodeIds.length) errors.push(`cluster: ${live.length} of ${cluster.nodeIds.length} nodes heartbeating at the end`);
    }

    return { kind, n, join, memory, fanout, vote, errors };
  } catch (err) {
    throw new Error(`${label(kind)} N=${n}: ${(err as Error).message}\n--- server output (tail) ---\n${server.output().slice(-4_000)}`);
  } finally {
    const t0 = Date.now();
    teacher?.socket.close();
    await Promise.all(workers.map((w) => w.close()));
    await server.stop();
    log(`${label(kind)} N=${n}: stopped in ${Date.now() - t0} ms`);
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
// Report

const fmt = (x: number | null | undefined, digits = 1) =>
  x === null || x === undefined || !Number.isFinite(x) ? "–" : x.toFixed(digits);
const ratio = (p: number | null | undefined, b: number | null | undefined) =>
  p === null || p === undefined || b === null || b === undefined || !Number.isFinite(p) || !Number.isFinite(b) || b === 0
    ? "–"
    : `${(p / b).toFixed(2)}x`;

function table(header: string[], rows: string[][]): string {
  const lines = [`| ${header.join(" | ")} |`, `|${header.map(() => "---").join("|")}|`];
  for (const r of rows) lines.push(`| ${r.join(" | ")} |`);
  return lines.join("\n");
}

function report(results: ScenarioResult[], page: Awaited<ReturnType<typeof pageWeight>>): string {
  const get = (kind: ServerKind, n: number) => results.find((r) => r.kind === kind && r.n === n);
  const out: string[] = [];
  const clusterName = label("cluster");
  const header = ["N", "measure", "product", "bare", "product/bare", ...(CLUSTER ? [clusterName, `×${CLUSTER}/bare`] : []), "target"];
  /**
   * One row: the value of each server (pick → the figure, show → its text) and
   * the ratios to bare when `ratioed`. The cluster columns appear with --cluster.
   */
  function row<T>(
    n: number,
    measure: string,
    pick: (r: ScenarioResult) => T | null | undefined,
    show: (x: T) => string,
    ratioed: ((x: T) => number) | null,
    target: string,
  ): string[] {
    const [p, b, c] = (["product", "bare", "cluster"] as const).map((k) => {
      const r = get(k, n);
      return r ? pick(r) : undefined;
    });
    const cell = (x: T | null | undefined) => (x === null || x === undefined ? "–" : show(x));
    const rat = (x: T | null | undefined) => (ratioed && x != null && b != null ? ratio(ratioed(x), ratioed(b)) : "");
    return [String(n), measure, cell(p), cell(b), rat(p), ...(CLUSTER ? [cell(c), rat(c)] : []), target];
  }
  const num = (digits = 1) => (x: number) => fmt(x, digits);
  const id = (x: number) => x;

  out.push(`## 1. Step fan-out: teacher's command → last student's snapshot (ms, ${STEPS} steps)`);
  const fanRows: string[][] = [];
  for (const n of NS) {
    const target = n >= 1000 ? "≤1.25x" : "";
    fanRows.push(row(n, "last student, median", (r) => r.fanout.lastMedian, num(), id, target));
    fanRows.push(row(n, "last student, p99", (r) => r.fanout.lastP99, num(), id, target));
    fanRows.push(row(n, "median student, median", (r) => r.fanout.medianStudentMedian, num(), id, ""));
  }
  out.push(table(header, fanRows));

  out.push("\n## 2. Vote burst: every student votes once, spread over 1 s; then the poll closes");
  const voteRows: string[][] = [];
  type Vote = NonNullable<ScenarioResult["vote"]>;
  for (const n of NS) {
    const is1k = n === 1000;
    const v = (r: ScenarioResult) => r.vote;
    voteRows.push(row(n, "votes sent / acked", v, (x: Vote) => `${x.sent} / ${x.acked}`, null, ""));
    voteRows.push(row(n, "vote → ack, median / max (ms)", v, (x: Vote) => `${fmt(x.ackMedianMs)} / ${fmt(x.ackMaxMs)}`, (x: Vote) => x.ackMaxMs, ""));
    voteRows.push(row(n, "votes lost (sent − final total)", (r) => r.vote?.lost, num(0), null, "0"));
    voteRows.push(row(n, "close → final tally at every student (ms)", (r) => r.vote?.closeToAllMs, num(), id, is1k ? "≤250 ms" : ""));
    voteRows.push(row(n, "tally messages sent (sum over students)", (r) => r.vote?.tallyMessages, num(0), id, "∝ N"));
    voteRows.push(row(n, "poll length, first vote → close (s)", (r) => r.vote?.pollSeconds, num(2), null, ""));
    voteRows.push(row(n, "tallies per student per second of poll", (r) => r.vote?.talliesPerStudentPerSecond, num(2), id, is1k ? "≤10" : ""));
  }
  out.push(table(header, voteRows));

  out.push(`\n## 3. Memory: server RSS growth per connected student (KiB)${CLUSTER ? `; ${clusterName}: summed over the ${CLUSTER} nodes, Redis not included` : ""}`);
  const memRows: string[][] = [];
  type Mem = ScenarioResult["memory"];
  for (const n of NS) {
    memRows.push(row(n, "RSS after join − before, per student", (r) => r.memory.perStudentBytes / 1024, num(), id, "≤1.5x"));
    memRows.push(row(n, "RSS before → after (MiB)", (r) => r.memory, (x: Mem) => `${fmt(x.beforeBytes / 2 ** 20)} → ${fmt(x.afterBytes / 2 ** 20)}`, null, ""));
  }
  out.push(table(header, memRows));

  out.push(`\n## 4. Join storm: N students connect (100 in flight per worker) and get their first snapshot (ms)${CLUSTER ? `; ${clusterName}: round-robin over the nodes` : ""}`);
  const joinRows: string[][] = [];
  type Join = ScenarioResult["join"];
  for (const n of NS) {
    joinRows.push(row(n, "all joined", (r) => r.join.allMs, num(), id, ""));
    joinRows.push(row(n, "joined / failed", (r) => r.join, (x: Join) => `${x.ok} / ${x.failed}`, null, ""));
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

  const problems = results.flatMap((r) => r.errors.map((e) => `- ${label(r.kind)} N=${r.n}: ${e}`));
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
  const plan = NOISY ? noisyPlan(NOISY) : `N = ${NS.join(", ")}; ${STEPS} steps; ${WORKERS} client workers; servers: ${KINDS.map(label).join(", ")}`;
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
  for (const n of NOISY ? [] : NS) {
    for (const kind of KINDS) {
      try {
        results.push(await runScenario(kind, n));
      } catch (err) {
        failures.push((err as Error).message);
        log(`FAILED ${(err as Error).message.split("\n")[0]}`);
      }
    }
  }
  const page = NOISY ? null : await pageWeight();
  const text = NOISY ? noisyReport(noisy) : report(results, page);
  const title = NOISY ? "noisy neighbour on the product server" : `product vs bare socket.io 4.8${CLUSTER ? ` vs ${label("cluster")}` : ""}`;
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
        options: { n: NS, steps: STEPS, workers: WORKERS, servers: KINDS, clusterNodes: CLUSTER || null, joinWindowPerWorker: JOIN_WINDOW, voteSpreadMs: VOTE_SPREAD_MS },
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
