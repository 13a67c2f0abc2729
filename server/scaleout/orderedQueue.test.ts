import { describe, expect, it } from "vitest";
import { OrderedQueue } from "./orderedQueue";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("OrderedQueue", () => {
  it("runs one sender's calls one at a time in arrival order, other senders alongside", async () => {
    const q = new OrderedQueue();
    const log: string[] = [];
    const call = (name: string, ms: number) => async () => {
      log.push(`start ${name}`);
      await sleep(ms);
      log.push(`end ${name}`);
      return name;
    };
    const deadline = Date.now() + 5_000;
    const late = () => "late";
    const results = await Promise.all([
      q.run("teacher", deadline, call("a1", 30), late),
      q.run("teacher", deadline, call("a2", 1), late),
      q.run("student", deadline, call("b1", 5), late),
    ]);
    expect(results).toEqual(["a1", "a2", "b1"]);
    // a2 waited for a1; b1 did not wait for either.
    expect(log.indexOf("start a2")).toBeGreaterThan(log.indexOf("end a1"));
    expect(log.indexOf("start b1")).toBeLessThan(log.indexOf("end a1"));
    // Nothing is kept for senders with nothing queued.
    await sleep(0);
    expect(q.size).toBe(0);
  });

  it("answers a stuck call at its deadline, as started, and lets the next one go", async () => {
    const q = new OrderedQueue();
    let release!: () => void;
    const stuck = new Promise<string>((r) => (release = () => r("finally")));
    const first = q.run(
      "teacher",
      Date.now() + 50,
      () => stuck,
      (started) => (started ? "in doubt" : "not run"),
    );
    const second = q.run(
      "teacher",
      Date.now() + 1_000,
      () => Promise.resolve("second"),
      () => "late",
    );
    expect(await first).toBe("in doubt");
    expect(await second).toBe("second");
    // The stuck call finishing later changes no answer.
    release();
    await sleep(5);
    expect(await first).toBe("in doubt");
  });

  it("never starts a call whose deadline passed while it waited, and says so", async () => {
    const q = new OrderedQueue();
    let ran = false;
    const first = q.run(
      "s",
      Date.now() + 1_000,
      () => sleep(100).then(() => "first"),
      () => "late",
    );
    const second = q.run(
      "s",
      Date.now() + 30,
      async () => {
        ran = true;
        return "second";
      },
      (started) => (started ? "in doubt" : "not run"),
    );
    expect(await second).toBe("not run");
    expect(await first).toBe("first");
    await sleep(10);
    expect(ran).toBe(false);
  });

  it("passes on what a call throws, and what `late` throws", async () => {
    const q = new OrderedQueue();
    await expect(
      q.run(
        "s",
        Date.now() + 1_000,
        () => Promise.reject(new Error("refused")),
        () => "late",
      ),
    ).rejects.toThrow("refused");
    await expect(
      q.run(
        "s",
        Date.now() + 10,
        () => sleep(50).then(() => "slow"),
        () => {
          throw new Error("gave up");
        },
      ),
    ).rejects.toThrow("gave up");
  });
});
