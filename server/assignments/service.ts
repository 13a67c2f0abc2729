import type { IncomingMessage } from "node:http";
import { MAX_PARTICIPANTS_PER_SESSION, NICKNAME_MAX, TITLE_MAX } from "../../lib/constants";
import {
  decideAnswer,
  decideProgress,
  feedbackFor,
  lessonPolls,
  openRefusal,
  sessionPolls,
  type AssignmentRefusal,
} from "../../lib/course/assignment";
import { BUILTIN_LESSON_KEY } from "../../lib/course/pollKeys";
import {
  MAX_ASSIGNMENTS_PER_ACCOUNT,
  answerSchema,
  createAssignmentSchema,
  patchAssignmentSchema,
  progressSchema,
  startSchema,
  type AnsweredPoll,
  type CreatedAssignment,
  type StartedAssignment,
} from "../../lib/course/rest";
import type { Assignment, AssignmentAnswer, AssignmentStudent } from "../../lib/course/types";
import {
  assignmentProgress,
  assignmentSummary,
  publicAssignment,
  studentProgressView,
  type AssignmentProgress,
  type AssignmentSummary,
  type PublicAssignment,
  type StudentProgressView,
} from "../../lib/course/views";
import type { SessionLesson } from "../../lib/lesson/model";
import { getScenario, isVariantOf } from "../../lib/lesson/scenarios";
import { DEFAULT_KUBE_VERSION } from "../../lib/lesson/versions";
import { MAX_IDENTITIES_PER_ADDRESS } from "../../lib/session/limits";
import { reduce, initialState } from "../../lib/session/reducer";
import { cleanText } from "../../lib/text";
import type { z } from "zod";
import type { Account } from "../store/accounts";
import type { AssignmentStore } from "../store/assignments";
import type { SessionStore } from "../store/types";
import { hashSecret, newSecret, shuffle } from "../secrets";
import { HttpError } from "../http/httpError";
import { log } from "../logger";

/**
 * Self-paced assignments on the server: the teacher's side (make, list,
 * watch, close, delete) needs a signed-in account and owns what it made; the
 * student's side needs the link (the id) and, after starting, the token their
 * browser keeps. Every answer is durable before it is acknowledged.
 */

export interface AssignmentDeps {
  store: AssignmentStore;
  sessions: SessionStore;
  /** A teacher's lesson version this request may run (its key or the account), as starting a session checks it. */
  lessonFor: (req: IncomingMessage, ref: { id: string; version?: number }) => Promise<SessionLesson>;
  /** How the request's account may read a saved session ("host": owner or co-teacher). */
  sessionAccess: (req: IncomingMessage, sessionId: string) => Promise<"host" | "admin" | null>;
  now?: () => number;
}

const REFUSALS: Record<AssignmentRefusal, { status: number; message: string }> = {
  ASSIGNMENT_CLOSED: { status: 409, message: "Your teacher has closed this assignment: it takes no more answers." },
  ASSIGNMENT_DUE: { status: 409, message: "This assignment was due before now: it takes no more answers." },
  NO_SUCH_POLL: { status: 404, message: "This assignment has no such question." },
  NOT_THERE_YET: { status: 409, message: "Reach this question's step before answering it." },
  ALREADY_ANSWERED: { status: 409, message: "You already answered this question; your first answer counts." },
  BAD_OPTION: { status: 400, message: "That is not one of this question's answers." },
  ANSWER_FIRST: { status: 409, message: "Answer the question at this step before going on." },
  BAD_STEP: { status: 400, message: "You can go back to any step you reached, or on one step at a time." },
};

export const refused = (reason: AssignmentRefusal) => new HttpError(REFUSALS[reason].status, reason, REFUSALS[reason].message);
const noSuchAssignment = () => new HttpError(404, "NO_SUCH_ASSIGNMENT", "There is no assignment at this link.");
const notAStudent = () =>
  new HttpError(403, "NOT_A_STUDENT", "This browser has not started this assignment (or was given another one's token). Start it again.");

export function parseBody<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const parsed = schema.safeParse(body ?? {});
  if (!parsed.success) throw new HttpError(400, "BAD_REQUEST", `Invalid body: ${parsed.error.issues[0]?.message ?? "malformed"}`);
  return parsed.data;
}

export type AssignmentService = ReturnType<typeof createAssignmentService>;

export function createAssignmentService(deps: AssignmentDeps) {
  const { store } = deps;
  const now = deps.now ?? Date.now;

  async function load(id: string): Promise<Assignment> {
    const a = id.length <= 64 ? await store.get(id) : null;
    if (!a) throw noSuchAssignment();
    return a;
  }

  /** The teacher's own assignment; another account's reads exactly like a missing one. */
  async function owned(account: Account, id: string): Promise<Assignment> {
    const a = await load(id);
    if (a.ownerAccountId !== account.id && !account.admin) throw noSuchAssignment();
    return a;
  }

  async function student(a: Assignment, token: string | undefined): Promise<AssignmentStudent> {
    if (!token || token.length > 128) throw notAStudent();
    const found = await store.studentByToken(a.id, hashSecret(token));
    if (!found) throw notAStudent();
    return found;
  }

  async function fromSession(req: IncomingMessage, sessionId: string) {
    const rec = await deps.sessions.getSession(sessionId);
    if (!rec || (await deps.sessionAccess(req, sessionId)) === null)
      throw new HttpError(404, "NO_SUCH_SESSION", "There is no saved session of yours with that id.");
    if (rec.endedAt === null)
      throw new HttpError(409, "SESSION_LIVE", "Assign a session once it has ended: its polls are still being asked.");
    let state = initialState();
    for (const event of await deps.sessions.loadEvents(sessionId)) state = reduce(state, event);
    return { state, ...sessionPolls(state) };
  }

  return {
    async create(req: IncomingMessage, account: Account, body: unknown): Promise<Omit<CreatedAssignment, "url">> {
      const input = parseBody(createAssignmentSchema, body);
      if ((await store.countByOwner(account.id)) >= MAX_ASSIGNMENTS_PER_ACCOUNT) {
        throw new HttpError(
          507,
          "ASSIGNMENTS_FULL",
          `You have ${MAX_ASSIGNMENTS_PER_ACCOUNT} assignments, as many as an account keeps. Delete old ones first.`,
        );
      }
      const at = now();
      if (input.dueAt && input.dueAt <= at) throw new HttpError(400, "BAD_REQUEST", "The due date is in the past.");
      const source = input.source;
      const session = source.kind === "session" ? await fromSession(req, source.sessionId) : null;
      // From a session: the release that class ran, unless the teacher names another.
      const kubeVersion = input.kubeVersion ?? session?.state.kubeVersion ?? DEFAULT_KUBE_VERSION;
      let made: Pick<Assignment, "source" | "lessonKey" | "mode" | "variant" | "lesson" | "polls" | "stepCount" | "title">;
      let skipped = 0;
      if (source.kind === "builtin") {
        if (!isVariantOf(source.mode, source.variant))
          throw new HttpError(400, "BAD_REQUEST", `${source.mode} has no variant ${source.variant}.`);
        const scenario = getScenario(source.mode, source.variant, kubeVersion);
        made = {
          source,
          lessonKey: BUILTIN_LESSON_KEY,
          mode: source.mode,
          variant: source.variant,
          lesson: null,
          polls: lessonPolls(null, source.mode, source.variant, input.steps ?? null, shuffle),
          stepCount: scenario.steps.length,
          title: scenario.title,
        };
      } else if (source.kind === "lesson") {
        const lesson = await deps.lessonFor(req, { id: source.lessonId, version: source.version });
        made = {
          source: { kind: "lesson", lessonId: lesson.id, version: lesson.version },
          lessonKey: lesson.id,
          mode: "WaitForFirstConsumer",
          variant: "standard",
          lesson,
          polls: lessonPolls(lesson, "WaitForFirstConsumer", "standard", input.steps ?? null, shuffle),
          stepCount: lesson.lesson.steps.length,
          title: lesson.lesson.title,
        };
      } else {
        const { state, mode, variant, polls, skipped: left } = session!;
        skipped = left;
        made = {
          source: { kind: "session", sessionId: state.id, title: state.title },
          lessonKey: state.lesson?.id ?? BUILTIN_LESSON_KEY,
          mode,
          variant,
          lesson: state.lesson,
          polls,
          stepCount: state.lesson ? state.lesson.lesson.steps.length : getScenario(mode, variant).steps.length,
          title: state.title || (state.lesson?.lesson.title ?? getScenario(mode, variant).title),
        };
      }
      if (made.polls.length === 0) {
        throw new HttpError(400, "BAD_REQUEST", "There is no question to answer in it: a self-paced assignment needs at least one poll.");
      }
      const assignment: Assignment = {
        ...made,
        id: newSecret().slice(0, 22),
        title: cleanText(input.title ?? "", TITLE_MAX) || made.title.slice(0, TITLE_MAX),
        ownerAccountId: account.id,
        kubeVersion,
        dueAt: input.dueAt ?? null,
        requireNickname: input.requireNickname ?? false,
        createdAt: at,
        closedAt: null,
      };
      await store.create(assignment);
      log.info("assignment created", { assignmentId: assignment.id, accountId: account.id, polls: assignment.polls.length });
      return { assignment: assignmentSummary(assignment), path: `/a/${assignment.id}`, skipped };
    },

    async list(account: Account): Promise<AssignmentSummary[]> {
      return (await store.listByOwner(account.id)).map(assignmentSummary);
    },

    async progress(account: Account, id: string): Promise<AssignmentProgress> {
      const a = await owned(account, id);
      return assignmentProgress(a, await store.students(a.id), await store.answers(a.id));
    },

    async update(account: Account, id: string, body: unknown): Promise<AssignmentProgress> {
      const a = await owned(account, id);
      const patch = parseBody(patchAssignmentSchema, body);
      if (patch.closed !== undefined) await store.setClosed(a.id, patch.closed ? (a.closedAt ?? now()) : null);
      if (patch.dueAt !== undefined) await store.setDue(a.id, patch.dueAt);
      return this.progress(account, id);
    },

    async remove(account: Account, id: string): Promise<{ deleted: true }> {
      const a = await owned(account, id);
      await store.remove(a.id);
      log.info("assignment deleted", { assignmentId: a.id, accountId: account.id });
      return { deleted: true };
    },

    /** What the link shows anyone: the lesson and the questions, no answers. */
    async view(id: string): Promise<PublicAssignment> {
      return publicAssignment(await load(id), now());
    },

    async start(id: string, address: string, body: unknown): Promise<StartedAssignment> {
      const a = await load(id);
      const closed = openRefusal(a, now());
      if (closed) throw refused(closed);
      const nickname = cleanText(parseBody(startSchema, body).nickname ?? "", NICKNAME_MAX);
      if (a.requireNickname && !nickname)
        throw new HttpError(400, "NICKNAME_REQUIRED", "Your teacher asks for a nickname: type one to start.");
      const token = newSecret();
      const at = now();
      const s: AssignmentStudent = {
        id: newSecret().slice(0, 16),
        assignmentId: a.id,
        tokenHash: hashSecret(token),
        nickname,
        address,
        startedAt: at,
        stepIndex: 0,
        furthestStep: 0,
        finishedAt: null,
        updatedAt: at,
      };
      const added = await store.addStudent(s, { maxStudents: MAX_PARTICIPANTS_PER_SESSION, maxPerAddress: MAX_IDENTITIES_PER_ADDRESS });
      if (!added.ok) {
        throw new HttpError(
          409,
          "ASSIGNMENT_FULL",
          added.reason === "FULL"
            ? "This assignment has as many students as it takes."
            : "As many students have started this assignment from your network as it allows.",
        );
      }
      return { token, progress: studentProgressView(a, s, []) };
    },

    async me(id: string, token: string | undefined): Promise<StudentProgressView> {
      const a = await load(id);
      const s = await student(a, token);
      return studentProgressView(a, s, await store.answersOf(a.id, s.id));
    },

    async answer(id: string, token: string | undefined, body: unknown): Promise<AnsweredPoll> {
      const a = await load(id);
      const s = await student(a, token);
      const { pollId, optionId } = parseBody(answerSchema, body);
      const given = await store.answersOf(a.id, s.id);
      const decision = decideAnswer(a, s, given, pollId, optionId, now());
      if (!decision.ok) throw refused(decision.reason);
      let answered = given;
      if (!decision.repeat) {
        // Two taps racing past the check: the store keeps the first, and the second reads as the answer in force.
        const stored = await store.answer({ assignmentId: a.id, studentId: s.id, pollId, optionId, at: now() });
        if (!stored.created && stored.answer.optionId !== optionId) throw refused("ALREADY_ANSWERED");
        answered = [...given, stored.answer];
      }
      const poll = a.polls.find((p) => p.id === pollId)!;
      const progress = await this.settle(a, s, answered);
      return { feedback: feedbackFor(poll, optionId), progress };
    },

    async move(id: string, token: string | undefined, body: unknown): Promise<StudentProgressView> {
      const a = await load(id);
      const s = await student(a, token);
      const { stepIndex } = parseBody(progressSchema, body);
      const given = await store.answersOf(a.id, s.id);
      const decision = decideProgress(a, s, given, stepIndex, now());
      if (!decision.ok) throw refused(decision.reason);
      const next = { ...s, ...decision.progress, updatedAt: now() };
      await store.setProgress(a.id, s.id, next);
      return studentProgressView(a, next, given);
    },

    /** After an answer at the last step, the student may have just finished. */
    async settle(a: Assignment, s: AssignmentStudent, given: readonly AssignmentAnswer[]): Promise<StudentProgressView> {
      const decision = decideProgress(a, s, given, s.stepIndex, now());
      if (decision.ok && decision.progress.finishedAt !== s.finishedAt) {
        const next = { ...s, ...decision.progress, updatedAt: now() };
        await store.setProgress(a.id, s.id, next);
        return studentProgressView(a, next, given);
      }
      return studentProgressView(a, s, given);
    },
  };
}
