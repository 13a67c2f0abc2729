import { describe, expect, it } from "vitest";
import type { SessionEventBody } from "../session/types";
import { stamp } from "../../tests/support/sessionEvents";
import { assignmentPollRecords, learnerKey, sessionPollRecords, type PollRecord } from "./records";
import { courseResults, learnersCsv, normalizedGain, resultsCsv } from "./results";
import type { Assignment, AssignmentStudent } from "./types";

// Results across a course, checked against hand counts: first answers, wrong options by how often chosen, gain, learners.

const KEY = "step:WaitForFirstConsumer:standard:3";
const QUESTION = "What happens next, after PICK NODE?";
const NOTES = { A: "Right: PreBind writes selected-node.", B: "Not yet: selected-node first.", C: "Already happened at step 2." };

/** A poll record with options A (right), B, C, D (no note) under the given ids; answers as [name, option text]. */
function record(
  source: PollRecord["source"],
  ids: Record<"A" | "B" | "C" | "D", string>,
  answers: [string, "A" | "B" | "C" | "D"][],
  rounds: PollRecord["rounds"] = [],
  over: Partial<PollRecord> = {},
): PollRecord {
  return {
    key: KEY,
    question: QUESTION,
    stepIndex: 3,
    options: (["A", "B", "C", "D"] as const).map((text) => ({
      id: ids[text],
      text,
      ...(text !== "D" ? { note: NOTES[text] } : {}),
      correct: text === "A",
    })),
    hasAnswer: true,
    first: answers.map(([name, text]) => ({ learner: learnerKey(name, source.id, name || "x"), name, optionId: ids[text] })),
    rounds,
    source,
    ...over,
  };
}

const S1 = { kind: "session" as const, id: "s1", title: "Tuesday", at: Date.UTC(2025, 0, 7, 9) };
const S2 = { kind: "session" as const, id: "s2", title: "Thursday", at: Date.UTC(2025, 0, 9, 9) };
const A1 = { kind: "assignment" as const, id: "A1", title: "Homework", at: Date.UTC(2025, 0, 10, 9) };

// Session 1: A A B B C, rounds 2/5 then 4/5 right. Session 2 (options shuffled anew): A B B C D, rounds 2/5 then 3/5.
const R1 = record(
  S1,
  { A: "o1", B: "o2", C: "o3", D: "o4" },
  [
    ["Ana", "A"],
    ["Ben", "B"],
    ["Cy", "B"],
    ["Dee", "A"],
    ["", "C"],
  ],
  [
    { counts: { o1: 2, o2: 2, o3: 1, o4: 0 }, total: 5 },
    { counts: { o1: 4, o2: 1, o3: 0, o4: 0 }, total: 5 },
  ],
);
const R2 = record(
  S2,
  { A: "o2", B: "o1", C: "o4", D: "o3" },
  [
    ["Ana", "B"],
    ["Eve", "A"],
    ["Fay", "D"],
    ["Gus", "B"],
    ["Hal", "C"],
  ],
  [
    { counts: { o1: 2, o2: 2, o3: 0, o4: 1 }, total: 5 },
    { counts: { o1: 1, o2: 3, o3: 1, o4: 0 }, total: 5 },
  ],
);

describe("normalizedGain", () => {
  it("is (after - before) / (1 - before), and null when everyone was right before", () => {
    expect(normalizedGain(0.4, 0.7)).toBeCloseTo(0.5, 10);
    expect(normalizedGain(0.5, 0.5)).toBe(0);
    expect(normalizedGain(0.5, 0.25)).toBeCloseTo(-0.5, 10);
    expect(normalizedGain(0, 1)).toBe(1);
    expect(normalizedGain(1, 0.8)).toBeNull();
  });
});

describe("courseResults: per poll", () => {
  const results = courseResults([R1, R2]);
  const [poll] = results.polls;

  it("adds first answers up across sessions by option text: A 3, B 4, C 2, D 1, so 3 of 10 right", () => {
    expect(results.polls).toHaveLength(1);
    expect(poll).toMatchObject({ key: KEY, question: QUESTION, stepIndex: 3, hasAnswer: true, firstAnswers: 10, right: 3, asked: 2 });
    expect(poll.rightShare).toBeCloseTo(0.3, 10);
    expect([results.sessions, results.assignments]).toEqual([2, 0]);
  });

  it("lists the right option first, then the wrong ones by how often chosen, each with its note", () => {
    expect(poll.options).toEqual([
      { text: "A", note: NOTES.A, correct: true, chosen: 3 },
      { text: "B", note: NOTES.B, correct: false, chosen: 4 },
      { text: "C", note: NOTES.C, correct: false, chosen: 2 },
      { text: "D", note: null, correct: false, chosen: 1 },
    ]);
  });

  it("sums both sessions' rounds: before 4/10, after 7/10, normalized gain 0.5", () => {
    expect(poll.rounds).not.toBeNull();
    const r = poll.rounds!;
    expect([r.times, r.before, r.after]).toEqual([2, { right: 4, total: 10 }, { right: 7, total: 10 }]);
    expect(r.shift).toBeCloseTo(0.3, 10);
    expect(r.gain).toBeCloseTo(0.5, 10);
  });

  it("gives no gain when everyone was right before, and no rounds for a poll asked once", () => {
    const allRight = record(
      S1,
      { A: "o1", B: "o2", C: "o3", D: "o4" },
      [],
      [
        { counts: { o1: 5, o2: 0, o3: 0, o4: 0 }, total: 5 },
        { counts: { o1: 4, o2: 1, o3: 0, o4: 0 }, total: 5 },
      ],
    );
    const r = courseResults([allRight]).polls[0].rounds!;
    expect(r.gain).toBeNull();
    expect(r.shift).toBeCloseTo(-0.2, 10);
    expect(courseResults([{ ...R1, rounds: R1.rounds.slice(0, 1) }]).polls[0].rounds).toBeNull();
  });

  it("does not count a re-opened round nobody answered as answered twice", () => {
    const empty = { ...R2, rounds: [R2.rounds[0], { counts: { o1: 0, o2: 0, o3: 0, o4: 0 }, total: 0 }] };
    expect(courseResults([empty]).polls[0].rounds).toBeNull();
    // Beside a session that did answer twice, only that one counts: before 2/5, after 4/5, gain (0.8 - 0.4) / 0.6.
    const r = courseResults([R1, empty]).polls[0].rounds!;
    expect([r.times, r.before, r.after]).toEqual([1, { right: 2, total: 5 }, { right: 4, total: 5 }]);
    expect(r.gain).toBeCloseTo(2 / 3, 10);
  });

  it("adds an assignment's answers to the sessions', keeping the latest wording of a note", () => {
    const home = record(A1, { A: "o3", B: "o4", C: "o1", D: "o2" }, [["ana", "B"]]);
    home.options[1] = { ...home.options[1], note: "Not yet: the PVC needs selected-node first." };
    const r = courseResults([home, R1, R2]);
    expect(r.polls[0]).toMatchObject({ firstAnswers: 11, right: 3, asked: 3 });
    expect(r.polls[0].rightShare).toBeCloseTo(3 / 11, 10);
    expect(r.polls[0].options[1]).toEqual({ text: "B", note: "Not yet: the PVC needs selected-node first.", correct: false, chosen: 5 });
    expect([r.sessions, r.assignments]).toEqual([2, 1]);
    // An assignment has no rounds: the gain is the sessions' alone.
    expect(r.polls[0].rounds?.times).toBe(2);
  });

  it("a poll with no right answer counts answers but marks no share", () => {
    const open = record(
      S1,
      { A: "o1", B: "o2", C: "o3", D: "o4" },
      [
        ["Ana", "A"],
        ["Ben", "B"],
      ],
      [],
      {
        key: "custom:which do you use?",
        hasAnswer: false,
        options: (["A", "B"] as const).map((text, i) => ({ id: `o${i + 1}`, text, correct: false })),
      },
    );
    const [p] = courseResults([open]).polls;
    expect(p).toMatchObject({ hasAnswer: false, firstAnswers: 2, right: 0, rightShare: null });
    expect(courseResults([{ ...R1, first: [] }]).polls[0].rightShare).toBeNull();
  });

  it("orders polls by scenario, then step", () => {
    const at = (key: string, stepIndex: number) => ({ ...R1, key, stepIndex });
    const keys = courseResults([
      at(KEY, 3),
      at("step:WaitForFirstConsumer:standard:1", 1),
      at("custom:who creates the pv?", 2),
      at("step:Immediate:standard:0", 0),
    ]).polls.map((p) => p.key);
    expect(keys).toEqual(["custom:who creates the pv?", "step:Immediate:standard:0", "step:WaitForFirstConsumer:standard:1", KEY]);
  });
});

describe("courseResults: per learner", () => {
  const home = record(A1, { A: "o3", B: "o4", C: "o1", D: "o2" }, [["ANA", "B"]]);
  const { learners } = courseResults([R1, R2, home]);

  it("lists each learner's misconceptions across sessions and assignments, most first", () => {
    const ana = learners[0];
    expect(ana).toMatchObject({ learner: "name:ana", answered: 3, right: 1 });
    expect(ana.misconceptions).toEqual([
      { pollKey: KEY, question: QUESTION, text: "B", note: NOTES.B, source: S2 },
      { pollKey: KEY, question: QUESTION, text: "B", note: NOTES.B, source: A1 },
    ]);
    expect(learners.map((l) => [l.name, l.misconceptions.length])).toEqual([
      [ana.name, 2],
      ["", 1],
      ["Ben", 1],
      ["Cy", 1],
      ["Fay", 1],
      ["Gus", 1],
      ["Hal", 1],
      ["Dee", 0],
      ["Eve", 0],
    ]);
    expect(learners.find((l) => l.name === "Fay")?.misconceptions[0]).toMatchObject({ text: "D", note: null });
  });

  it("end to end: a live vote and a homework answer under one nickname are one learner", () => {
    const events: SessionEventBody[] = [
      { type: "session:created", id: "s9", code: "KUBE42", title: "Live" },
      { type: "participant:joined", participantId: "p1", nickname: "Ana" },
      { type: "participant:joined", participantId: "p2", nickname: "" },
      { type: "step:changed", stepIndex: 3 },
      {
        type: "poll:opened",
        poll: {
          id: "q1",
          kind: "next-step",
          question: QUESTION,
          options: [
            { id: "o1", text: "B", note: NOTES.B },
            { id: "o2", text: "A", note: NOTES.A },
          ],
          correctOptionId: "o2",
        },
        closesAt: null,
      },
      { type: "poll:voted", pollId: "q1", participantId: "p1", optionId: "o1" },
      { type: "poll:voted", pollId: "q1", participantId: "p2", optionId: "o1" },
      { type: "session:ended" },
    ];
    const a = {
      id: "A9",
      title: "Homework",
      createdAt: 5,
      polls: [
        {
          id: "p1",
          key: KEY,
          kind: "next-step",
          stepIndex: 3,
          question: QUESTION,
          options: [
            { id: "o1", text: "A", note: NOTES.A },
            { id: "o2", text: "B", note: NOTES.B },
          ],
          correctOptionId: "o1",
        },
      ],
    } as Assignment;
    const studentOf = (id: string, nickname: string): AssignmentStudent => ({
      id,
      assignmentId: "A9",
      tokenHash: "h",
      nickname,
      address: "",
      startedAt: 5,
      stepIndex: 11,
      furthestStep: 11,
      finishedAt: 6,
      updatedAt: 6,
    });
    const students = [studentOf("st1", "ana"), studentOf("st2", "")];
    const given = [
      { assignmentId: "A9", studentId: "st1", pollId: "p1", optionId: "o2", at: 6 },
      { assignmentId: "A9", studentId: "st2", pollId: "p1", optionId: "o2", at: 6 },
    ];
    const r = courseResults([...sessionPollRecords(stamp(events)), ...assignmentPollRecords(a, students, given)]);
    expect(r.polls[0]).toMatchObject({ firstAnswers: 4, right: 0, rightShare: 0 });
    expect(r.learners.map((l) => [l.learner, l.misconceptions.map((m) => m.source.kind)])).toEqual([
      ["name:ana", ["session", "assignment"]],
      // Two anonymous students, in class and at home, stay two learners.
      ["anon:s9:p2", ["session"]],
      ["anon:A9:st2", ["assignment"]],
    ]);
  });
});

describe("CSV exports", () => {
  const results = courseResults([R1, R2]);

  it("resultsCsv: a header, one row per option with the poll's totals and gain, and no student names", () => {
    const lines = resultsCsv(results).split("\r\n");
    expect(lines[0]).toBe(
      "poll,question,first answers,right,right %,option,correct,chosen,note,round 1 right %,round 2 right %,normalized gain",
    );
    expect(lines.slice(1, -1)).toEqual([
      `${KEY},"${QUESTION}",10,3,30.0,A,yes,3,${NOTES.A},40.0,70.0,0.500`,
      `${KEY},"${QUESTION}",10,3,30.0,B,no,4,${NOTES.B},40.0,70.0,0.500`,
      `${KEY},"${QUESTION}",10,3,30.0,C,no,2,${NOTES.C},40.0,70.0,0.500`,
      `${KEY},"${QUESTION}",10,3,30.0,D,no,1,,40.0,70.0,0.500`,
    ]);
    expect(lines.at(-1)).toBe("");
    const csv = resultsCsv(courseResults([R1, R2, record(A1, { A: "o1", B: "o2", C: "o3", D: "o4" }, [["Zed", "C"]])]));
    for (const name of ["Ana", "Ben", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal", "Zed", "name:"]) expect(csv).not.toContain(name);
  });

  it("defuses cells that a spreadsheet would run as a formula", () => {
    const evil = record(S1, { A: "o1", B: "o2", C: "o3", D: "o4" }, [["=cmd", "B"]]);
    evil.options[1] = { ...evil.options[1], text: "=HYPERLINK(x)", note: "+1 more" };
    const csv = resultsCsv(courseResults([evil]));
    expect(csv).toContain(",'=HYPERLINK(x),no,1,'+1 more,");
    expect(csv).not.toMatch(/,=HYPERLINK/);
    const learners = learnersCsv(courseResults([evil]));
    expect(learners.split("\r\n")[1].startsWith("'=cmd,1,0,")).toBe(true);
    expect(learners).not.toMatch(/(^|\n)=cmd/);
  });

  it("learnersCsv: one row per misconception, one for a learner with none, anonymous ones named as such", () => {
    const lines = learnersCsv(courseResults([R1])).split("\r\n");
    expect(lines[0]).toBe("student,answered,right,question,chose,misconception,where,when");
    expect(lines.slice(1, -1)).toEqual([
      `(no nickname),1,0,"${QUESTION}",C,${NOTES.C},session: Tuesday,2025-01-07T09:00:00.000Z`,
      `Ben,1,0,"${QUESTION}",B,${NOTES.B},session: Tuesday,2025-01-07T09:00:00.000Z`,
      `Cy,1,0,"${QUESTION}",B,${NOTES.B},session: Tuesday,2025-01-07T09:00:00.000Z`,
      "Ana,1,1,,,,,",
      "Dee,1,1,,,,,",
    ]);
  });
});
