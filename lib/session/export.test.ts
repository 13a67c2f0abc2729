import { describe, expect, it } from "vitest";
import { anonymizeLog, exportLog, pollCsv, studentCsv, toCsv } from "./export";
import { replay } from "./reducer";
import { EVENT_LOG_VERSION, type SessionEvent, type SessionEventBody } from "./types";

function log(bodies: SessionEventBody[]): SessionEvent[] {
  return bodies.map((body, i) => ({ ...body, seq: i + 1, at: 1000 + i }));
}

const options = [
  { id: "o1", text: "CREATE POD: you create the Pod", note: "Right" },
  { id: "o2", text: '=HYPERLINK("x")', note: "Wrong" },
];
const events = log([
  { type: "session:created", id: "s", code: "ABCDEF", title: "Storage, week 3" },
  { type: "participant:joined", participantId: "p1", nickname: "Ana" },
  { type: "participant:joined", participantId: "p2", nickname: "Bo, Jr." },
  { type: "participant:joined", participantId: "p3", nickname: "Cy" },
  {
    type: "poll:opened",
    poll: { id: "q", kind: "next-step", question: "What happens next, after CREATE PVC?", options, correctOptionId: "o1" },
    closesAt: null,
  },
  { type: "poll:voted", pollId: "q", participantId: "p1", optionId: "o2" },
  { type: "poll:voted", pollId: "q", participantId: "p2", optionId: "o2" },
  { type: "poll:closed", pollId: "q", counts: { o1: 0, o2: 2 }, total: 2 },
  { type: "poll:reopened", pollId: "q", closesAt: null },
  { type: "poll:voted", pollId: "q", participantId: "p1", optionId: "o1" },
  { type: "poll:voted", pollId: "q", participantId: "p2", optionId: "o1" },
  { type: "poll:voted", pollId: "q", participantId: "p3", optionId: "o2" },
  { type: "poll:closed", pollId: "q", counts: { o1: 2, o2: 1 }, total: 3 },
  { type: "poll:revealed", pollId: "q" },
  { type: "session:ended" },
]);

describe("exports", () => {
  it("anonymises shared replays: no nicknames, no individual votes, the same results", () => {
    const anon = anonymizeLog(events);
    const state = replay(anon);
    expect(Object.values(state.participants).map((p) => p.nickname)).toEqual(["Student 1", "Student 2", "Student 3"]);
    expect(JSON.stringify(anon)).not.toMatch(/Ana|Bo, Jr\.|"Cy"/);
    expect(anon.some((e) => e.type === "poll:voted")).toBe(false);
    expect(state.polls.q.history).toEqual(replay(events).polls.q.history);
  });

  it("exports a versioned log that rebuilds the same session", () => {
    const exported = JSON.parse(JSON.stringify(exportLog(events)));
    expect(exported).toMatchObject({
      format: "classroom-session-log",
      version: EVENT_LOG_VERSION,
      session: { code: "ABCDEF", title: "Storage, week 3" },
    });
    expect(replay(exported.events)).toEqual(replay(events));
  });

  it("writes one CSV row per poll round and option, defusing formulas", () => {
    expect(pollCsv(events).split("\r\n")).toEqual([
      "poll,question,round,option,votes,percent,correct",
      '1,"What happens next, after CREATE PVC?",1,CREATE POD: you create the Pod,0,0,yes',
      '1,"What happens next, after CREATE PVC?",1,"\'=HYPERLINK(""x"")",2,100,no',
      '1,"What happens next, after CREATE PVC?",2,CREATE POD: you create the Pod,2,67,yes',
      '1,"What happens next, after CREATE PVC?",2,"\'=HYPERLINK(""x"")",1,33,no',
      "",
    ]);
  });

  it("writes the teacher's per-student sheet", () => {
    const lines = studentCsv(events).trim().split("\r\n");
    expect(lines[0]).toBe("student,poll 1 round 1,poll 1 round 1 correct,poll 1 round 2,poll 1 round 2 correct");
    expect(lines[1]).toBe('Ana,"\'=HYPERLINK(""x"")",no,CREATE POD: you create the Pod,yes');
    expect(lines[2]).toBe('"Bo, Jr.","\'=HYPERLINK(""x"")",no,CREATE POD: you create the Pod,yes');
    expect(lines[3]).toBe('Cy,,,"\'=HYPERLINK(""x"")",no');
  });

  it("quotes CSV cells only when needed", () => {
    expect(toCsv([["a", 1, null, "x\ny", "-1"]])).toBe('a,1,,"x\ny",\'-1\r\n');
  });
});
