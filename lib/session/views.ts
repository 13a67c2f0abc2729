import { activePoll, countVotes } from "./reducer";
import type {
  ProjectorFocus,
  ProjectorPanel,
  ProjectorChoice,
  ModeSwitchNote,
  Poll,
  RoomLanguage,
  PollOption,
  PollRound,
  PollStatus,
  SessionState,
  SessionStatus,
} from "./types";
import type { BindingMode, VariantId } from "../lesson/types";
import type { KubeVersion } from "../lesson/versions";
import { projectorSide } from "./projectorSide";
import { questionSettingsView, type QuestionSettingsView } from "./questions";

/**
 * What each audience may see of a session. The server sends these small
 * snapshots whole (with `rev`) instead of deltas; a client keeps the newest.
 * The teacher's roster is the exception (it grows with the class): ./roster.ts.
 * Nothing private (who voted what, the answer before the reveal) is in the
 * public one.
 */

export interface PollResults {
  counts: Record<string, number>;
  total: number;
}

export interface PublicPoll {
  id: string;
  kind: Poll["kind"];
  question: string;
  /** Notes only after the reveal. */
  options: PollOption[];
  status: PollStatus;
  round: number;
  /** Where the class was when the poll opened. */
  mode: BindingMode;
  variant: VariantId;
  stepIndex: number;
  /** Where the class was at the reveal. */
  revealedAt: Poll["revealedAt"];
  closesAt: number | null;
  /** Present once the teacher reveals, or shows live results. */
  results: PollResults | null;
  /** Present once revealed (null for a poll without a right answer). */
  correctOptionId: string | null;
  revealed: boolean;
  /** Earlier rounds' final counts, once results are visible. */
  history: PollRound[];
  /** How many have voted in this round (the round's total once closed): a count, never the distribution. */
  voted: number;
}

/** What students and projectors receive: no names, no votes, no answer before the reveal. */
export interface PublicSnapshot {
  /** Tags the union on the wire, so a receiver narrows instead of casting. */
  audience: "public";
  rev: number;
  code: string;
  title: string;
  status: SessionStatus;
  mode: BindingMode;
  variant: VariantId;
  stepIndex: number;
  modeSwitch: ModeSwitchNote | null;
  locked: boolean;
  /** The teacher paused the class: phones and the projector say so, and students' votes and questions wait. */
  paused: boolean;
  /** The Kubernetes release whose strings every screen prints. */
  kubeVersion: KubeVersion;
  projectorPanel: ProjectorPanel;
  /** What the projector shows beside the diagram now (./projectorSide.ts): the panel, or "poll". */
  projectorSide: ProjectorChoice;
  /** Which object tab and which deep dive the projector's panels show. */
  projectorFocus: ProjectorFocus;
  /** The language the teacher set the projector to (projector:language); null: each projector reads its own browser's. */
  projectorLanguage: RoomLanguage | null;
  /** Students connected now (presence, not logged). */
  participantCount: number;
  poll: PublicPoll | null;
  /** Whether students may ask (and whose names questions carry), and the question on the projector; the list travels apart. */
  questions: QuestionSettingsView;
}

export interface HostPoll extends Omit<PublicPoll, "results" | "correctOptionId" | "options"> {
  options: PollOption[];
  correctOptionId: string | null;
  results: PollResults;
}

/**
 * What the teacher's sockets receive: the answer and the counts. The roster
 * (who joined, who is connected) travels apart, as changes (./roster.ts), so
 * this stays small however large the class.
 */
export interface HostSnapshot extends Omit<PublicSnapshot, "poll" | "audience"> {
  audience: "host";
  sessionId: string;
  resultsVisible: boolean;
  poll: HostPoll | null;
  /** How many polls the session has asked so far. */
  pollCount: number;
  /** Projector views open now (the teacher's own window included). */
  projectorCount: number;
}

export interface PresenceView {
  /** participantId -> connected now */
  isConnected(participantId: string): boolean;
  connectedCount: number;
  /** Open projector views (0 in a replay). */
  projectorCount?: number;
}

export function toPublicPoll(poll: Poll, resultsVisible: boolean): PublicPoll {
  const revealed = poll.status === "revealed";
  const showResults = revealed || resultsVisible;
  return {
    id: poll.id,
    kind: poll.kind,
    question: poll.question,
    options: revealed ? poll.options : poll.options.map(({ id, text }) => ({ id, text })),
    status: poll.status,
    round: poll.round,
    mode: poll.mode,
    variant: poll.variant,
    stepIndex: poll.stepIndex,
    revealedAt: poll.revealedAt,
    closesAt: poll.closesAt,
    results: showResults ? resultsOf(poll) : null,
    correctOptionId: revealed ? poll.correctOptionId : null,
    revealed,
    history: showResults ? poll.history : [],
    voted: resultsOf(poll).total,
  };
}

/** Counts of the current round while open; the last closed round's once closed. */
export function resultsOf(poll: Poll): PollResults {
  if (poll.status !== "open" && poll.history.length > 0) {
    const last = poll.history[poll.history.length - 1];
    return { counts: last.counts, total: last.total };
  }
  return countVotes(poll);
}

export function toPublicSnapshot(state: SessionState, connectedCount: number): PublicSnapshot {
  const poll = activePoll(state);
  return {
    audience: "public",
    rev: state.seq,
    code: state.code,
    title: state.title,
    status: state.status,
    mode: state.mode,
    variant: state.variant,
    stepIndex: state.stepIndex,
    modeSwitch: state.modeSwitch,
    locked: state.locked,
    paused: state.paused,
    kubeVersion: state.kubeVersion,
    projectorPanel: state.projectorPanel,
    projectorSide: projectorSide(state),
    projectorFocus: state.projectorFocus,
    projectorLanguage: state.projectorLanguage,
    participantCount: connectedCount,
    poll: poll ? toPublicPoll(poll, state.resultsVisible) : null,
    questions: questionSettingsView(state),
  };
}

export function toHostSnapshot(state: SessionState, presence: PresenceView): HostSnapshot {
  const poll = activePoll(state);
  const { poll: _public, audience: _audience, ...base } = toPublicSnapshot(state, presence.connectedCount);
  return {
    ...base,
    audience: "host",
    sessionId: state.id,
    resultsVisible: state.resultsVisible,
    poll: poll
      ? {
          ...toPublicPoll(poll, true),
          options: poll.options,
          correctOptionId: poll.correctOptionId,
          results: resultsOf(poll),
        }
      : null,
    pollCount: state.pollOrder.length,
    projectorCount: presence.projectorCount ?? 0,
  };
}

/** A student's own view of the active poll. */
export interface MyVote {
  pollId: string;
  round: number;
  optionId: string | null;
  /**
   * The log position this is true at (the vote's event, or the session's `rev` on join and resync). Two tabs
   * voting at once get each other's echo and their own receipt in either order: keep the highest.
   */
  rev: number;
}

/** Whether `next` replaces `held` as a student's vote: another poll or round, or a later position in the log. */
export function newerVote(held: MyVote | null, next: MyVote | null): boolean {
  if (!held || !next || held.pollId !== next.pollId || held.round !== next.round) return true;
  return next.rev >= held.rev;
}

export interface TallyUpdate {
  pollId: string;
  round: number;
  counts: Record<string, number>;
  total: number;
  /** the state's seq when the tally was taken */
  rev: number;
}

/** A student's own upvote on one question (their other tabs are told too). */
export interface MyUpvote {
  questionId: string;
  upvoted: boolean;
}
