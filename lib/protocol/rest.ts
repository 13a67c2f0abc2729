import type { ErrorCode } from "./wire";
import { LESSON_LIMITS } from "../lesson/limits";
import type { CustomLesson } from "../lesson/model";

/**
 * The REST contract: response bodies, error codes and limits that the
 * server's API and the browser share. Plain types and constants (no zod), so
 * pages import it freely. docs/protocol.md ("REST API") describes each call.
 */

/** Who a saved-session read was answered for. */
export type Access = "admin" | "host" | "viewer";

/** One saved session in a list (`GET /api/sessions`). */
export interface SessionSummary {
  id: string;
  code: string;
  title: string;
  createdAt: number;
  endedAt: number | null;
  status: "live" | "ended";
  lastEventAt: number;
  eventCount: number;
  participantCount: number;
  peakParticipants: number;
  pollCount: number;
  /** Whether a replay share link is live. */
  shared: boolean;
}

/** `GET /api/sessions/{id}`, and each row of the list. */
export interface SessionDetail extends SessionSummary {
  durationMs: number;
  access: Access;
}

/** What the server keeps of a session, and for how long (RETENTION_DAYS, IDLE_SESSION_TIMEOUT_MINUTES). */
export interface RetentionPolicy {
  /** Ended sessions are deleted this many days after they end; null keeps them until an operator deletes them. */
  endedSessionDays: number | null;
  /** A live session with nobody connected and no activity for this long is ended; null or 0: never. */
  idleEndMinutes: number | null;
}

/** `GET /api/sessions`: the sessions this browser's keys open, or every session for the admin. */
export interface SessionList {
  scope: "admin" | "host";
  sessions: SessionDetail[];
  retention: RetentionPolicy;
}

/** `POST /api/sessions` (201). */
export interface CreatedSessionBody {
  id: string;
  code: string;
  title: string;
  hostKey: string;
  createdAt: number;
  /** The console's address, with the key in the fragment (never sent to a server). */
  hostPath: string;
}

/** `POST /api/sessions/{id}/share`: the replay link to hand out. */
export interface ShareLink {
  replayKey: string;
  replayPath: string;
}

/** `GET /api/join-info?code=…`: the address students' phones can reach. */
export interface JoinInfo {
  code: string;
  joinUrl: string;
  /** The QR code of `joinUrl`, as SVG markup the server generated. */
  qrSvg: string;
  /** Why the link uses another address than the console's, or null: a code the console words in its language. */
  note: JoinNote | null;
}

/**
 * Why a join link is not the console's own address (the console was opened on
 * localhost). `host` is the name the console was opened on, `hostName` this
 * machine's name on the network and `address` its LAN address: names, never
 * translated.
 */
export type JoinNote =
  /** The link uses this machine's name, which the classroom's browsers resolve to `address`. */
  | { code: "hostName"; host: string; hostName: string; address: string }
  /** The link uses this machine's LAN address. */
  | { code: "lanAddress"; host: string; address: string }
  /** No address students can reach: the link only works on this computer. */
  | { code: "noNetwork" };

/**
 * The note as a page can trust it: one this page knows how to word, or none.
 * A console still running an older page after the server was upgraded (or the
 * reverse) gets a note it cannot word: it shows no note rather than breaking.
 */
export function knownJoinNote(note: unknown): JoinNote | null {
  if (typeof note !== "object" || note === null) return null;
  const field = (name: string): string | null => {
    const value: unknown = Reflect.get(note, name);
    return typeof value === "string" ? value : null;
  };
  const [code, host, hostName, address] = [field("code"), field("host"), field("hostName"), field("address")];
  if (code === "noNetwork") return { code };
  if (code === "lanAddress" && host !== null && address !== null) return { code, host, address };
  if (code === "hostName" && host !== null && hostName !== null && address !== null) return { code, host, hostName, address };
  return null;
}

/** Codes only the REST API answers with, beside the socket's ERROR_CODES. */
export type RestErrorCode =
  | "NOT_FOUND"
  | "METHOD_NOT_ALLOWED"
  | "NO_ACCESS"
  | "CROSS_ORIGIN"
  | "NO_SUCH_LESSON"
  | "BAD_LESSON"
  | "LESSONS_FULL"
  /** A replay shared before accounts: only the browser that shared it can show its link again. */
  | "SHARED_ELSEWHERE"
  /** Self-paced assignments and results across a course (lib/course/rest.ts). */
  | "NO_SUCH_ASSIGNMENT"
  | "NOT_A_STUDENT"
  | "ASSIGNMENT_CLOSED"
  | "ASSIGNMENT_DUE"
  | "ASSIGNMENT_FULL"
  | "ASSIGNMENTS_FULL"
  | "NICKNAME_REQUIRED"
  | "NOT_THERE_YET"
  | "ALREADY_ANSWERED"
  | "BAD_OPTION"
  | "ANSWER_FIRST"
  | "BAD_STEP"
  | "SESSION_LIVE";

/** Every error body: `{ error: { code, message } }`. */
export interface RestError {
  error: { code: ErrorCode | RestErrorCode; message: string };
}

/**
 * Host keys one request may carry (X-Host-Keys): they travel in a header, and
 * HTTP servers cap header size (Node: 16 KiB); 200 keys of 43 characters fit.
 */
export const MAX_HOST_KEYS_PER_REQUEST = 200;

/**
 * A response of this server's API, as the REST contract above types it: the
 * body (on success) or its error. Nothing else answers these paths, so the
 * shape is the contract's; a body that is not JSON reads as an error.
 */
export async function readApi<T>(res: Response): Promise<{ ok: true; body: T } | { ok: false; status: number; message: string }> {
  const body: unknown = await res.json().catch(() => null);
  if (res.ok && body !== null) {
    // The contract types this path's body; the server is the only author of it.
    // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion
    return { ok: true, body: body as T };
  }
  const error = typeof body === "object" && body !== null && "error" in body ? body.error : null;
  const message =
    typeof error === "object" && error !== null && "message" in error && typeof error.message === "string" ? error.message : "";
  return { ok: false, status: res.status, message };
}

// ---------------------------------------------------------------------------
// Teachers' lessons (`/api/lessons`): docs/protocol.md "Lessons".

/** One lesson in a list (`GET /api/lessons`): its latest version. */
export interface LessonSummary {
  id: string;
  version: number;
  title: string;
  lifelineCount: number;
  stepCount: number;
  createdAt: number;
  updatedAt: number;
}

/** `GET /api/lessons`: the lessons this browser's keys open, or every lesson for the admin. */
export interface LessonList {
  scope: "admin" | "owner";
  lessons: LessonSummary[];
}

/** `GET /api/lessons/{id}[?version=n]`: one version, with the Mermaid text it was written in. */
export interface LessonDetail {
  id: string;
  version: number;
  latestVersion: number;
  lesson: CustomLesson;
  source: string;
  createdAt: number;
  updatedAt: number;
}

/** `POST /api/lessons` (201): the key is shown once; the browser keeps it, like a host key. */
export interface CreatedLesson {
  id: string;
  version: number;
  lessonKey: string;
}

/** Lesson keys one list request may send (a browser that made more sends the newest). */
export const MAX_LESSON_KEYS_PER_REQUEST = 200;
/**
 * The largest lesson request body: the Mermaid text and the lesson parsed
 * from it. Every text of the lesson comes from the Mermaid text, so each half
 * is at most `LESSON_LIMITS.source` characters, at up to 3 bytes each in UTF-8
 * (any script of the Basic Multilingual Plane), plus the field names of every
 * step and some room for the rest. A lesson the editor accepts is never
 * refused for its size, in any language.
 */
export const MAX_LESSON_BODY_BYTES = 2 * LESSON_LIMITS.source * 3 + LESSON_LIMITS.steps * 256 + 16 * 1024;
/** Lessons one server keeps (deleted ones count: their versions stay for replays). */
export const MAX_LESSONS_PER_SERVER = 10_000;
