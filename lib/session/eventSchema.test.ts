import { describe, expect, it } from "vitest";
import { parseStoredEvent } from "./eventSchema";
import { replay } from "./reducer";
import type { SessionEvent, SessionEventBody } from "./types";

const bodies: SessionEventBody[] = [
  { type: "session:created", id: "s1", code: "KUBE42", title: "Week 3" },
  { type: "participant:joined", participantId: "p1", nickname: "Ada" },
  { type: "class:paused", paused: true },
  {
    type: "poll:opened",
    poll: {
      id: "poll1",
      kind: "custom",
      question: "q",
      options: [
        { id: "o1", text: "a" },
        { id: "o2", text: "b", note: "why" },
      ],
      correctOptionId: "o2",
    },
    closesAt: null,
  },
  { type: "poll:voted", pollId: "poll1", participantId: "p1", optionId: "o2" },
  { type: "poll:closed", pollId: "poll1", counts: { o1: 0, o2: 1 }, total: 1 },
  {
    type: "question:asked",
    question: {
      id: "q1",
      participantId: "p1",
      text: "why?",
      anonymous: false,
      target: { kind: "lifeline", stepIndex: 0, lifeline: "CSI" },
    },
    pending: false,
  },
  { type: "projector:focusChanged", focus: { object: "events", deepDive: null } },
  { type: "session:ended" },
];
const log: SessionEvent[] = bodies.map((b, i) => ({ ...b, seq: i + 1, at: 1_000 + i }));

describe("parseStoredEvent", () => {
  it("reads back every event the session writes, as it was written", () => {
    const read = log.map((e) => parseStoredEvent(JSON.stringify(e)));
    expect(read).toEqual(log);
    expect(replay(read)).toEqual(replay(log));
  });

  it("drops keys an event does not have, so a hand-made row adds nothing to the state", () => {
    const row = JSON.stringify({ ...log[1], admin: true, __proto__x: 1 });
    expect(parseStoredEvent(row)).toEqual(log[1]);
  });

  it("refuses a damaged row with the field that is wrong, instead of folding it", () => {
    const damaged: [unknown, RegExp][] = [
      [{ ...log[2], paused: "yes" }, /paused/],
      [{ ...log[4], optionId: 7 }, /optionId/],
      [{ ...log[5], counts: { o1: -1 } }, /counts/],
      [{ ...log[6], question: { ...bodies[6], target: { kind: "sideways", stepIndex: 0 } } }, /question/],
      [{ type: "poll:exploded", seq: 9, at: 1 }, /type/],
      [{ ...log[0], seq: undefined }, /seq/],
      ["just text", /row/],
    ];
    for (const [row, field] of damaged) expect(() => parseStoredEvent(JSON.stringify(row)), JSON.stringify(row)).toThrow(field);
  });
});
