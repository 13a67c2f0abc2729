import { describe, expect, it } from "vitest";
import { MAX_IDLE_GAP_MS, ReplayTimeline } from "./timeline";
import { replay } from "./reducer";
import type { SessionEvent, SessionEventBody } from "./types";

function log(bodies: [number, SessionEventBody][]): SessionEvent[] {
  return bodies.map(([at, body], i) => ({ ...body, seq: i + 1, at }));
}

const T0 = 1_800_000_000_000;
const events = log([
  [T0, { type: "session:created", id: "s", code: "ABCDEF", title: "t" }],
  [T0 + 1000, { type: "participant:joined", participantId: "p1", nickname: "Ana" }],
  [T0 + 2000, { type: "step:changed", stepIndex: 1 }],
  [T0 + 600_000, { type: "step:changed", stepIndex: 2 }], // a ten-minute discussion
  [
    T0 + 601_000,
    {
      type: "poll:opened",
      poll: {
        id: "q",
        kind: "custom",
        question: "Why?",
        options: [
          { id: "o1", text: "a" },
          { id: "o2", text: "b" },
        ],
        correctOptionId: "o1",
      },
      closesAt: null,
    },
  ],
  [T0 + 602_000, { type: "poll:voted", pollId: "q", participantId: "p1", optionId: "o2" }],
  [T0 + 603_000, { type: "poll:closed", pollId: "q", counts: { o1: 0, o2: 1 }, total: 1 }],
  [T0 + 604_000, { type: "poll:revealed", pollId: "q" }],
  [T0 + 605_000, { type: "mode:changed", mode: "Immediate", variant: "standard", stepIndex: 0, matched: false }],
]);

describe("ReplayTimeline", () => {
  const timeline = new ReplayTimeline(events);

  it("shortens idle gaps but keeps order", () => {
    expect(timeline.positions).toEqual([
      0,
      1000,
      2000,
      2000 + MAX_IDLE_GAP_MS,
      3000 + MAX_IDLE_GAP_MS,
      4000 + MAX_IDLE_GAP_MS,
      5000 + MAX_IDLE_GAP_MS,
      6000 + MAX_IDLE_GAP_MS,
      7000 + MAX_IDLE_GAP_MS,
    ]);
    expect(timeline.duration).toBe(7000 + MAX_IDLE_GAP_MS);
  });

  it("gives exactly the live state at every event, seeking forwards and backwards", () => {
    for (let i = 0; i < events.length; i++) expect(timeline.stateAtIndex(i)).toEqual(replay(events, i + 1));
    for (let i = events.length - 1; i >= 0; i--) expect(timeline.stateAt(timeline.positions[i])).toEqual(replay(events, i + 1));
    expect(timeline.stateAt(timeline.positions[5] + 10)).toEqual(replay(events, 6));
  });

  it("marks steps, polls, reveals and mode switches, and jumps between polls", () => {
    expect(timeline.marks.map((m) => m.kind)).toEqual(["step", "step", "poll", "reveal", "mode"]);
    expect(timeline.pollMark(0, 1)?.seq).toBe(5);
    expect(timeline.pollMark(timeline.duration, -1)?.seq).toBe(5);
    expect(timeline.pollMark(timeline.positions[4], 1)).toBeNull();
  });

  it("lands poll jumps where the result shows: the reveal, or the close of a round never revealed", () => {
    expect(timeline.pollResults.map((m) => m.seq)).toEqual([8]);
    expect(timeline.pollResult(0, 1)?.seq).toBe(8);
    expect(timeline.stateAtIndex(timeline.indexAt(timeline.pollResult(0, 1)!.t)).polls.q.status).toBe("revealed");
    const twoRounds = new ReplayTimeline(
      log([
        ...events.slice(0, 7).map((e) => [e.at, e] as [number, SessionEventBody]),
        [T0 + 604_000, { type: "poll:reopened", pollId: "q", closesAt: null }],
        [T0 + 605_000, { type: "poll:closed", pollId: "q", counts: { o1: 0, o2: 0 }, total: 0 }],
        [T0 + 606_000, { type: "poll:revealed", pollId: "q" }],
      ]),
    );
    // Round 1 was closed but not revealed (its stop is the close); round 2 was revealed.
    expect(twoRounds.pollResults.map((m) => m.seq)).toEqual([7, 10]);
    expect(twoRounds.pollResult(twoRounds.positions[6], 1)?.seq).toBe(10);
    // Sitting on the last result, "previous" is the one before it.
    expect(twoRounds.pollResult(twoRounds.duration, -1)?.seq).toBe(7);
  });

  it("seeks cheaply across checkpoints on a long log", () => {
    const long = log([
      [T0, { type: "session:created", id: "s", code: "ABCDEF", title: "t" }],
      ...Array.from(
        { length: 300 },
        (_, i) => [T0 + i + 1, { type: "participant:joined", participantId: `p${i}`, nickname: `s${i}` }] as [number, SessionEventBody],
      ),
      [
        T0 + 400,
        {
          type: "poll:opened",
          poll: {
            id: "q",
            kind: "custom",
            question: "?",
            options: [
              { id: "o1", text: "a" },
              { id: "o2", text: "b" },
            ],
            correctOptionId: null,
          },
          closesAt: null,
        },
      ],
      ...Array.from(
        { length: 300 },
        (_, i) =>
          [T0 + 401 + i, { type: "poll:voted", pollId: "q", participantId: `p${i}`, optionId: i % 3 ? "o1" : "o2" }] as [
            number,
            SessionEventBody,
          ],
      ),
    ]);
    const tl = new ReplayTimeline(long);
    for (const i of [0, 63, 64, 65, 300, 450, long.length - 1]) expect(tl.stateAtIndex(i)).toEqual(replay(long, i + 1));
    expect(Object.keys(tl.stateAtIndex(long.length - 1).polls.q.votes)).toHaveLength(300);
  });
});
