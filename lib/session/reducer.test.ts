import { describe, expect, it } from "vitest";
import { getScenario, mapPosition, VARIANTS_BY_MODE, type BindingMode, type VariantId } from "../lesson";
import { initialState } from "./reducer";
import type { ProjectorPanel, SessionEventBody } from "./types";
import {
  atOf,
  run,
  foldMore as then,
  expectIgnored,
  CREATED,
  join,
  step,
  vote,
  Q1,
  openQ2,
  close,
  CLASS,
  pollOf,
} from "../../tests/support/sessionEvents";

// The session's own events (created, steps, modes, participants, lock, results, projector, end), one event at a
// time. Polls are in reducerPolls.test.ts, replay of a whole lesson in reducerReplay.test.ts.

describe("session:created", () => {
  it("stamps id, code, title and createdAt on a fresh state", () => {
    const state = run([CREATED]);
    expect(state).toEqual({
      ...initialState(),
      id: "s1",
      code: "KUBE42",
      title: "Dynamic provisioning",
      createdAt: atOf(1),
      seq: 1,
      lastEventAt: atOf(1),
    });
  });

  it("resets everything, even after the session ended", () => {
    const busy = run([
      ...CLASS,
      { type: "room:locked", locked: true },
      { type: "projector:panelChanged", panel: "objects" },
      { type: "mode:changed", mode: "Immediate", variant: "standard", stepIndex: 0, matched: false },
      Q1,
      vote("p1", "o1"),
      { type: "results:visibility", visible: true },
      { type: "session:ended" },
    ]);
    expect(busy.status).toBe("ended");
    const fresh = then(busy, [{ type: "session:created", id: "s2", code: "NEW001", title: "Second run" }]);
    expect(fresh).toEqual({
      ...initialState(),
      id: "s2",
      code: "NEW001",
      title: "Second run",
      createdAt: atOf(13),
      seq: 13,
      lastEventAt: atOf(13),
    });
  });
});

describe("step:changed", () => {
  it("moves to any index inside the current scenario", () => {
    expect(run([CREATED, step(5)]).stepIndex).toBe(5);
    expect(run([CREATED, step(11)]).stepIndex).toBe(11); // last of WaitForFirstConsumer's 12
    expect(run([CREATED, step(5), step(0)]).stepIndex).toBe(0);
  });

  it.each([
    ["past the end", 12],
    ["negative", -1],
    ["fractional", 2.5],
    ["NaN", Number.NaN],
    ["infinite", Number.POSITIVE_INFINITY],
  ])("ignores an index that is %s, but still advances seq", (_why, stepIndex) => {
    const before = run([...CLASS]);
    expect(before.stepIndex).toBe(3);
    expectIgnored(before, step(stepIndex));
  });

  it("checks the range against the scenario the class is in now", () => {
    // Local/no-local-pv stops at PICK NODE: four steps.
    const local = run([CREATED, { type: "mode:changed", mode: "Local", variant: "no-local-pv", stepIndex: 0, matched: false }]);
    expect(getScenario("Local", "no-local-pv").steps).toHaveLength(4);
    expect(then(local, [step(3)]).stepIndex).toBe(3);
    expectIgnored(local, step(4));
  });

  it("clears the mode-switch note, but an ignored step does not", () => {
    const switched = run([CREATED, step(4), { type: "mode:changed", mode: "Immediate", variant: "standard", stepIndex: 8, matched: true }]);
    expect(switched.modeSwitch).not.toBeNull();
    expect(then(switched, [step(99)]).modeSwitch).toEqual(switched.modeSwitch);
    const moved = then(switched, [step(9)]);
    expect(moved.modeSwitch).toBeNull();
    expect(moved.stepIndex).toBe(9);
    // Stepping to the same index still counts as moving on.
    expect(then(switched, [step(8)]).modeSwitch).toBeNull();
  });
});

describe("mode:changed", () => {
  it("records where the class came from and whether the moment matched", () => {
    // WFFC index 4 is label 5 (NODE CHOSEN); Immediate has label 5 at index 8.
    const wffc = getScenario("WaitForFirstConsumer");
    const immediate = getScenario("Immediate", "standard");
    expect(mapPosition(wffc, 4, immediate)).toEqual({ index: 8, matched: true });
    const state = run([CREATED, step(4), { type: "mode:changed", mode: "Immediate", variant: "standard", stepIndex: 8, matched: true }]);
    expect(state.mode).toBe("Immediate");
    expect(state.variant).toBe("standard");
    expect(state.stepIndex).toBe(8);
    expect(state.modeSwitch).toEqual({
      fromMode: "WaitForFirstConsumer",
      fromVariant: "standard",
      fromLabel: 5,
      matched: true,
    });
    expect(immediate.steps[state.stepIndex].label).toBe(5);
  });

  it("records a restart when the new scenario lacks the moment", () => {
    // Immediate index 8 is label 5; the zone-conflict track stops at label 4.
    const state = run([
      CREATED,
      { type: "mode:changed", mode: "Immediate", variant: "standard", stepIndex: 8, matched: true },
      { type: "mode:changed", mode: "Immediate", variant: "zone-conflict", stepIndex: 0, matched: false },
    ]);
    expect(state.variant).toBe("zone-conflict");
    expect(state.stepIndex).toBe(0);
    expect(state.modeSwitch).toEqual({ fromMode: "Immediate", fromVariant: "standard", fromLabel: 5, matched: false });
  });

  it("takes fromLabel from the card label, not the index", () => {
    // Immediate index 1 is label 6 (PROVISION), which is WFFC index 5.
    const state = run([
      CREATED,
      { type: "mode:changed", mode: "Immediate", variant: "standard", stepIndex: 0, matched: true },
      step(1),
      { type: "mode:changed", mode: "WaitForFirstConsumer", variant: "standard", stepIndex: 5, matched: true },
    ]);
    expect(state.modeSwitch).toEqual({ fromMode: "Immediate", fromVariant: "standard", fromLabel: 6, matched: true });
    expect(state.stepIndex).toBe(5);
  });

  it.each<[BindingMode, VariantId]>([
    ["WaitForFirstConsumer", "zone-conflict"],
    ["WaitForFirstConsumer", "no-local-pv"],
    ["Local", "zone-conflict"],
    ["Immediate", "no-local-pv"],
  ])("ignores %s with variant %s, but still advances seq", (mode, variant) => {
    expect(VARIANTS_BY_MODE[mode]).not.toContain(variant);
    const before = run([...CLASS]);
    expectIgnored(before, { type: "mode:changed", mode, variant, stepIndex: 0, matched: false });
  });

  it("ignores a step index outside the target scenario", () => {
    const before = run([...CLASS]);
    expectIgnored(before, { type: "mode:changed", mode: "Local", variant: "no-local-pv", stepIndex: 4, matched: true });
    expectIgnored(before, { type: "mode:changed", mode: "Local", variant: "standard", stepIndex: -1, matched: true });
    expectIgnored(before, { type: "mode:changed", mode: "Immediate", variant: "standard", stepIndex: 1.5, matched: true });
  });
});

describe("participants", () => {
  it("joins, ignores a second join with the same id, renames", () => {
    let state = run([CREATED, join("p1", "Ada"), join("p2", "Linus")]);
    expect(state.participants).toEqual({
      p1: { id: "p1", nickname: "Ada", removed: false },
      p2: { id: "p2", nickname: "Linus", removed: false },
    });
    expectIgnored(state, join("p1", "Impostor"));
    state = then(state, [{ type: "participant:renamed", participantId: "p1", nickname: "Grace" }]);
    expect(state.participants.p1).toEqual({ id: "p1", nickname: "Grace", removed: false });
    expectIgnored(state, { type: "participant:renamed", participantId: "ghost", nickname: "Boo" });
  });

  it("marks a removed participant, who cannot rejoin under the same id", () => {
    const state = run([CREATED, join("p1", "Ada"), join("p2"), { type: "participant:removed", participantId: "p1" }]);
    expect(state.participants.p1).toEqual({ id: "p1", nickname: "Ada", removed: true });
    expect(state.participants.p2.removed).toBe(false);
    expectIgnored(state, join("p1", "Ada again"));
    expectIgnored(state, { type: "participant:removed", participantId: "ghost" });
  });

  it("drops a removed participant's vote from the open poll and refuses new ones", () => {
    const voted = run([...CLASS, Q1, vote("p1", "o1"), vote("p2", "o2"), vote("p3", "o1")]);
    const removed = then(voted, [{ type: "participant:removed", participantId: "p1" }]);
    expect(pollOf(removed).votes).toEqual({ p2: "o2", p3: "o1" });
    expectIgnored(removed, vote("p1", "o3"));
    const closed = then(removed, [close("q1", { o1: 1, o2: 1, o3: 0 }, 2)]);
    expect(pollOf(closed).history).toEqual([{ round: 1, counts: { o1: 1, o2: 1, o3: 0 }, total: 2 }]);
  });

  it("lets a removed participant back in, and ignores letting in someone never removed", () => {
    const removed = run([CREATED, join("p1", "Ada"), join("p2"), { type: "participant:removed", participantId: "p1" }]);
    const back = then(removed, [{ type: "participant:readmitted", participantId: "p1" }]);
    expect(back.participants.p1).toEqual({ id: "p1", nickname: "Ada", removed: false });
    expectIgnored(back, { type: "participant:readmitted", participantId: "p2" });
    expectIgnored(back, { type: "participant:readmitted", participantId: "ghost" });
  });

  it("leaves a closed round's counts alone when a voter is removed later", () => {
    const closed = run([...CLASS, Q1, vote("p1", "o1"), vote("p2", "o2"), close("q1", { o1: 1, o2: 1, o3: 0 }, 2)]);
    const removed = then(closed, [{ type: "participant:removed", participantId: "p1" }]);
    expect(pollOf(removed).history).toEqual(pollOf(closed).history);
    expect(removed.participants.p1.removed).toBe(true);
  });
});

describe("room:locked", () => {
  it("sets and clears the lock", () => {
    const locked = run([CREATED, { type: "room:locked", locked: true }]);
    expect(locked.locked).toBe(true);
    expect(then(locked, [{ type: "room:locked", locked: false }]).locked).toBe(false);
  });
});

describe("results:visibility", () => {
  it("shows and hides live results", () => {
    const shown = run([...CLASS, Q1, { type: "results:visibility", visible: true }]);
    expect(shown.resultsVisible).toBe(true);
    expect(then(shown, [{ type: "results:visibility", visible: false }]).resultsVisible).toBe(false);
  });
});

describe("projector:panelChanged", () => {
  it("switches the panel beside the diagram and ignores an unknown one", () => {
    expect(initialState().projectorPanel).toBe("none");
    const state = run([CREATED, { type: "projector:panelChanged", panel: "topology" }]);
    expect(state.projectorPanel).toBe("topology");
    expect(then(state, [{ type: "projector:panelChanged", panel: "hood" }]).projectorPanel).toBe("hood");
    // A damaged log: the type says ProjectorPanel, the JSON said otherwise.
    expectIgnored(state, { type: "projector:panelChanged", panel: "slides" as ProjectorPanel });
  });
});

describe("projector:focusChanged", () => {
  it("points the projector at an object tab or a deep dive of the step, and ignores one the step does not have", () => {
    expect(initialState().projectorFocus).toEqual({ object: "PersistentVolumeClaim", deepDive: null });
    const state = run([CREATED, { type: "projector:focusChanged", focus: { object: "events", deepDive: null } }]);
    expect(state.projectorFocus).toEqual({ object: "events", deepDive: null });
    // "Retries" is on the card's "not shown" list, which every step offers.
    expect(then(state, [{ type: "projector:focusChanged", focus: { object: "Pod", deepDive: "Retries" } }]).projectorFocus).toEqual({
      object: "Pod",
      deepDive: "Retries",
    });
    expectIgnored(state, { type: "projector:focusChanged", focus: { object: "events", deepDive: "No such dive" } });
    expectIgnored(state, { type: "projector:focusChanged", focus: { object: "Secret" as never, deepDive: null } });
  });
});

describe("session:ended", () => {
  it("closes the open poll into history and records the end", () => {
    const state = run([...CLASS, Q1, vote("p1", "o3"), vote("p2", "o3"), { type: "session:ended" }]);
    expect(state.status).toBe("ended");
    expect(state.endedAt).toBe(atOf(9));
    expect(pollOf(state)).toMatchObject({
      status: "closed",
      closesAt: null,
      history: [{ round: 1, counts: { o1: 0, o2: 0, o3: 2 }, total: 2 }],
    });
  });

  it("adds no round for a poll that was already closed", () => {
    const state = run([...CLASS, Q1, vote("p1", "o1"), close("q1", { o1: 1, o2: 0, o3: 0 }, 1), { type: "session:ended" }]);
    expect(pollOf(state).history).toHaveLength(1);
    expect(pollOf(state).status).toBe("closed");
  });

  it.each<[string, SessionEventBody]>([
    ["step:changed", step(6)],
    ["mode:changed", { type: "mode:changed", mode: "Immediate", variant: "standard", stepIndex: 0, matched: false }],
    ["participant:joined", join("p9")],
    ["participant:renamed", { type: "participant:renamed", participantId: "p1", nickname: "Late" }],
    ["participant:removed", { type: "participant:removed", participantId: "p1" }],
    ["participant:readmitted", { type: "participant:readmitted", participantId: "p1" }],
    ["projector:focusChanged", { type: "projector:focusChanged", focus: { object: "events", deepDive: null } }],
    ["room:locked", { type: "room:locked", locked: true }],
    ["poll:opened", openQ2],
    ["poll:voted", vote("p1", "o1")],
    ["poll:closed", close("q1", { o1: 0, o2: 0, o3: 0 }, 0)],
    ["poll:revealed", { type: "poll:revealed", pollId: "q1" }],
    ["poll:reopened", { type: "poll:reopened", pollId: "q1", closesAt: null }],
    ["results:visibility", { type: "results:visibility", visible: true }],
    ["projector:panelChanged", { type: "projector:panelChanged", panel: "compare" }],
    ["session:ended", { type: "session:ended" }],
  ])("ignores %s afterwards (seq still advances)", (_type, body) => {
    const ended = run([...CLASS, Q1, vote("p1", "o3"), { type: "session:ended" }]);
    expectIgnored(ended, body);
  });
});
