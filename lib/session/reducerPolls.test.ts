import { describe, expect, it } from "vitest";
import { activePoll, applyEvent, countVotes, initialState } from "./reducer";
import type { Poll, SessionEventBody } from "./types";
import { mulberry32 } from "../../tests/support/random";
import {
  atOf,
  run,
  foldMore as then,
  expectIgnored,
  CREATED,
  join,
  step,
  vote,
  Q1,
  openQ2,
  close,
  CLASS,
  pollOf,
} from "../../tests/support/sessionEvents";

// Polls in the reducer: opening, votes, closing, reopening, revealing, and the counts kept beside a round's votes.

describe("polls", () => {
  it("opens a poll where the class is, makes it active and hides results", () => {
    const state = run([
      ...CLASS,
      { type: "mode:changed", mode: "Immediate", variant: "standard", stepIndex: 9, matched: true },
      { type: "results:visibility", visible: true },
      { ...Q1, closesAt: atOf(60) },
    ]);
    expect(state.activePollId).toBe("q1");
    expect(state.pollOrder).toEqual(["q1"]);
    expect(state.resultsVisible).toBe(false);
    expect(pollOf(state)).toEqual({
      ...Q1.poll,
      mode: "Immediate",
      variant: "standard",
      stepIndex: 9,
      status: "open",
      round: 1,
      votes: {},
      voteWrites: {},
      history: [],
      openedAt: atOf(8),
      closesAt: atOf(60),
      revealedAt: null,
    });
    expect(activePoll(state)).toBe(state.polls.q1);
  });

  it("ignores a second poll:opened with an id already used", () => {
    const state = run([...CLASS, Q1, close("q1", { o1: 0, o2: 0, o3: 0 }, 0)]);
    expectIgnored(state, { ...Q1, poll: { ...Q1.poll, question: "Replaced?" } });
  });

  it("keeps one vote per participant; a second vote replaces the first", () => {
    const state = run([...CLASS, Q1, vote("p1", "o1"), vote("p2", "o2"), vote("p1", "o3"), vote("p3", "o2")]);
    expect(pollOf(state).votes).toEqual({ p1: "o3", p2: "o2", p3: "o2" });
    expect(countVotes(pollOf(state))).toEqual({ counts: { o1: 0, o2: 2, o3: 1 }, total: 3 });
  });

  it("ignores votes for an unknown option, poll or participant", () => {
    const state = run([...CLASS, Q1, vote("p1", "o1")]);
    expectIgnored(state, vote("p2", "o9"));
    expectIgnored(state, vote("p2", "o1", "nope"));
    expectIgnored(state, vote("ghost", "o1"));
  });

  it("closes into history with every option counted, zeros included", () => {
    const state = run([...CLASS, Q1, vote("p1", "o1"), vote("p2", "o1"), vote("p3", "o2"), close("q1", { o1: 2, o2: 1, o3: 0 }, 3)]);
    const poll = pollOf(state);
    expect(poll.status).toBe("closed");
    expect(poll.closesAt).toBeNull();
    expect(poll.history).toEqual([{ round: 1, counts: { o1: 2, o2: 1, o3: 0 }, total: 3 }]);
    // The round's votes stay for the teacher until a re-open.
    expect(poll.votes).toEqual({ p1: "o1", p2: "o1", p3: "o2" });
    expect(state.activePollId).toBe("q1");
    expectIgnored(state, close("q1", { o1: 2, o2: 1, o3: 0 }, 3));
    expectIgnored(state, vote("p3", "o3"));
  });

  it("closes an empty round as all zeros", () => {
    const state = run([...CLASS, Q1, close("q1", { o1: 0, o2: 0, o3: 0 }, 0)]);
    expect(pollOf(state).history).toEqual([{ round: 1, counts: { o1: 0, o2: 0, o3: 0 }, total: 0 }]);
  });

  it("reveals only a closed poll", () => {
    const open = run([...CLASS, Q1, vote("p1", "o2")]);
    expectIgnored(open, { type: "poll:revealed", pollId: "q1" });
    expectIgnored(open, { type: "poll:revealed", pollId: "nope" });
    const revealed = then(open, [close("q1", { o1: 0, o2: 1, o3: 0 }, 1), { type: "poll:revealed", pollId: "q1" }]);
    expect(pollOf(revealed).status).toBe("revealed");
    expect(pollOf(revealed).history).toEqual([{ round: 1, counts: { o1: 0, o2: 1, o3: 0 }, total: 1 }]);
    expectIgnored(revealed, { type: "poll:revealed", pollId: "q1" });
  });

  it("re-opens as a new round: votes cleared, history kept, results hidden again", () => {
    const closed = run([
      ...CLASS,
      Q1,
      vote("p1", "o1"),
      vote("p2", "o1"),
      vote("p3", "o2"),
      close("q1", { o1: 2, o2: 1, o3: 0 }, 3),
      { type: "results:visibility", visible: true },
    ]);
    const reopened = then(closed, [{ type: "poll:reopened", pollId: "q1", closesAt: atOf(40) }]);
    const poll = pollOf(reopened);
    expect(poll.status).toBe("open");
    expect(poll.round).toBe(2);
    expect(poll.votes).toEqual({});
    expect(poll.closesAt).toBe(atOf(40));
    expect(poll.openedAt).toBe(atOf(6)); // when it first opened
    expect(poll.history).toEqual([{ round: 1, counts: { o1: 2, o2: 1, o3: 0 }, total: 3 }]);
    expect(reopened.resultsVisible).toBe(false);
    expect(reopened.activePollId).toBe("q1");
    expectIgnored(reopened, { type: "poll:reopened", pollId: "q1", closesAt: null });
    expectIgnored(reopened, { type: "poll:reopened", pollId: "nope", closesAt: null });

    // After discussion the class shifts towards o2: both rounds are kept, oldest first.
    const second = then(reopened, [vote("p1", "o2"), vote("p2", "o2"), vote("p3", "o2"), close("q1", { o1: 0, o2: 3, o3: 0 }, 3)]);
    expect(pollOf(second).history).toEqual([
      { round: 1, counts: { o1: 2, o2: 1, o3: 0 }, total: 3 },
      { round: 2, counts: { o1: 0, o2: 3, o3: 0 }, total: 3 },
    ]);
  });

  it("re-opens a revealed poll too", () => {
    const state = run([
      ...CLASS,
      Q1,
      vote("p1", "o1"),
      close("q1", { o1: 1, o2: 0, o3: 0 }, 1),
      { type: "poll:revealed", pollId: "q1" },
      { type: "poll:reopened", pollId: "q1", closesAt: null },
    ]);
    expect(pollOf(state).status).toBe("open");
    expect(pollOf(state).round).toBe(2);
    expect(pollOf(state).history).toHaveLength(1);
  });

  it("opens a second poll while the first is closed; the first keeps its history and takes no votes", () => {
    const state = run([
      ...CLASS,
      Q1,
      vote("p1", "o1"),
      close("q1", { o1: 1, o2: 0, o3: 0 }, 1),
      { type: "results:visibility", visible: true },
      step(5),
      openQ2,
      vote("p2", "o1", "q2"),
    ]);
    expect(state.pollOrder).toEqual(["q1", "q2"]);
    expect(state.activePollId).toBe("q2");
    expect(state.resultsVisible).toBe(false);
    expect(pollOf(state, "q1").status).toBe("closed");
    expect(pollOf(state, "q1").history).toEqual([{ round: 1, counts: { o1: 1, o2: 0, o3: 0 }, total: 1 }]);
    expect(pollOf(state, "q2")).toMatchObject({ status: "open", round: 1, stepIndex: 5, votes: { p2: "o1" }, closesAt: atOf(99) });
    expectIgnored(state, vote("p3", "o2", "q1"));
  });
});

// A hand-made or damaged log may open a second poll while one is open; the
// reducer ignores it, as the server refuses it (POLL_ALREADY_OPEN).
describe("two polls open at once (hand-made log)", () => {
  it("ignores the second poll:opened and leaves no poll open after session:ended", () => {
    const opened = run([...CLASS, Q1, vote("p1", "o1")]);
    expectIgnored(opened, openQ2);
    const state = run([...CLASS, Q1, vote("p1", "o1"), openQ2, { type: "session:ended" }]);
    expect(
      Object.values(state.polls)
        .filter((p) => p.status === "open")
        .map((p) => p.id),
    ).toEqual([]);
    expect(state.pollOrder).toEqual(["q1"]);
  });
});

describe("countVotes", () => {
  const options = [
    { id: "a", text: "A" },
    { id: "b", text: "B" },
    { id: "c", text: "C" },
  ];

  it("counts every option, zeros included", () => {
    expect(countVotes({ options, votes: {} })).toEqual({ counts: { a: 0, b: 0, c: 0 }, total: 0 });
    expect(countVotes({ options, votes: { p1: "a", p2: "c", p3: "a" } })).toEqual({
      counts: { a: 2, b: 0, c: 1 },
      total: 3,
    });
  });

  it("skips votes for options the poll does not have", () => {
    expect(countVotes({ options, votes: { p1: "a", p2: "zzz", p3: "b" } })).toEqual({
      counts: { a: 1, b: 1, c: 0 },
      total: 2,
    });
  });

  // Unreachable through reduce (poll:voted checks the option list), but countVotes is exported.
  it("skips votes named like Object.prototype keys", () => {
    expect(countVotes({ options, votes: { p1: "a", p2: "toString", p3: "constructor" } })).toEqual({
      counts: { a: 1, b: 0, c: 0 },
      total: 1,
    });
  });
});

describe("the counts kept beside a round's votes", () => {
  /** Counted the slow way, from the votes alone. */
  const countedAfresh = (poll: Poll) => {
    const counts = Object.fromEntries(poll.options.map((o) => [o.id, 0]));
    for (const optionId of Object.values(poll.votes)) counts[optionId] += 1;
    return { counts, total: Object.keys(poll.votes).length };
  };

  it("match a fresh count after any mix of votes, changed votes, removals, closes and new rounds, applied in place", () => {
    const random = mulberry32(14);
    const ids = Array.from({ length: 40 }, (_, i) => `p${i}`);
    const state = initialState();
    let seq = 0;
    const apply = (body: SessionEventBody) => applyEvent(state, { ...body, seq: ++seq, at: atOf(seq) });
    for (const body of [CREATED, ...ids.map((id) => join(id)), step(3), Q1]) apply(body);
    let checked = 0;
    for (let i = 0; i < 3_000; i++) {
      const poll = pollOf(state);
      const r = random();
      const who = ids[Math.floor(random() * ids.length)];
      if (r < 0.75) apply(vote(who, ["o1", "o2", "o3"][Math.floor(random() * 3)]));
      else if (r < 0.85) apply({ type: "participant:removed", participantId: who });
      else if (r < 0.9) apply({ type: "participant:readmitted", participantId: who });
      else if (r < 0.95 && poll.status === "open") apply({ type: "poll:closed", pollId: "q1", ...countVotes(poll) });
      else if (poll.status !== "open") apply({ type: "poll:reopened", pollId: "q1", closesAt: null });
      // Asked now and then, as the tally and the close ask: the kept counts must follow every change in between.
      if (random() < 0.3 && pollOf(state).status === "open") {
        expect(countVotes(pollOf(state))).toEqual(countedAfresh(pollOf(state)));
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(500);
    // Every closed round kept what was counted at its close, not something the next votes changed.
    for (const round of pollOf(state).history) expect(Object.values(round.counts).reduce((a, b) => a + b, 0)).toBe(round.total);
  });

  it("are a copy: counts taken into an event do not move with the next vote", () => {
    const state = initialState();
    let seq = 0;
    const apply = (body: SessionEventBody) => applyEvent(state, { ...body, seq: ++seq, at: atOf(seq) });
    for (const body of [...CLASS, Q1, vote("p1", "o1")]) apply(body);
    const taken = countVotes(pollOf(state));
    apply(vote("p2", "o1"));
    expect(taken).toEqual({ counts: { o1: 1, o2: 0, o3: 0 }, total: 1 });
    expect(countVotes(pollOf(state))).toEqual({ counts: { o1: 2, o2: 0, o3: 0 }, total: 2 });
  });
});
