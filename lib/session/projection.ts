import { activePoll, countVotes, own } from "./reducer";
import { questionVisible } from "./rules";
import { classViewFor, toClassQuestion, toHostQuestion, type ClassQuestion, type HostQuestion } from "./questions";
import { rosterRows, type RosterRow } from "./roster";
import {
  toHostSnapshot,
  toPublicSnapshot,
  type HostSnapshot,
  type MyVote,
  type PresenceView,
  type PublicSnapshot,
  type TallyUpdate,
} from "./views";
import type { SessionState } from "./types";

/**
 * What each audience holds of a session, as keyed records: the class's
 * (students and projectors), the teacher's, and each participant's own. The
 * server sends them as patches on one message kind (`session:patch`) and a
 * client keeps them by one rule (lib/protocol/replica.ts). Pure: the room
 * decides when a record changed, these say what it holds.
 *
 * A key is a name ("session") or a collection and an id ("q:<questionId>").
 */

/** Students connected now; teachers also get the projector views open. Presence: never logged. */
export interface PresenceRecord {
  participantCount: number;
  projectorCount?: number;
}

/**
 * The active poll's running count as the class may see it: how many voted,
 * and the distribution only while the teacher shows live results.
 */
export interface PublicTally {
  pollId: string;
  round: number;
  total: number;
  /** The state's seq when it was taken. */
  rev: number;
  counts?: Record<string, number>;
}

/** Students looking back at an earlier step now: a count, never who. */
export interface LookBackRecord {
  count: number;
}

/** What students and projectors hold: no names, no votes, no answer before the reveal. */
export interface PublicRecords {
  session: PublicSnapshot;
  presence: PresenceRecord;
  tally: PublicTally;
  /** The questions the class may see. */
  [question: `q:${string}`]: ClassQuestion;
}

/** What the teacher's sockets hold. The roster grows with the class, so each student is a record of their own. */
export interface HostRecords {
  session: HostSnapshot;
  presence: PresenceRecord;
  tally: TallyUpdate;
  lookback: LookBackRecord;
  [student: `r:${string}`]: RosterRow;
  [question: `q:${string}`]: HostQuestion;
}

/** What one participant's own sockets (every tab of that browser) hold: theirs, and nobody else's. */
export interface MeRecords {
  vote: MyVote;
  name: { nickname: string };
  /** Their questions the class does not see (waiting for approval). */
  [question: `q:${string}`]: ClassQuestion;
  /** Questions they asked ("yours"). */
  [mine: `m:${string}`]: true;
  /** Questions they upvoted. */
  [upvote: `u:${string}`]: true;
}

export type StreamName = "public" | "host" | "me";

export interface StreamRecords {
  public: PublicRecords;
  host: HostRecords;
  me: MeRecords;
}

/**
 * A change to one audience's records. Every patch of a room instance is
 * numbered on the room's one clock: `to` is its number, `from` the number of
 * the last ordered patch of the same stream, the state it was made from. A
 * `whole` patch replaces what the client holds (its records are as of `to`;
 * the next ordered patch follows on from `from`). A `volatile` one carries
 * only whole records that a newer one replaces (running counts, presence, a
 * vote echo): it may be skipped, so it does not move the stream's `from`.
 */
export interface PatchOf<S extends StreamName> {
  stream: S;
  instance: string;
  from: number;
  to: number;
  whole?: true;
  volatile?: true;
  put?: Partial<StreamRecords[S]>;
  del?: (keyof StreamRecords[S] & string)[];
}

export type Patch = PatchOf<"public"> | PatchOf<"host"> | PatchOf<"me">;

/** The whole-record key of a collection member. */
export const recordKey = <C extends string>(collection: C, id: string): `${C}:${string}` => `${collection}:${id}`;

/** The presence figures a projection needs (the room's live counts; zero in a replay). */
export interface ProjectionPresence extends PresenceView {
  lookingBack?: number;
  /** Each participant's place in join order (the console's `#N`); join order when absent. */
  joinNumber?: (participantId: string) => number | undefined;
}

/** The running count of the active poll for the class, or null when no poll is open. */
export function publicTally(state: SessionState): PublicTally | null {
  const poll = activePoll(state);
  if (!poll || poll.status !== "open") return null;
  const { counts, total } = countVotes(poll);
  return { pollId: poll.id, round: poll.round, total, rev: state.seq, ...(state.resultsVisible ? { counts } : {}) };
}

/** The running count of the active poll for the teacher, or null when no poll is open. */
export function hostTally(state: SessionState): TallyUpdate | null {
  const poll = activePoll(state);
  if (!poll || poll.status !== "open") return null;
  const { counts, total } = countVotes(poll);
  return { pollId: poll.id, round: poll.round, counts, total, rev: state.seq };
}

/** The class's records: what a projector, a student's page or a share link shows. */
export function publicProjection(state: SessionState, presence: Pick<PresenceView, "connectedCount">): Partial<PublicRecords> {
  const records: Partial<PublicRecords> = {
    session: toPublicSnapshot(state, presence.connectedCount),
    presence: { participantCount: presence.connectedCount },
  };
  const tally = publicTally(state);
  if (tally) records.tally = tally;
  for (const id of state.questionOrder) {
    const q = state.questions[id];
    if (questionVisible(state, q)) records[recordKey("q", id)] = toClassQuestion(state, q);
  }
  return records;
}

/** The teacher's records: the session with its answers, the running count, every student and every question. */
export function hostProjection(state: SessionState, presence: ProjectionPresence): Partial<HostRecords> {
  const records: Partial<HostRecords> = {
    session: toHostSnapshot(state, presence),
    presence: { participantCount: presence.connectedCount, projectorCount: presence.projectorCount ?? 0 },
    lookback: { count: presence.lookingBack ?? 0 },
  };
  const tally = hostTally(state);
  if (tally) records.tally = tally;
  for (const row of rosterRows(state, presence)) {
    const number = presence.joinNumber?.(row.id) ?? row.number;
    records[recordKey("r", row.id)] = { ...row, number };
  }
  for (const id of state.questionOrder) records[recordKey("q", id)] = toHostQuestion(state, state.questions[id]);
  return records;
}

/** A student's vote in the active poll (null option when they have not voted), at the state's seq. */
export function myVoteIn(state: SessionState, participantId: string): MyVote | null {
  const poll = activePoll(state);
  if (!poll) return null;
  return { pollId: poll.id, round: poll.round, optionId: poll.votes[participantId] ?? null, rev: state.seq };
}

/** A student's own question as they see it while the class does not (waiting for approval), else null. */
export function ownHiddenQuestion(state: SessionState, participantId: string, questionId: string): ClassQuestion | null {
  const q = own(state.questions, questionId);
  if (!q || q.participantId !== participantId || questionVisible(state, q)) return null;
  return classViewFor(state, q, participantId);
}

/** One participant's own records: their vote, their name, their questions and upvotes. */
export function participantProjection(state: SessionState, participantId: string): Partial<MeRecords> {
  const records: Partial<MeRecords> = {};
  const vote = myVoteIn(state, participantId);
  if (vote) records.vote = vote;
  const p = own(state.participants, participantId);
  if (p) records.name = { nickname: p.nickname };
  for (const id of state.questionOrder) {
    const q = state.questions[id];
    if (q.participantId === participantId) {
      records[recordKey("m", id)] = true;
      const hidden = ownHiddenQuestion(state, participantId, id);
      if (hidden) records[recordKey("q", id)] = hidden;
    }
    if (Object.hasOwn(q.upvoters, participantId)) records[recordKey("u", id)] = true;
  }
  return records;
}
