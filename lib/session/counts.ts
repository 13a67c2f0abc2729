import type { Poll, PollOption } from "./types";

/**
 * A poll round's counts per option, kept beside its votes and updated as
 * votes change, so that a tally or a close is O(options), not O(votes).
 */

/**
 * Counts kept beside a round's votes, so that a tally or a close does not walk
 * every vote (about 7 ms at 10,000, several times per close: the event's
 * counts, then each audience's snapshot). Keyed by the votes record itself: a
 * new round, a copy (cloneState) or a replay starts a new record, and its
 * counts are taken afresh the first time they are asked for. Votes change in
 * place only in applyEvent, which keeps these in step (`recount`).
 */
const roundCounts = new WeakMap<
  Record<string, string>,
  { options: readonly PollOption[]; counts: Record<string, number>; total: number }
>();

/** A participant's vote in the round goes from `from` to `to` (undefined: none). */
export function recount(poll: Poll, from: string | undefined, to: string | undefined): void {
  const kept = roundCounts.get(poll.votes);
  if (!kept || from === to) return;
  if (from !== undefined && Object.hasOwn(kept.counts, from)) {
    kept.counts[from] -= 1;
    kept.total -= 1;
  }
  if (to !== undefined && Object.hasOwn(kept.counts, to)) {
    kept.counts[to] += 1;
    kept.total += 1;
  }
}

/** Counts per option (every option present, zeros included) for the poll's current round. */
export function countVotes(poll: Pick<Poll, "options" | "votes">): { counts: Record<string, number>; total: number } {
  let kept = roundCounts.get(poll.votes);
  if (!kept || kept.options !== poll.options) {
    const counts: Record<string, number> = {};
    for (const option of poll.options) counts[option.id] = 0;
    let total = 0;
    for (const optionId of Object.values(poll.votes)) {
      if (Object.hasOwn(counts, optionId)) {
        counts[optionId] += 1;
        total += 1;
      }
    }
    kept = { options: poll.options, counts, total };
    roundCounts.set(poll.votes, kept);
  }
  // A copy: the counts go into events and snapshots, which must not change with the next vote.
  return { counts: { ...kept.counts }, total: kept.total };
}
