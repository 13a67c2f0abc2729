"use client";

import type { PollResults } from "@/lib/session/views";
import { useLive } from "@/components/live/LiveSession";

/**
 * The newest counts for a poll: the coalesced tally while it is open (if it
 * is for this poll, this round, and not older than the snapshot), the
 * snapshot's results otherwise (null when the viewer may not see them).
 */
export function useLiveResults(
  poll: { id: string; round: number; status: string; results: PollResults | null } | null,
  snapshotRev: number,
): PollResults | null {
  const tally = useLive((s) => s.tally);
  if (!poll) return null;
  if (poll.status === "open" && tally && tally.pollId === poll.id && tally.round === poll.round && tally.rev >= snapshotRev) {
    return { counts: tally.counts, total: tally.total };
  }
  return poll.results;
}
