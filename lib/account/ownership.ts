import type { LessonSummary, RetentionPolicy, SessionDetail } from "../protocol/rest";

/**
 * What follows a teacher's account (issue 29): the sessions and lessons it
 * owns or was invited to, the consoles of its live sessions, its co-teachers.
 * The bodies of `/api/account/claim`, `/api/account/sessions`,
 * `/api/account/lessons` and of the `consoles` and `coteachers` calls under
 * `/api/sessions/{id}` and `/api/lessons/{id}` (docs/protocol.md "Accounts").
 * Plain types and constants, so pages import them freely.
 */

/** How the signed-in account stands to a session or a lesson it sees. */
export type Relation = "owner" | "coteacher" | "admin";

/** Another teacher, as the owner of something they share sees them. */
export interface TeacherView {
  id: string;
  displayName: string;
  email: string;
}

/** One console of a live session: a key of its own, revocable on its own. */
export interface ConsoleView {
  /** Names the console for revoking it; not its key, which the server never keeps. */
  id: string;
  createdAt: number;
  /** The teacher who opened it from another browser; null for the console the session was started with. */
  openedBy: string | null;
  /** The browser asking holds this console's key (it sent it in X-Host-Keys). */
  here: boolean;
}

/** A session in a signed-in list (`GET /api/account/sessions`). */
export interface AccountSession extends SessionDetail {
  relation: Relation;
  /** The owner's display name; null when no account owns it (an administrator's list). */
  owner: string | null;
  /** For its owner (and the administrator): who was invited to drive it. */
  coteachers: TeacherView[];
  /** For its owner and co-teachers, while it is live: every console, each revocable by its owner. */
  consoles: ConsoleView[];
}

/** `GET /api/account/sessions[?scope=all]`: the account's sessions, or (administrator, `scope=all`) every session. */
export interface AccountSessionList {
  scope: "mine" | "all";
  sessions: AccountSession[];
  retention: RetentionPolicy;
}

/** A lesson in a signed-in list (`GET /api/account/lessons`). */
export interface AccountLesson extends LessonSummary {
  relation: Relation;
  owner: string | null;
  coteachers: TeacherView[];
  /** The browser asking holds the lesson's key (it sent it in X-Lesson-Keys). */
  keyHere: boolean;
}

/** `GET /api/account/lessons[?scope=all]`. */
export interface AccountLessonList {
  scope: "mine" | "all";
  lessons: AccountLesson[];
}

/** `POST /api/account/claim`: how many of the keys this browser sent became the account's. */
export interface ClaimResult {
  sessions: number;
  lessons: number;
}

/** `POST /api/sessions/{id}/consoles` (201): a console of its own for this browser; the key is shown once. */
export interface OpenedConsole {
  consoleId: string;
  hostKey: string;
  code: string;
  /** The console's address, with the key in the fragment (never sent to a server). */
  hostPath: string;
}

/** `GET /api/sessions/{id}/consoles`. */
export interface ConsoleList {
  consoles: ConsoleView[];
}

/** `GET|POST /api/sessions/{id}/coteachers` and `/api/lessons/{id}/coteachers`. */
export interface CoteacherList {
  coteachers: TeacherView[];
}

/** `POST /api/lessons/{id}/key`: the lesson's new key, for this browser; every key held before opens nothing. */
export interface RotatedLessonKey {
  lessonKey: string;
}

/** Consoles one session may have open at once (each is a key; a teacher opens one per browser). */
export const MAX_CONSOLES_PER_SESSION = 20;
/** Co-teachers one session or lesson may have. */
export const MAX_COTEACHERS = 20;
