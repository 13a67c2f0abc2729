import { describe, expect, it } from "vitest";
import { getScenario, mapPosition, VARIANTS_BY_MODE, type BindingMode, type VariantId } from "../lesson";
import { activePoll, applyEvent, countVotes, initialState, reduce, replay } from "./reducer";
import { PROJECTOR_PANELS } from "./types";
import type { Poll, ProjectorPanel, SessionEvent, SessionEventBody, SessionState } from "./types";
import { mulberry32 } from "../../tests/support/random";

// Server time is stamped onto events; tests use a fixed clock so states compare exactly.
const T0 = 1_700_000_000_000;
const atOf = (seq: number) => T0 + seq * 1000;

/** Stamp bodies as the server would: seq 1.., gapless, one second apart. */
function stamp(bodies: readonly SessionEventBody[], firstSeq = 1): SessionEvent[] {
  return bodies.map((body, i) => ({ ...body, seq: firstSeq + i, at: atOf(firstSeq + i) }));
}

const run = (bodies: readonly SessionEventBody[]): SessionState => replay(stamp(bodies));

/** Fold `more` on top of the state `before` reached, continuing its sequence numbers. */
function then(before: SessionState, more: readonly SessionEventBody[]): SessionState {
  return stamp(more, before.seq + 1).reduce(reduce, before);
}

/** The state is unchanged apart from the sequence number and clock. */
function expectIgnored(before: SessionState, body: SessionEventBody): void {
  const after = then(before, [body]);
  expect(after).toEqual({ ...before, seq: before.seq + 1, lastEventAt: atOf(before.seq + 1) });
}

const CREATED: SessionEventBody = { type: "session:created", id: "s1", code: "KUBE42", title: "Dynamic provisioning" };
const join = (participantId: string, nickname = participantId.toUpperCase()): SessionEventBody => ({
  type: "participant:joined",
  participantId,
  nickname,
});
const step = (stepIndex: number): SessionEventBody => ({ type: "step:changed", stepIndex });
const vote = (participantId: string, optionId: string, pollId = "q1"): SessionEventBody => ({
  type: "poll:voted",
  pollId,
  participantId,
  optionId,
});

const Q1: Extract<SessionEventBody, { type: "poll:opened" }> = {
  type: "poll:opened",
  poll: {
    id: "q1",
    kind: "next-step",
    question: "What happens after PICK NODE?",
    options: [
      { id: "o1", text: "The provisioner creates the disk", note: "Not yet: the scheduler has to record its choice first." },
      { id: "o2", text: "The scheduler writes selected-node", note: "Right: PreBind annotates the PVC." },
      { id: "o3", text: "The kubelet mounts the volume" },
    ],
    correctOptionId: "o2",
  },
  closesAt: null,
};
const openQ2: Extract<SessionEventBody, { type: "poll:opened" }> = {
  type: "poll:opened",
  poll: {
    id: "q2",
    kind: "custom",
    question: "Who creates the PV?",
    options: [
      { id: "o1", text: "external-provisioner" },
      { id: "o2", text: "kubelet" },
    ],
    correctOptionId: "o1",
  },
  closesAt: atOf(99),
};
const close = (pollId: string, counts: Record<string, number>, total: number): SessionEventBody => ({
  type: "poll:closed",
  pollId,
  counts,
  total,
});

/** A live session with three students at step index 3 (label 4, PICK NODE) of WaitForFirstConsumer. */
const CLASS: SessionEventBody[] = [CREATED, join("p1"), join("p2"), join("p3"), step(3)];

function pollOf(state: SessionState, id = "q1"): Poll {
  const poll = state.polls[id];
  if (!poll) throw new Error(`no poll ${id}`);
  return poll;
}

/** Deep-freeze so any in-place write in the reducer throws (ES modules are strict). */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

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

describe("polls", () => {
  it("opens a poll where the class is, makes it active and hides results", () => {
    const state = run([
      ...CLASS,
      { type: "mode:changed", mode: "Immediate", variant: "standard", stepIndex: 9, matched: true },
      { type: "results:visibility", visible: true },
      { ...Q1, closesAt: atOf(60) },
    ]);
    expect(state.activePollId).toBe("q1");
    expect(state.pollOrder).toEqual(["q1"]);
    expect(state.resultsVisible).toBe(false);
    expect(pollOf(state)).toEqual({
      ...Q1.poll,
      mode: "Immediate",
      variant: "standard",
      stepIndex: 9,
      status: "open",
      round: 1,
      votes: {},
      voteWrites: {},
      history: [],
      openedAt: atOf(8),
      closesAt: atOf(60),
      revealedAt: null,
    });
    expect(activePoll(state)).toBe(state.polls.q1);
  });

  it("ignores a second poll:opened with an id already used", () => {
    const state = run([...CLASS, Q1, close("q1", { o1: 0, o2: 0, o3: 0 }, 0)]);
    expectIgnored(state, { ...Q1, poll: { ...Q1.poll, question: "Replaced?" } });
  });

  it("keeps one vote per participant; a second vote replaces the first", () => {
    const state = run([...CLASS, Q1, vote("p1", "o1"), vote("p2", "o2"), vote("p1", "o3"), vote("p3", "o2")]);
    expect(pollOf(state).votes).toEqual({ p1: "o3", p2: "o2", p3: "o2" });
    expect(countVotes(pollOf(state))).toEqual({ counts: { o1: 0, o2: 2, o3: 1 }, total: 3 });
  });

  it("ignores votes for an unknown option, poll or participant", () => {
    const state = run([...CLASS, Q1, vote("p1", "o1")]);
    expectIgnored(state, vote("p2", "o9"));
    expectIgnored(state, vote("p2", "o1", "nope"));
    expectIgnored(state, vote("ghost", "o1"));
  });

  it("closes into history with every option counted, zeros included", () => {
    const state = run([...CLASS, Q1, vote("p1", "o1"), vote("p2", "o1"), vote("p3", "o2"), close("q1", { o1: 2, o2: 1, o3: 0 }, 3)]);
    const poll = pollOf(state);
    expect(poll.status).toBe("closed");
    expect(poll.closesAt).toBeNull();
    expect(poll.history).toEqual([{ round: 1, counts: { o1: 2, o2: 1, o3: 0 }, total: 3 }]);
    // The round's votes stay for the teacher until a re-open.
    expect(poll.votes).toEqual({ p1: "o1", p2: "o1", p3: "o2" });
    expect(state.activePollId).toBe("q1");
    expectIgnored(state, close("q1", { o1: 2, o2: 1, o3: 0 }, 3));
    expectIgnored(state, vote("p3", "o3"));
  });

  it("closes an empty round as all zeros", () => {
    const state = run([...CLASS, Q1, close("q1", { o1: 0, o2: 0, o3: 0 }, 0)]);
    expect(pollOf(state).history).toEqual([{ round: 1, counts: { o1: 0, o2: 0, o3: 0 }, total: 0 }]);
  });

  it("reveals only a closed poll", () => {
    const open = run([...CLASS, Q1, vote("p1", "o2")]);
    expectIgnored(open, { type: "poll:revealed", pollId: "q1" });
    expectIgnored(open, { type: "poll:revealed", pollId: "nope" });
    const revealed = then(open, [close("q1", { o1: 0, o2: 1, o3: 0 }, 1), { type: "poll:revealed", pollId: "q1" }]);
    expect(pollOf(revealed).status).toBe("revealed");
    expect(pollOf(revealed).history).toEqual([{ round: 1, counts: { o1: 0, o2: 1, o3: 0 }, total: 1 }]);
    expectIgnored(revealed, { type: "poll:revealed", pollId: "q1" });
  });

  it("re-opens as a new round: votes cleared, history kept, results hidden again", () => {
    const closed = run([
      ...CLASS,
      Q1,
      vote("p1", "o1"),
      vote("p2", "o1"),
      vote("p3", "o2"),
      close("q1", { o1: 2, o2: 1, o3: 0 }, 3),
      { type: "results:visibility", visible: true },
    ]);
    const reopened = then(closed, [{ type: "poll:reopened", pollId: "q1", closesAt: atOf(40) }]);
    const poll = pollOf(reopened);
    expect(poll.status).toBe("open");
    expect(poll.round).toBe(2);
    expect(poll.votes).toEqual({});
    expect(poll.closesAt).toBe(atOf(40));
    expect(poll.openedAt).toBe(atOf(6)); // when it first opened
    expect(poll.history).toEqual([{ round: 1, counts: { o1: 2, o2: 1, o3: 0 }, total: 3 }]);
    expect(reopened.resultsVisible).toBe(false);
    expect(reopened.activePollId).toBe("q1");
    expectIgnored(reopened, { type: "poll:reopened", pollId: "q1", closesAt: null });
    expectIgnored(reopened, { type: "poll:reopened", pollId: "nope", closesAt: null });

    // After discussion the class shifts towards o2: both rounds are kept, oldest first.
    const second = then(reopened, [vote("p1", "o2"), vote("p2", "o2"), vote("p3", "o2"), close("q1", { o1: 0, o2: 3, o3: 0 }, 3)]);
    expect(pollOf(second).history).toEqual([
      { round: 1, counts: { o1: 2, o2: 1, o3: 0 }, total: 3 },
      { round: 2, counts: { o1: 0, o2: 3, o3: 0 }, total: 3 },
    ]);
  });

  it("re-opens a revealed poll too", () => {
    const state = run([
      ...CLASS,
      Q1,
      vote("p1", "o1"),
      close("q1", { o1: 1, o2: 0, o3: 0 }, 1),
      { type: "poll:revealed", pollId: "q1" },
      { type: "poll:reopened", pollId: "q1", closesAt: null },
    ]);
    expect(pollOf(state).status).toBe("open");
    expect(pollOf(state).round).toBe(2);
    expect(pollOf(state).history).toHaveLength(1);
  });

  it("opens a second poll while the first is closed; the first keeps its history and takes no votes", () => {
    const state = run([
      ...CLASS,
      Q1,
      vote("p1", "o1"),
      close("q1", { o1: 1, o2: 0, o3: 0 }, 1),
      { type: "results:visibility", visible: true },
      step(5),
      openQ2,
      vote("p2", "o1", "q2"),
    ]);
    expect(state.pollOrder).toEqual(["q1", "q2"]);
    expect(state.activePollId).toBe("q2");
    expect(state.resultsVisible).toBe(false);
    expect(pollOf(state, "q1").status).toBe("closed");
    expect(pollOf(state, "q1").history).toEqual([{ round: 1, counts: { o1: 1, o2: 0, o3: 0 }, total: 1 }]);
    expect(pollOf(state, "q2")).toMatchObject({ status: "open", round: 1, stepIndex: 5, votes: { p2: "o1" }, closesAt: atOf(99) });
    expectIgnored(state, vote("p3", "o2", "q1"));
  });
});

// A hand-made or damaged log may open a second poll while one is open; the
// reducer ignores it, as the server refuses it (POLL_ALREADY_OPEN).
describe("two polls open at once (hand-made log)", () => {
  it("ignores the second poll:opened and leaves no poll open after session:ended", () => {
    const opened = run([...CLASS, Q1, vote("p1", "o1")]);
    expectIgnored(opened, openQ2);
    const state = run([...CLASS, Q1, vote("p1", "o1"), openQ2, { type: "session:ended" }]);
    expect(
      Object.values(state.polls)
        .filter((p) => p.status === "open")
        .map((p) => p.id),
    ).toEqual([]);
    expect(state.pollOrder).toEqual(["q1"]);
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

describe("countVotes", () => {
  const options = [
    { id: "a", text: "A" },
    { id: "b", text: "B" },
    { id: "c", text: "C" },
  ];

  it("counts every option, zeros included", () => {
    expect(countVotes({ options, votes: {} })).toEqual({ counts: { a: 0, b: 0, c: 0 }, total: 0 });
    expect(countVotes({ options, votes: { p1: "a", p2: "c", p3: "a" } })).toEqual({
      counts: { a: 2, b: 0, c: 1 },
      total: 3,
    });
  });

  it("skips votes for options the poll does not have", () => {
    expect(countVotes({ options, votes: { p1: "a", p2: "zzz", p3: "b" } })).toEqual({
      counts: { a: 1, b: 1, c: 0 },
      total: 2,
    });
  });

  // Unreachable through reduce (poll:voted checks the option list), but countVotes is exported.
  it("skips votes named like Object.prototype keys", () => {
    expect(countVotes({ options, votes: { p1: "a", p2: "toString", p3: "constructor" } })).toEqual({
      counts: { a: 1, b: 0, c: 0 },
      total: 1,
    });
  });
});

describe("the counts kept beside a round's votes", () => {
  /** Counted the slow way, from the votes alone. */
  const countedAfresh = (poll: Poll) => {
    const counts = Object.fromEntries(poll.options.map((o) => [o.id, 0]));
    for (const optionId of Object.values(poll.votes)) counts[optionId] += 1;
    return { counts, total: Object.keys(poll.votes).length };
  };

  it("match a fresh count after any mix of votes, changed votes, removals, closes and new rounds, applied in place", () => {
    const random = mulberry32(14);
    const ids = Array.from({ length: 40 }, (_, i) => `p${i}`);
    const state = initialState();
    let seq = 0;
    const apply = (body: SessionEventBody) => applyEvent(state, { ...body, seq: ++seq, at: atOf(seq) });
    for (const body of [CREATED, ...ids.map((id) => join(id)), step(3), Q1]) apply(body);
    let checked = 0;
    for (let i = 0; i < 3_000; i++) {
      const poll = pollOf(state);
      const r = random();
      const who = ids[Math.floor(random() * ids.length)];
      if (r < 0.75) apply(vote(who, ["o1", "o2", "o3"][Math.floor(random() * 3)]));
      else if (r < 0.85) apply({ type: "participant:removed", participantId: who });
      else if (r < 0.9) apply({ type: "participant:readmitted", participantId: who });
      else if (r < 0.95 && poll.status === "open") apply({ type: "poll:closed", pollId: "q1", ...countVotes(poll) });
      else if (poll.status !== "open") apply({ type: "poll:reopened", pollId: "q1", closesAt: null });
      // Asked now and then, as the tally and the close ask: the kept counts must follow every change in between.
      if (random() < 0.3 && pollOf(state).status === "open") {
        expect(countVotes(pollOf(state))).toEqual(countedAfresh(pollOf(state)));
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(500);
    // Every closed round kept what was counted at its close, not something the next votes changed.
    for (const round of pollOf(state).history) expect(Object.values(round.counts).reduce((a, b) => a + b, 0)).toBe(round.total);
  });

  it("are a copy: counts taken into an event do not move with the next vote", () => {
    const state = initialState();
    let seq = 0;
    const apply = (body: SessionEventBody) => applyEvent(state, { ...body, seq: ++seq, at: atOf(seq) });
    for (const body of [...CLASS, Q1, vote("p1", "o1")]) apply(body);
    const taken = countVotes(pollOf(state));
    apply(vote("p2", "o1"));
    expect(taken).toEqual({ counts: { o1: 1, o2: 0, o3: 0 }, total: 1 });
    expect(countVotes(pollOf(state))).toEqual({ counts: { o1: 2, o2: 0, o3: 0 }, total: 2 });
  });
});

// ---------------------------------------------------------------------------
// Replay over a long, realistic log.
// ---------------------------------------------------------------------------

/**
 * A lesson as a teacher would run it: students join, the class steps through
 * scenarios and switches modes with the server's own mapPosition, polls are
 * opened, voted on (with changed minds, a late removal, a few stray votes the
 * server would have refused), closed, re-opened after discussion and revealed;
 * the session ends with a poll still open and a few events after the end.
 */
function buildLessonLog(seed: number): SessionEvent[] {
  const rand = mulberry32(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
  const bodies: SessionEventBody[] = [CREATED];
  const students = ["p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8"];
  for (const id of students) bodies.push(join(id, `Student ${id}`));
  bodies.push({ type: "participant:renamed", participantId: "p3", nickname: "Ada" });
  bodies.push({ type: "room:locked", locked: true });

  let mode: BindingMode = "WaitForFirstConsumer";
  let variant: VariantId = "standard";
  let stepIndex = 0;
  const present = new Set(students);
  const optionIds = ["o1", "o2", "o3", "o4"];

  const voteRound = (pollId: string, votes: Map<string, string>) => {
    for (const id of present) {
      if (rand() < 0.15) continue; // not everyone votes
      const choice = pick(optionIds);
      votes.set(id, choice);
      bodies.push(vote(id, choice, pollId));
      if (rand() < 0.25) {
        const changed = pick(optionIds);
        votes.set(id, changed);
        bodies.push(vote(id, changed, pollId));
      }
    }
    if (rand() < 0.5) bodies.push(vote("ghost", "o1", pollId)); // refused by the reducer
  };
  const closeRound = (pollId: string, votes: Map<string, string>) => {
    const counts: Record<string, number> = Object.fromEntries(optionIds.map((o) => [o, 0]));
    for (const [id, optionId] of votes) if (present.has(id)) counts[optionId] += 1;
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    bodies.push(close(pollId, counts, total));
  };

  for (let n = 1; n <= 4; n += 1) {
    const steps = getScenario(mode, variant).steps.length;
    for (let k = 0; k < 2; k += 1) {
      stepIndex = Math.min(steps - 1, stepIndex + 1 + Math.floor(rand() * 2));
      bodies.push(step(stepIndex));
    }
    const pollId = `poll-${n}`;
    bodies.push({
      type: "poll:opened",
      poll: {
        id: pollId,
        kind: n % 2 ? "next-step" : "custom",
        question: `Question ${n}`,
        options: optionIds.map((id, i) => ({ id, text: `Answer ${i + 1}`, note: i === 0 ? "the right one" : `misconception ${i}` })),
        correctOptionId: "o1",
      },
      closesAt: n % 2 ? null : atOf(1000 + n),
    });
    const votes = new Map<string, string>();
    voteRound(pollId, votes);
    if (n === 2) {
      bodies.push({ type: "participant:removed", participantId: "p5" });
      present.delete("p5");
      bodies.push(vote("p5", "o2", pollId)); // refused: removed
    }
    if (n === 3) bodies.push({ type: "results:visibility", visible: true });
    bodies.push({ type: "projector:panelChanged", panel: pick(PROJECTOR_PANELS) });
    closeRound(pollId, votes);
    if (n % 2 === 1) {
      // Discuss with your neighbour, then vote again.
      bodies.push({ type: "poll:reopened", pollId, closesAt: atOf(2000 + n) });
      votes.clear();
      voteRound(pollId, votes);
      closeRound(pollId, votes);
    }
    bodies.push({ type: "poll:revealed", pollId });
    bodies.push(step(99)); // a damaged event: ignored

    const choices = (Object.keys(VARIANTS_BY_MODE) as BindingMode[]).flatMap((m) => VARIANTS_BY_MODE[m].map((v) => [m, v] as const));
    const [toMode, toVariant] = pick(choices.filter(([m, v]) => m !== mode || v !== variant));
    const target = mapPosition(getScenario(mode, variant), stepIndex, getScenario(toMode, toVariant));
    bodies.push({ type: "mode:changed", mode: toMode, variant: toVariant, stepIndex: target.index, matched: target.matched });
    mode = toMode;
    variant = toVariant;
    stepIndex = target.index;
  }

  bodies.push({ type: "results:visibility", visible: false });
  bodies.push({ type: "projector:panelChanged", panel: "compare" });
  bodies.push({ ...openQ2, poll: { ...openQ2.poll, id: "last" } });
  bodies.push(vote("p1", "o2", "last"), vote("p2", "o1", "last"));
  bodies.push({ type: "session:ended" });
  bodies.push(step(0), join("late"), vote("p3", "o1", "last"));
  return stamp(bodies);
}

describe("replay", () => {
  const SEEDS = [1, 7, 2024];

  it("builds the same long log from the same seed", () => {
    expect(buildLessonLog(7)).toEqual(buildLessonLog(7));
    expect(buildLessonLog(7)).not.toEqual(buildLessonLog(8));
    for (const seed of SEEDS) expect(buildLessonLog(seed).length).toBeGreaterThanOrEqual(50);
  });

  it.each(SEEDS)("seed %i: the full log ends where a careful reading says", (seed) => {
    const log = buildLessonLog(seed);
    const state = replay(log);
    expect(state.seq).toBe(log.length);
    expect(state.lastEventAt).toBe(atOf(log.length));
    expect(state.status).toBe("ended");
    expect(state.locked).toBe(true);
    expect(state.projectorPanel).toBe("compare");
    expect(state.participants.p3.nickname).toBe("Ada");
    expect(state.participants.p5.removed).toBe(true);
    expect(state.participants.late).toBeUndefined();
    expect(state.pollOrder).toEqual(["poll-1", "poll-2", "poll-3", "poll-4", "last"]);
    expect(state.activePollId).toBe("last");
    expect(state.polls.last.history).toEqual([{ round: 1, counts: { o1: 1, o2: 1 }, total: 2 }]);
    for (const id of ["poll-1", "poll-2", "poll-3", "poll-4"]) {
      const poll = state.polls[id];
      expect(poll.status).toBe("revealed");
      const rounds = Number(id.slice(-1)) % 2 ? 2 : 1;
      expect(poll.round).toBe(rounds);
      expect(poll.history.map((r) => r.round)).toEqual(rounds === 2 ? [1, 2] : [1]);
      for (const r of poll.history) {
        expect(Object.keys(r.counts)).toEqual(["o1", "o2", "o3", "o4"]);
        expect(r.total).toBe(Object.values(r.counts).reduce((a, b) => a + b, 0));
      }
      // The reducer's round agrees with the counts the server put on poll:closed.
      const closedEvents = log.filter((e) => e.type === "poll:closed" && e.pollId === id);
      expect(poll.history.map(({ counts, total }) => ({ counts, total }))).toEqual(
        closedEvents.map((e) => (e.type === "poll:closed" ? { counts: e.counts, total: e.total } : null)),
      );
    }
    // p5 was removed in poll-2's open round: no vote of theirs there.
    expect(state.polls["poll-2"].votes.p5).toBeUndefined();
    // The class moved around the scenarios; the last switch is noted.
    expect(state.modeSwitch).not.toBeNull();
    expect(getScenario(state.mode, state.variant).steps[state.stepIndex]).toBeDefined();
  });

  it.each(SEEDS)("seed %i: replay(log, k) equals folding the first k events, for every k", (seed) => {
    const log = deepFreeze(buildLessonLog(seed));
    const pristine = structuredClone(log);

    // Fold one event at a time, freezing each state so a reducer that writes
    // into the previous state (instead of copying) throws here.
    const folded: SessionState[] = [deepFreeze(initialState())];
    for (const event of log) folded.push(deepFreeze(reduce(folded[folded.length - 1], event)));
    const snapshots = folded.map((s) => structuredClone(s));

    // Seeking forwards.
    for (let k = 0; k <= log.length; k += 1) expect(replay(log, k)).toEqual(folded[k]);
    expect(replay(log)).toEqual(folded[log.length]);
    expect(replay(log, Infinity)).toEqual(folded[log.length]);
    expect(replay(log, 0)).toEqual(initialState());

    // Seeking backwards: jump ahead, then back; nothing carries over.
    for (let k = 0; k <= log.length; k += 1) {
      const ahead = replay(log, k + 10);
      expect(ahead).toEqual(folded[Math.min(k + 10, log.length)]);
      expect(replay(log, k)).toEqual(folded[k]);
    }
    for (let k = log.length; k >= 0; k -= 1) expect(replay(log, k)).toEqual(folded[k]);

    // Neither the log nor any earlier state was touched.
    expect(log).toEqual(pristine);
    expect(folded).toEqual(snapshots);
    // The cursor really moves: the states differ along the way.
    expect(new Set(folded.map((s) => JSON.stringify(s))).size).toBe(log.length + 1);
  });

  it("stops at a sequence number, not a position, so a log can start mid-session", () => {
    const log = stamp([...CLASS, Q1, vote("p1", "o1")]);
    expect(replay(log, 3)).toEqual(run(CLASS.slice(0, 3)));
    expect(replay(log, 6).activePollId).toBe("q1");
    expect(replay(log, 5).activePollId).toBeNull();
  });
});
