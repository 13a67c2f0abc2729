import { describe, expect, it } from "vitest";
import { replay } from "./reducer";
import type { SessionEvent, SessionEventBody, SessionState } from "./types";
import { hostProjection, myVoteIn, participantProjection, publicProjection, publicTally } from "./projection";

const T0 = 1_700_000_000_000;

function run(bodies: readonly SessionEventBody[]): SessionState {
  const log: SessionEvent[] = bodies.map((body, i) => ({ ...body, seq: i + 1, at: T0 + (i + 1) * 1000 }));
  return replay(log);
}

const OPTIONS = [
  { id: "o1", text: "The provisioner creates the disk", note: "Not yet: the scheduler has to record its choice first." },
  { id: "o2", text: "The scheduler writes selected-node", note: "Right: PreBind annotates the PVC with selected-node." },
];
const CLASS: SessionEventBody[] = [
  { type: "session:created", id: "s1", code: "KUBE42", title: "Dynamic provisioning" },
  { type: "participant:joined", participantId: "p1", nickname: "Ada" },
  { type: "participant:joined", participantId: "p2", nickname: "Linus" },
  {
    type: "poll:opened",
    poll: { id: "q1", kind: "next-step", question: "What next?", options: OPTIONS, correctOptionId: "o2" },
    closesAt: null,
  },
  { type: "poll:voted", pollId: "q1", participantId: "p1", optionId: "o1" },
  { type: "poll:voted", pollId: "q1", participantId: "p2", optionId: "o2" },
];
const ASKED: SessionEventBody[] = [
  { type: "questions:configured", mode: "moderated", names: "either" },
  {
    type: "question:asked",
    question: {
      id: "k1",
      participantId: "p1",
      text: "Why is this arrow dashed?",
      target: { kind: "step", stepIndex: 0 },
      anonymous: true,
    },
    pending: true,
  },
];
const nobody = { connectedCount: 0, isConnected: () => false };

describe("the class's projection", () => {
  it("never carries the answer, the notes, names or the distribution of an open poll", () => {
    const records = publicProjection(run(CLASS), { connectedCount: 2 });
    const text = JSON.stringify(records);
    for (const secret of ['o2"', "Right: PreBind", "Not yet", "Ada", "Linus", "p1", "p2"]) {
      if (secret === 'o2"') expect(records.session?.poll?.correctOptionId).toBeNull();
      else expect(text).not.toContain(secret);
    }
    expect(records.tally).toEqual({ pollId: "q1", round: 1, total: 2, rev: 6 });
    expect(records.session?.poll?.results).toBeNull();
    expect(records.presence).toEqual({ participantCount: 2 });
  });

  it("carries the distribution once the teacher shows live results", () => {
    const state = run([...CLASS, { type: "results:visibility", visible: true }]);
    expect(publicTally(state)).toEqual({ pollId: "q1", round: 1, total: 2, rev: 7, counts: { o1: 1, o2: 1 } });
  });

  it("holds a question only once the class may see it, anonymous ones without a name", () => {
    const pending = run([...CLASS, ...ASKED]);
    expect(Object.keys(publicProjection(pending, nobody)).filter((k) => k.startsWith("q:"))).toEqual([]);
    const approved = run([...CLASS, ...ASKED, { type: "question:approved", questionId: "k1" }]);
    expect(publicProjection(approved, nobody)["q:k1"]).toMatchObject({ text: "Why is this arrow dashed?", by: null, status: "open" });
  });
});

describe("the teacher's projection", () => {
  it("has the answer, the counts, every student as a row and every question", () => {
    const records = hostProjection(run([...CLASS, ...ASKED]), {
      connectedCount: 1,
      isConnected: (id) => id === "p2",
      projectorCount: 1,
      lookingBack: 1,
    });
    expect(records.session?.poll?.correctOptionId).toBe("o2");
    expect(records.tally).toMatchObject({ counts: { o1: 1, o2: 1 }, total: 2 });
    expect(records["r:p1"]).toEqual({ id: "p1", nickname: "Ada", number: 1, connected: false, removed: false });
    expect(records["r:p2"]).toMatchObject({ nickname: "Linus", number: 2, connected: true });
    expect(records["q:k1"]).toMatchObject({ status: "pending", anonymous: true });
    expect(records.presence).toEqual({ participantCount: 1, projectorCount: 1 });
    expect(records.lookback).toEqual({ count: 1 });
  });
});

describe("a participant's own projection", () => {
  it("has their vote, their name, their waiting question and nobody else's", () => {
    const state = run([...CLASS, ...ASKED]);
    expect(participantProjection(state, "p1")).toEqual({
      vote: { pollId: "q1", round: 1, optionId: "o1", rev: state.seq },
      name: { nickname: "Ada" },
      "m:k1": true,
      "q:k1": expect.objectContaining({ id: "k1", status: "pending" }),
    });
    // Linus never sees a question waiting for approval, nor who asked it.
    expect(participantProjection(state, "p2")).toEqual({
      vote: { pollId: "q1", round: 1, optionId: "o2", rev: state.seq },
      name: { nickname: "Linus" },
    });
  });

  it("keeps an approved question with the class's records, and the upvote with the upvoter's", () => {
    const state = run([
      ...CLASS,
      ...ASKED,
      { type: "question:approved", questionId: "k1" },
      { type: "question:upvoted", questionId: "k1", participantId: "p2", upvoted: true },
    ]);
    expect(participantProjection(state, "p1")).not.toHaveProperty("q:k1");
    expect(participantProjection(state, "p1")).toHaveProperty("m:k1", true);
    expect(participantProjection(state, "p2")).toHaveProperty("u:k1", true);
    expect(participantProjection(state, "p2")).not.toHaveProperty("m:k1");
  });

  it("says 'not voted' in a poll the student has not answered, and nothing without a poll", () => {
    const state = run([...CLASS, { type: "participant:joined", participantId: "p3", nickname: "Grace" }]);
    expect(myVoteIn(state, "p3")).toEqual({ pollId: "q1", round: 1, optionId: null, rev: state.seq });
    expect(myVoteIn(run(CLASS.slice(0, 3)), "p1")).toBeNull();
  });
});
