import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Presence } from "./presence";
import { LeadingEdgeThrottle } from "./throttle";

describe("LeadingEdgeThrottle", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("runs the first request at once, folds a storm into one run per interval, and never loses the last", () => {
    let runs = 0;
    const t = new LeadingEdgeThrottle(250, () => runs++);
    t.request();
    expect(runs).toBe(1);
    for (let i = 0; i < 1000; i++) t.request();
    expect(runs).toBe(1);
    vi.advanceTimersByTime(250);
    expect(runs).toBe(2);
    vi.advanceTimersByTime(1000);
    // Nothing new was asked for: no more runs.
    expect(runs).toBe(2);
  });

  it("drops a pending run when cancelled, and runs nothing after it is stopped", () => {
    let runs = 0;
    const t = new LeadingEdgeThrottle(250, () => runs++);
    t.request();
    t.request();
    t.cancel();
    vi.advanceTimersByTime(500);
    expect(runs).toBe(1);
    t.stop();
    t.request();
    vi.advanceTimersByTime(500);
    expect(runs).toBe(1);
  });
});

describe("Presence", () => {
  it("counts a student with two tabs once, the peak once per new high, and idleness from the last to leave", () => {
    let now = 1_000;
    let changes = 0;
    const peaks: number[] = [];
    const p = new Presence(
      () => now,
      () => changes++,
      (peak) => peaks.push(peak),
    );
    p.connect("a");
    p.connect("a");
    p.connect("b");
    expect(p.connectedCount).toBe(2);
    expect(peaks).toEqual([1, 2]);
    p.disconnect("a", "tab1");
    expect(p.isConnected("a")).toBe(true);
    p.watcherJoined("projector");
    expect(p.projectorCount).toBe(1);
    now = 5_000;
    p.disconnect("a", "tab2");
    p.disconnect("b", "tab3");
    p.watcherLeft("projector");
    expect(p.anyoneConnected).toBe(false);
    expect(p.idleSince).toBe(5_000);
    // Every visible change was reported (joins, leaves, projector views), and nothing more.
    expect(changes).toBe(6);
    p.reset(["c", "c", "d"], 1, 0);
    expect([p.connectedCount, p.anyoneConnected, peaks.at(-1)]).toEqual([2, true, 2]);
  });

  it("a recount tells the console who came and went, nothing when nobody did, and keeps idleness", () => {
    let now = 1_000;
    const told: (string | undefined)[] = [];
    const p = new Presence(
      () => now,
      (id) => told.push(id),
      () => undefined,
    );
    p.reset(["a", "b"], 0, 0);
    expect(told.sort()).toEqual(["a", "b"]);
    // The same students (one with a second tab): nothing to tell.
    told.length = 0;
    p.reset(["b", "a", "a"], 0, 0);
    expect(told).toEqual([]);
    // One left and another came: still two, but the roster's connected marks changed.
    p.reset(["a", "c"], 0, 0);
    expect([told.sort(), p.isConnected("b"), p.isConnected("c")]).toEqual([["b", "c"], false, true]);
    now = 9_000;
    p.reset([], 0, 0);
    expect([p.anyoneConnected, p.idleSince]).toEqual([false, 9_000]);
    // Recounting an empty room again does not restart its idle time (the idle sweep must still end it).
    now = 20_000;
    p.reset([], 0, 0);
    expect(p.idleSince).toBe(9_000);
  });

  it("counts a student looking back while any of their tabs does, and not once the tabs are gone", () => {
    let looks = 0;
    const p = new Presence(
      () => 0,
      () => undefined,
      () => undefined,
      () => looks++,
    );
    p.connect("ada");
    p.connect("ada");
    p.connect("bo");
    p.lookBack("ada", "laptop", true);
    p.lookBack("ada", "phone", true);
    p.lookBack("ada", "phone", false);
    expect([p.lookingBackCount, looks]).toEqual([1, 1]);
    p.lookBack("bo", "bo-tab", true);
    p.disconnect("bo", "bo-tab");
    expect([p.lookingBackCount, looks]).toEqual([1, 3]);
    // The tab that looked back closes; Ada's other tab is live.
    p.disconnect("ada", "laptop");
    expect([p.lookingBackCount, p.isConnected("ada"), looks]).toEqual([0, true, 4]);
    // Someone not connected is not counted; a recount takes each node's own word.
    p.lookBack("cy", "cy-tab", true);
    expect(p.lookingBackCount).toBe(0);
    p.reset(["ada", "bo"], 0, 0, ["bo", "bo", "cy"]);
    expect([p.lookingBackCount, looks]).toEqual([1, 5]);
    p.reset(["ada"], 0, 0, ["bo"]);
    expect([p.lookingBackCount, looks]).toEqual([0, 6]);
  });
});
