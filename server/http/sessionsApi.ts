import type { IncomingMessage } from "node:http";
import { createHmac, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import type { ExportKind } from "../../lib/session";
import { ExportRunner, ExportsBusyError } from "./exports";
import { hashSecret, newSecret, secretMatches } from "../secrets";
import { AuthError } from "../auth/errors";
import {
  MAX_HOST_KEYS_PER_REQUEST,
  type Access,
  type RetentionPolicy,
  type SessionDetail,
  type SessionList,
  type SessionSummary,
  type ShareLink,
} from "../../lib/protocol/rest";
import { HttpError } from "./httpError";
import type { SessionRecord, SessionStore } from "../store/types";

/**
 * Reading saved sessions. Who may see what:
 * - the admin (ADMIN_TOKEN as a bearer token, for scripts): every session, nicknames included;
 * - the host (a key of one of the session's consoles in X-Host-Key): their session, nicknames included;
 * - the signed-in account that owns it or was invited to teach it (as the host), and the
 *   administrator's account (as the admin) (server/auth/ownership.ts);
 * - whoever holds the replay share key the teacher handed out (X-Replay-Key):
 *   `shareableLog`, nicknames replaced by "Student N", no individual votes,
 *   and polls the teacher never revealed without answer, notes or counts.
 * The session id alone reads nothing: every student holds it.
 * Keys travel in headers, never in URLs, so they stay out of access logs.
 */

const sessionIdSchema = z.uuid();

export function isAdmin(req: IncomingMessage, adminToken: string | null): boolean {
  if (!adminToken) return false;
  const header = req.headers.authorization ?? "";
  const presented = header.startsWith("Bearer ") ? header.slice(7).trim() : "";
  const a = Buffer.from(hashSecret(presented), "hex");
  const b = Buffer.from(hashSecret(adminToken), "hex");
  return presented.length > 0 && timingSafeEqual(a, b);
}

function headerValue(req: IncomingMessage, name: string): string {
  const raw = req.headers[name];
  return (Array.isArray(raw) ? raw[0] : raw)?.trim() ?? "";
}

/** The replay share key of one session and sharing generation, derived from its host key. */
export function replayKeyFor(hostKey: string, sessionId: string, generation: number): string {
  return createHmac("sha256", hostKey).update(`replay-share:${sessionId}:${generation}`).digest("base64url");
}

export function hostKeysOf(req: IncomingMessage): string[] {
  const raw = req.headers["x-host-keys"] ?? req.headers["x-host-key"] ?? "";
  const keys = (Array.isArray(raw) ? raw.join(",") : raw)
    .split(",")
    .map((k) => k.trim())
    .filter((k) => k.length > 0 && k.length <= 128);
  if (keys.length > MAX_HOST_KEYS_PER_REQUEST)
    throw new HttpError(400, "BAD_REQUEST", `Send at most ${MAX_HOST_KEYS_PER_REQUEST} host keys.`);
  return keys;
}

/** How a request's signed-in account may read a session (server/auth/ownership.ts): as its teacher, as the admin, or not. */
export interface SessionAccountAccess {
  sessionAccess(req: IncomingMessage, rec: SessionRecord): Promise<"host" | "admin" | null>;
}

export function createSessionsReader(
  store: SessionStore,
  adminToken: string | null,
  retention: RetentionPolicy = { endedSessionDays: null, idleEndMinutes: null },
  accounts?: SessionAccountAccess,
) {
  async function record(id: string) {
    if (!sessionIdSchema.safeParse(id).success) throw new HttpError(404, "NO_SUCH_SESSION", "There is no session with that id.");
    const rec = await store.getSession(id);
    if (!rec) throw new HttpError(404, "NO_SUCH_SESSION", "There is no session with that id.");
    return rec;
  }

  /** The presented key that opens one of the session's consoles, or null. */
  async function consoleKeyOf(req: IncomingMessage, id: string): Promise<string | null> {
    const presented = hostKeysOf(req);
    if (presented.length === 0) return null;
    const hashes = await store.hostKeyHashes(id);
    return presented.find((k) => hashes.some((h) => secretMatches(k, h))) ?? null;
  }

  async function accessFor(req: IncomingMessage, id: string): Promise<Access> {
    const rec = await record(id);
    if (isAdmin(req, adminToken)) return "admin";
    if ((await consoleKeyOf(req, id)) !== null) return "host";
    const viaAccount = await accounts?.sessionAccess(req, rec);
    if (viaAccount) return viaAccount;
    const replayKey = headerValue(req, "x-replay-key");
    if (rec.shareKeyHash && replayKey.length <= 128 && secretMatches(replayKey, rec.shareKeyHash)) return "viewer";
    throw new HttpError(
      403,
      "NO_ACCESS",
      "This replay needs the link the teacher shared (or, for the teacher, the browser that ran the session).",
    );
  }

  /** The session, if the request may share it: a console's key, or the account of its owner or a co-teacher; else a 403. */
  async function sharer(req: IncomingMessage, id: string): Promise<{ rec: SessionRecord; hostKey: string | null }> {
    const rec = await record(id);
    const hostKey = await consoleKeyOf(req, id);
    if (hostKey === null && (await accounts?.sessionAccess(req, rec)) !== "host")
      throw new HttpError(403, "NOT_HOST", "Only the teacher who ran this session can share its replay.");
    return { rec, hostKey };
  }

  function detail(summary: SessionSummary, access: Access): SessionDetail {
    return { ...summary, durationMs: (summary.endedAt ?? summary.lastEventAt) - summary.createdAt, access };
  }

  const exports = new ExportRunner(store);
  async function render(id: string, kind: ExportKind, access: Access): Promise<string> {
    try {
      return await exports.render(id, kind, access);
    } catch (err) {
      if (err instanceof ExportsBusyError)
        throw new HttpError(429, "RATE_LIMITED", "The server is preparing other downloads. Try again in a moment.");
      throw err;
    }
  }

  return {
    /** Sessions this browser hosted (by the keys it sends), or all of them for the admin. */
    async list(req: IncomingMessage): Promise<SessionList> {
      if (isAdmin(req, adminToken)) {
        return { scope: "admin", sessions: (await store.listSessions()).map((s) => detail(s, "admin")), retention };
      }
      const ids = await store.sessionIdsByHostKeyHash(hostKeysOf(req).map(hashSecret));
      return { scope: "host", sessions: (await store.listSessions(ids)).map((s) => detail(s, "host")), retention };
    },

    /**
     * Starts sharing the replay: a new random key, kept with the session
     * while it is shared, so every teacher of the session, on any browser, is
     * handed the same link until sharing stops.
     */
    async share(req: IncomingMessage, id: string): Promise<ShareLink> {
      const { rec, hostKey } = await sharer(req, id);
      const link = (replayKey: string): ShareLink => ({ replayKey, replayPath: `/replay/${id}#share=${replayKey}` });
      if (rec.shareKeyHash && rec.shareKey) return link(rec.shareKey);
      if (rec.shareKeyHash) {
        // Shared by an earlier server, which kept only the hash of a key derived from the first console's key:
        // that key (only) derives it again, and from now on it is kept.
        const derived = hostKey === null ? null : replayKeyFor(hostKey, id, rec.shareGeneration);
        if (derived === null || hashSecret(derived) !== rec.shareKeyHash) throw new AuthError(409, "SHARED_ELSEWHERE");
        await store.setReplaySharing(id, rec.shareKeyHash, rec.shareGeneration, derived);
        return link(derived);
      }
      const replayKey = newSecret();
      await store.setReplaySharing(id, hashSecret(replayKey), rec.shareGeneration, replayKey);
      return link(replayKey);
    },

    /** Stops sharing: the link handed out stops working, and the next one is a new secret. */
    async unshare(req: IncomingMessage, id: string): Promise<{ shared: false }> {
      const { rec } = await sharer(req, id);
      if (rec.shareKeyHash) await store.setReplaySharing(id, null, rec.shareGeneration + 1);
      return { shared: false };
    },

    async get(req: IncomingMessage, id: string): Promise<SessionDetail> {
      const access = await accessFor(req, id);
      const [summary] = await store.listSessions([id]);
      return detail(summary, access);
    },

    /** The log a replay plays: the whole log for the teacher and the admin, `shareableLog` through a share key. */
    async events(req: IncomingMessage, id: string): Promise<string> {
      const access = await accessFor(req, id);
      return render(id, "events", access);
    },

    async export(
      req: IncomingMessage,
      id: string,
      format: string | null,
      sheet: string | null,
    ): Promise<{ contentType: string; filename: string; body: string }> {
      const access = await accessFor(req, id);
      const rec = await record(id);
      const base = `session-${rec.code}-${new Date(rec.createdAt).toISOString().slice(0, 10)}`;
      if (format === "json") {
        return { contentType: "application/json; charset=utf-8", filename: `${base}.json`, body: await render(id, "json", access) };
      }
      if (format === "csv") {
        if (sheet === "students") {
          if (access === "viewer") throw new HttpError(403, "NOT_HOST", "The per-student sheet is for the teacher: send the host key.");
          return { contentType: "text/csv; charset=utf-8", filename: `${base}-students.csv`, body: await render(id, "studentCsv", access) };
        }
        if (sheet === "questions") {
          // Everyone who may read the session gets the questions; only the teacher's (and the admin's) copy names askers.
          return {
            contentType: "text/csv; charset=utf-8",
            filename: `${base}-questions.csv`,
            body: await render(id, "questionCsv", access),
          };
        }
        if (sheet !== null && sheet !== "polls") throw new HttpError(400, "BAD_REQUEST", "sheet must be polls, questions or students.");
        return { contentType: "text/csv; charset=utf-8", filename: `${base}-polls.csv`, body: await render(id, "pollCsv", access) };
      }
      throw new HttpError(400, "BAD_REQUEST", "format must be json or csv.");
    },

    close: () => exports.close(),
  };
}
