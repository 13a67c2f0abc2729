import { MAX_VOTES_PER_ROUND } from "../../../lib/constants";
import type { SessionState } from "../../../lib/session";
import type { FuzzRun } from "./run";
import { PROTOTYPE_KEYS, type EventType, type Identity, type Outcome } from "./wire";

// Oracles: what docs/protocol.md says each command answers, from the state before it

export const hasPoll = (s: SessionState, id: string) => Object.hasOwn(s.polls, id);
export const liveParticipant = (s: SessionState, id: string) => Object.hasOwn(s.participants, id) && !s.participants[id].removed;

export function voteOutcome(
  s: SessionState,
  identity: Identity,
  pollId: string,
  optionId: string,
): { outcome: Outcome; writes: EventType[] } {
  // docs/protocol.md: while the teacher has paused the class, every vote is refused first.
  if (s.paused) return { outcome: "CLASS_PAUSED", writes: [] };
  const poll = hasPoll(s, pollId) ? s.polls[pollId] : null;
  if (!poll || s.activePollId !== pollId) return { outcome: "NO_SUCH_POLL", writes: [] };
  if (poll.status !== "open") return { outcome: "POLL_CLOSED", writes: [] };
  if (!poll.options.some((o) => o.id === optionId)) return { outcome: "NO_SUCH_OPTION", writes: [] };
  if (!liveParticipant(s, identity.participantId)) return { outcome: "REMOVED", writes: [] };
  if (poll.votes[identity.participantId] === optionId) return { outcome: "ok", writes: [] };
  // docs/protocol.md: at most MAX_VOTES_PER_ROUND logged votes per participant and round.
  const logged = poll.voteWrites[identity.participantId] ?? 0;
  if (logged >= MAX_VOTES_PER_ROUND) return { outcome: "VOTE_LIMIT", writes: [] };
  return { outcome: "ok", writes: ["poll:voted"] };
}

/** Ids to aim a command at: mostly real ones, sometimes a prototype key or a made-up id. */
export function picksFor(run: FuzzRun) {
  const { rng, identities, state } = run;

  function pickPollId(): string {
    const s = state();
    const roll = rng.int(100);
    if (roll < 55 && s.activePollId) return s.activePollId;
    if (roll < 80 && s.pollOrder.length) return rng.pick(s.pollOrder);
    if (roll < 90) return rng.pick(PROTOTYPE_KEYS);
    return `${rng.hex(8)}-${rng.hex(4)}`;
  }

  function pickParticipantId(): string {
    const roll = rng.int(100);
    if (roll < 80 && identities.length) return rng.pick(identities).participantId;
    if (roll < 90) return rng.pick(PROTOTYPE_KEYS);
    return rng.hex(12);
  }

  return { pickPollId, pickParticipantId };
}
