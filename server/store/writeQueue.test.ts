import { describe, expect, it } from "vitest";
import { WRITE_BATCH_MAX, WRITE_BATCH_MAX_WAIT_MS, WriteQueue } from "./writeQueue";

describe("WriteQueue", () => {
  it("writes one batch per turn and releases waiters only after their batch is written", async () => {
    const written: number[][] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const q = new WriteQueue<number>(
      async (batch) => {
        await gate;
        written.push(batch);
      },
      () => undefined,
    );
    const order: string[] = [];
    q.push(1);
    q.push(2);
    q.afterDurable(() => order.push("after 1,2"));
    const flushed = q.flush().then(() => order.push("flush"));
    await new Promise((r) => setImmediate(r));
    // The batch is being written: a waiter arriving now must not run early.
    q.afterDurable(() => order.push("late waiter"));
    expect(order).toEqual([]);
    release();
    await flushed;
    await new Promise((r) => setImmediate(r));
    expect(written).toEqual([[1, 2]]);
    expect(order).toEqual(["after 1,2", "late waiter", "flush"]);
  });

  it("writes a full or old batch right after the callback that filled it, not on the loop's next turn", async () => {
    const written: number[] = [];
    const q = new WriteQueue<number>(
      (batch) => void written.push(batch.length),
      () => undefined,
    );
    const microtask = () => new Promise<void>((r) => queueMicrotask(r));
    // One short of full: it waits for setImmediate, as every batch used to.
    for (let i = 0; i < WRITE_BATCH_MAX - 1; i++) q.push(i);
    await microtask();
    await microtask();
    expect(written).toEqual([]);
    // Full: written within the same turn (a burst of votes can hold the loop's poll phase for hundreds of ms).
    q.push(WRITE_BATCH_MAX);
    await microtask();
    await microtask();
    expect(written).toEqual([WRITE_BATCH_MAX]);
    // Old: a write that has waited WRITE_BATCH_MAX_WAIT_MS goes with the next push.
    q.push(1);
    const until = performance.now() + WRITE_BATCH_MAX_WAIT_MS + 1;
    while (performance.now() < until) {
      // the event loop is held, as by a long poll phase
    }
    q.push(2);
    await microtask();
    await microtask();
    expect(written).toEqual([WRITE_BATCH_MAX, 2]);
    await q.flush();
    expect(written).toEqual([WRITE_BATCH_MAX, 2]);
  });

  it("runs a waiter at once when nothing is pending", () => {
    const q = new WriteQueue<number>(
      () => undefined,
      () => undefined,
    );
    let ran = false;
    q.afterDurable(() => (ran = true));
    expect(ran).toBe(true);
  });

  it("never runs a broadcast whose batch failed to write", async () => {
    const q = new WriteQueue<number>(
      () => {
        throw new Error("disk full");
      },
      () => undefined,
    );
    let broadcast = false;
    q.push(1);
    q.afterDurable(() => (broadcast = true));
    await expect(q.flush()).rejects.toThrow("disk full");
    expect(broadcast).toBe(false);
  });

  it("a batch that fails whole names only the sessions it held: nothing else is told it failed", async () => {
    const told: (string[] | null)[] = [];
    const q = new WriteQueue<{ session: string }>(
      () => {
        throw new Error("disk full");
      },
      (_err, failures) => told.push(failures ? [...failures.keys()] : null),
      (item) => item.session,
    );
    let otherDone = false;
    q.push({ session: "a" });
    q.push({ session: "b" });
    const a = q.flush("a");
    await expect(a).rejects.toThrow("disk full");
    expect(told).toEqual([["a", "b"]]);
    // A session with nothing in the failed batch is not affected.
    q.afterDurable(() => (otherDone = true), "c");
    expect(otherDone).toBe(true);
  });

  it("rejects flush when the write fails, and recovers on the next batch", async () => {
    let fail = true;
    const errors: string[] = [];
    const q = new WriteQueue<number>(
      () => {
        if (fail) throw new Error("disk full");
      },
      (e) => errors.push(e.message),
    );
    q.push(1);
    await expect(q.flush()).rejects.toThrow("disk full");
    fail = false;
    q.push(2);
    await expect(q.flush()).resolves.toBeUndefined();
    expect(errors).toEqual(["disk full"]);
  });
});
