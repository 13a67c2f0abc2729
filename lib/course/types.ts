import type { SessionLesson } from "../lesson/model";
import type { BindingMode, VariantId } from "../lesson/types";
import type { KubeVersion } from "../lesson/versions";

/**
 * Self-paced assignments and results across a course (issue 30). An
 * assignment is a lesson fixed at the moment the teacher made it: the
 * scenario (or the teacher's lesson, content included, as a session records
 * it), the release, and the polls with their options already shuffled and
 * numbered, so every student meets the same question and the results page can
 * add their answers up. Plain JSON: it travels over REST and into SQLite or Redis.
 */

/** What the teacher made the assignment from. */
export type AssignmentSource =
  | { kind: "builtin"; mode: BindingMode; variant: VariantId }
  | { kind: "lesson"; lessonId: string; version: number }
  | { kind: "session"; sessionId: string; title: string };

export interface AssignmentOption {
  id: string;
  text: string;
  /** Why this option is right, or the misconception a wrong one stands for; only the student who chose it sees it, after answering. */
  note?: string;
}

/** One point of the walk where the student answers before going on: "what happens next, after step `stepIndex`?" */
export interface AssignmentPoll {
  id: string;
  /** Which poll this is across sessions and assignments of the same lesson (./pollKeys.ts). */
  key: string;
  kind: "next-step" | "custom";
  /** 0-based step the student is on when asked. */
  stepIndex: number;
  question: string;
  options: AssignmentOption[];
  /** null: a custom poll with no right answer (counted, never marked). */
  correctOptionId: string | null;
}

export interface Assignment {
  /** Unguessable: the link is the student's only way in (22 characters, base64url). */
  id: string;
  title: string;
  ownerAccountId: string;
  source: AssignmentSource;
  /** The lesson whose results page the answers count towards: "builtin", or a teacher's lesson id. */
  lessonKey: string;
  mode: BindingMode;
  variant: VariantId;
  kubeVersion: KubeVersion;
  /** The teacher's lesson (speaker notes included; students get `publicLesson`), or null for the built-in lesson. */
  lesson: SessionLesson | null;
  stepCount: number;
  /** In step order, at most one per step. */
  polls: AssignmentPoll[];
  dueAt: number | null;
  requireNickname: boolean;
  createdAt: number;
  /** Closed by the teacher: no new students, no new answers; progress stays readable. */
  closedAt: number | null;
}

/** A student taking the assignment: one identity per browser, like joining a live session. */
export interface AssignmentStudent {
  id: string;
  assignmentId: string;
  /** sha256 of the token the browser keeps; the token itself is never stored. */
  tokenHash: string;
  nickname: string;
  /** The address the identity was made from (per-address allowance); "" when unknown. */
  address: string;
  startedAt: number;
  /** The step the student is on (0-based); they may step back, so this is where they are, not how far they got. */
  stepIndex: number;
  /** The furthest step reached. */
  furthestStep: number;
  finishedAt: number | null;
  updatedAt: number;
}

/** A student's answer to one poll: one in force, never changed once given (it is their first answer). */
export interface AssignmentAnswer {
  assignmentId: string;
  studentId: string;
  pollId: string;
  optionId: string;
  at: number;
}
