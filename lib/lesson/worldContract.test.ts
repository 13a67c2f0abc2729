import { describe, expect, it } from "vitest";
import { worldAt, initialWorld } from "./index";
import { type Obj, wffc, local } from "../../tests/support/lessonWorld";

describe("worldAt: contract", () => {
  it("-1 is before step 1: only the StorageClass (and a local PV)", () => {
    const w = initialWorld(wffc);
    expect([w.pvc, w.pv, w.pod, w.volumeAttachment, w.disk, w.podNode]).toEqual([null, null, null, null, null, null]);
    expect(w.events).toEqual([]);
    expect(initialWorld(local).pv).not.toBeNull();
  });

  it("rejects positions outside the scenario", () => {
    expect(() => worldAt(wffc, 12)).toThrow(RangeError);
    expect(() => worldAt(wffc, -2)).toThrow(RangeError);
    expect(() => worldAt(wffc, 1.5)).toThrow(RangeError);
  });

  it("is cached, frozen, and keeps identity of unchanged objects", () => {
    expect(worldAt(wffc, 3)).toBe(worldAt(wffc, 3));
    expect(Object.isFrozen(worldAt(wffc, 3).pvc)).toBe(true);
    expect(Object.isFrozen((worldAt(wffc, 3).pvc as Obj).metadata)).toBe(true);
    // Steps 2-4 do not touch the PVC; step 5 does.
    expect(worldAt(wffc, 2).pvc).toBe(worldAt(wffc, 1).pvc);
    expect(worldAt(wffc, 4).pvc).not.toBe(worldAt(wffc, 3).pvc);
  });

  // No timing assertion here (they flake on a shared machine): calling it on every render is cheap because
  // each scenario's worlds are computed once and returned by identity.
  it("returns the same precomputed world on every call", () => {
    for (let i = 0; i < 12; i++) expect(worldAt(wffc, i)).toBe(worldAt(wffc, i));
  });
});
