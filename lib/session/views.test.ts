import { describe, expect, it } from "vitest";
import { replay } from "./reducer";
import type { SessionEvent, SessionEventBody, SessionState } from "./types";
import { toHostSnapshot, toPublicSnapshot, type PresenceView } from "./views";

const T0 = 1_700_000_000_000;

function run(bodies: readonly SessionEventBody[]): SessionState {
  const log: SessionEvent[] = bodies.map((body, i) => ({ ...body, seq: i + 1, at: T0 + (i + 1) * 1000 }));
  return replay(log);
}

/** Presence as the room keeps it: a set of connected participant ids. */
function presence(connected: readonly string[]): PresenceView {
  const set = new Set(connected);
  return { isConnected: (id) => set.has(id), connectedCount: set.size };
}

const NOTE_O1 = "Not yet: the scheduler has to record its choice first.";
const NOTE_O2 = "Right: PreBind annotates the PVC with selected-node.";
const OPTIONS = [
  { id: "o1", text: "The provisioner creates the disk", note: NOTE_O1 },
  { id: "o2", text: "The scheduler writes selected-node", note: NOTE_O2 },
  { id: "o3", text: "The kubelet mounts the volume" },
];
const BARE_OPTIONS = OPTIONS.map(({ id, text }) => ({ id, text }));

const CLASS: SessionEventBody[] = [
  { type: "session:created", id: "s1", code: "KUBE42", title: "Dynamic provisioning" },
  { type: "participant:joined", participantId: "p1", nickname: "Ada" },
  { type: "participant:joined", participantId: "p2", nickname: "Linus" },
  { type: "participant:joined", participantId: "p3", nickname: "Grace" },
  { type: "step:changed", stepIndex: 3 },
];
const OPEN: Extract<SessionEventBody, { type: "poll:opened" }> = {
  type: "poll:opened",
  poll: { id: "q1", kind: "next-step", question: "What happens after PICK NODE?", options: OPTIONS, correctOptionId: "o2" },
  closesAt: T0 + 60_000,
};
const vote = (participantId: string, optionId: string): SessionEventBody => ({ type: "poll:voted", pollId: "q1", participantId, optionId });
const ROUND_1: SessionEventBody[] = [vote("p1", "o1"), vote("p2", "o1"), vote("p3", "o2")];
const CLOSE_1: SessionEventBody = { type: "poll:closed", pollId: "q1", counts: { o1: 2, o2: 1, o3: 0 }, total: 3 };
const REVEAL: SessionEventBody = { type: "poll:revealed", pollId: "q1" };
const SHOW: SessionEventBody = { type: "results:visibility", visible: true };

describe("toPublicSnapshot", () => {
  it("carries where the class is, with rev = seq and the connected count passed in", () => {
    const state = run([
      ...CLASS,
      { type: "mode:changed", mode: "Immediate", variant: "standard", stepIndex: 8, matched: true },
      { type: "room:locked", locked: true },
      { type: "projector:panelChanged", panel: "objects" },
    ]);
    expect(toPublicSnapshot(state, 2)).toEqual({
      audience: "public",
      rev: 8,
      code: "KUBE42",
      title: "Dynamic provisioning",
      status: "live",
      mode: "Immediate",
      variant: "standard",
      stepIndex: 8,
      modeSwitch: { fromMode: "WaitForFirstConsumer", fromVariant: "standard", fromLabel: 4, matched: true },
      locked: true,
      paused: false,
      // A log without a release (made before the switch) shows what that class saw: 1.33's strings.
      kubeVersion: "1.33",
      projectorPanel: "objects",
      projectorSide: "objects",
      projectorFocus: { object: "PersistentVolumeClaim", deepDive: null },
      projectorLanguage: null,
      participantCount: 2,
      poll: null,
      questions: { mode: "open", names: "either", shownId: null },
    });
  });

  it("moves rev on an event the reducer ignored, too", () => {
    const state = run([...CLASS, { type: "step:changed", stepIndex: 99 }]);
    expect(state.seq).toBe(6);
    expect(toPublicSnapshot(state, 0).rev).toBe(6);
    expect(toPublicSnapshot(state, 0).stepIndex).toBe(3);
  });

  it("hides the answer, the notes, the votes and the results of an open poll", () => {
    const snapshot = toPublicSnapshot(run([...CLASS, OPEN, ...ROUND_1]), 3);
    expect(snapshot.poll).toEqual({
      id: "q1",
      kind: "next-step",
      question: "What happens after PICK NODE?",
      options: BARE_OPTIONS,
      status: "open",
      round: 1,
      mode: "WaitForFirstConsumer",
      variant: "standard",
      stepIndex: 3,
      revealedAt: null,
      closesAt: T0 + 60_000,
      results: null,
      correctOptionId: null,
      revealed: false,
      history: [],
      // How many voted, never for what.
      voted: 3,
    });
    const wire = JSON.stringify(snapshot);
    expect(wire).not.toContain(NOTE_O1);
    expect(wire).not.toContain("note");
    expect(wire).not.toContain("p1");
    expect(wire).not.toContain("votes");
  });

  it("keeps results hidden after close until the reveal", () => {
    const poll = toPublicSnapshot(run([...CLASS, OPEN, ...ROUND_1, CLOSE_1]), 3).poll;
    expect(poll).toMatchObject({ status: "closed", results: null, correctOptionId: null, revealed: false, history: [] });
    expect(poll?.options).toEqual(BARE_OPTIONS);
  });

  it("shows live counts of the open round when results are visible, still without the answer", () => {
    const poll = toPublicSnapshot(run([...CLASS, OPEN, ...ROUND_1, SHOW]), 3).poll;
    expect(poll?.results).toEqual({ counts: { o1: 2, o2: 1, o3: 0 }, total: 3 });
    expect(poll?.correctOptionId).toBeNull();
    expect(poll?.options).toEqual(BARE_OPTIONS);
    expect(poll?.revealed).toBe(false);
  });

  it("after the reveal shows the answer, the notes and the last closed round", () => {
    const poll = toPublicSnapshot(run([...CLASS, OPEN, ...ROUND_1, CLOSE_1, REVEAL]), 3).poll;
    expect(poll).toMatchObject({
      status: "revealed",
      revealed: true,
      correctOptionId: "o2",
      results: { counts: { o1: 2, o2: 1, o3: 0 }, total: 3 },
      history: [{ round: 1, counts: { o1: 2, o2: 1, o3: 0 }, total: 3 }],
    });
    expect(poll?.options).toEqual(OPTIONS);
  });

  it("after a second round, the reveal shows the second round and both in history", () => {
    const state = run([
      ...CLASS,
      OPEN,
      ...ROUND_1,
      CLOSE_1,
      { type: "poll:reopened", pollId: "q1", closesAt: null },
      vote("p1", "o2"),
      vote("p2", "o2"),
      { type: "poll:closed", pollId: "q1", counts: { o1: 0, o2: 2, o3: 0 }, total: 2 },
      REVEAL,
    ]);
    const poll = toPublicSnapshot(state, 3).poll;
    expect(poll?.round).toBe(2);
    expect(poll?.results).toEqual({ counts: { o1: 0, o2: 2, o3: 0 }, total: 2 });
    expect(poll?.history).toEqual([
      { round: 1, counts: { o1: 2, o2: 1, o3: 0 }, total: 3 },
      { round: 2, counts: { o1: 0, o2: 2, o3: 0 }, total: 2 },
    ]);
  });

  it("while a re-opened round is open, hides round 1 and the answer again", () => {
    const state = run([...CLASS, OPEN, ...ROUND_1, CLOSE_1, { type: "poll:reopened", pollId: "q1", closesAt: null }, vote("p3", "o3")]);
    const poll = toPublicSnapshot(state, 3).poll;
    expect(poll).toMatchObject({ status: "open", round: 2, results: null, correctOptionId: null, history: [] });
    // Shown live, the results are the new round's alone, with round 1 in history.
    const shown = toPublicSnapshot(
      run([...CLASS, OPEN, ...ROUND_1, CLOSE_1, { type: "poll:reopened", pollId: "q1", closesAt: null }, vote("p3", "o3"), SHOW]),
      3,
    ).poll;
    expect(shown?.results).toEqual({ counts: { o1: 0, o2: 0, o3: 1 }, total: 1 });
    expect(shown?.history).toEqual([{ round: 1, counts: { o1: 2, o2: 1, o3: 0 }, total: 3 }]);
  });

  it("a poll without a right answer reveals correctOptionId null", () => {
    const state = run([
      ...CLASS,
      { ...OPEN, poll: { id: "q1", kind: "custom", question: "How sure are you?", options: BARE_OPTIONS, correctOptionId: null } },
      vote("p1", "o3"),
      // The server's close carries the counts it took; they are the round's result.
      { type: "poll:closed", pollId: "q1", counts: { o1: 0, o2: 0, o3: 1 }, total: 1 },
      REVEAL,
    ]);
    const poll = toPublicSnapshot(state, 1).poll;
    expect(poll?.revealed).toBe(true);
    expect(poll?.correctOptionId).toBeNull();
    expect(poll?.results).toEqual({ counts: { o1: 0, o2: 0, o3: 1 }, total: 1 });
  });
});

describe("toHostSnapshot", () => {
  it("always carries results, the answer and the notes, never who voted what", () => {
    const state = run([...CLASS, OPEN, ...ROUND_1]);
    expect(state.resultsVisible).toBe(false);
    const host = toHostSnapshot(state, presence(["p1", "p3"]));
    expect(host.poll).toEqual({
      id: "q1",
      kind: "next-step",
      question: "What happens after PICK NODE?",
      options: OPTIONS,
      status: "open",
      round: 1,
      mode: "WaitForFirstConsumer",
      variant: "standard",
      stepIndex: 3,
      revealedAt: null,
      closesAt: T0 + 60_000,
      results: { counts: { o1: 2, o2: 1, o3: 0 }, total: 3 },
      correctOptionId: "o2",
      revealed: false,
      history: [],
      voted: 3,
    });
    // Who voted what stays in the log (the teacher's replay shows it), not on every update to the console.
    expect(JSON.stringify(host)).not.toContain("p1");
  });

  it("shows the last closed round once closed", () => {
    const state = run([
      ...CLASS,
      OPEN,
      ...ROUND_1,
      CLOSE_1,
      { type: "poll:reopened", pollId: "q1", closesAt: null },
      vote("p1", "o2"),
      { type: "poll:closed", pollId: "q1", counts: { o1: 0, o2: 1, o3: 0 }, total: 1 },
    ]);
    const host = toHostSnapshot(state, presence([]));
    expect(host.poll?.results).toEqual({ counts: { o1: 0, o2: 1, o3: 0 }, total: 1 });
    expect(host.poll?.history).toHaveLength(2);
  });

  it("counts votes for the class without saying for what, and keeps the round's total once closed", () => {
    expect(toPublicSnapshot(run([...CLASS, OPEN]), 3).poll?.voted).toBe(0);
    expect(toPublicSnapshot(run([...CLASS, OPEN, vote("p1", "o1")]), 3).poll).toMatchObject({ voted: 1, results: null });
    expect(toPublicSnapshot(run([...CLASS, OPEN, ...ROUND_1, CLOSE_1]), 3).poll).toMatchObject({ voted: 3, results: null });
  });

  it("carries the projector's focus to the class, and moves it only to a deep dive of the step", () => {
    const focus = { object: "events", deepDive: null } as const;
    const state = run([...CLASS, { type: "projector:focusChanged", focus }]);
    expect(toPublicSnapshot(state, 0).projectorFocus).toEqual(focus);
  });

  it("carries rev = seq, the session id, visibility and the poll count", () => {
    const state = run([
      ...CLASS,
      OPEN,
      CLOSE_1,
      { type: "step:changed", stepIndex: 5 },
      { ...OPEN, poll: { ...OPEN.poll, id: "q2" } },
      SHOW,
    ]);
    const host = toHostSnapshot(state, presence(["p1"]));
    expect(host).toMatchObject({
      rev: 10,
      sessionId: "s1",
      code: "KUBE42",
      resultsVisible: true,
      pollCount: 2,
      stepIndex: 5,
      status: "live",
    });
    expect(host.rev).toBe(state.seq);
    expect(host.poll?.id).toBe("q2");
    // The public view of the same state agrees on what they share.
    const { poll: _pub, audience: pub, ...shared } = toPublicSnapshot(state, 1);
    const { poll: _host, audience, sessionId: _s, resultsVisible: _r, pollCount: _c, projectorCount: _v, ...hostShared } = host;
    expect(hostShared).toEqual(shared);
    // Tagged by audience, so a receiver narrows the union instead of casting it.
    expect([audience, pub]).toEqual(["host", "public"]);
  });

  it("has no poll before the first one", () => {
    const host = toHostSnapshot(run(CLASS), presence([]));
    expect(host.poll).toBeNull();
    expect(host.pollCount).toBe(0);
    expect(host.rev).toBe(5);
  });

  it("after the session ends shows the poll closed with the round it closed", () => {
    const state = run([...CLASS, OPEN, vote("p1", "o3"), { type: "session:ended" }]);
    const host = toHostSnapshot(state, presence([]));
    expect(host.status).toBe("ended");
    expect(host.poll?.status).toBe("closed");
    expect(host.poll?.results).toEqual({ counts: { o1: 0, o2: 0, o3: 1 }, total: 1 });
    expect(toPublicSnapshot(state, 0).poll?.results).toBeNull();
  });
});
