import { describe, expect, it } from "vitest";
import { MAX_EVENTS_PER_SESSION, MAX_VOTES_PER_ROUND } from "../constants";
import { decide, type DurableCommand } from "./decide";
import { applyEvent, initialState } from "./reducer";
import type { SessionEventBody, SessionState } from "./types";

/** Decide, then fold what was decided: the way the room runs a command. */
function run(state: SessionState, command: DurableCommand, participantId: string | null = null) {
  let n = 0;
  const decision = decide(state, command, { participantId }, { now: 1_000, newId: () => `poll${++n}`, shuffle: (xs) => xs });
  if (decision.ok) for (const body of decision.events) applyEvent(state, { ...body, seq: state.seq + 1, at: 1_000 });
  return decision;
}

function classroom(): SessionState {
  const s = initialState();
  const events: SessionEventBody[] = [
    { type: "session:created", id: "s1", code: "KUBE42", title: "t" },
    { type: "participant:joined", participantId: "p1", nickname: "Ada" },
    { type: "participant:joined", participantId: "p2", nickname: "Linus" },
  ];
  events.forEach((e, i) => applyEvent(s, { ...e, seq: i + 1, at: 1 }));
  return s;
}

const openCustom: DurableCommand = {
  event: "poll:open",
  payload: { kind: "custom", question: "q", options: ["a", "b"], correctIndex: 1, durationS: 30 },
};

describe("decide", () => {
  it("keeps steps in range and writes nothing for a step the class is already on", () => {
    const s = classroom();
    expect(run(s, { event: "step:go", payload: { stepIndex: 99 } })).toMatchObject({ ok: false, error: { code: "STEP_OUT_OF_RANGE" } });
    expect(run(s, { event: "step:go", payload: { stepIndex: 0 } })).toEqual({ ok: true, events: [], data: null });
    expect(run(s, { event: "step:move", payload: { delta: -1 } })).toEqual({ ok: true, events: [], data: null });
    expect(run(s, { event: "step:move", payload: { delta: 1 } })).toMatchObject({
      ok: true,
      events: [{ type: "step:changed", stepIndex: 1 }],
    });
  });

  it("opens one poll at a time, with the server's id, clock and the right answer's id", () => {
    const s = classroom();
    const opened = run(s, openCustom);
    expect(opened).toMatchObject({
      ok: true,
      data: { pollId: "poll1" },
      events: [{ type: "poll:opened", closesAt: 31_000, poll: { correctOptionId: "o2" } }],
    });
    expect(run(s, openCustom)).toMatchObject({ ok: false, error: { code: "POLL_ALREADY_OPEN" } });
    expect(run(s, { event: "poll:reveal", payload: { pollId: "poll1" } })).toMatchObject({ ok: false, error: { code: "POLL_NOT_CLOSED" } });
    expect(run(s, { event: "poll:close", payload: { pollId: "poll1" } })).toMatchObject({
      ok: true,
      events: [{ type: "poll:closed", total: 0 }],
    });
    expect(run(s, { event: "poll:close", payload: { pollId: "poll1" } })).toMatchObject({ ok: false, error: { code: "POLL_CLOSED" } });
    // Revealing twice is not an error, and writes once.
    expect(run(s, { event: "poll:reveal", payload: { pollId: "poll1" } })).toMatchObject({ ok: true, events: [{ type: "poll:revealed" }] });
    expect(run(s, { event: "poll:reveal", payload: { pollId: "poll1" } })).toEqual({ ok: true, events: [], data: null });
  });

  it("counts a student's vote, writes a repeat of it never, and stops logging changes past the round's cap", () => {
    const s = classroom();
    run(s, openCustom);
    const vote = (optionId: string, who: string | null = "p1") =>
      run(s, { event: "poll:vote", payload: { pollId: "poll1", optionId } }, who);
    expect(vote("o1", null)).toMatchObject({ ok: false, error: { code: "NOT_STUDENT" } });
    expect(vote("o9")).toMatchObject({ ok: false, error: { code: "NO_SUCH_OPTION" } });
    expect(vote("o1")).toMatchObject({ ok: true, data: { pollId: "poll1", round: 1, optionId: "o1" } });
    expect(vote("o1")).toMatchObject({ ok: true, events: [] });
    for (let i = 1; i < MAX_VOTES_PER_ROUND; i++) expect(vote(i % 2 ? "o2" : "o1").ok).toBe(true);
    expect(vote(s.polls.poll1.votes.p1 === "o1" ? "o2" : "o1")).toMatchObject({ ok: false, error: { code: "VOTE_LIMIT" } });
    // Another student is not affected, and a new round starts the count again.
    expect(vote("o2", "p2").ok).toBe(true);
    run(s, { event: "poll:close", payload: { pollId: "poll1" } });
    run(s, { event: "poll:reopen", payload: { pollId: "poll1", durationS: 0 } });
    expect(vote("o2")).toMatchObject({ ok: true, data: { round: 2 } });
  });

  it("ends once, closing an open poll with its counts first", () => {
    const s = classroom();
    run(s, openCustom);
    run(s, { event: "poll:vote", payload: { pollId: "poll1", optionId: "o2" } }, "p1");
    expect(run(s, { event: "session:end", payload: {} })).toMatchObject({
      ok: true,
      events: [{ type: "poll:closed", counts: { o1: 0, o2: 1 }, total: 1 }, { type: "session:ended" }],
    });
    expect(run(s, { event: "session:end", payload: {} })).toEqual({ ok: true, events: [], data: null });
    expect(run(s, { event: "step:move", payload: { delta: 1 } })).toMatchObject({ ok: false, error: { code: "SESSION_ENDED" } });
  });

  it("past the log's cap lets the teacher only close, reveal and end", () => {
    const s = classroom();
    run(s, openCustom);
    s.seq = MAX_EVENTS_PER_SESSION;
    expect(run(s, { event: "step:move", payload: { delta: 1 } })).toMatchObject({ ok: false, error: { code: "LOG_FULL" } });
    expect(run(s, { event: "poll:vote", payload: { pollId: "poll1", optionId: "o1" } }, "p1")).toMatchObject({
      ok: false,
      error: { code: "LOG_FULL" },
    });
    expect(run(s, { event: "poll:close", payload: { pollId: "poll1" } }).ok).toBe(true);
    expect(run(s, { event: "poll:reveal", payload: { pollId: "poll1" } }).ok).toBe(true);
    expect(run(s, { event: "session:end", payload: {} }).ok).toBe(true);
  });

  it("renames and removes only present participants, and a rename to the same name writes nothing", () => {
    const s = classroom();
    expect(run(s, { event: "participant:rename", payload: { participantId: "p1", nickname: "Ada" } })).toEqual({
      ok: true,
      events: [],
      data: null,
    });
    expect(run(s, { event: "participant:remove", payload: { participantId: "__proto__" } })).toMatchObject({
      ok: false,
      error: { code: "NO_SUCH_PARTICIPANT" },
    });
    expect(run(s, { event: "participant:remove", payload: { participantId: "p2" } }).ok).toBe(true);
    expect(run(s, { event: "participant:rename", payload: { participantId: "p2", nickname: "L" } })).toMatchObject({
      ok: false,
      error: { code: "NO_SUCH_PARTICIPANT" },
    });
  });

  it("lets back in only a removed participant, who then counts again", () => {
    const s = classroom();
    expect(run(s, { event: "participant:readmit", payload: { participantId: "p1" } })).toMatchObject({
      ok: false,
      error: { code: "NO_SUCH_PARTICIPANT" },
    });
    run(s, { event: "participant:remove", payload: { participantId: "p1" } });
    expect(run(s, { event: "participant:readmit", payload: { participantId: "p1" } })).toMatchObject({
      ok: true,
      events: [{ type: "participant:readmitted", participantId: "p1" }],
    });
    expect(s.participants.p1.removed).toBe(false);
    run(s, openCustom);
    expect(run(s, { event: "poll:vote", payload: { pollId: "poll1", optionId: "o1" } }, "p1").ok).toBe(true);
  });

  it("moves the projector's focus to an object tab or a deep dive of this step, writing nothing for the same focus", () => {
    const s = classroom();
    expect(run(s, { event: "projector:focus", payload: { object: "PersistentVolumeClaim", deepDive: null } })).toEqual({
      ok: true,
      events: [],
      data: null,
    });
    expect(run(s, { event: "projector:focus", payload: { object: "events", deepDive: null } })).toMatchObject({
      ok: true,
      events: [{ type: "projector:focusChanged", focus: { object: "events", deepDive: null } }],
    });
    expect(run(s, { event: "projector:focus", payload: { object: "events", deepDive: "Not a deep dive" } })).toMatchObject({
      ok: false,
      error: { code: "BAD_REQUEST" },
    });
    expect(run(s, { event: "projector:focus", payload: { object: "events", deepDive: "Retries" } }).ok).toBe(true);
    expect(s.projectorFocus).toEqual({ object: "events", deepDive: "Retries" });
  });

  it("while the class is paused refuses what students do, keeps their vote, and lets them act again on resume", () => {
    const s = classroom();
    const pollId = (run(s, openCustom) as { data: { pollId: string } }).data.pollId;
    expect(run(s, { event: "poll:vote", payload: { pollId, optionId: "o1" } }, "p1").ok).toBe(true);
    expect(run(s, { event: "class:pause", payload: { paused: true } })).toMatchObject({
      ok: true,
      events: [{ type: "class:paused", paused: true }],
    });
    // Pausing twice writes nothing.
    expect(run(s, { event: "class:pause", payload: { paused: true } })).toEqual({ ok: true, events: [], data: null });
    const ask = { event: "question:ask", payload: { text: "why?", target: { kind: "step", stepIndex: 0 }, anonymous: false } } as const;
    for (const [command, who] of [
      [{ event: "poll:vote", payload: { pollId, optionId: "o2" } }, "p1"],
      [{ event: "poll:vote", payload: { pollId, optionId: "o1" } }, "p2"],
      [ask, "p2"],
    ] as const) {
      expect(run(s, command, who)).toMatchObject({ ok: false, error: { code: "CLASS_PAUSED" } });
    }
    expect(s.polls[pollId].votes).toEqual({ p1: "o1" });
    // The teacher still drives: steps, and closing the poll with the votes cast before the pause.
    expect(run(s, { event: "step:move", payload: { delta: 1 } }).ok).toBe(true);
    expect(run(s, { event: "class:pause", payload: { paused: false } }).ok).toBe(true);
    expect(run(s, { event: "poll:vote", payload: { pollId, optionId: "o2" } }, "p2").ok).toBe(true);
    expect(run(s, ask, "p2").ok).toBe(true);
    expect(s.paused).toBe(false);
  });
});
