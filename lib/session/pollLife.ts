import { activePoll } from "./rules";
import { countVotes } from "./counts";
import type { Poll, SessionState } from "./types";

/** How a poll's life moves on in the session's state: its rounds close, and it leaves when the class moves on. */

/** The event's counts if they are well formed for this poll; otherwise none (count the votes instead). */
export function validCounts(
  poll: Poll,
  counts: Record<string, number>,
  total: number,
): { counts: Record<string, number>; total: number } | null {
  const clean: Record<string, number> = {};
  let sum = 0;
  for (const option of poll.options) {
    const n = counts[option.id];
    if (n === undefined || !Number.isInteger(n) || n < 0) return null;
    clean[option.id] = n;
    sum += n;
  }
  return sum === total ? { counts: clean, total } : null;
}

export function closeRound(s: SessionState, poll: Poll, counted: { counts: Record<string, number>; total: number } | null = null): void {
  const closed = counted ?? countVotes(poll);
  // History arrays are replaced, never pushed to: snapshots may still hold the old one.
  s.polls[poll.id] = {
    ...poll,
    status: "closed",
    closesAt: null,
    history: [...poll.history, { round: poll.round, counts: closed.counts, total: closed.total }],
  };
}

/**
 * The class moved (a step, a mode): a poll that is no longer open is done
 * with, on every screen, so nothing from an earlier step lingers. An open
 * poll stays: the class is still voting.
 */
export function moveOn(s: SessionState): void {
  const poll = activePoll(s);
  if (poll?.status === "open") return;
  s.activePollId = null;
  s.pollOnProjector = false;
}
