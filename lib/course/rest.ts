import { z } from "zod";
import { NICKNAME_MAX, TITLE_MAX } from "../constants";
import { BINDING_MODES, VARIANTS } from "../lesson/types";
import { KUBE_VERSIONS } from "../lesson/versions";
import type { AnswerFeedback } from "./assignment";
import type { CourseResults } from "./results";
import type { AssignmentSummary, PublicAssignment, StudentProgressView } from "./views";

/**
 * The assignments and results API (`/api/assignments…`, `/api/results…`,
 * docs/protocol.md "Assignments"): request bodies as zod schemas, checked
 * once at the server's edge, and the bodies it answers with.
 */

/** The header a student's browser sends its assignment token in (never in a URL, so it stays out of logs and history). */
export const ASSIGNMENT_TOKEN_HEADER = "x-assignment-token";

/** Assignments one account keeps at most (each holds its students' answers). */
export const MAX_ASSIGNMENTS_PER_ACCOUNT = 200;

/** Sessions one results page reads at most, newest first (each is a whole log to fold). */
export const MAX_SESSIONS_PER_RESULTS = 200;

export const createAssignmentSchema = z
  .object({
    source: z.discriminatedUnion("kind", [
      z.object({ kind: z.literal("builtin"), mode: z.enum(BINDING_MODES), variant: z.enum(VARIANTS).default("standard") }).strip(),
      z.object({ kind: z.literal("lesson"), lessonId: z.string().min(1).max(64), version: z.number().int().min(1).optional() }).strip(),
      z.object({ kind: z.literal("session"), sessionId: z.string().min(1).max(64) }).strip(),
    ]),
    title: z
      .string()
      .max(TITLE_MAX * 4)
      .optional(),
    kubeVersion: z.enum(KUBE_VERSIONS).optional(),
    /** 0-based steps to ask at; every step with a poll when absent (a lesson only). */
    steps: z.array(z.number().int().min(0).max(200)).max(200).optional(),
    /** ms since the epoch; null or absent: no due date. */
    dueAt: z.number().int().positive().nullable().optional(),
    requireNickname: z.boolean().optional(),
  })
  .strip();
export type CreateAssignmentBody = z.input<typeof createAssignmentSchema>;

export const patchAssignmentSchema = z
  .object({ closed: z.boolean().optional(), dueAt: z.number().int().positive().nullable().optional() })
  .strip();

export const startSchema = z
  .object({
    nickname: z
      .string()
      .max(NICKNAME_MAX * 4)
      .optional(),
  })
  .strip();
export const answerSchema = z.object({ pollId: z.string().min(1).max(16), optionId: z.string().min(1).max(16) }).strip();
export const progressSchema = z.object({ stepIndex: z.number().int().min(0).max(1000) }).strip();

export interface CreatedAssignment {
  assignment: AssignmentSummary;
  /** The student's link, relative to the server (`/a/{id}`). */
  path: string;
  /** The whole link students open: PUBLIC_URL, or this machine's address on the classroom network, as a room's join link. */
  url: string;
  /** Polls of the session's other binding modes, left out (a walk follows one scenario). */
  skipped: number;
}

export interface StartedAssignment {
  token: string;
  progress: StudentProgressView;
}

export interface AnsweredPoll {
  feedback: AnswerFeedback;
  progress: StudentProgressView;
}

export interface ResultsBody {
  lessonKey: string;
  title: string;
  results: CourseResults;
}

export type { PublicAssignment, StudentProgressView, AssignmentSummary, CourseResults, AnswerFeedback };
