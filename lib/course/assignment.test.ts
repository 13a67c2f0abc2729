import { describe, expect, it } from "vitest";
import type { CustomLesson, SessionLesson } from "../lesson/model";
import { getScenario } from "../lesson/scenarios";
import { reduce, initialState } from "../session/reducer";
import type { SessionEventBody } from "../session/types";
import { stamp } from "../../tests/support/sessionEvents";
import { decideAnswer, decideProgress, feedbackFor, lessonPolls, sessionPolls, type Shuffle } from "./assignment";
import type { Assignment, AssignmentAnswer, AssignmentPoll } from "./types";

// The rules of a self-paced walk: which polls an assignment holds, when a student may answer or move on, what they are told.

const keep: Shuffle = (items) => items;
const reverse: Shuffle = (items) => [...items].reverse();
const WFFC = getScenario("WaitForFirstConsumer", "standard");
const T = 1_700_000_000_000;

function assignmentOf(polls: AssignmentPoll[], over: Partial<Assignment> = {}): Assignment {
  return {
    id: "a".repeat(22),
    title: "Dynamic provisioning, homework",
    ownerAccountId: "acc1",
    source: { kind: "builtin", mode: "WaitForFirstConsumer", variant: "standard" },
    lessonKey: "builtin",
    mode: "WaitForFirstConsumer",
    variant: "standard",
    kubeVersion: "1.35",
    lesson: null,
    stepCount: 12,
    polls,
    dueAt: null,
    requireNickname: false,
    createdAt: T,
    closedAt: null,
    ...over,
  };
}

const answer = (pollId: string, optionId: string, studentId = "s1"): AssignmentAnswer => ({
  assignmentId: "a".repeat(22),
  studentId,
  pollId,
  optionId,
  at: T,
});

/** A teacher's lesson of four distinct messages: polls after the first two steps (the third has one option left). */
const CLIENT_SERVER: CustomLesson = {
  title: "A request",
  lifelines: [
    { id: "C", name: "Client" },
    { id: "S", name: "Server" },
  ],
  steps: [
    { from: "C", to: "S", line: "solid", head: "filled", title: "GET /", speakerNotes: "Ask who has seen a 301." },
    { from: "S", to: "C", line: "dotted", head: "filled", title: "301 Moved", why: "The page moved." },
    { from: "C", to: "S", line: "solid", head: "filled", title: "GET /new" },
    { from: "S", to: "C", line: "dotted", head: "filled", title: "200 OK", wrongNote: "Not before the redirect is followed." },
  ],
};
const SESSION_LESSON: SessionLesson = { id: "lesson1", version: 3, lesson: CLIENT_SERVER };

describe("lessonPolls: the built-in lesson", () => {
  const polls = lessonPolls(null, "WaitForFirstConsumer", "standard", null, keep);

  it("gives one poll per step but the last, numbered p1.. in step order", () => {
    expect(WFFC.steps).toHaveLength(12);
    expect(polls).toHaveLength(11);
    expect(polls.map((p) => p.stepIndex)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(polls.map((p) => p.id)).toEqual(["p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8", "p9", "p10", "p11"]);
    expect(polls[3].key).toBe("step:WaitForFirstConsumer:standard:3");
    expect(polls.every((p) => p.kind === "next-step")).toBe(true);
    expect(polls[3].question).toBe("What happens next, after PICK NODE?");
  });

  it("numbers the options o1..o4 in screen order and points correctOptionId at the true next step", () => {
    for (const poll of polls) {
      expect(poll.options.map((o) => o.id)).toEqual(["o1", "o2", "o3", "o4"]);
      const right = poll.options.find((o) => o.id === poll.correctOptionId);
      expect(right?.text.startsWith(`${WFFC.steps[poll.stepIndex + 1].title}:`)).toBe(true);
      // Every option carries its note: why it is right, or the misconception it stands for.
      expect(poll.options.every((o) => typeof o.note === "string" && o.note.length > 0)).toBe(true);
    }
    expect(polls[3].options.find((o) => o.id === polls[3].correctOptionId)?.text).toBe(
      "NODE CHOSEN: the scheduler records the chosen node on the PVC",
    );
  });

  it("shuffles with the given shuffle, then numbers in the new order, and the right answer follows its text", () => {
    const shuffled = lessonPolls(null, "WaitForFirstConsumer", "standard", null, reverse);
    for (const [i, poll] of shuffled.entries()) {
      const plain = polls[i];
      expect(poll.options.map((o) => o.text)).toEqual(plain.options.map((o) => o.text).reverse());
      expect(poll.options.map((o) => o.id)).toEqual(["o1", "o2", "o3", "o4"]);
      const rightText = plain.options.find((o) => o.id === plain.correctOptionId)?.text;
      expect(poll.options.find((o) => o.id === poll.correctOptionId)?.text).toBe(rightText);
    }
    // Generated polls list the right answer first; reversed, it is the fourth on screen.
    expect(polls[0].correctOptionId).toBe("o1");
    expect(shuffled[0].correctOptionId).toBe("o4");
  });

  it("asks only at the chosen steps, and the last step (nothing comes next) gives none", () => {
    const chosen = lessonPolls(null, "WaitForFirstConsumer", "standard", [5, 3, 11], keep);
    expect(chosen.map((p) => [p.id, p.stepIndex])).toEqual([
      ["p1", 3],
      ["p2", 5],
    ]);
    expect(chosen[1].key).toBe("step:WaitForFirstConsumer:standard:5");
  });

  it("follows the scenario asked for", () => {
    const local = lessonPolls(null, "Local", "standard", null, keep);
    expect(local).toHaveLength(8);
    expect(local[0].key).toBe("step:Local:standard:0");
  });
});

describe("lessonPolls: a teacher's lesson", () => {
  const polls = lessonPolls(SESSION_LESSON, "WaitForFirstConsumer", "standard", null, keep);

  it("gives the lesson's own polls, keyed by step alone", () => {
    expect(polls.map((p) => [p.id, p.key, p.stepIndex])).toEqual([
      ["p1", "step:0", 0],
      ["p2", "step:1", 1],
    ]);
    expect(polls[0].question).toBe("What happens next, after GET /?");
    expect(polls[0].options.map((o) => o.text)).toEqual([
      "Server → Client: 301 Moved",
      "Server → Client: 200 OK",
      "Client → Server: GET /new",
    ]);
    expect(polls[0].correctOptionId).toBe("o1");
  });

  it("carries the teacher's notes: why for the right answer, %% wrong: for a wrong one", () => {
    expect(polls[0].options[0].note).toBe("Right: The page moved.");
    expect(polls[0].options[1].note).toBe("Not before the redirect is followed.");
  });
});

describe("sessionPolls: from a finished session", () => {
  const opened = (id: string, kind: "next-step" | "custom", question: string): SessionEventBody => ({
    type: "poll:opened",
    poll: {
      id,
      kind,
      question,
      options: [
        { id: "o1", text: "right", note: "why right" },
        { id: "o2", text: "wrong" },
      ],
      correctOptionId: "o1",
    },
    closesAt: null,
  });
  const closed = (pollId: string): SessionEventBody => ({ type: "poll:closed", pollId, counts: { o1: 0, o2: 0 }, total: 0 });
  const toMode = (mode: "Immediate" | "WaitForFirstConsumer", stepIndex: number): SessionEventBody => ({
    type: "mode:changed",
    mode,
    variant: "standard",
    stepIndex,
    matched: true,
  });
  const fold = (bodies: SessionEventBody[]) => stamp(bodies).reduce(reduce, initialState());
  const CREATED: SessionEventBody = { type: "session:created", id: "s1", code: "KUBE42", title: "Tuesday" };

  it("takes the first poll's scenario, skips polls of another mode and a second poll at the same step", () => {
    const state = fold([
      CREATED,
      { type: "participant:joined", participantId: "p1", nickname: "Ana" },
      { type: "step:changed", stepIndex: 5 },
      opened("q1", "next-step", "What happens next, after PROVISION?"),
      { type: "poll:voted", pollId: "q1", participantId: "p1", optionId: "o2" },
      closed("q1"),
      { type: "poll:reopened", pollId: "q1", closesAt: null },
      closed("q1"),
      { type: "step:changed", stepIndex: 3 },
      opened("q2", "custom", "  Who  writes selected-node? "),
      closed("q2"),
      toMode("Immediate", 2),
      opened("q3", "next-step", "Immediate question"),
      closed("q3"),
      toMode("WaitForFirstConsumer", 5),
      opened("q4", "custom", "Again at step 5"),
      closed("q4"),
      { type: "session:ended" },
    ]);
    expect(state.mode).toBe("WaitForFirstConsumer");
    const { mode, variant, polls, skipped } = sessionPolls(state);
    expect([mode, variant, skipped]).toEqual(["WaitForFirstConsumer", "standard", 2]);
    // One per step, in step order; ids in the order the class was asked.
    expect(polls.map((p) => [p.id, p.stepIndex, p.key, p.kind])).toEqual([
      ["p2", 3, "custom:who writes selected-node?", "custom"],
      ["p1", 5, "step:WaitForFirstConsumer:standard:5", "next-step"],
    ]);
    // Asked as they were asked: same question, same options and notes, same right answer.
    expect(polls[1]).toMatchObject({
      question: "What happens next, after PROVISION?",
      options: [
        { id: "o1", text: "right", note: "why right" },
        { id: "o2", text: "wrong" },
      ],
      correctOptionId: "o1",
    });
    expect(polls[1].options[1]).not.toHaveProperty("note");
  });

  it("follows the first poll's mode even when the class ended in another", () => {
    const state = fold([CREATED, toMode("Immediate", 4), opened("q1", "next-step", "Q"), closed("q1"), toMode("WaitForFirstConsumer", 6)]);
    const { mode, polls, skipped } = sessionPolls(state);
    expect(mode).toBe("Immediate");
    expect(polls.map((p) => p.key)).toEqual(["step:Immediate:standard:4"]);
    expect(skipped).toBe(0);
  });

  it("with no poll asked, takes the scenario where the class ended and gives no polls", () => {
    const state = fold([CREATED, toMode("Immediate", 4)]);
    expect(sessionPolls(state)).toEqual({ mode: "Immediate", variant: "standard", polls: [], skipped: 0 });
  });

  it("keys a teacher's lesson's polls by step alone", () => {
    const state = fold([
      { ...CREATED, lesson: SESSION_LESSON } as SessionEventBody,
      { type: "step:changed", stepIndex: 1 },
      opened("q1", "next-step", "Q"),
    ]);
    expect(sessionPolls(state).polls.map((p) => p.key)).toEqual(["step:1"]);
  });
});

describe("decideAnswer", () => {
  const a = assignmentOf(lessonPolls(null, "WaitForFirstConsumer", "standard", null, keep), { dueAt: T + 10_000 });
  const at3 = { furthestStep: 3 };

  it("takes an answer at a poll the student has reached", () => {
    expect(decideAnswer(a, at3, [], "p4", "o2", T)).toEqual({ ok: true, repeat: false });
    // Reached earlier and come back to: still answerable.
    expect(decideAnswer(a, at3, [], "p1", "o1", T)).toEqual({ ok: true, repeat: false });
  });

  it("refuses an unknown poll, an unknown option, and a poll not reached yet", () => {
    expect(decideAnswer(a, at3, [], "p99", "o1", T)).toEqual({ ok: false, reason: "NO_SUCH_POLL" });
    expect(decideAnswer(a, at3, [], "p4", "o5", T)).toEqual({ ok: false, reason: "BAD_OPTION" });
    expect(decideAnswer(a, at3, [], "p5", "o1", T)).toEqual({ ok: false, reason: "NOT_THERE_YET" });
  });

  it("refuses a closed assignment, and one past its due time (due time itself still counts)", () => {
    expect(decideAnswer({ ...a, closedAt: T - 1 }, at3, [], "p4", "o1", T)).toEqual({ ok: false, reason: "ASSIGNMENT_CLOSED" });
    expect(decideAnswer(a, at3, [], "p4", "o1", T + 10_000)).toEqual({ ok: true, repeat: false });
    expect(decideAnswer(a, at3, [], "p4", "o1", T + 10_001)).toEqual({ ok: false, reason: "ASSIGNMENT_DUE" });
  });

  it("keeps the first answer: another option is refused, the same one again is a repeat", () => {
    const given = [answer("p4", "o2")];
    expect(decideAnswer(a, at3, given, "p4", "o3", T)).toEqual({ ok: false, reason: "ALREADY_ANSWERED" });
    expect(decideAnswer(a, at3, given, "p4", "o2", T)).toEqual({ ok: true, repeat: true });
    // A phone retrying after the assignment closed gets the same acknowledgement, not an error.
    expect(decideAnswer({ ...a, closedAt: T }, at3, given, "p4", "o2", T)).toEqual({ ok: true, repeat: true });
    // An answer to another poll does not answer this one.
    expect(decideAnswer(a, at3, [answer("p3", "o1")], "p4", "o3", T)).toEqual({ ok: true, repeat: false });
  });
});

describe("decideProgress", () => {
  const polls = lessonPolls(null, "WaitForFirstConsumer", "standard", null, keep);
  const a = assignmentOf(polls, { dueAt: T + 10_000 });
  const where = (stepIndex: number, furthestStep = stepIndex, finishedAt: number | null = null) => ({
    stepIndex,
    furthestStep,
    finishedAt,
  });
  const allBefore = (step: number) => polls.filter((p) => p.stepIndex < step).map((p) => answer(p.id, "o1"));

  it("goes back to any step already reached, keeping the furthest", () => {
    expect(decideProgress(a, where(5), [], 2, T)).toEqual({ ok: true, progress: { stepIndex: 2, furthestStep: 5, finishedAt: null } });
    expect(decideProgress(a, where(2, 5), [], 5, T)).toEqual({ ok: true, progress: { stepIndex: 5, furthestStep: 5, finishedAt: null } });
  });

  it("moves forward one step at a time, only past an answered poll", () => {
    expect(decideProgress(a, where(0), [], 1, T)).toEqual({ ok: false, reason: "ANSWER_FIRST", pollId: "p1" });
    expect(decideProgress(a, where(0), [answer("p1", "o3")], 1, T)).toEqual({
      ok: true,
      progress: { stepIndex: 1, furthestStep: 1, finishedAt: null },
    });
    expect(decideProgress(a, where(0), [answer("p1", "o3")], 2, T)).toEqual({ ok: false, reason: "BAD_STEP" });
    // Answered the earlier polls but not the one at the step being left.
    expect(decideProgress(a, where(4), allBefore(4), 5, T)).toEqual({ ok: false, reason: "ANSWER_FIRST", pollId: "p5" });
  });

  it("refuses steps outside the lesson", () => {
    for (const step of [-1, 12, 1.5, Number.NaN])
      expect(decideProgress(a, where(0), [], step, T)).toEqual({ ok: false, reason: "BAD_STEP" });
  });

  it("finishes only on reaching the last step with every poll answered, and stays finished", () => {
    expect(decideProgress(a, where(9), allBefore(10), 10, T)).toEqual({
      ok: true,
      progress: { stepIndex: 10, furthestStep: 10, finishedAt: null },
    });
    expect(decideProgress(a, where(10), allBefore(11), 11, T + 5)).toEqual({
      ok: true,
      progress: { stepIndex: 11, furthestStep: 11, finishedAt: T + 5 },
    });
    expect(decideProgress(a, where(11, 11, T + 5), allBefore(11), 0, T + 9)).toEqual({
      ok: true,
      progress: { stepIndex: 0, furthestStep: 11, finishedAt: T + 5 },
    });
  });

  it("a poll asked at the last step (from a session) finishes the walk once answered and the step is sent again", () => {
    const last: AssignmentPoll = { ...polls[0], id: "pl", stepIndex: 11, correctOptionId: null };
    const b = assignmentOf([...polls, last]);
    expect(decideProgress(b, where(10), allBefore(11), 11, T)).toMatchObject({ ok: true, progress: { finishedAt: null } });
    const all = [...allBefore(11), answer("pl", "o1")];
    expect(decideProgress(b, where(11), all, 11, T + 1)).toMatchObject({ ok: true, progress: { stepIndex: 11, finishedAt: T + 1 } });
  });

  it("once closed or past due, refuses moving forward but not going back", () => {
    const closed = { ...a, closedAt: T };
    expect(decideProgress(closed, where(3), allBefore(4), 4, T)).toEqual({ ok: false, reason: "ASSIGNMENT_CLOSED" });
    expect(decideProgress(closed, where(3), [], 1, T)).toMatchObject({ ok: true, progress: { stepIndex: 1, furthestStep: 3 } });
    expect(decideProgress(a, where(3), allBefore(4), 4, T + 10_001)).toEqual({ ok: false, reason: "ASSIGNMENT_DUE" });
    expect(decideProgress(a, where(3), [], 3, T + 10_001)).toMatchObject({ ok: true });
  });
});

describe("feedbackFor", () => {
  const poll = lessonPolls(null, "WaitForFirstConsumer", "standard", [3], reverse)[0];
  const right = poll.options.find((o) => o.id === poll.correctOptionId)!;
  const wrong = poll.options.find((o) => o.id !== poll.correctOptionId)!;

  it("tells a right answer it is right, with why", () => {
    expect(feedbackFor(poll, right.id)).toEqual({
      pollId: "p1",
      optionId: right.id,
      correct: true,
      note: right.note,
      correctOptionId: right.id,
      rightNote: null,
    });
    expect(right.note).toMatch(/^Right: /);
  });

  it("tells a wrong answer its misconception, the right answer and why it is right", () => {
    expect(feedbackFor(poll, wrong.id)).toEqual({
      pollId: "p1",
      optionId: wrong.id,
      correct: false,
      note: wrong.note,
      correctOptionId: right.id,
      rightNote: right.note,
    });
    expect(wrong.note).toMatch(/^Not yet: /);
  });

  it("marks nothing on a poll with no right answer, and gives null for an option with no note", () => {
    const open: AssignmentPoll = {
      ...poll,
      kind: "custom",
      options: [
        { id: "o1", text: "yes", note: "Some do." },
        { id: "o2", text: "no" },
      ],
      correctOptionId: null,
    };
    expect(feedbackFor(open, "o1")).toEqual({
      pollId: "p1",
      optionId: "o1",
      correct: null,
      note: "Some do.",
      correctOptionId: null,
      rightNote: null,
    });
    expect(feedbackFor(open, "o2").note).toBeNull();
  });
});
