import type { IncomingMessage } from "node:http";
import type { SessionLesson } from "../../lib/lesson/model";
import type { Ownership } from "../auth/ownership";
import { HttpError } from "../http/httpError";
import type { AssignmentStore } from "../store/assignments";
import type { LessonStore } from "../store/lessons";
import type { SessionStore } from "../store/types";
import { createResultsReader } from "./results";
import { createAssignmentRoutes } from "./routes";
import { createAssignmentService } from "./service";

export interface AssignmentsApiDeps {
  store: AssignmentStore;
  sessions: SessionStore;
  lessons?: LessonStore;
  access: Ownership;
  /** A lesson version the request may run, as starting a session from it checks (server/http/lessonsApi.ts). */
  lessonFor?: (req: IncomingMessage, ref: { id: string; version?: number }) => Promise<SessionLesson>;
  trustProxy: boolean;
  /** The base of the links students open (`{base}/a/{id}`). */
  linkBase: (req: IncomingMessage) => Promise<string>;
}

/** Self-paced assignments and results across a course: wiring only (./service.ts, ./results.ts, ./routes.ts). */
export function createAssignmentsApi(deps: AssignmentsApiDeps) {
  const service = createAssignmentService({
    store: deps.store,
    sessions: deps.sessions,
    lessonFor: async (req, ref) => {
      if (!deps.lessonFor) throw new HttpError(404, "NO_SUCH_LESSON", "This server keeps no lessons.");
      return deps.lessonFor(req, ref);
    },
    sessionAccess: async (req, sessionId) => {
      const rec = await deps.sessions.getSession(sessionId);
      return rec ? deps.access.sessionAccess(req, rec) : null;
    },
  });
  const results = createResultsReader({ sessions: deps.sessions, assignments: deps.store, lessons: deps.lessons });
  return createAssignmentRoutes({
    service,
    results,
    store: deps.store,
    accountOf: deps.access.accountOf,
    trustProxy: deps.trustProxy,
    linkBase: deps.linkBase,
  });
}
