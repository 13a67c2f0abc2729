import { fork, type ChildProcess } from "node:child_process";
import path from "node:path";
import { stopProcess } from "../tests/support/loopback";
import type { DriverCommand, WorkerEvent } from "./messages";
import { ROOT, track } from "./processes";
import { withTimeout } from "./wait";

/**
 * A client worker (bench/worker.ts) seen from the driver: the students live in
 * separate processes because one client process is the bottleneck; the driver
 * commands them and awaits their reports over IPC.
 */

export class Worker {
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
    await stopProcess(this.proc, 2_000);
  }
}
