import { describe, expect, it } from "vitest";
import { getScenario, mapPosition, VARIANTS_BY_MODE, type BindingMode, type VariantId } from "../lesson";
import { initialState, reduce, replay } from "./reducer";
import { PROJECTOR_PANELS } from "./types";
import type { SessionEvent, SessionEventBody, SessionState } from "./types";
import { mulberry32 } from "../../tests/support/random";
import { atOf, stamp, run, CREATED, join, step, vote, Q1, openQ2, close, CLASS, deepFreeze } from "../../tests/support/sessionEvents";

// ---------------------------------------------------------------------------
// Replay over a long, realistic log.
// ---------------------------------------------------------------------------

/**
 * A lesson as a teacher would run it: students join, the class steps through
 * scenarios and switches modes with the server's own mapPosition, polls are
 * opened, voted on (with changed minds, a late removal, a few stray votes the
 * server would have refused), closed, re-opened after discussion and revealed;
 * the session ends with a poll still open and a few events after the end.
 */
function buildLessonLog(seed: number): SessionEvent[] {
  const rand = mulberry32(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
  const bodies: SessionEventBody[] = [CREATED];
  const students = ["p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8"];
  for (const id of students) bodies.push(join(id, `Student ${id}`));
  bodies.push({ type: "participant:renamed", participantId: "p3", nickname: "Ada" });
  bodies.push({ type: "room:locked", locked: true });

  let mode: BindingMode = "WaitForFirstConsumer";
  let variant: VariantId = "standard";
  let stepIndex = 0;
  const present = new Set(students);
  const optionIds = ["o1", "o2", "o3", "o4"];

  const voteRound = (pollId: string, votes: Map<string, string>) => {
    for (const id of present) {
      if (rand() < 0.15) continue; // not everyone votes
      const choice = pick(optionIds);
      votes.set(id, choice);
      bodies.push(vote(id, choice, pollId));
      if (rand() < 0.25) {
        const changed = pick(optionIds);
        votes.set(id, changed);
        bodies.push(vote(id, changed, pollId));
      }
    }
    if (rand() < 0.5) bodies.push(vote("ghost", "o1", pollId)); // refused by the reducer
  };
  const closeRound = (pollId: string, votes: Map<string, string>) => {
    const counts: Record<string, number> = Object.fromEntries(optionIds.map((o) => [o, 0]));
    for (const [id, optionId] of votes) if (present.has(id)) counts[optionId] += 1;
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    bodies.push(close(pollId, counts, total));
  };

  for (let n = 1; n <= 4; n += 1) {
    const steps = getScenario(mode, variant).steps.length;
    for (let k = 0; k < 2; k += 1) {
      stepIndex = Math.min(steps - 1, stepIndex + 1 + Math.floor(rand() * 2));
      bodies.push(step(stepIndex));
    }
    const pollId = `poll-${n}`;
    bodies.push({
      type: "poll:opened",
      poll: {
        id: pollId,
        kind: n % 2 ? "next-step" : "custom",
        question: `Question ${n}`,
        options: optionIds.map((id, i) => ({ id, text: `Answer ${i + 1}`, note: i === 0 ? "the right one" : `misconception ${i}` })),
        correctOptionId: "o1",
      },
      closesAt: n % 2 ? null : atOf(1000 + n),
    });
    const votes = new Map<string, string>();
    voteRound(pollId, votes);
    if (n === 2) {
      bodies.push({ type: "participant:removed", participantId: "p5" });
      present.delete("p5");
      bodies.push(vote("p5", "o2", pollId)); // refused: removed
    }
    if (n === 3) bodies.push({ type: "results:visibility", visible: true });
    bodies.push({ type: "projector:panelChanged", panel: pick(PROJECTOR_PANELS) });
    closeRound(pollId, votes);
    if (n % 2 === 1) {
      // Discuss with your neighbour, then vote again.
      bodies.push({ type: "poll:reopened", pollId, closesAt: atOf(2000 + n) });
      votes.clear();
      voteRound(pollId, votes);
      closeRound(pollId, votes);
    }
    bodies.push({ type: "poll:revealed", pollId });
    bodies.push(step(99)); // a damaged event: ignored

    const choices = (Object.keys(VARIANTS_BY_MODE) as BindingMode[]).flatMap((m) => VARIANTS_BY_MODE[m].map((v) => [m, v] as const));
    const [toMode, toVariant] = pick(choices.filter(([m, v]) => m !== mode || v !== variant));
    const target = mapPosition(getScenario(mode, variant), stepIndex, getScenario(toMode, toVariant));
    bodies.push({ type: "mode:changed", mode: toMode, variant: toVariant, stepIndex: target.index, matched: target.matched });
    mode = toMode;
    variant = toVariant;
    stepIndex = target.index;
  }

  bodies.push({ type: "results:visibility", visible: false });
  bodies.push({ type: "projector:panelChanged", panel: "compare" });
  bodies.push({ ...openQ2, poll: { ...openQ2.poll, id: "last" } });
  bodies.push(vote("p1", "o2", "last"), vote("p2", "o1", "last"));
  bodies.push({ type: "session:ended" });
  bodies.push(step(0), join("late"), vote("p3", "o1", "last"));
  return stamp(bodies);
}

describe("replay", () => {
  const SEEDS = [1, 7, 2024];

  it("builds the same long log from the same seed", () => {
    expect(buildLessonLog(7)).toEqual(buildLessonLog(7));
    expect(buildLessonLog(7)).not.toEqual(buildLessonLog(8));
    for (const seed of SEEDS) expect(buildLessonLog(seed).length).toBeGreaterThanOrEqual(50);
  });

  it.each(SEEDS)("seed %i: the full log ends where a careful reading says", (seed) => {
    const log = buildLessonLog(seed);
    const state = replay(log);
    expect(state.seq).toBe(log.length);
    expect(state.lastEventAt).toBe(atOf(log.length));
    expect(state.status).toBe("ended");
    expect(state.locked).toBe(true);
    expect(state.projectorPanel).toBe("compare");
    expect(state.participants.p3.nickname).toBe("Ada");
    expect(state.participants.p5.removed).toBe(true);
    expect(state.participants.late).toBeUndefined();
    expect(state.pollOrder).toEqual(["poll-1", "poll-2", "poll-3", "poll-4", "last"]);
    expect(state.activePollId).toBe("last");
    expect(state.polls.last.history).toEqual([{ round: 1, counts: { o1: 1, o2: 1 }, total: 2 }]);
    for (const id of ["poll-1", "poll-2", "poll-3", "poll-4"]) {
      const poll = state.polls[id];
      expect(poll.status).toBe("revealed");
      const rounds = Number(id.slice(-1)) % 2 ? 2 : 1;
      expect(poll.round).toBe(rounds);
      expect(poll.history.map((r) => r.round)).toEqual(rounds === 2 ? [1, 2] : [1]);
      for (const r of poll.history) {
        expect(Object.keys(r.counts)).toEqual(["o1", "o2", "o3", "o4"]);
        expect(r.total).toBe(Object.values(r.counts).reduce((a, b) => a + b, 0));
      }
      // The reducer's round agrees with the counts the server put on poll:closed.
      const closedEvents = log.filter((e) => e.type === "poll:closed" && e.pollId === id);
      expect(poll.history.map(({ counts, total }) => ({ counts, total }))).toEqual(
        closedEvents.map((e) => (e.type === "poll:closed" ? { counts: e.counts, total: e.total } : null)),
      );
    }
    // p5 was removed in poll-2's open round: no vote of theirs there.
    expect(state.polls["poll-2"].votes.p5).toBeUndefined();
    // The class moved around the scenarios; the last switch is noted.
    expect(state.modeSwitch).not.toBeNull();
    expect(getScenario(state.mode, state.variant).steps[state.stepIndex]).toBeDefined();
  });

  it.each(SEEDS)("seed %i: replay(log, k) equals folding the first k events, for every k", (seed) => {
    const log = deepFreeze(buildLessonLog(seed));
    const pristine = structuredClone(log);

    // Fold one event at a time, freezing each state so a reducer that writes
    // into the previous state (instead of copying) throws here.
    const folded: SessionState[] = [deepFreeze(initialState())];
    for (const event of log) folded.push(deepFreeze(reduce(folded[folded.length - 1], event)));
    const snapshots = folded.map((s) => structuredClone(s));

    // Seeking forwards.
    for (let k = 0; k <= log.length; k += 1) expect(replay(log, k)).toEqual(folded[k]);
    expect(replay(log)).toEqual(folded[log.length]);
    expect(replay(log, Infinity)).toEqual(folded[log.length]);
    expect(replay(log, 0)).toEqual(initialState());

    // Seeking backwards: jump ahead, then back; nothing carries over.
    for (let k = 0; k <= log.length; k += 1) {
      const ahead = replay(log, k + 10);
      expect(ahead).toEqual(folded[Math.min(k + 10, log.length)]);
      expect(replay(log, k)).toEqual(folded[k]);
    }
    for (let k = log.length; k >= 0; k -= 1) expect(replay(log, k)).toEqual(folded[k]);

    // Neither the log nor any earlier state was touched.
    expect(log).toEqual(pristine);
    expect(folded).toEqual(snapshots);
    // The cursor really moves: the states differ along the way.
    expect(new Set(folded.map((s) => JSON.stringify(s))).size).toBe(log.length + 1);
  });

  it("stops at a sequence number, not a position, so a log can start mid-session", () => {
    const log = stamp([...CLASS, Q1, vote("p1", "o1")]);
    expect(replay(log, 3)).toEqual(run(CLASS.slice(0, 3)));
    expect(replay(log, 6).activePollId).toBe("q1");
    expect(replay(log, 5).activePollId).toBeNull();
  });
});
