import { MAX_EVENTS_PER_SESSION } from "../constants";
import { NOT_SHOWN } from "../lesson/scenarios";
import { diagramOf } from "./lesson";
import type { ErrorCode } from "../errorCodes";
import { PROJECTOR_OBJECTS, type Poll, type ProjectorFocus, type Question, type QuestionTarget, type SessionState } from "./types";

/**
 * The guards that both halves of the session share: `decide` refuses a
 * command with them, and `applyEvent` ignores an event that fails them (a
 * damaged or hand-made log), so a live command and a replayed fact are judged
 * by the same code.
 */

export function activePoll(state: Pick<SessionState, "activePollId" | "polls">): Poll | null {
  return state.activePollId ? (own(state.polls, state.activePollId) ?? null) : null;
}

/**
 * A record lookup that ignores inherited keys: ids come from clients and logs,
 * and "constructor" or "__proto__" must not find Object.prototype's members.
 */
export function own<T>(record: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/** Whether `stepIndex` is a step of that mode's scenario. */
export function stepInRange(
  state: Pick<SessionState, "mode" | "variant"> & Partial<Pick<SessionState, "lesson">>,
  stepIndex: number,
): boolean {
  return Number.isInteger(stepIndex) && stepIndex >= 0 && stepIndex < diagramOf(state).steps.length;
}

/** Why a vote cannot count (null when it can): the poll must be the active one, open, and the voter present. */
export function voteRefusal(state: SessionState, participantId: string, pollId: string, optionId: string): ErrorCode | null {
  const poll = own(state.polls, pollId);
  if (!poll || pollId !== state.activePollId) return "NO_SUCH_POLL";
  if (poll.status !== "open") return "POLL_CLOSED";
  if (!poll.options.some((o) => o.id === optionId)) return "NO_SUCH_OPTION";
  const voter = own(state.participants, participantId);
  if (!voter || voter.removed) return "REMOVED";
  return null;
}

/** Why a poll cannot open (null when it can): one poll is open at a time. */
export function openRefusal(state: SessionState): ErrorCode | null {
  const current = activePoll(state);
  return current && current.status === "open" ? "POLL_ALREADY_OPEN" : null;
}

/** The log is at its cap: only closing, revealing and ending still write. */
export function logFull(state: Pick<SessionState, "seq">): boolean {
  return state.seq >= MAX_EVENTS_PER_SESSION;
}

/**
 * Whether the projector can show this focus: a known object tab, and a deep
 * dive (if any) that the current step or the card's "not shown" list has.
 */
export function focusIsValid(
  state: Pick<SessionState, "mode" | "variant" | "stepIndex"> & Partial<Pick<SessionState, "lesson">>,
  focus: ProjectorFocus,
): boolean {
  if (!(PROJECTOR_OBJECTS as readonly string[]).includes(focus.object)) return false;
  if (focus.deepDive === null) return true;
  return deepDivesAt(state).some((d) => d.title === focus.deepDive);
}

/** The deep dives the projector can open at the class's step: the step's own, then the card's "not shown" list. */
export function deepDivesAt(state: Pick<SessionState, "mode" | "variant" | "stepIndex"> & Partial<Pick<SessionState, "lesson">>) {
  // The Kubernetes deep dives belong to the built-in lesson only.
  if (state.lesson) return [];
  const step = diagramOf(state).steps[state.stepIndex];
  return [...(step?.underTheHood ?? []), ...NOT_SHOWN];
}

// ---------------------------------------------------------------------------
// Questions

/** The asker was removed by the teacher (an unknown asker, as in a shared log, is not). */
export function askerRemoved(state: Pick<SessionState, "participants">, question: Pick<Question, "participantId">): boolean {
  return own(state.participants, question.participantId)?.removed === true;
}

/**
 * Removing the asker takes the question from the class: only a named one.
 * An anonymous question staying put is what keeps it anonymous: if it left
 * the class's view (and came back on readmission) the moment a student was
 * removed, the class would learn whose it was. The teacher hides it like any other.
 */
export function removalHides(state: Pick<SessionState, "participants">, question: Pick<Question, "participantId" | "anonymous">): boolean {
  return !question.anonymous && askerRemoved(state, question);
}

/** Whether the class (students, projector) may see a question: approved, not hidden, and not a removed student's named one. */
export function questionVisible(state: Pick<SessionState, "participants">, question: Question): boolean {
  return question.status !== "pending" && !question.hidden && !removalHides(state, question);
}

/** Waiting for the teacher's approval, from a student still in the class: what the approval queue's bounds count. */
export function questionWaiting(state: Pick<SessionState, "participants">, question: Question): boolean {
  return question.status === "pending" && !question.hidden && !askerRemoved(state, question);
}

/** Whether a question takes a place under the session's cap: the class sees it, or it waits for approval. */
export function questionHeld(state: Pick<SessionState, "participants">, question: Question): boolean {
  return questionVisible(state, question) || questionWaiting(state, question);
}

/**
 * Why a question cannot be pinned there (null when it can): a step of the
 * class's scenario that has been shown (never ahead of the class), a note
 * only where the step has one, a lifeline of the card.
 */
export function targetRefusal(
  state: Pick<SessionState, "mode" | "variant" | "stepIndex"> & Partial<Pick<SessionState, "lesson">>,
  target: QuestionTarget,
): ErrorCode | null {
  if (!stepInRange(state, target.stepIndex) || target.stepIndex > state.stepIndex) return "NO_SUCH_ELEMENT";
  const diagram = diagramOf(state);
  const step = diagram.steps[target.stepIndex];
  switch (target.kind) {
    case "step":
    case "arrow":
      return null;
    case "note":
      return step.note ? null : "NO_SUCH_ELEMENT";
    case "lifeline":
      return diagram.lifelines.some((l) => l.id === target.lifeline) ? null : "NO_SUCH_ELEMENT";
    default:
      return "NO_SUCH_ELEMENT";
  }
}

/**
 * Why an upvote cannot count (null when it can): questions on, a question the
 * class can see (a pending or hidden one answers exactly like an unknown one,
 * so its existence does not leak), someone else's, and the voter not
 * removed. (A shared log's upvoters are pseudonyms, not participants: `decide`
 * checks that a live voter is known.)
 */
export function upvoteRefusal(state: SessionState, participantId: string, questionId: string): ErrorCode | null {
  if (state.questionSettings.mode === "off") return "QUESTIONS_OFF";
  const question = own(state.questions, questionId);
  if (!question || !questionVisible(state, question)) return "NO_SUCH_QUESTION";
  if (own(state.participants, participantId)?.removed) return "REMOVED";
  if (question.participantId === participantId) return "BAD_REQUEST";
  return null;
}
