import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { startRedis, type RedisServer } from "../support/loopback";
import { spawnServer, type ServerProcess } from "../integration/process";
import type { FaultRecord, History, OwnerChange } from "./history";
import type { Fault } from "./schedule";

/**
 * The processes a chaos run puts through its faults: one redis-server
 * (append-only, fsync on every write, so what it acknowledged survives a
 * SIGKILL) and several app nodes on it, on ports from the ranges this run
 * was given. It carries out each fault, records it in the history, and
 * heals everything at the end.
 */

export interface FleetOptions {
  nodes: number;
  /** Ports for the nodes and for Redis are taken from these ranges (first free ones). */
  nodePorts: readonly [number, number];
  redisPorts: readonly [number, number];
}

/** A node stopped with SIGTERM gets this long to close before SIGKILL. */
const GRACEFUL_STOP_MS = 10_000;
/** A node that fails to start (Redis away) is started again, this many times at most. */
const START_ATTEMPTS = 10;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once("error", () => resolve(false));
    srv.listen(port, "127.0.0.1", () => srv.close(() => resolve(true)));
  });
}

async function freePorts([lo, hi]: readonly [number, number], n: number): Promise<number[]> {
  const out: number[] = [];
  for (let p = lo; p <= hi && out.length < n; p++) if (await portFree(p)) out.push(p);
  if (out.length < n) throw new Error(`fewer than ${n} free ports in ${lo}-${hi}`);
  return out;
}

interface NodeSlot {
  proc: ServerProcess | null;
  /** Outputs of earlier incarnations (the logs say who owned what, and why a node died). */
  outputs: string[];
  /** Killed or stopped by the run: its exit is expected. */
  expectingExit: boolean;
  paused: boolean;
  /** The fault now being carried out on it, if any: the next waits for it. */
  busy: Promise<void> | null;
}

export class Fleet {
  readonly dir = fs.mkdtempSync(path.join(os.tmpdir(), "classroom-chaos-"));
  ports: number[] = [];
  redisPort = 0;
  private redis: RedisServer | null = null;
  private redisPaused = false;
  private redisBusy: Promise<void> | null = null;
  private readonly slots: NodeSlot[] = [];
  /** Exits nobody asked for (a crash is a finding). */
  readonly crashes: string[] = [];

  constructor(
    private readonly o: FleetOptions,
    private readonly history: History,
  ) {}

  get redisUrl(): string {
    return `redis://127.0.0.1:${this.redisPort}`;
  }

  url(node: number): string {
    return `http://127.0.0.1:${this.ports[node]}`;
  }

  /** Started and not killed: a load balancer would send connections there (a frozen node still accepts them). */
  reachable(node: number): boolean {
    return this.slots[node]?.proc !== null && !this.slots[node]?.expectingExit;
  }

  async start(): Promise<void> {
    this.ports = await freePorts(this.o.nodePorts, this.o.nodes);
    [this.redisPort] = await freePorts(this.o.redisPorts, 1);
    fs.mkdirSync(path.join(this.dir, "aof"));
    this.redis = await startRedis({ port: this.redisPort, appendOnlyDir: path.join(this.dir, "aof") });
    for (let i = 0; i < this.o.nodes; i++) this.slots.push({ proc: null, outputs: [], expectingExit: false, paused: false, busy: null });
    // One at a time: four tsx compiles at once on two cores take longer than one after another.
    for (let i = 0; i < this.o.nodes; i++) await this.startNode(i);
  }

  private async startNode(i: number): Promise<void> {
    const slot = this.slots[i];
    let proc: ServerProcess | null = null;
    // A node cannot start while Redis is away (it registers there first): it exits, and is started again, as a
    // supervisor would.
    for (let attempt = 1; !proc; attempt++) {
      try {
        proc = await spawnServer({
          dataDir: path.join(this.dir, `n${i}`),
          port: this.ports[i],
          // info: the node's id when it starts, and each session it creates or takes over (who owns what, when).
          env: { REDIS_URL: this.redisUrl, LOG_LEVEL: "info" },
        });
      } catch (err) {
        if (attempt >= START_ATTEMPTS) throw err;
        slot.outputs.push(`start attempt ${attempt} failed: ${(err as Error).message.slice(-2_000)}`);
        await sleep(1_000);
      }
    }
    slot.proc = proc;
    slot.expectingExit = false;
    const started = proc;
    void started.exited.then((code) => {
      if (slot.proc !== started || slot.expectingExit) return;
      this.crashes.push(`node ${i} exited by itself (code ${code}):\n${started.output().slice(-4_000)}`);
      // Gone: the heal starts it again.
      slot.outputs.push(started.output());
      slot.proc = null;
    });
  }

  /** Carries out one fault of the schedule; resolves when the target is back. Faults on one target run one after another. */
  run(fault: Fault): Promise<void> {
    if (fault.node === null) {
      const prev = this.redisBusy ?? Promise.resolve();
      const next = prev.then(() => this.redisFault(fault));
      this.redisBusy = next.finally(() => undefined);
      return next;
    }
    const slot = this.slots[fault.node];
    const prev = slot.busy ?? Promise.resolve();
    const next = prev.then(() => this.nodeFault(fault.node!, fault));
    slot.busy = next.finally(() => undefined);
    return next;
  }

  private record(kind: string, node: number | null): FaultRecord {
    const rec: FaultRecord = { kind, node, start: Date.now() };
    this.history.faults.push(rec);
    return rec;
  }

  private async nodeFault(i: number, fault: Fault): Promise<void> {
    const slot = this.slots[i];
    const proc = slot.proc;
    if (!proc) return;
    const rec = this.record(fault.kind, i);
    if (fault.kind === "pause") {
      slot.paused = true;
      proc.proc.kill("SIGSTOP");
      await sleep(fault.durationMs);
      proc.proc.kill("SIGCONT");
      slot.paused = false;
      rec.end = Date.now();
      return;
    }
    slot.expectingExit = true;
    if (fault.kind === "kill") {
      proc.proc.kill("SIGKILL");
      await proc.exited;
    } else {
      proc.proc.kill("SIGTERM");
      const timer = setTimeout(() => proc.proc.kill("SIGKILL"), GRACEFUL_STOP_MS);
      await proc.exited;
      clearTimeout(timer);
      if (proc.proc.signalCode === "SIGKILL") rec.note = `did not stop within ${GRACEFUL_STOP_MS} ms of SIGTERM`;
    }
    slot.outputs.push(proc.output());
    slot.proc = null;
    await sleep(fault.durationMs);
    await this.startNode(i);
    rec.end = Date.now();
  }

  private async redisFault(fault: Fault): Promise<void> {
    const redis = this.redis;
    if (!redis) return;
    const rec = this.record(fault.kind, null);
    if (fault.kind === "redis-pause") {
      this.redisPaused = true;
      redis.proc.kill("SIGSTOP");
      await sleep(fault.durationMs);
      redis.proc.kill("SIGCONT");
      this.redisPaused = false;
      rec.end = Date.now();
      return;
    }
    redis.proc.kill("SIGKILL");
    await new Promise((r) => (redis.proc.exitCode !== null || redis.proc.signalCode !== null ? r(null) : redis.proc.once("exit", r)));
    this.redis = null;
    await sleep(fault.durationMs);
    this.redis = await startRedis({ port: this.redisPort, appendOnlyDir: path.join(this.dir, "aof") });
    rec.end = Date.now();
  }

  /** Waits for the faults under way to finish (every target back), then makes sure everything runs. */
  async heal(): Promise<void> {
    await Promise.all([this.redisBusy, ...this.slots.map((s) => s.busy)].map((p) => p ?? Promise.resolve()));
    if (this.redisPaused) this.redis?.proc.kill("SIGCONT");
    for (const [i, slot] of this.slots.entries()) {
      if (slot.paused) slot.proc?.proc.kill("SIGCONT");
      if (!slot.proc) await this.startNode(i);
    }
  }

  /** Every node's log, all incarnations, for ownership and for failure reports. */
  outputs(): string[] {
    return this.slots.map((s) => [...s.outputs, s.proc?.output() ?? ""].join("\n"));
  }

  /** Who owned each session from when, read from the nodes' info lines (a node's id changes with each start). */
  ownerChanges(): OwnerChange[] {
    const changes: OwnerChange[] = [];
    for (const [node, text] of this.outputs().entries()) {
      for (const line of text.split("\n")) {
        if (!line.startsWith("{")) continue;
        let entry: { t?: string; msg?: string; sessionId?: string };
        try {
          entry = JSON.parse(line) as typeof entry;
        } catch {
          continue;
        }
        if (!entry.sessionId || !entry.t) continue;
        const at = Date.parse(entry.t);
        if (entry.msg === "session created") changes.push({ sessionId: entry.sessionId, node, at, how: "created" });
        if (entry.msg === "took over a session from a node that is gone")
          changes.push({ sessionId: entry.sessionId, node, at, how: "took over" });
      }
    }
    return changes.sort((a, b) => a.at - b.at);
  }

  async stop(keepDir: boolean): Promise<void> {
    for (const slot of this.slots) {
      slot.expectingExit = true;
      slot.proc?.proc.kill("SIGCONT");
      slot.proc?.proc.kill("SIGKILL");
    }
    await Promise.all(this.slots.map((s) => s.proc?.exited ?? Promise.resolve(null)));
    this.redis?.proc.kill("SIGCONT");
    await this.redis?.stop();
    if (!keepDir) fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
