import { fork, type ChildProcess } from "node:child_process";
import path from "node:path";
import { stopProcess } from "../tests/support/loopback";
import type { DriverCommand, WorkerEvent } from "./messages";
import { ROOT, track } from "./processes";
import { withTimeout } from "./wait";

/**
 * A client worker (bench/worker.ts, or bench/schoolWorker.ts for the school)
 * seen from the driver: the students live in separate processes because one
 * client process is the bottleneck; the driver commands them and awaits their
 * reports over IPC.
 */

export class Worker<Command extends { cmd: string } = DriverCommand, Event extends { ev: string } = WorkerEvent> {
  readonly proc: ChildProcess;
  private inbox: Event[] = [];
  private waiters: { match: (e: Event) => boolean; resolve: (e: Event) => void }[] = [];

  constructor(
    readonly index: number,
    script = "worker.ts",
  ) {
    this.proc = track(
      fork(path.join(__dirname, script), [], {
        cwd: ROOT,
        execArgv: ["--import", "tsx"],
        stdio: ["ignore", "inherit", "inherit", "ipc"],
      }),
    );
    this.proc.on("message", (event: Event) => {
      if (event.ev === "error") console.error(`worker ${index}: ${(event as { message?: string }).message}`);
      const i = this.waiters.findIndex((w) => w.match(event));
      if (i >= 0) this.waiters.splice(i, 1)[0].resolve(event);
      else this.inbox.push(event);
    });
  }

  send(command: Command): void {
    this.proc.send(command);
  }

  /** The next event of this kind (buffered if it already came), or a timeout error. */
  next<E extends Event["ev"]>(ev: E, timeoutMs: number): Promise<Extract<Event, { ev: E }>> {
    const match = (e: Event) => e.ev === ev;
    const i = this.inbox.findIndex(match);
    if (i >= 0) return Promise.resolve(this.inbox.splice(i, 1)[0] as Extract<Event, { ev: E }>);
    let waiter: { match: (e: Event) => boolean; resolve: (e: Event) => void };
    const promise = new Promise<Event>((resolve) => {
      waiter = { match, resolve };
      this.waiters.push(waiter);
    });
    return withTimeout(promise, timeoutMs, `worker ${this.index}: ${ev}`).catch((err) => {
      this.waiters = this.waiters.filter((w) => w !== waiter);
      throw err;
    }) as Promise<Extract<Event, { ev: E }>>;
  }

  async close(): Promise<void> {
    if (this.proc.exitCode !== null || !this.proc.connected) return;
    try {
      this.send({ cmd: "close" } as Command); // every worker script takes { cmd: "close" } and answers "closed"
      await this.next("closed" as Event["ev"], 5_000);
    } catch {
      // killed below
    }
    await stopProcess(this.proc, 2_000);
  }
}
