import { fork, type ChildProcess } from "node:child_process";
import path from "node:path";
import type { FloodCommand, FloodEvent } from "./messages";

/**
 * bench/flood.ts as a child process, seen from the noisy-neighbour scenario
 * (bench/noisy.ts), with the same bounded waits as the client workers
 * (bench/workers.ts).
 */

const ROOT = path.resolve(__dirname, "..");

/** What the scenario lends the flooder: its process tracking and its log. */
export interface FlooderDeps {
  /** registers a child process to be killed on any exit path */
  track(child: ChildProcess): ChildProcess;
  stop(child: ChildProcess, graceMs?: number): Promise<void>;
  log(line: string): void;
}

export class Flooder {
  readonly proc: ChildProcess;
  private inbox: FloodEvent[] = [];
  private waiters: { ev: FloodEvent["ev"]; resolve: (e: FloodEvent) => void }[] = [];

  constructor(private readonly deps: FlooderDeps) {
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
