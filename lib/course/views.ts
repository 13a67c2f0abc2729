import { publicLesson, type SessionLesson } from "../lesson/model";
import { feedbackFor, openRefusal, type AnswerFeedback } from "./assignment";
import type { Assignment, AssignmentAnswer, AssignmentSource, AssignmentStudent } from "./types";

/**
 * What each audience of an assignment is sent (deny by default, like the
 * live projections): the link alone shows the lesson and the questions, never
 * a right answer, a note or anyone's answers; a student's token adds their own
 * answers with feedback; the teacher sees everyone's progress and counts.
 */

/** The assignment as its link shows it: no right answers, no notes, no one's progress. */
export interface PublicAssignment {
  id: string;
  title: string;
  mode: Assignment["mode"];
  variant: Assignment["variant"];
  kubeVersion: Assignment["kubeVersion"];
  lesson: Assignment["lesson"];
  stepCount: number;
  polls: { id: string; stepIndex: number; question: string; options: { id: string; text: string }[] }[];
  dueAt: number | null;
  requireNickname: boolean;
  /** Why answers are refused now (closed by the teacher, or past due), or null while open. */
  closed: "ASSIGNMENT_CLOSED" | "ASSIGNMENT_DUE" | null;
}

/**
 * A `%% wrong:` note is the feedback of a wrong option (lib/polls/lessonPoll.ts): sent with the lesson, it would
 * tell the student which options are wrong before they answer. Nothing on the student's screen reads it.
 */
function withoutWrongNotes(lesson: SessionLesson): SessionLesson {
  return { ...lesson, lesson: { ...lesson.lesson, steps: lesson.lesson.steps.map(({ wrongNote: _wrongNote, ...rest }) => rest) } };
}

export function publicAssignment(a: Assignment, now: number): PublicAssignment {
  const closed = openRefusal(a, now);
  return {
    id: a.id,
    title: a.title,
    mode: a.mode,
    variant: a.variant,
    kubeVersion: a.kubeVersion,
    lesson: a.lesson ? withoutWrongNotes(publicLesson(a.lesson)) : null,
    stepCount: a.stepCount,
    polls: a.polls.map((p) => ({
      id: p.id,
      stepIndex: p.stepIndex,
      question: p.question,
      options: p.options.map(({ id, text }) => ({ id, text })),
    })),
    dueAt: a.dueAt,
    requireNickname: a.requireNickname,
    closed: closed === "ASSIGNMENT_CLOSED" || closed === "ASSIGNMENT_DUE" ? closed : null,
  };
}

/** One student's own walk, as their browser resumes it. */
export interface StudentProgressView {
  studentId: string;
  nickname: string;
  stepIndex: number;
  furthestStep: number;
  finished: boolean;
  answers: AnswerFeedback[];
}

export function studentProgressView(a: Assignment, student: AssignmentStudent, given: readonly AssignmentAnswer[]): StudentProgressView {
  const answers: AnswerFeedback[] = [];
  // Only the student's own: a caller handing over the assignment's answers must not show them anyone else's.
  for (const g of given) {
    if (g.studentId !== student.id) continue;
    const poll = a.polls.find((p) => p.id === g.pollId);
    if (poll) answers.push(feedbackFor(poll, g.optionId));
  }
  return {
    studentId: student.id,
    nickname: student.nickname,
    stepIndex: student.stepIndex,
    furthestStep: student.furthestStep,
    finished: student.finishedAt !== null,
    answers,
  };
}

/** The teacher's view of one assignment: who started, who finished, and per poll the answer counts. */
export interface AssignmentProgress {
  id: string;
  /** The whole link students open (added by the server, which knows its address). */
  url?: string;
  title: string;
  source: AssignmentSource;
  lessonKey: string;
  mode: Assignment["mode"];
  variant: Assignment["variant"];
  kubeVersion: Assignment["kubeVersion"];
  stepCount: number;
  createdAt: number;
  dueAt: number | null;
  closedAt: number | null;
  requireNickname: boolean;
  started: number;
  finished: number;
  students: {
    id: string;
    nickname: string;
    startedAt: number;
    stepIndex: number;
    furthestStep: number;
    finishedAt: number | null;
    answered: number;
    right: number;
  }[];
  polls: {
    id: string;
    stepIndex: number;
    question: string;
    answered: number;
    options: { id: string; text: string; correct: boolean; count: number }[];
  }[];
}

export function assignmentProgress(
  a: Assignment,
  students: readonly AssignmentStudent[],
  given: readonly AssignmentAnswer[],
): AssignmentProgress {
  const rightOf = new Map(a.polls.map((p) => [p.id, p.correctOptionId]));
  return {
    id: a.id,
    title: a.title,
    source: a.source,
    lessonKey: a.lessonKey,
    mode: a.mode,
    variant: a.variant,
    kubeVersion: a.kubeVersion,
    stepCount: a.stepCount,
    createdAt: a.createdAt,
    dueAt: a.dueAt,
    closedAt: a.closedAt,
    requireNickname: a.requireNickname,
    started: students.length,
    finished: students.filter((s) => s.finishedAt !== null).length,
    students: students.map((s) => {
      const own = given.filter((g) => g.studentId === s.id);
      return {
        id: s.id,
        nickname: s.nickname,
        startedAt: s.startedAt,
        stepIndex: s.stepIndex,
        furthestStep: s.furthestStep,
        finishedAt: s.finishedAt,
        answered: own.length,
        right: own.filter((g) => rightOf.get(g.pollId) === g.optionId).length,
      };
    }),
    polls: a.polls.map((p) => {
      const mine = given.filter((g) => g.pollId === p.id);
      return {
        id: p.id,
        stepIndex: p.stepIndex,
        question: p.question,
        answered: mine.length,
        options: p.options.map((o) => ({
          id: o.id,
          text: o.text,
          correct: o.id === p.correctOptionId,
          count: mine.filter((g) => g.optionId === o.id).length,
        })),
      };
    }),
  };
}

/** A line of the teacher's list of assignments. */
export interface AssignmentSummary {
  id: string;
  title: string;
  lessonKey: string;
  createdAt: number;
  dueAt: number | null;
  closedAt: number | null;
  pollCount: number;
}

export function assignmentSummary(a: Assignment): AssignmentSummary {
  return {
    id: a.id,
    title: a.title,
    lessonKey: a.lessonKey,
    createdAt: a.createdAt,
    dueAt: a.dueAt,
    closedAt: a.closedAt,
    pollCount: a.polls.length,
  };
}
