import { describe, expect, it } from "vitest";
import { compareTimeline, getScenario } from "./index";

const wffc = getScenario("WaitForFirstConsumer", "standard");
const immediate = getScenario("Immediate", "standard");
const conflict = getScenario("Immediate", "zone-conflict");
const local = getScenario("Local", "standard");
const noLocal = getScenario("Local", "no-local-pv");

const pairs = (c: ReturnType<typeof compareTimeline>) => c.rows.map((r) => [r.a?.label ?? null, r.b?.label ?? null]);

describe("compareTimeline", () => {
  it("WaitForFirstConsumer vs Immediate: one row per moment, diverging right after CREATE PVC", () => {
    const c = compareTimeline(wffc, immediate);
    expect(pairs(c)).toEqual([
      [1, 1],
      [2, 6],
      [3, 7],
      [4, 8],
      [5, 9],
      [6, 2],
      [7, 3],
      [8, 4],
      [9, 5],
      [10, 10],
      [11, 11],
      [12, 12],
    ]);
    expect(c.firstDivergence).toBe(1);
    expect(c.rows[0].same).toBe(true);
    expect(c.rows[8].same).toBe(false); // 9 vs Immediate's no-op 5
    expect(c.rows[9].same).toBe(true);
    expect(c.divergenceExplanation).toBe(
      "In Immediate the disk is created and bound right after the PVC, before any Pod exists, in a zone chosen without knowing the Pod; in WaitForFirstConsumer provisioning waits for the scheduler's choice of node, and the disk is created where that node can reach it.",
    );
  });

  it("the explanation does not depend on the order of the sides", () => {
    expect(compareTimeline(immediate, wffc).divergenceExplanation).toBe(compareTimeline(wffc, immediate).divergenceExplanation);
  });

  it("Immediate vs its zone conflict: same order until PICK NODE fails", () => {
    const c = compareTimeline(immediate, conflict);
    expect(c.rows).toHaveLength(12);
    expect(c.firstDivergence).toBe(7);
    expect(c.rows[7].b).toMatchObject({ label: 4, failed: true });
    expect(c.rows[8].b).toBeNull();
    expect(c.divergenceExplanation).toContain("only the Pod differs");
  });

  it("WaitForFirstConsumer vs Local: diverges when Local skips provisioning", () => {
    const c = compareTimeline(wffc, local);
    expect(pairs(c).slice(4, 7)).toEqual([
      [5, 5],
      [6, 9],
      [7, 10],
    ]);
    expect(c.firstDivergence).toBe(5);
    expect(c.divergenceExplanation).toContain("claimRef");
  });

  it("Local vs no local PV: diverges at PICK NODE", () => {
    const c = compareTimeline(local, noLocal);
    expect(c.firstDivergence).toBe(3);
    expect(c.rows[4]).toMatchObject({ a: { label: 5 }, b: null, same: false });
  });

  it("a scenario against itself never diverges", () => {
    const c = compareTimeline(wffc, wffc);
    expect(c.firstDivergence).toBeNull();
    expect(c.rows.every((r) => r.same)).toBe(true);
  });
});
