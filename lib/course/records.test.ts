import { describe, expect, it } from "vitest";
import type { SessionEventBody } from "../session/types";
import { atOf, stamp } from "../../tests/support/sessionEvents";
import { assignmentPollRecords, learnerKey, sessionPollRecords } from "./records";
import type { Assignment, AssignmentAnswer, AssignmentStudent } from "./types";

// What the results page adds up: each poll of a session's log (first-round votes, rounds) and of an assignment (answers).

const CREATED: SessionEventBody = { type: "session:created", id: "s1", code: "KUBE42", title: "Tuesday" };
const join = (participantId: string, nickname: string): SessionEventBody => ({ type: "participant:joined", participantId, nickname });
const vote = (participantId: string, optionId: string, pollId = "q1"): SessionEventBody => ({
  type: "poll:voted",
  pollId,
  participantId,
  optionId,
});
const close = (counts: Record<string, number>, total: number, pollId = "q1"): SessionEventBody => ({
  type: "poll:closed",
  pollId,
  counts,
  total,
});
const reopen = (pollId = "q1"): SessionEventBody => ({ type: "poll:reopened", pollId, closesAt: null });
const OPEN: SessionEventBody = {
  type: "poll:opened",
  poll: {
    id: "q1",
    kind: "next-step",
    question: "What happens next, after PICK NODE?",
    options: [
      { id: "o1", text: "PROVISION", note: "Not yet: selected-node first." },
      { id: "o2", text: "NODE CHOSEN", note: "Right: PreBind writes selected-node." },
      { id: "o3", text: "MOUNT" },
    ],
    correctOptionId: "o2",
  },
  closesAt: null,
};
/** Three students at PICK NODE (step index 3) of WaitForFirstConsumer. */
const CLASS: SessionEventBody[] = [CREATED, join("p1", "Ana"), join("p2", "Ben"), join("p3", ""), { type: "step:changed", stepIndex: 3 }];

const recordsOf = (bodies: SessionEventBody[]) => sessionPollRecords(stamp(bodies));
const firstOf = (bodies: SessionEventBody[]) => Object.fromEntries(recordsOf(bodies)[0].first.map((f) => [f.learner, f.optionId]));

describe("learnerKey", () => {
  it("is the nickname, trimmed, spaces folded and case ignored, wherever it was used", () => {
    expect(learnerKey("Ana", "s1", "p1")).toBe("name:ana");
    expect(learnerKey("  ANA ", "assignment-9", "st4")).toBe("name:ana");
    expect(learnerKey("Mary  Jane", "s1", "p1")).toBe(learnerKey("mary jane", "s2", "p7"));
    expect(learnerKey("Ana", "s1", "p1")).not.toBe(learnerKey("Anna", "s1", "p1"));
  });

  it("keeps an anonymous student apart from everyone, even from another anonymous one in the same place", () => {
    expect(learnerKey("", "s1", "p1")).toBe("anon:s1:p1");
    expect(learnerKey("   ", "s1", "p1")).toBe("anon:s1:p1");
    expect(learnerKey("", "s1", "p2")).not.toBe(learnerKey("", "s1", "p1"));
    expect(learnerKey("", "s2", "p1")).not.toBe(learnerKey("", "s1", "p1"));
  });

  it("never merges the name a class gives a student who typed none, nor a name two students shared in one place", () => {
    // "Student 1" of one class is not "Student 1" of the next.
    expect(learnerKey("Student 1", "s1", "p1")).toBe("anon:s1:p1");
    expect(learnerKey("student 1", "s2", "p9")).not.toBe(learnerKey("Student 1", "s1", "p1"));
    expect(learnerKey("Sam", "a1", "st1", true)).toBe("anon:a1:st1");
    expect(learnerKey("Sam", "a1", "st2", true)).not.toBe(learnerKey("Sam", "a1", "st1", true));
  });
});

describe("sessionPollRecords", () => {
  it("records the poll as the class saw it: key, options with the right one marked, notes, the session", () => {
    const [record] = recordsOf([...CLASS, OPEN, vote("p1", "o2"), close({ o1: 0, o2: 1, o3: 0 }, 1)]);
    expect(record).toEqual({
      key: "step:WaitForFirstConsumer:standard:3",
      question: "What happens next, after PICK NODE?",
      stepIndex: 3,
      options: [
        { id: "o1", text: "PROVISION", note: "Not yet: selected-node first.", correct: false },
        { id: "o2", text: "NODE CHOSEN", note: "Right: PreBind writes selected-node.", correct: true },
        { id: "o3", text: "MOUNT", correct: false },
      ],
      hasAnswer: true,
      first: [{ learner: "name:ana", name: "Ana", optionId: "o2" }],
      rounds: [{ counts: { o1: 0, o2: 1, o3: 0 }, total: 1 }],
      source: { kind: "session", id: "s1", title: "Tuesday", at: atOf(1) },
    });
  });

  it("first answers are the votes when round 1 closed, not round 2's; a vote changed in round 1 counts as its last", () => {
    const bodies = [
      ...CLASS,
      OPEN,
      vote("p1", "o1"),
      vote("p2", "o3"),
      vote("p1", "o3"), // Ana changes her mind before the close
      vote("p3", "o1"),
      close({ o1: 1, o2: 0, o3: 2 }, 3),
      reopen(),
      vote("p1", "o2"),
      vote("p2", "o2"),
      close({ o1: 0, o2: 2, o3: 0 }, 2),
    ];
    expect(firstOf(bodies)).toEqual({ "name:ana": "o3", "name:ben": "o3", "anon:s1:p3": "o1" });
    expect(recordsOf(bodies)[0].rounds).toEqual([
      { counts: { o1: 1, o2: 0, o3: 2 }, total: 3 },
      { counts: { o1: 0, o2: 2, o3: 0 }, total: 2 },
    ]);
  });

  it("a first round still open counts its current votes", () => {
    const bodies = [...CLASS, OPEN, vote("p1", "o1"), vote("p2", "o2"), vote("p1", "o2")];
    expect(firstOf(bodies)).toEqual({ "name:ana": "o2", "name:ben": "o2" });
    expect(recordsOf(bodies)[0].rounds).toEqual([]);
  });

  it("a session ended while the first round was open counts its votes", () => {
    const bodies = [...CLASS, OPEN, vote("p1", "o1"), vote("p2", "o2"), { type: "session:ended" } as SessionEventBody];
    expect(firstOf(bodies)).toEqual({ "name:ana": "o1", "name:ben": "o2" });
    expect(recordsOf(bodies)[0].rounds).toEqual([{ counts: { o1: 1, o2: 1, o3: 0 }, total: 2 }]);
  });

  it("a session ended during round 2 keeps round 1's first answers and carries both rounds", () => {
    const bodies = [
      ...CLASS,
      OPEN,
      vote("p1", "o1"),
      close({ o1: 1, o2: 0, o3: 0 }, 1),
      reopen(),
      vote("p1", "o2"),
      vote("p2", "o2"),
      { type: "session:ended" } as SessionEventBody,
    ];
    expect(firstOf(bodies)).toEqual({ "name:ana": "o1" });
    expect(recordsOf(bodies)[0].rounds).toEqual([
      { counts: { o1: 1, o2: 0, o3: 0 }, total: 1 },
      { counts: { o1: 0, o2: 2, o3: 0 }, total: 2 },
    ]);
  });

  it("a re-opened round with no votes yet leaves the first answers as they closed", () => {
    const bodies = [...CLASS, OPEN, vote("p2", "o3"), close({ o1: 0, o2: 0, o3: 1 }, 1), reopen()];
    expect(firstOf(bodies)).toEqual({ "name:ben": "o3" });
  });

  it("a student removed during round 1 has no first answer", () => {
    const bodies = [
      ...CLASS,
      OPEN,
      vote("p1", "o1"),
      vote("p2", "o2"),
      { type: "participant:removed", participantId: "p1" } as SessionEventBody,
    ];
    expect(firstOf(bodies)).toEqual({ "name:ben": "o2" });
  });

  it("gives every poll in the order asked, a custom one keyed by its wording, another mode by its scenario", () => {
    const custom: SessionEventBody = {
      type: "poll:opened",
      poll: {
        id: "q2",
        kind: "custom",
        question: "Who creates the PV?",
        options: [{ id: "o1", text: "the provisioner" }],
        correctOptionId: null,
      },
      closesAt: null,
    };
    const records = recordsOf([
      ...CLASS,
      OPEN,
      close({ o1: 0, o2: 0, o3: 0 }, 0),
      { type: "mode:changed", mode: "Immediate", variant: "standard", stepIndex: 2, matched: true },
      custom,
      vote("p1", "o1", "q2"),
      close({ o1: 1 }, 1, "q2"),
      { type: "poll:opened", poll: { ...OPEN.poll, id: "q3" }, closesAt: null } as SessionEventBody,
    ]);
    expect(records.map((r) => [r.key, r.stepIndex, r.hasAnswer])).toEqual([
      ["step:WaitForFirstConsumer:standard:3", 3, true],
      ["custom:who creates the pv?", 2, false],
      ["step:Immediate:standard:2", 2, true],
    ]);
    expect(records[0].first).toEqual([]);
  });

  it("keys a teacher's lesson's polls by step alone", () => {
    const lesson = {
      id: "l1",
      version: 1,
      lesson: {
        title: "T",
        lifelines: [
          { id: "A", name: "A" },
          { id: "B", name: "B" },
        ],
        steps: [
          { from: "A", to: "B", line: "solid" as const, head: "filled" as const, title: "one" },
          { from: "B", to: "A", line: "solid" as const, head: "filled" as const, title: "two" },
        ],
      },
    };
    const records = recordsOf([{ ...CREATED, lesson } as SessionEventBody, OPEN]);
    expect(records[0].key).toBe("step:0");
  });
});

describe("assignmentPollRecords", () => {
  const T = 1_700_000_000_000;
  const a: Assignment = {
    id: "A1",
    title: "Homework",
    ownerAccountId: "acc",
    source: { kind: "builtin", mode: "WaitForFirstConsumer", variant: "standard" },
    lessonKey: "builtin",
    mode: "WaitForFirstConsumer",
    variant: "standard",
    kubeVersion: "1.35",
    lesson: null,
    stepCount: 12,
    polls: [
      {
        id: "p1",
        key: "step:WaitForFirstConsumer:standard:3",
        kind: "next-step",
        stepIndex: 3,
        question: "What happens next, after PICK NODE?",
        // Shuffled anew: the same texts under other ids than the session's.
        options: [
          { id: "o1", text: "MOUNT" },
          { id: "o2", text: "PROVISION", note: "Not yet: selected-node first." },
          { id: "o3", text: "NODE CHOSEN", note: "Right: PreBind writes selected-node." },
        ],
        correctOptionId: "o3",
      },
    ],
    dueAt: null,
    requireNickname: false,
    createdAt: T,
    closedAt: null,
  };
  const student = (id: string, nickname: string): AssignmentStudent => ({
    id,
    assignmentId: "A1",
    tokenHash: "h",
    nickname,
    address: "",
    startedAt: T,
    stepIndex: 0,
    furthestStep: 0,
    finishedAt: null,
    updatedAt: T,
  });
  const answer = (studentId: string, optionId: string): AssignmentAnswer => ({
    assignmentId: "A1",
    studentId,
    pollId: "p1",
    optionId,
    at: T,
  });

  it("gives each poll with every student's one answer, no rounds, the assignment as source", () => {
    const [record] = assignmentPollRecords(a, [student("st1", "ANA"), student("st2", "")], [answer("st1", "o2"), answer("st2", "o3")]);
    expect(record).toMatchObject({
      key: "step:WaitForFirstConsumer:standard:3",
      stepIndex: 3,
      hasAnswer: true,
      first: [
        { learner: "name:ana", name: "ANA", optionId: "o2" },
        { learner: "anon:A1:st2", name: "", optionId: "o3" },
      ],
      rounds: [],
      source: { kind: "assignment", id: "A1", title: "Homework", at: T },
    });
    expect(record.options.map((o) => [o.id, o.correct])).toEqual([
      ["o1", false],
      ["o2", false],
      ["o3", true],
    ]);
    expect(record.options[0]).not.toHaveProperty("note");
  });

  it("the same nickname in class and at home is one learner; anonymous ones never merge", () => {
    const [live] = recordsOf([...CLASS, OPEN, vote("p1", "o1"), vote("p3", "o1")]);
    const [home] = assignmentPollRecords(a, [student("st1", "ana "), student("st2", "")], [answer("st1", "o2"), answer("st2", "o2")]);
    const liveKeys = live.first.map((f) => f.learner);
    const homeKeys = home.first.map((f) => f.learner);
    expect(liveKeys).toContain("name:ana");
    expect(homeKeys).toContain("name:ana");
    expect(new Set([...liveKeys, ...homeKeys]).size).toBe(3);
  });

  it("a poll no one answered has no first answers", () => {
    expect(assignmentPollRecords(a, [], [])[0].first).toEqual([]);
  });
});

describe("learners in one assignment who share a nickname", () => {
  it("stay two learners, each with their own first answer", () => {
    const T = 1_700_000_000_000;
    const a: Assignment = {
      id: "A2",
      title: "Homework",
      ownerAccountId: "acc",
      source: { kind: "builtin", mode: "WaitForFirstConsumer", variant: "standard" },
      lessonKey: "builtin",
      mode: "WaitForFirstConsumer",
      variant: "standard",
      kubeVersion: "1.35",
      lesson: null,
      stepCount: 12,
      polls: [
        {
          id: "p1",
          key: "k",
          kind: "next-step",
          stepIndex: 0,
          question: "Q?",
          options: [
            { id: "o1", text: "A" },
            { id: "o2", text: "B" },
          ],
          correctOptionId: "o1",
        },
      ],
      dueAt: null,
      requireNickname: false,
      createdAt: T,
      closedAt: null,
    };
    const sam = (id: string): AssignmentStudent => ({
      id,
      assignmentId: "A2",
      tokenHash: id,
      nickname: "Sam",
      address: "",
      startedAt: T,
      stepIndex: 0,
      furthestStep: 0,
      finishedAt: null,
      updatedAt: T,
    });
    const answers: AssignmentAnswer[] = [
      { assignmentId: "A2", studentId: "s1", pollId: "p1", optionId: "o1", at: T },
      { assignmentId: "A2", studentId: "s2", pollId: "p1", optionId: "o2", at: T },
    ];
    const [record] = assignmentPollRecords(a, [sam("s1"), sam("s2")], answers);
    expect(new Set(record.first.map((f) => f.learner)).size).toBe(2);
  });
});
