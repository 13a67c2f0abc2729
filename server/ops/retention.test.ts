import { describe, expect, it } from "vitest";
import { setLogLevel } from "../logger";
import type { RetentionSweep } from "../store/types";
import { DAY_MS, startRetention } from "./retention";

setLogLevel("silent");

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(done: () => boolean, timeoutMs = 5_000): Promise<void> {
  const start = Date.now();
  while (!done()) {
    if (Date.now() - start > timeoutMs) throw new Error("timed out");
    await sleep(5);
  }
}

describe("retention schedule", () => {
  it("runs soon after start and then on every interval, with the cutoff RETENTION_DAYS before now", async () => {
    const cutoffs: number[] = [];
    const now = 100 * DAY_MS;
    const retention = startRetention({
      store: { deleteEndedBefore: async (cutoff) => (cutoffs.push(cutoff), { sessions: 0, events: 0 }) },
      days: 30,
      now: () => now,
      firstDelayMs: 5,
      intervalMs: 40,
    });
    await until(() => cutoffs.length >= 3);
    await retention.stop();
    expect(new Set(cutoffs)).toEqual(new Set([70 * DAY_MS]));
    const after = cutoffs.length;
    await sleep(100);
    expect(cutoffs).toHaveLength(after);
  });

  it("never runs two passes at once, keeps going after a failed one, and stop waits for the pass in progress", async () => {
    let running = 0;
    let overlapped = false;
    let calls = 0;
    let finished = 0;
    const retention = startRetention({
      store: {
        deleteEndedBefore: async (): Promise<RetentionSweep> => {
          calls++;
          if (calls === 1) throw new Error("disk I/O error");
          running++;
          if (running > 1) overlapped = true;
          await sleep(60);
          running--;
          finished++;
          return { sessions: 1, events: 3 };
        },
      },
      days: 1,
      firstDelayMs: 1,
      intervalMs: 10,
    });
    // The first pass fails (logged); the schedule goes on.
    await until(() => calls >= 1);
    // While a pass runs, asking for another joins it.
    const [a, b] = await Promise.all([retention.run(), retention.run()]);
    expect(a).toEqual({ sessions: 1, events: 3 });
    expect(b).toBe(a);
    await until(() => calls >= 3);
    await retention.stop();
    expect(running).toBe(0);
    expect(overlapped).toBe(false);
    expect(finished).toBe(calls - 1);
    expect(await retention.run()).toBeNull();
  });

  it("shutdown stops a long pass between two sessions instead of waiting for all of them", async () => {
    let deleted = 0;
    const retention = startRetention({
      store: {
        deleteEndedBefore: async (_cutoff, signal): Promise<RetentionSweep> => {
          for (let i = 0; i < 1_000 && !signal?.aborted; i++) {
            await sleep(2);
            deleted++;
          }
          return { sessions: deleted, events: deleted };
        },
      },
      days: 1,
      firstDelayMs: 1,
    });
    await until(() => deleted >= 3);
    await retention.stop();
    const atStop = deleted;
    expect(atStop).toBeLessThan(1_000);
    await sleep(20);
    expect(deleted).toBe(atStop);
  });
});
