import { customDiagram, type SessionLesson } from "../lesson/model";
import { getScenario } from "../lesson/scenarios";
import type { BindingMode, VariantId } from "../lesson/types";
import { generateNextStepPoll, type GeneratedPoll } from "../polls/nextStep";
import { generateLessonPoll } from "../polls/lessonPoll";
import type { SessionState } from "../session/types";
import { customPollKey, nextStepKey } from "./pollKeys";
import type { Assignment, AssignmentAnswer, AssignmentPoll, AssignmentStudent } from "./types";

/**
 * The rules of a self-paced assignment, pure: which polls a lesson or a
 * finished session gives, whether a student may answer or move on, and what
 * they see after answering. The server stamps times and ids and keeps the
 * records (server/assignments/); the browser only renders what it is sent.
 */

/** Polls an assignment holds at most (a lesson has at most 60 steps). */
export const MAX_ASSIGNMENT_POLLS = 60;

export type Shuffle = <T>(items: T[]) => T[];

/** Shuffles a generated poll's options and numbers them in screen order, as a live poll does (lib/session/decide.ts). */
function fromGenerated(generated: GeneratedPoll, key: string, stepIndex: number, id: string, shuffle: Shuffle): AssignmentPoll {
  const shuffled = shuffle([...generated.options]).map((o, i) => ({ ...o, id: `o${i + 1}` }));
  return {
    id,
    key,
    kind: "next-step",
    stepIndex,
    question: generated.question,
    options: shuffled.map(({ id: optionId, text, note }) => ({ id: optionId, text, note })),
    correctOptionId: shuffled.find((o) => o.correct)?.id ?? null,
  };
}

/**
 * The "what happens next?" polls of a lesson, at every step that has one or at
 * the steps the teacher chose. The built-in polls are generated as a live class
 * gets them (the release changes events and objects, never the options).
 */
export function lessonPolls(
  lesson: SessionLesson | null,
  mode: BindingMode,
  variant: VariantId,
  steps: readonly number[] | null,
  shuffle: Shuffle,
): AssignmentPoll[] {
  const count = lesson ? lesson.lesson.steps.length : getScenario(mode, variant).steps.length;
  const wanted = steps ? new Set(steps) : null;
  const polls: AssignmentPoll[] = [];
  for (let index = 0; index < count; index++) {
    if (wanted && !wanted.has(index)) continue;
    const generated = lesson
      ? generateLessonPoll(customDiagram(lesson.lesson), index)
      : generateNextStepPoll(getScenario(mode, variant), index);
    if (!generated) continue;
    const key = nextStepKey(lesson ? "custom" : "builtin", mode, variant, index);
    polls.push(fromGenerated(generated, key, index, `p${polls.length + 1}`, shuffle));
  }
  return polls.slice(0, MAX_ASSIGNMENT_POLLS);
}

/**
 * What a finished session gives an assignment: its lesson, and the polls the
 * teacher asked, as they were asked (same question, same options). A session
 * can switch binding mode; a self-paced walk follows one scenario, so it takes
 * the scenario of the session's first poll (or where the class ended, with no
 * poll) and the polls asked in it, one per step. `skipped` counts the others.
 */
export function sessionPolls(state: SessionState): { mode: BindingMode; variant: VariantId; polls: AssignmentPoll[]; skipped: number } {
  const asked = state.pollOrder.map((id) => state.polls[id]).filter((p) => p !== undefined);
  const first = asked[0];
  const mode = state.lesson ? state.mode : (first?.mode ?? state.mode);
  const variant = state.lesson ? state.variant : (first?.variant ?? state.variant);
  const polls: AssignmentPoll[] = [];
  const steps = new Set<number>();
  let skipped = 0;
  for (const poll of asked) {
    const sameTrack = state.lesson !== null || (poll.mode === mode && poll.variant === variant);
    if (!sameTrack || steps.has(poll.stepIndex) || polls.length >= MAX_ASSIGNMENT_POLLS) {
      skipped++;
      continue;
    }
    steps.add(poll.stepIndex);
    polls.push({
      id: `p${polls.length + 1}`,
      key:
        poll.kind === "custom"
          ? customPollKey(poll.question)
          : nextStepKey(state.lesson ? "custom" : "builtin", poll.mode, poll.variant, poll.stepIndex),
      kind: poll.kind,
      stepIndex: poll.stepIndex,
      question: poll.question,
      options: poll.options.map((o) => ({ id: o.id, text: o.text, ...(o.note ? { note: o.note } : {}) })),
      correctOptionId: poll.correctOptionId,
    });
  }
  polls.sort((a, b) => a.stepIndex - b.stepIndex);
  return { mode, variant, polls, skipped };
}

// ---------------------------------------------------------------------------
// A student's walk.

export type AssignmentRefusal =
  | "ASSIGNMENT_CLOSED"
  | "ASSIGNMENT_DUE"
  | "NO_SUCH_POLL"
  | "NOT_THERE_YET"
  | "ALREADY_ANSWERED"
  | "BAD_OPTION"
  | "ANSWER_FIRST"
  | "BAD_STEP";

/** Whether the assignment still takes answers and new students. */
export function openRefusal(a: Pick<Assignment, "closedAt" | "dueAt">, now: number): AssignmentRefusal | null {
  if (a.closedAt !== null) return "ASSIGNMENT_CLOSED";
  if (a.dueAt !== null && now > a.dueAt) return "ASSIGNMENT_DUE";
  return null;
}

export type AnswerDecision = { ok: true; repeat: boolean } | { ok: false; reason: AssignmentRefusal };

/**
 * One answer per poll, given on reaching its step; the same answer again is a
 * retry (a phone that lost the response) and answered alike; another one is
 * refused: the student saw whether they were right, so a second try would
 * count what they were told, not what they thought.
 */
export function decideAnswer(
  a: Assignment,
  student: Pick<AssignmentStudent, "furthestStep">,
  given: readonly AssignmentAnswer[],
  pollId: string,
  optionId: string,
  now: number,
): AnswerDecision {
  const poll = a.polls.find((p) => p.id === pollId);
  if (!poll) return { ok: false, reason: "NO_SUCH_POLL" };
  if (!poll.options.some((o) => o.id === optionId)) return { ok: false, reason: "BAD_OPTION" };
  const earlier = given.find((g) => g.pollId === pollId);
  if (earlier) return earlier.optionId === optionId ? { ok: true, repeat: true } : { ok: false, reason: "ALREADY_ANSWERED" };
  const closed = openRefusal(a, now);
  if (closed) return { ok: false, reason: closed };
  if (student.furthestStep < poll.stepIndex) return { ok: false, reason: "NOT_THERE_YET" };
  return { ok: true, repeat: false };
}

export type ProgressDecision =
  | { ok: true; progress: Pick<AssignmentStudent, "stepIndex" | "furthestStep" | "finishedAt"> }
  | { ok: false; reason: AssignmentRefusal; pollId?: string };

/**
 * Moving to a step: back anywhere already reached, forward one step at a
 * time, and past a poll only once it is answered. Finished: the last step
 * reached with every poll answered.
 */
export function decideProgress(
  a: Assignment,
  student: Pick<AssignmentStudent, "stepIndex" | "furthestStep" | "finishedAt">,
  given: readonly AssignmentAnswer[],
  stepIndex: number,
  now: number,
): ProgressDecision {
  if (!Number.isInteger(stepIndex) || stepIndex < 0 || stepIndex >= a.stepCount) return { ok: false, reason: "BAD_STEP" };
  if (stepIndex > student.furthestStep + 1) return { ok: false, reason: "BAD_STEP" };
  if (stepIndex > student.furthestStep) {
    const closed = openRefusal(a, now);
    if (closed) return { ok: false, reason: closed };
    const blocking = a.polls.find((p) => p.stepIndex < stepIndex && !given.some((g) => g.pollId === p.id));
    if (blocking) return { ok: false, reason: "ANSWER_FIRST", pollId: blocking.id };
  }
  const furthestStep = Math.max(student.furthestStep, stepIndex);
  const done = furthestStep === a.stepCount - 1 && a.polls.every((p) => given.some((g) => g.pollId === p.id));
  return { ok: true, progress: { stepIndex, furthestStep, finishedAt: student.finishedAt ?? (done ? now : null) } };
}

/** What a student is told after answering: right or not (null: a poll with no right answer), and why. */
export interface AnswerFeedback {
  pollId: string;
  optionId: string;
  correct: boolean | null;
  /** The note of the option chosen: the misconception it stands for, or why it is right. */
  note: string | null;
  correctOptionId: string | null;
  /** Why the right answer is right, when the student chose another. */
  rightNote: string | null;
}

export function feedbackFor(poll: AssignmentPoll, optionId: string): AnswerFeedback {
  const chosen = poll.options.find((o) => o.id === optionId);
  const right = poll.correctOptionId ? poll.options.find((o) => o.id === poll.correctOptionId) : undefined;
  const correct = poll.correctOptionId === null ? null : poll.correctOptionId === optionId;
  return {
    pollId: poll.id,
    optionId,
    correct,
    note: chosen?.note ?? null,
    correctOptionId: poll.correctOptionId,
    rightNote: correct === false ? (right?.note ?? null) : null,
  };
}
