import { describe, expect, it } from "vitest";
import { setLogLevel } from "../logger";
import { createReadiness } from "./readiness";

setLogLevel("silent");

/** A store whose writes the test settles by hand. */
function manualStore() {
  const writes: { resolve: () => void; reject: (err: Error) => void }[] = [];
  return {
    writes,
    checkWritable: () => new Promise<void>((resolve, reject) => writes.push({ resolve, reject })),
  };
}

describe("readiness", () => {
  it("is ready when the store takes a write, and not when it refuses one (without saying why to the caller)", async () => {
    const store = manualStore();
    const readiness = createReadiness({ store, kind: "sqlite", cacheMs: 0 });
    const first = readiness.check();
    store.writes[0].resolve();
    expect(await first).toMatchObject({ ready: true, draining: false, store: { kind: "sqlite", writable: true } });

    const second = readiness.check();
    store.writes[1].reject(new Error("SQLITE_FULL: database or disk is full at /srv/data/sessions.sqlite"));
    const report = await second;
    expect(report).toMatchObject({ ready: false, store: { writable: false, ms: null, problem: "the store refused a write" } });
    expect(JSON.stringify(report)).not.toMatch(/srv|SQLITE/);
  });

  it("gives up on a write that hangs, and starts no other until it settles", async () => {
    const store = manualStore();
    const readiness = createReadiness({ store, kind: "redis", cacheMs: 0, timeoutMs: 30 });
    const hung = await readiness.check();
    expect(hung).toMatchObject({ ready: false, store: { writable: false } });
    expect(hung.store.problem).toMatch(/within 30 ms/);
    // Asked again while the first write still hangs: no second write piles up behind it.
    const again = await readiness.check();
    expect(again.ready).toBe(false);
    expect(again.store.problem).toMatch(/has not answered a write/);
    expect(store.writes).toHaveLength(1);
    store.writes[0].resolve();
    await new Promise((r) => setTimeout(r, 0));
    const next = readiness.check();
    expect(store.writes).toHaveLength(2);
    store.writes[1].resolve();
    expect((await next).ready).toBe(true);
  });

  it("answers many callers with one write per interval", async () => {
    let writes = 0;
    let now = 1_000;
    const readiness = createReadiness({
      store: { checkWritable: async () => void writes++ },
      kind: "sqlite",
      cacheMs: 1_000,
      now: () => now,
    });
    const answers = await Promise.all(Array.from({ length: 50 }, () => readiness.check()));
    expect(answers.every((a) => a.ready)).toBe(true);
    expect(writes).toBe(1);
    now += 999;
    await readiness.check();
    expect(writes).toBe(1);
    now += 2;
    await readiness.check();
    expect(writes).toBe(2);
  });

  it("says not ready once shutdown has begun, even with a writable store", async () => {
    const readiness = createReadiness({ store: { checkWritable: async () => undefined }, kind: "sqlite" });
    expect((await readiness.check()).ready).toBe(true);
    readiness.drain();
    expect(await readiness.check()).toMatchObject({ ready: false, draining: true, store: { writable: true } });
  });
});
