import { MAX_EVENTS_PER_SESSION } from "../constants";
import { NOT_SHOWN } from "../lesson/scenarios";
import { diagramOf } from "./lesson";
import type { ErrorCode } from "../protocol/wire";
import { PROJECTOR_OBJECTS, type Poll, type ProjectorFocus, type SessionState } from "./types";

/**
 * The guards that both halves of the session share: `decide` refuses a
 * command with them, and `applyEvent` ignores an event that fails them (a
 * damaged or hand-made log), so a live command and a replayed fact are judged
 * by the same code.
 */

export function activePoll(state: SessionState): Poll | null {
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
