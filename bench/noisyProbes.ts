import { PROTOCOL_VERSION } from "../lib/protocol";
import { connectSocket } from "./client";
import { now } from "./messages";
import { firstClassSession } from "./patch";
import { emptyProbe, type Probe } from "./noisyResults";
import { count } from "./stats";
import { sleep } from "./wait";

/**
 * Whether the server still lets people in while room A is measured (bench/noisy.ts):
 * new students joining room A, each from its own address, and GET /api/health.
 */

const PROBE_INTERVAL_MS = 250;
const PROBE_TIMEOUT_MS = 10_000;

export class NoisyProbes {
  /** late students so far, across the phases: each gets its own nickname and address */
  private late = 0;

  constructor(
    private readonly url: string,
    /** room A's code */
    private readonly code: string,
  ) {}

  /** New students joining room A (one every other probe tick) and GET /api/health (every tick), while active() holds. */
  async run(active: () => boolean): Promise<{ joins: Probe; health: Probe }> {
    const joins = emptyProbe();
    const health = emptyProbe();
    const tasks: Promise<void>[] = [];
    for (let tick = 0; active(); tick++) {
      tasks.push(this.probeHealth(health));
      if (tick % 2 === 0) tasks.push(this.probeJoin(joins, this.late++));
      await sleep(PROBE_INTERVAL_MS);
    }
    await Promise.all(tasks);
    return { joins, health };
  }

  private async probeHealth(p: Probe): Promise<void> {
    p.tried += 1;
    const at = now();
    try {
      const res = await fetch(`${this.url}/api/health`, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
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

  /** A student arriving late in room A, from its own address: connect → first snapshot (its whole `session:patch`), then leave. */
  private probeJoin(p: Probe, k: number): Promise<void> {
    p.tried += 1;
    const at = now();
    return new Promise((resolve) => {
      const socket = connectSocket(
        this.url,
        { v: PROTOCOL_VERSION, role: "student", code: this.code, nickname: `late ${k}` },
        `127.0.0.${40 + (k % 10)}`,
        PROBE_TIMEOUT_MS,
      );
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
      // A refused join is counted by the connect_error handler below, with its code.
      firstClassSession(socket).then(
        () => done(null),
        () => undefined,
      );
      socket.once("connect_error", (err: Error & { data?: { code?: string } }) => done(err.data?.code ?? err.message));
      socket.once("disconnect", (reason: string) => done(`disconnect: ${reason}`));
    });
  }
}
