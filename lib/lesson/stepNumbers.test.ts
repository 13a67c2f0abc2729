import { describe, expect, it } from "vitest";
import { getScenario } from "./scenarios";
import { customDiagram } from "./model";
import { cardStepSpoken, describeOrderChange, orderChange, orderExplanation, stepNumber } from "./stepNumbers";

const wffc = getScenario("WaitForFirstConsumer", "standard");
const immediate = getScenario("Immediate", "standard");
const conflict = getScenario("Immediate", "zone-conflict");
const local = getScenario("Local", "standard");
const noLocal = getScenario("Local", "no-local-pv");

const numbers = (steps: typeof wffc.steps) => steps.map((_, i) => stepNumber(steps, i));

describe("stepNumber", () => {
  it("numbers Immediate 1..12 in the order it runs, with the card's number only where it differs", () => {
    expect(immediate.steps.map((s) => s.label)).toEqual([1, 6, 7, 8, 9, 2, 3, 4, 5, 10, 11, 12]);
    expect(numbers(immediate.steps).map((n) => n.ordinal)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(numbers(immediate.steps).map((n) => n.card)).toEqual([null, 6, 7, 8, 9, 2, 3, 4, 5, null, null, null]);
  });

  it("shows no card number on the card's own order, nor on a teacher's lesson", () => {
    expect(numbers(wffc.steps).every((n) => n.card === null)).toBe(true);
    const lesson = customDiagram({
      title: "T",
      lifelines: [{ id: "A", name: "A" }],
      steps: [
        { from: "A", to: "A", line: "solid", head: "filled", title: "one" },
        { from: "A", to: "A", line: "solid", head: "filled", title: "two" },
      ],
    });
    expect(numbers(lesson.steps as typeof wffc.steps).map((n) => [n.ordinal, n.card])).toEqual([
      [1, null],
      [2, null],
    ]);
  });

  it("local PVs skip the provisioning steps, so every step from BIND PVC+PV on is numbered three lower", () => {
    expect(numbers(local.steps).map((n) => [n.ordinal, n.card])).toEqual([
      [1, null],
      [2, null],
      [3, null],
      [4, null],
      [5, null],
      [6, 9],
      [7, 10],
      [8, 11],
      [9, 12],
    ]);
  });

  it("says what the tag is when read aloud", () => {
    expect(cardStepSpoken(6)).toBe("card step 6 (the WaitForFirstConsumer order)");
  });
});

describe("orderChange", () => {
  it("Immediate: card steps 6-9 move up to right after step 1, and nothing is skipped", () => {
    expect(orderChange(immediate.steps)).toEqual({
      movedEarlier: [{ labels: [6, 7, 8, 9], after: 1, ordinals: [2, 3, 4, 5] }],
      skipped: [],
      failure: null,
    });
  });

  it("zone conflict: the same move, then it fails at PICK NODE and never reaches 5 or 10-12", () => {
    expect(orderChange(conflict.steps)).toEqual({
      movedEarlier: [{ labels: [6, 7, 8, 9], after: 1, ordinals: [2, 3, 4, 5] }],
      skipped: [],
      failure: { label: 4, ordinal: 8, unreached: [5, 10, 11, 12] },
    });
  });

  it("local PVs: nothing moves, 6-8 are skipped; no matching PV: it fails at step 4", () => {
    expect(orderChange(local.steps)).toEqual({ movedEarlier: [], skipped: [6, 7, 8], failure: null });
    expect(orderChange(noLocal.steps)).toEqual({
      movedEarlier: [],
      skipped: [],
      failure: { label: 4, ordinal: 4, unreached: [5, 6, 7, 8, 9, 10, 11, 12] },
    });
  });

  it("the card's own order: nothing changes", () => {
    expect(orderChange(wffc.steps)).toEqual({ movedEarlier: [], skipped: [], failure: null });
  });

  it("a run that comes first, and a single moved step, are told apart", () => {
    const steps = [3, 4, 1, 2, 6, 5, 7, 8, 9, 10, 11, 12].map((label) => ({ label }));
    expect(orderChange(steps).movedEarlier).toEqual([
      { labels: [3, 4], after: null, ordinals: [1, 2] },
      { labels: [6], after: 2, ordinals: [5] },
    ]);
    expect(describeOrderChange(steps)).toBe(
      "card steps 3–4 (NEW POD to PICK NODE) now come first, as steps 1–2, and card step 6 (PROVISION) now comes right after CREATE POD, as step 5",
    );
  });
});

describe("orderExplanation", () => {
  it("says for each scenario, in one sentence, what moved against the card and why", () => {
    expect(orderExplanation(wffc)).toBe(
      "In WaitForFirstConsumer, nothing is provisioned until the scheduler has chosen a node for the Pod: the steps follow the card's order, 1 to 12.",
    );
    expect(orderExplanation(immediate)).toBe(
      "In Immediate, the volume is provisioned and bound as soon as the claim is created, without waiting for a Pod: card steps 6–9 (PROVISION to BIND PVC+PV) now come right after CREATE PVC, as steps 2–5.",
    );
    expect(orderExplanation(conflict)).toBe(
      "In Immediate, the volume is provisioned and bound as soon as the claim is created, in a zone chosen without the Pod: card steps 6–9 (PROVISION to BIND PVC+PV) now come right after CREATE PVC, as steps 2–5, and PICK NODE fails (step 8), so card steps 5 and 10–12 do not happen.",
    );
    expect(orderExplanation(local)).toBe(
      "With local PVs the scheduler picks a hand-made PV on the chosen node and nothing is provisioned: card steps 6–8 (PROVISION to CREATE PV) do not happen, so BIND PVC+PV is step 6.",
    );
    expect(orderExplanation(noLocal)).toBe(
      "With local PVs nothing is provisioned, and here no node has a matching hand-made PV: PICK NODE fails, so card steps 5–12 do not happen.",
    );
  });

  it("is one sentence: a single full stop, at the end", () => {
    for (const scenario of [wffc, immediate, conflict, local, noLocal]) {
      const sentence = orderExplanation(scenario);
      expect(sentence.endsWith(".")).toBe(true);
      expect(sentence.slice(0, -1)).not.toMatch(/\.\s/);
    }
  });

  it("names the titles of the steps it mentions as the scenario itself names them", () => {
    for (const scenario of [immediate, conflict]) {
      const titles = scenario.steps.filter((s) => [6, 9].includes(s.label)).map((s) => s.title);
      expect(titles).toEqual(["PROVISION", "BIND PVC+PV"]);
      expect(orderExplanation(scenario)).toContain(`(${titles[0]} to ${titles[1]})`);
    }
    expect(local.steps[5].title).toBe("BIND PVC+PV");
  });
});
