import { describe, expect, it } from "vitest";
import type { SessionLesson } from "../lesson/model";
import { lessonPolls, type Shuffle } from "./assignment";
import type { Assignment, AssignmentAnswer, AssignmentPoll, AssignmentStudent } from "./types";
import { assignmentProgress, assignmentSummary, publicAssignment, studentProgressView } from "./views";

// What each audience of an assignment is sent: the link (no answers, no notes), the student (their own), the teacher (counts).

const keep: Shuffle = (items) => items;
const T = 1_700_000_000_000;
const ID = "b".repeat(22);

function assignmentOf(polls: AssignmentPoll[], over: Partial<Assignment> = {}): Assignment {
  return {
    id: ID,
    title: "Homework",
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
    requireNickname: true,
    createdAt: T,
    closedAt: null,
    ...over,
  };
}

const studentOf = (id: string, nickname: string, over: Partial<AssignmentStudent> = {}): AssignmentStudent => ({
  id,
  assignmentId: ID,
  tokenHash: `hash-${id}`,
  nickname,
  address: "10.0.0.1",
  startedAt: T,
  stepIndex: 0,
  furthestStep: 0,
  finishedAt: null,
  updatedAt: T,
  ...over,
});

const answer = (studentId: string, pollId: string, optionId: string): AssignmentAnswer => ({
  assignmentId: ID,
  studentId,
  pollId,
  optionId,
  at: T,
});

const LESSON: SessionLesson = {
  id: "lesson1",
  version: 2,
  lesson: {
    title: "A request",
    lifelines: [
      { id: "C", name: "Client" },
      { id: "S", name: "Server" },
    ],
    steps: [
      { from: "C", to: "S", line: "solid", head: "filled", title: "GET /", speakerNotes: "Ask who has seen a 301." },
      { from: "S", to: "C", line: "dotted", head: "filled", title: "301 Moved", narration: "The server points elsewhere." },
      { from: "C", to: "S", line: "solid", head: "filled", title: "GET /new", speakerNotes: "Pause here." },
      { from: "S", to: "C", line: "dotted", head: "filled", title: "200 OK", wrongNote: "Not before the redirect is followed." },
    ],
  },
};

describe("publicAssignment: what the link shows", () => {
  const builtin = assignmentOf(lessonPolls(null, "WaitForFirstConsumer", "standard", null, keep));

  it("has the questions and options, never a right answer or a note", () => {
    const view = publicAssignment(builtin, T);
    expect(view.polls).toHaveLength(11);
    expect(view.polls[3]).toEqual({
      id: "p4",
      stepIndex: 3,
      question: "What happens next, after PICK NODE?",
      options: builtin.polls[3].options.map(({ id, text }) => ({ id, text })),
    });
    const json = JSON.stringify(view);
    expect(json.toLowerCase()).not.toContain("correct");
    const notes = builtin.polls.flatMap((p) => p.options.map((o) => o.note ?? ""));
    expect(notes.filter((n) => n.length > 0)).toHaveLength(44);
    for (const note of notes) if (note) expect(json).not.toContain(note);
    expect(json).not.toContain("Right:");
    expect(json).not.toContain("ownerAccountId");
    expect(json).not.toContain("acc1");
  });

  it("hides a teacher's lesson's speaker notes and misconception notes, keeps what the class reads", () => {
    const a = assignmentOf(lessonPolls(LESSON, "WaitForFirstConsumer", "standard", null, keep), {
      lesson: LESSON,
      lessonKey: "lesson1",
      stepCount: 4,
      source: { kind: "lesson", lessonId: "lesson1", version: 2 },
    });
    const view = publicAssignment(a, T);
    const json = JSON.stringify(view);
    expect(json).not.toContain("Ask who has seen a 301.");
    expect(json).not.toContain("Pause here.");
    expect(json).not.toContain("speakerNotes");
    for (const note of a.polls.flatMap((p) => p.options.map((o) => o.note ?? ""))) if (note) expect(json).not.toContain(note);
    expect(view.lesson?.lesson.steps[1].narration).toBe("The server points elsewhere.");
    expect(view.lesson?.lesson.steps.map((s) => s.title)).toEqual(["GET /", "301 Moved", "GET /new", "200 OK"]);
    // The stored assignment keeps them for the teacher.
    expect(a.lesson?.lesson.steps[0].speakerNotes).toBe("Ask who has seen a 301.");
    expect(a.lesson?.lesson.steps[3].wrongNote).toBe("Not before the redirect is followed.");
  });

  it("says why answers are refused: closed by the teacher, or past due", () => {
    expect(publicAssignment({ ...builtin, dueAt: T + 100 }, T + 100).closed).toBeNull();
    expect(publicAssignment({ ...builtin, dueAt: T + 100 }, T + 101).closed).toBe("ASSIGNMENT_DUE");
    expect(publicAssignment({ ...builtin, closedAt: T }, T).closed).toBe("ASSIGNMENT_CLOSED");
    expect(publicAssignment(builtin, T)).toMatchObject({ id: ID, title: "Homework", stepCount: 12, requireNickname: true, dueAt: null });
  });
});

describe("studentProgressView: a student's own walk", () => {
  const a = assignmentOf(lessonPolls(null, "WaitForFirstConsumer", "standard", null, keep));
  // Generated polls list the right answer first: o1 is right, o2..o4 wrong.
  const ana = studentOf("s1", "Ana", { stepIndex: 2, furthestStep: 3 });

  it("resumes where they are, with feedback on each answer they gave", () => {
    const view = studentProgressView(a, ana, [answer("s1", "p1", "o1"), answer("s1", "p2", "o3")]);
    expect(view).toMatchObject({ studentId: "s1", nickname: "Ana", stepIndex: 2, furthestStep: 3, finished: false });
    expect(view.answers.map((f) => [f.pollId, f.optionId, f.correct])).toEqual([
      ["p1", "o1", true],
      ["p2", "o3", false],
    ]);
    expect(view.answers[1].note).toBe(a.polls[1].options[2].note);
    expect(view.answers[1].rightNote).toBe(a.polls[1].options[0].note);
  });

  it("shows only this student's answers, even when handed others'", () => {
    const view = studentProgressView(a, ana, [answer("s1", "p1", "o1"), answer("s2", "p2", "o4"), answer("s2", "p1", "o2")]);
    expect(view.answers.map((f) => [f.pollId, f.optionId])).toEqual([["p1", "o1"]]);
  });

  it("drops an answer to a poll the assignment no longer has, and says finished once finished", () => {
    const view = studentProgressView(a, { ...ana, finishedAt: T + 1 }, [answer("s1", "p99", "o1")]);
    expect(view.answers).toEqual([]);
    expect(view.finished).toBe(true);
  });
});

describe("assignmentProgress: the teacher's view", () => {
  const a = assignmentOf(lessonPolls(null, "WaitForFirstConsumer", "standard", [0, 1, 2], keep), { dueAt: T + 1000 });
  const students = [
    studentOf("s1", "Ana", { stepIndex: 11, furthestStep: 11, finishedAt: T + 50 }),
    studentOf("s2", "Ben", { stepIndex: 1, furthestStep: 2 }),
    studentOf("s3", "", { startedAt: T + 7 }),
  ];
  const given = [
    answer("s1", "p1", "o1"),
    answer("s1", "p2", "o1"),
    answer("s1", "p3", "o2"),
    answer("s2", "p1", "o3"),
    answer("s2", "p2", "o1"),
  ];
  const progress = assignmentProgress(a, students, given);

  it("counts students started and finished", () => {
    expect([progress.started, progress.finished]).toEqual([3, 1]);
    expect(progress).toMatchObject({ id: ID, title: "Homework", lessonKey: "builtin", dueAt: T + 1000, closedAt: null, stepCount: 12 });
  });

  it("counts each student's answers and right answers", () => {
    expect(progress.students.map((s) => [s.nickname, s.stepIndex, s.furthestStep, s.finishedAt, s.answered, s.right])).toEqual([
      ["Ana", 11, 11, T + 50, 3, 2],
      ["Ben", 1, 2, null, 2, 1],
      ["", 0, 0, null, 0, 0],
    ]);
  });

  it("counts each poll's answers per option, the right one marked", () => {
    expect(progress.polls.map((p) => [p.id, p.answered, p.options.map((o) => o.count)])).toEqual([
      ["p1", 2, [1, 0, 1, 0]],
      ["p2", 2, [2, 0, 0, 0]],
      ["p3", 1, [0, 1, 0, 0]],
    ]);
    expect(progress.polls[0].options.map((o) => o.correct)).toEqual([true, false, false, false]);
    expect(progress.polls[0].options[0].text).toBe(a.polls[0].options[0].text);
  });

  it("with no students, counts nothing", () => {
    const empty = assignmentProgress(a, [], []);
    expect([empty.started, empty.finished, empty.students]).toEqual([0, 0, []]);
    expect(empty.polls.every((p) => p.answered === 0 && p.options.every((o) => o.count === 0))).toBe(true);
  });

  it("a poll with no right answer marks no option and no one right", () => {
    const open = assignmentOf([{ ...a.polls[0], kind: "custom", correctOptionId: null }]);
    const p = assignmentProgress(open, [students[0]], [answer("s1", "p1", "o1")]);
    expect(p.students[0]).toMatchObject({ answered: 1, right: 0 });
    expect(p.polls[0].options.some((o) => o.correct)).toBe(false);
  });
});

describe("assignmentSummary", () => {
  it("is a line of the teacher's list", () => {
    const a = assignmentOf(lessonPolls(null, "WaitForFirstConsumer", "standard", [1, 4], keep), { closedAt: T + 9 });
    expect(assignmentSummary(a)).toEqual({
      id: ID,
      title: "Homework",
      lessonKey: "builtin",
      createdAt: T,
      dueAt: null,
      closedAt: T + 9,
      pollCount: 2,
    });
  });
});
