import type { IncomingMessage, ServerResponse } from "node:http";
import { z } from "zod";
import { readJsonBody, sendJson } from "../http/request";
import { lessonKeysOf } from "../http/lessonsApi";
import { hostKeysOf } from "../http/sessionsApi";
import { KeyedLimiter, addressOf } from "../edge/rateLimit";
import { hashSecret } from "../secrets";
import { AUTH_LIMITS } from "./context";
import { AuthError, methodNotAllowed, rateLimited } from "./errors";
import type { Ownership } from "./ownership";
import { inviteBody, parseBody } from "./schemas";

/**
 * The REST calls of what follows a teacher's account (server/auth/ownership.ts):
 *
 * - `POST /api/account/claim`, `GET /api/account/sessions`, `DELETE /api/account/sessions/{id}`,
 *   `GET /api/account/lessons` (answered by the account API, server/auth/http.ts);
 * - `GET|POST /api/sessions/{id}/consoles`, `DELETE /api/sessions/{id}/consoles/{console}`,
 *   `GET|POST /api/sessions/{id}/coteachers`, `DELETE /api/sessions/{id}/coteachers/{account}`,
 *   `POST /api/sessions/{id}/end`,
 *   `GET|POST /api/lessons/{id}/coteachers`, `DELETE /api/lessons/{id}/coteachers/{account}`,
 *   `POST /api/lessons/{id}/key` (answered before the rest of the API, server/http/api.ts).
 *
 * Every one needs the sign-in cookie; the origin and content-type checks of
 * the API they sit in apply. Refusals are AuthErrors (`{ error: { code, message } }`).
 * docs/protocol.md "Accounts" describes each.
 */

const uuid = z.uuid();
const consoleIdSchema = z.string().regex(/^[0-9a-f]{32}$/);

const RESOURCE = /^\/api\/(sessions|lessons)\/([^/]+)(?:\/(consoles|coteachers|end|key)(?:\/([^/]+))?)?$/;

export type OwnershipRoutes = ReturnType<typeof createOwnershipRoutes>;

export function createOwnershipRoutes(ownership: Ownership, options: { trustProxy?: boolean } = {}) {
  // The signed-in teacher's everyday calls, as the account API counts them.
  const perAddress = new KeyedLimiter(AUTH_LIMITS.accountPerAddress);
  const spend = (req: IncomingMessage) => {
    if (!perAddress.take(addressOf(req.socket.remoteAddress, req.headers["x-forwarded-for"], options.trustProxy ?? false)))
      throw rateLimited();
  };
  const hostKeyHashes = (req: IncomingMessage) => hostKeysOf(req).map(hashSecret);
  const lessonKeyHashes = (req: IncomingMessage) => lessonKeysOf(req).map(hashSecret);
  const id = (raw: string, notFound: () => AuthError) => {
    if (!uuid.safeParse(raw).success) throw notFound();
    return raw;
  };

  return {
    /** `/api/account/claim`, `/api/account/sessions[/{id}]`, `/api/account/lessons`; false for any other path. */
    async account(req: IncomingMessage, res: ServerResponse, path: string, url: URL): Promise<boolean> {
      const method = req.method ?? "GET";
      const all = url.searchParams.get("scope") === "all";
      if (path === "/api/account/claim") {
        if (method !== "POST") throw methodNotAllowed(["POST"]);
        spend(req);
        await readJsonBody(req);
        const account = await ownership.requireAccount(req);
        sendJson(res, 200, await ownership.claim(account, hostKeyHashes(req), lessonKeyHashes(req)));
        return true;
      }
      if (path === "/api/account/sessions") {
        if (method !== "GET") throw methodNotAllowed(["GET"]);
        spend(req);
        const account = await ownership.requireAccount(req);
        sendJson(res, 200, await ownership.listSessions(account, hostKeyHashes(req), all));
        return true;
      }
      const one = /^\/api\/account\/sessions\/([^/]+)$/.exec(path);
      if (one) {
        if (method !== "DELETE") throw methodNotAllowed(["DELETE"]);
        spend(req);
        const sessionId = id(one[1], () => new AuthError(404, "NO_SUCH_SESSION"));
        const account = await ownership.requireAccount(req);
        sendJson(res, 200, await ownership.deleteSession(account, sessionId));
        return true;
      }
      if (path === "/api/account/lessons") {
        if (method !== "GET") throw methodNotAllowed(["GET"]);
        spend(req);
        const account = await ownership.requireAccount(req);
        sendJson(res, 200, await ownership.listLessons(account, lessonKeyHashes(req), all));
        return true;
      }
      return false;
    },

    /** The calls under one session or lesson (see above); false when the path is none of them. */
    async resource(req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean> {
      const match = RESOURCE.exec(path);
      if (!match) return false;
      const [, kind, rawId, sub, rawItem] = match;
      const method = req.method ?? "GET";
      // A plain session or lesson path is the key holders' API.
      if (!sub) return false;
      if (kind === "lessons" && (sub === "consoles" || sub === "end")) return false;
      if (kind === "sessions" && sub === "key") return false;
      spend(req);
      const session = kind === "sessions";
      const resourceId = id(rawId, () => new AuthError(404, session ? "NO_SUCH_SESSION" : "NO_SUCH_LESSON"));
      const account = await ownership.requireAccount(req);
      const reply = (status: number, body: unknown) => (sendJson(res, status, body), true);

      if (sub === "end") {
        if (method !== "POST" || rawItem) throw methodNotAllowed(["POST"]);
        await readJsonBody(req);
        return reply(200, await ownership.endSession(account, resourceId));
      }
      if (sub === "key") {
        if (method !== "POST" || rawItem) throw methodNotAllowed(["POST"]);
        await readJsonBody(req);
        return reply(200, await ownership.rotateLessonKey(account, resourceId));
      }
      if (sub === "consoles") {
        if (rawItem) {
          if (method !== "DELETE") throw methodNotAllowed(["DELETE"]);
          if (!consoleIdSchema.safeParse(rawItem).success) throw new AuthError(404, "NO_SUCH_CONSOLE");
          return reply(200, await ownership.revokeConsole(account, resourceId, rawItem));
        }
        if (method === "GET") return reply(200, { consoles: await ownership.consoles(account, resourceId, hostKeyHashes(req)) });
        if (method !== "POST") throw methodNotAllowed(["GET", "POST"]);
        await readJsonBody(req);
        return reply(201, await ownership.openConsole(account, resourceId));
      }
      // coteachers
      if (rawItem) {
        if (method !== "DELETE") throw methodNotAllowed(["DELETE"]);
        const accountId = id(rawItem, () => new AuthError(404, "NO_SUCH_ACCOUNT"));
        return reply(
          200,
          session
            ? await ownership.removeFromSession(account, resourceId, accountId)
            : await ownership.removeFromLesson(account, resourceId, accountId),
        );
      }
      if (method === "GET") {
        const coteachers = session
          ? await ownership.sessionCoteachers(account, resourceId)
          : await ownership.lessonCoteachers(account, resourceId);
        return reply(200, { coteachers });
      }
      if (method !== "POST") throw methodNotAllowed(["GET", "POST"]);
      const { email } = parseBody(inviteBody, await readJsonBody(req));
      const coteachers = session
        ? await ownership.inviteToSession(account, resourceId, email)
        : await ownership.inviteToLesson(account, resourceId, email);
      return reply(201, { coteachers });
    },
  };
}
