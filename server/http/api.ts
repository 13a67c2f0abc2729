import type { IncomingMessage, ServerResponse } from "node:http";
import { KUBE_VERSIONS } from "../../lib/lesson/versions";
import os from "node:os";
import QRCode from "qrcode";
import { z } from "zod";
import { RATE_LIMITS } from "../../lib/constants";
import {
  ERROR_CODES,
  TITLE_MAX,
  cleanText,
  isRoomCode,
  normalizeRoomCode,
  type CreatedSessionBody,
  type JoinInfo,
  type JoinNote,
} from "../../lib/protocol";
import type { Config, LessonWrites } from "../config";
import { log } from "../logger";
import { createOriginPolicy, parseHost, requestScheme } from "../edge/origin";
import { KeyedLimiter } from "../edge/rateLimit";
import type { RoomRegistry } from "../rooms/registry";
import { HttpError, methodNotAllowed } from "./httpError";
import { createSessionsReader } from "./sessionsApi";
import { createHostNames } from "./hostName";
import { clientAddress, readJsonBody, sendJson, sendJsonText } from "./request";

export { clientAddress, isJsonMediaType, readJsonBody, sendHtml, sendJson, sendJsonText } from "./request";
import { createLessonsApi } from "./lessonsApi";
import type { LessonStore } from "../store/lessons";
import { MAX_LESSON_BODY_BYTES, type RetentionPolicy } from "../../lib/protocol/rest";
import type { SessionStore } from "../store/types";
import { toError } from "../../lib/errors";
import { countRateLimited } from "../ops/metrics";
import { AuthError } from "../auth/errors";
import type { Ownership } from "../auth/ownership";
import type { OwnershipRoutes } from "../auth/ownershipRoutes";
import type { AssignmentStore } from "../store/assignments";
import { createAssignmentsApi } from "../assignments";

export const createSessionBodySchema = z
  .object({
    title: z
      .string()
      .max(TITLE_MAX * 4)
      .optional(),
    /** Run a teacher's lesson (its latest version unless one is named); the request must hold its lesson key. */
    lesson: z
      .object({ id: z.string().max(64), version: z.number().int().min(1).optional() })
      .strip()
      .optional(),
    /** The Kubernetes release the class runs (the built-in lesson prints its strings); the newest traced one when absent. */
    kubeVersion: z.enum(KUBE_VERSIONS).optional(),
  })
  .strip();

export interface ApiDeps {
  config: Pick<Config, "publicUrl" | "port" | "adminToken"> & {
    sessionCreateLimitPerMinute?: number;
    trustProxy?: boolean;
    /** What the saved-sessions list says is kept, and for how long. */
    retentionDays?: number | null;
    idleTimeoutMs?: number;
    /** LESSON_WRITES and MAX_LESSONS (./lessonsApi.ts). */
    lessonWrites?: LessonWrites;
    maxLessons?: number;
  };
  rooms: RoomRegistry;
  store: SessionStore;
  /** Failed joins per address, shared with the socket handshake: asking about unknown codes is guessing too. */
  failedJoins: KeyedLimiter;
  /** Teachers' lessons (`/api/lessons`); absent, those paths answer 404. */
  lessons?: LessonStore;
  /** Teachers' accounts, where the server keeps them: what they own and may open (server/auth/ownership.ts). */
  ownership?: { access: Ownership; routes: OwnershipRoutes };
  /** Self-paced assignments (`/api/assignments`, `/api/results`; server/assignments): they need accounts. */
  assignments?: AssignmentStore;
}

/** Security headers for every response, pages included. */
export function setSecurityHeaders(res: ServerResponse, dev: boolean): void {
  res.setHeader("X-Content-Type-Options", "nosniff");
  res.setHeader("Referrer-Policy", "no-referrer");
  res.setHeader("X-Frame-Options", "DENY");
  // Next injects inline bootstrap scripts; 'unsafe-inline' for scripts is the cost of not using nonces.
  res.setHeader(
    "Content-Security-Policy",
    [
      "default-src 'self'",
      `script-src 'self' 'unsafe-inline'${dev ? " 'unsafe-eval'" : ""}`,
      "style-src 'self' 'unsafe-inline'",
      "img-src 'self' data:",
      "connect-src 'self' ws: wss:",
      "font-src 'self'",
      "object-src 'none'",
      "base-uri 'none'",
      "frame-ancestors 'none'",
      "form-action 'self'",
    ].join("; "),
  );
}

/**
 * The REST API lives in the custom server, next to the rooms it needs,
 * instead of in Next route handlers (which Next bundles separately and which
 * could only reach the live rooms through a global).
 * Returns false when the request is not for the API.
 */
export function createApiHandler(deps: ApiDeps) {
  const perMinute = deps.config.sessionCreateLimitPerMinute ?? 10;
  const creations = new KeyedLimiter({ capacity: perMinute, refillPerSecond: perMinute / 60 });
  const reads = new KeyedLimiter(RATE_LIMITS.reads);
  const hostNames = createHostNames();
  const { failedJoins } = deps;
  const access = deps.ownership?.access;
  const sessions = createSessionsReader(deps.store, deps.config.adminToken, retentionPolicy(deps.config), access);
  const origins = createOriginPolicy({ publicUrl: deps.config.publicUrl, trustProxy: deps.config.trustProxy ?? false });
  const { lessonWrites: writes, maxLessons, trustProxy } = deps.config;
  const lessons = deps.lessons ? createLessonsApi(deps.lessons, deps.config.adminToken, { writes, maxLessons, trustProxy }, access) : null;
  const assignments =
    deps.assignments && access
      ? createAssignmentsApi({
          store: deps.assignments,
          sessions: deps.store,
          lessons: deps.lessons,
          access,
          lessonFor: lessons ? (req, ref) => lessons.forSession(req, ref) : undefined,
          trustProxy: deps.config.trustProxy ?? false,
          // The address students open, as a room's join link has it (PUBLIC_URL, or this machine on the LAN).
          linkBase: async (req) => {
            const interfaces = os.networkInterfaces();
            return joinBase(req, deps.config, interfaces, await hostNames.nameFor(pickLanAddress(interfaces)?.address)).base;
          },
        })
      : null;
  // Lessons written (created or edited) per address: each is up to MAX_LESSON_BODY_BYTES on disk.
  const lessonWrites = new KeyedLimiter({ capacity: 30, refillPerSecond: 30 / 60 });

  return Object.assign(handleApi, { close: () => sessions.close() });

  async function handleApi(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (!url.pathname.startsWith("/api/")) return false;
    try {
      await route(req, res, url);
    } catch (err) {
      if (err instanceof AuthError) {
        // The account's calls (server/auth/ownershipRoutes.ts) say their refusals in the account API's words.
        if (err.status === 429) countRateLimited("http");
        if (err.allow) res.setHeader("Allow", err.allow.join(", "));
        const { code, message, field } = err;
        sendJson(res, err.status, { error: field ? { code, message, field } : { code, message } });
      } else if (err instanceof HttpError) {
        if (err.status === 429) countRateLimited("http");
        if (err.allow) res.setHeader("Allow", err.allow.join(", "));
        sendJson(res, err.status, { error: { code: err.code, message: err.message } });
      } else {
        log.error("api request failed", { path: url.pathname, error: toError(err).stack });
        sendJson(res, 500, { error: { code: "INTERNAL", message: ERROR_CODES.INTERNAL } });
      }
    }
    return true;
  }

  async function route(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const path = url.pathname.replace(/\/+$/, "");
    // State-changing requests only from our own pages: a browser on another site can send a "simple" POST
    // (text/plain, no preflight) with this server as target, so the Origin must be ours.
    if (req.method !== "GET" && req.method !== "HEAD" && !origins.originAllowed(req)) {
      throw new HttpError(403, "CROSS_ORIGIN", "Requests from other websites are not accepted.");
    }
    if (path === "/api/health") {
      if (req.method !== "GET" && req.method !== "HEAD") throw methodNotAllowed(["GET", "HEAD"]);
      return sendJson(res, 200, { ok: true, liveSessions: deps.rooms.liveCount });
    }
    if (deps.ownership && (await deps.ownership.routes.resource(req, res, path))) return;
    if (assignments && (await assignments(req, res, path, url))) return;
    const lessonPath = lessons && /^\/api\/lessons(?:\/([^/]+)(?:\/(mermaid))?)?$/.exec(path);
    if (lessons && lessonPath) {
      const address = clientAddress(req, deps.config.trustProxy);
      const [, id, sub] = lessonPath;
      const writing = req.method === "POST" || req.method === "PUT";
      if (!(writing ? lessonWrites : reads).take(address)) throw new HttpError(429, "RATE_LIMITED", "Too many requests. Wait a moment.");
      if (!id) {
        if (req.method === "GET") return sendJson(res, 200, await lessons.list(req));
        if (req.method === "POST") return sendJson(res, 201, await lessons.create(req, await readJsonBody(req, MAX_LESSON_BODY_BYTES)));
        throw methodNotAllowed(["GET", "POST"], "Use GET to list lessons or POST to create one.");
      }
      if (sub === "mermaid") {
        if (req.method !== "GET") throw methodNotAllowed(["GET"]);
        const file = await lessons.mermaid(req, id, url.searchParams.get("version"));
        res.statusCode = 200;
        res.setHeader("Content-Type", "text/plain; charset=utf-8");
        res.setHeader("Content-Disposition", `attachment; filename="${file.filename}"`);
        res.setHeader("Cache-Control", "no-store");
        res.end(file.body);
        return;
      }
      if (req.method === "GET") return sendJson(res, 200, await lessons.get(req, id, url.searchParams.get("version")));
      if (req.method === "PUT") return sendJson(res, 200, await lessons.update(req, id, await readJsonBody(req, MAX_LESSON_BODY_BYTES)));
      if (req.method === "DELETE") return sendJson(res, 200, await lessons.remove(req, id));
      throw methodNotAllowed(["GET", "PUT", "DELETE"], "Use GET, PUT or DELETE.");
    }
    if (path === "/api/sessions" && req.method === "GET") {
      if (!reads.take(clientAddress(req, deps.config.trustProxy)))
        throw new HttpError(429, "RATE_LIMITED", "Too many requests. Wait a moment.");
      return sendJson(res, 200, await sessions.list(req));
    }
    const sharePath = /^\/api\/sessions\/([^/]+)\/share$/.exec(path);
    if (sharePath) {
      if (!reads.take(clientAddress(req, deps.config.trustProxy)))
        throw new HttpError(429, "RATE_LIMITED", "Too many requests. Wait a moment.");
      if (req.method === "POST") {
        await readJsonBody(req);
        return sendJson(res, 200, await sessions.share(req, sharePath[1]));
      }
      if (req.method === "DELETE") return sendJson(res, 200, await sessions.unshare(req, sharePath[1]));
      throw methodNotAllowed(["POST", "DELETE"], "POST starts sharing the replay; DELETE stops it.");
    }
    const sessionPath = /^\/api\/sessions\/([^/]+)(?:\/(events|export))?$/.exec(path);
    if (sessionPath) {
      if (req.method !== "GET") throw methodNotAllowed(["GET"]);
      if (!reads.take(clientAddress(req, deps.config.trustProxy)))
        throw new HttpError(429, "RATE_LIMITED", "Too many requests. Wait a moment.");
      const [, id, sub] = sessionPath;
      if (!sub) return sendJson(res, 200, await sessions.get(req, id));
      if (sub === "events") return sendJsonText(res, 200, await sessions.events(req, id));
      const file = await sessions.export(req, id, url.searchParams.get("format"), url.searchParams.get("sheet"));
      res.statusCode = 200;
      res.setHeader("Content-Type", file.contentType);
      res.setHeader("Content-Disposition", `attachment; filename="${file.filename}"`);
      res.setHeader("Cache-Control", "no-store");
      res.end(file.body);
      return;
    }
    if (path === "/api/sessions") {
      if (req.method !== "POST") throw methodNotAllowed(["GET", "POST"], "Use GET to list sessions or POST to create one.");
      if (!creations.take(clientAddress(req, deps.config.trustProxy))) {
        throw new HttpError(429, "RATE_LIMITED", "Too many sessions created from this address. Wait a minute.");
      }
      const body = await readJsonBody(req);
      const parsed = createSessionBodySchema.safeParse(body ?? {});
      if (!parsed.success) {
        throw new HttpError(400, "BAD_REQUEST", `Invalid body: ${parsed.error.issues[0]?.message ?? "malformed"}`);
      }
      const lessonRef = parsed.data.lesson;
      if (lessonRef && !lessons) throw new HttpError(404, "NO_SUCH_LESSON", "This server keeps no lessons.");
      const lesson = lessonRef && lessons ? await lessons.forSession(req, lessonRef) : undefined;
      const title = cleanText(parsed.data.title ?? "", TITLE_MAX) || (lesson ? lesson.lesson.title.slice(0, TITLE_MAX) : "");
      const created = await deps.rooms.create(title, lesson, parsed.data.kubeVersion);
      // Started while signed in: the session is the account's, from any browser; the key still opens it here.
      const account = await access?.accountOf(req);
      if (account) await deps.store.setSessionOwner(created.id, account.id);
      return sendJson(res, 201, {
        id: created.id,
        code: created.code,
        title: created.title,
        hostKey: created.hostKey,
        createdAt: created.createdAt,
        hostPath: `/host/${created.code}#key=${created.hostKey}`,
      } satisfies CreatedSessionBody);
    }
    if (path === "/api/join-info") {
      if (req.method !== "GET" && req.method !== "HEAD") throw methodNotAllowed(["GET", "HEAD"]);
      const address = clientAddress(req, deps.config.trustProxy);
      // Over the failed-join allowance every answer is the same 429, so no answer tells a live code apart.
      if (!reads.take(address) || !failedJoins.peek(address)) throw new HttpError(429, "RATE_LIMITED", "Too many requests. Wait a moment.");
      const code = normalizeRoomCode(url.searchParams.get("code") ?? "");
      if (!isRoomCode(code)) throw new HttpError(400, "BAD_REQUEST", "Give a six-character room code.");
      // The store, not the rooms: answering a lookup must not load a room (in a cluster, on a node that does not own it).
      const record = await deps.store.findByCode(code);
      if (!record || record.endedAt !== null) {
        failedJoins.take(address);
        throw new HttpError(404, "NO_SUCH_SESSION", ERROR_CODES.NO_SUCH_SESSION);
      }
      const interfaces = os.networkInterfaces();
      const hostName = await hostNames.nameFor(pickLanAddress(interfaces)?.address);
      const { base, note } = joinBase(req, deps.config, interfaces, hostName);
      const joinUrl = `${base}/join/${code}`;
      const qrSvg = await QRCode.toString(joinUrl, { type: "svg", margin: 1, errorCorrectionLevel: "M" });
      return sendJson(res, 200, { code, joinUrl, qrSvg, note } satisfies JoinInfo);
    }
    throw new HttpError(404, "NOT_FOUND", "No such API endpoint.");
  }
}

/** What the saved-sessions lists say is kept, and for how long. */
export function retentionPolicy(config: ApiDeps["config"]): RetentionPolicy {
  return {
    endedSessionDays: config.retentionDays ?? null,
    idleEndMinutes: config.idleTimeoutMs !== undefined ? Math.round(config.idleTimeoutMs / 60_000) : null,
  };
}

/** The address students should open: PUBLIC_URL, or this machine's LAN address when the console is on localhost. */
export function joinBase(
  req: IncomingMessage,
  config: Pick<Config, "publicUrl" | "port"> & { trustProxy?: boolean },
  interfaces: ReturnType<typeof os.networkInterfaces> = os.networkInterfaces(),
  /** This machine's name where the classroom's browsers resolve it to the LAN address (./hostName.ts). */
  hostName: string | null = null,
): { base: string; note: JoinNote | null } {
  if (config.publicUrl) return { base: config.publicUrl, note: null };
  // X-Forwarded-Proto only from a proxy we trust; a Host that is not a host name falls back to this machine.
  const proto = requestScheme(req, config.trustProxy ?? false);
  const host = parseHost(req.headers.host)?.host ?? `localhost:${config.port}`;
  const { hostname, port } = new URL(`${proto}://${host}`);
  const local = hostname === "localhost" || hostname.startsWith("127.") || hostname === "[::1]" || hostname === "0.0.0.0";
  if (!local) return { base: `${proto}://${host}`, note: null };
  const lan = pickLanAddress(interfaces);
  const portPart = port ? `:${port}` : "";
  if (lan && hostName) {
    return { base: `${proto}://${hostName}${portPart}`, note: { code: "hostName", host: hostname, hostName, address: lan.address } };
  }
  if (lan) return { base: `${proto}://${lan.address}${portPart}`, note: { code: "lanAddress", host: hostname, address: lan.address } };
  return { base: `${proto}://${host}`, note: { code: "noNetwork" } };
}

/**
 * The address phones on the classroom network can reach. A Kubernetes
 * teacher's laptop has container and VM bridges (docker0, br-*, virbr*,
 * cni*, flannel*, veth*, kind/minikube) whose addresses no phone can reach;
 * skip those and prefer wired and Wi-Fi interfaces.
 */
export function pickLanAddress(interfaces: ReturnType<typeof os.networkInterfaces>): { address: string } | null {
  const virtual = /^(docker|br-|virbr|veth|cni|flannel|cali|vxlan|tun|tap|lo|utun|vmnet|vboxnet|zt|tailscale|wg)/i;
  const preferred = /^(en|eth|wl|wlan|wlp|wifi)/i;
  const candidates = Object.entries(interfaces)
    .filter(([name]) => !virtual.test(name))
    .flatMap(([name, list]) => (list ?? []).filter((i) => i.family === "IPv4" && !i.internal).map((i) => ({ name, address: i.address })));
  return candidates.find((c) => preferred.test(c.name)) ?? candidates[0] ?? null;
}
