import { applyEvent, cloneState, initialState, own } from "./reducer";
import { KUBE_VERSION_LABELS } from "../lesson/versions";
import type { SessionEvent, SessionState } from "./types";

/**
 * A saved log laid out for playback. Replay folds the same events through the
 * same `reduce` as the live room; this only adds a clock and a cursor.
 *
 * Idle stretches (the class discussing for ten minutes) are shortened to
 * MAX_IDLE_GAP_MS on the playback axis so a replay does not sit still; the
 * order and the states are untouched.
 */
export const MAX_IDLE_GAP_MS = 5_000;
const CHECKPOINT_EVERY = 64;

export type MarkKind = "step" | "mode" | "poll" | "reveal" | "question" | "end";

/** What a mark stands for, for a screen to word in its own language (the label is the English of it). */
export type MarkWords =
  | { say: "step"; step: number }
  | { say: "mode"; mode: string }
  | { say: "version"; version: string }
  | { say: "poll" | "pollAgain"; question: string }
  | { say: "reveal" | "end" }
  | { say: "question"; text: string };

export interface TimelineMark {
  kind: MarkKind;
  /** Position on the playback axis, ms from the start. */
  t: number;
  seq: number;
  label: string;
  words: MarkWords;
}

export class ReplayTimeline {
  /** Playback position of each event (same order as events). */
  readonly positions: number[];
  readonly duration: number;
  readonly marks: TimelineMark[];
  /**
   * Where each poll round's result can be seen: its reveal, or its close when
   * it was not revealed (its opening when it never closed). "Next poll" lands
   * here: at the opening the tally reads "Voting · 0 votes".
   */
  readonly pollResults: TimelineMark[];
  private readonly checkpoints: SessionState[] = [];

  constructor(readonly events: readonly SessionEvent[]) {
    const positions: number[] = [];
    let t = 0;
    events.forEach((e, i) => {
      if (i > 0) t += Math.min(Math.max(0, e.at - events[i - 1].at), MAX_IDLE_GAP_MS);
      positions.push(t);
    });
    this.positions = positions;
    this.duration = t;

    // Checkpoints every N events keep seeking cheap on long logs (vote storms);
    // one draft folds the whole log in linear time.
    const draft = initialState();
    const marks: TimelineMark[] = [];
    const results: TimelineMark[] = [];
    // The round being followed: its index in `results`, and whether its stop is already the reveal.
    let round: { at: number; pollId: string; revealed: boolean } | null = null;
    events.forEach((e, i) => {
      if (i % CHECKPOINT_EVERY === 0) this.checkpoints.push(cloneState(draft));
      const wasEnded = draft.status === "ended";
      const seqBefore = draft.pollOrder.length;
      applyEvent(draft, e);
      const mark = markFor(e, wasEnded, draft, positions[i]);
      if (mark) marks.push(mark);
      const t = positions[i];
      if (
        (e.type === "poll:opened" && draft.pollOrder.length > seqBefore) ||
        (e.type === "poll:reopened" && draft.activePollId === e.pollId && own(draft.polls, e.pollId)?.status === "open")
      ) {
        const pollId = e.type === "poll:opened" ? e.poll.id : e.pollId;
        round = { at: results.length, pollId, revealed: false };
        results.push(mark ?? { kind: "poll", t, seq: e.seq, label: "Poll", words: { say: "poll", question: "" } });
      } else if (round && e.type === "poll:closed" && e.pollId === round.pollId && !round.revealed) {
        results[round.at] = { ...results[round.at], t, seq: e.seq };
      } else if (round && e.type === "poll:revealed" && e.pollId === round.pollId && own(draft.polls, e.pollId)?.status === "revealed") {
        results[round.at] = { ...results[round.at], t, seq: e.seq };
        round.revealed = true;
      }
    });
    this.marks = marks;
    this.pollResults = results;
  }

  /** Index of the last event at or before playback time t (-1 before the first). */
  indexAt(t: number): number {
    let lo = 0;
    let hi = this.positions.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.positions[mid] <= t) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  }

  /** The state after the first `index + 1` events. */
  stateAtIndex(index: number): SessionState {
    if (index < 0) return initialState();
    const clamped = Math.min(index, this.events.length - 1);
    const base = Math.floor(clamped / CHECKPOINT_EVERY);
    const state = cloneState(this.checkpoints[base]);
    for (let i = base * CHECKPOINT_EVERY; i <= clamped; i++) applyEvent(state, this.events[i]);
    return state;
  }

  stateAt(t: number): SessionState {
    return this.stateAtIndex(this.indexAt(t));
  }

  /** The next (or previous) poll result strictly after (before) t: where "Next poll" lands. */
  pollResult(t: number, direction: 1 | -1): TimelineMark | null {
    if (direction === 1) return this.pollResults.find((m) => m.t > t) ?? null;
    return [...this.pollResults].reverse().find((m) => m.t < t - 1) ?? null;
  }

  /** The next (or previous) poll opening strictly after (before) t. */
  pollMark(t: number, direction: 1 | -1): TimelineMark | null {
    const polls = this.marks.filter((m) => m.kind === "poll");
    if (direction === 1) return polls.find((m) => m.t > t) ?? null;
    return [...polls].reverse().find((m) => m.t < t - 1) ?? null;
  }
}

function markFor(e: SessionEvent, wasEnded: boolean, after: SessionState, t: number): TimelineMark | null {
  switch (e.type) {
    case "step:changed":
      return { kind: "step", t, seq: e.seq, label: `Step ${after.stepIndex + 1}`, words: { say: "step", step: after.stepIndex + 1 } };
    case "mode:changed": {
      const mode = `${after.mode}${after.variant !== "standard" ? ` (${after.variant})` : ""}`;
      return { kind: "mode", t, seq: e.seq, label: `Mode: ${mode}`, words: { say: "mode", mode } };
    }
    case "version:changed": {
      const version = KUBE_VERSION_LABELS[after.kubeVersion];
      return { kind: "mode", t, seq: e.seq, label: `Kubernetes ${version}`, words: { say: "version", version } };
    }
    case "poll:opened":
      return { kind: "poll", t, seq: e.seq, label: `Poll: ${e.poll.question}`, words: { say: "poll", question: e.poll.question } };
    case "poll:reopened": {
      const question = own(after.polls, e.pollId)?.question ?? "";
      return { kind: "poll", t, seq: e.seq, label: `Poll again: ${question}`, words: { say: "pollAgain", question } };
    }
    case "poll:revealed":
      return { kind: "reveal", t, seq: e.seq, label: `Answer revealed`, words: { say: "reveal" } };
    case "question:asked": {
      // Only a question the log kept (a damaged event is ignored by the reducer, and gets no mark).
      const q = own(after.questions, e.question.id);
      if (!q || q.askedAt !== e.at) return null;
      return { kind: "question", t, seq: e.seq, label: `Question: ${q.text}`, words: { say: "question", text: q.text } };
    }
    case "session:ended":
      return wasEnded ? null : { kind: "end", t, seq: e.seq, label: "Session ended", words: { say: "end" } };
    default:
      return null;
  }
}
