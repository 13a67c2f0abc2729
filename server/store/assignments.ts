import type { Assignment, AssignmentAnswer, AssignmentStudent } from "../../lib/course/types";

/**
 * Self-paced assignments (lib/course/types.ts), where sessions are kept:
 * SQLite on one machine (tables in the session database file, so a backup of
 * the file keeps them), Redis in scale-out mode (any node answers any
 * request). Every write is durable when its promise resolves: an answer is
 * acknowledged to the student only after that, like a vote.
 */

/** Why a new student was not added. */
export type AddStudentRefusal = "FULL" | "ADDRESS_FULL";

export interface AddStudentLimits {
  /** Students an assignment holds at most. */
  maxStudents: number;
  /** New identities one address may make in one assignment. */
  maxPerAddress: number;
}

export interface AssignmentStore {
  create(assignment: Assignment): Promise<void>;
  get(id: string): Promise<Assignment | null>;
  /** The account's assignments, newest first. */
  listByOwner(accountId: string): Promise<Assignment[]>;
  /** How many assignments the account has (the per-account cap). */
  countByOwner(accountId: string): Promise<number>;
  /** Closes (a time) or reopens (null). */
  setClosed(id: string, closedAt: number | null): Promise<void>;
  setDue(id: string, dueAt: number | null): Promise<void>;
  /** Deletes the assignment with its students and answers. */
  remove(id: string): Promise<void>;
  /** Adds the student unless a limit is reached; the check and the insert are one atomic step. */
  addStudent(student: AssignmentStudent, limits: AddStudentLimits): Promise<{ ok: true } | { ok: false; reason: AddStudentRefusal }>;
  studentByToken(assignmentId: string, tokenHash: string): Promise<AssignmentStudent | null>;
  /** Every student of the assignment, in the order they started. */
  students(assignmentId: string): Promise<AssignmentStudent[]>;
  setProgress(
    assignmentId: string,
    studentId: string,
    progress: Pick<AssignmentStudent, "stepIndex" | "furthestStep" | "finishedAt" | "updatedAt">,
  ): Promise<void>;
  /**
   * Records the answer unless the student already answered that poll; atomic. Resolves with the answer in force
   * (the new one, or the earlier one with `created: false`).
   */
  answer(answer: AssignmentAnswer): Promise<{ answer: AssignmentAnswer; created: boolean }>;
  /** Every answer of the assignment, oldest first. */
  answers(assignmentId: string): Promise<AssignmentAnswer[]>;
  answersOf(assignmentId: string, studentId: string): Promise<AssignmentAnswer[]>;
  close(): Promise<void>;
}
