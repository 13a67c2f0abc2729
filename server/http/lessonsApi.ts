import type { IncomingMessage } from "node:http";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { lessonBodySchema, lessonIssue } from "../../lib/lesson/customSchema";
import type { SessionLesson } from "../../lib/lesson/model";
import {
  MAX_LESSON_KEYS_PER_REQUEST,
  MAX_LESSONS_PER_SERVER,
  type CreatedLesson,
  type LessonDetail,
  type LessonList,
} from "../../lib/protocol/rest";
import { hashSecret, newSecret, secretMatches } from "../secrets";
import type { LessonMeta, LessonStore } from "../store/lessons";
import type { Account } from "../store/accounts";
import type { Relation } from "../../lib/account/ownership";
import type { LessonWrites } from "../config";
import { KeyedLimiter, addressOf } from "../edge/rateLimit";
import { isAdmin } from "./sessionsApi";
import { HttpError } from "./httpError";

/**
 * Teachers' lessons over REST, with the access model of saved sessions: the
 * browser that created a lesson holds its lesson key (X-Lesson-Keys to list,
 * X-Lesson-Key for one lesson) and the admin token sees and deletes all. A
 * signed-in teacher's account opens the lessons it owns (saved while signed
 * in, or claimed with their key) and those it was invited to edit; the
 * administrator's account opens all (server/auth/ownership.ts). The lesson id
 * alone reads nothing. The server never runs Mermaid: it checks the
 * parsed lesson with zod (counts, text limits, every message between declared
 * participants) and stores the Mermaid text beside it only to hand it back.
 */

/**
 * New lessons one address may create while LESSON_WRITES is "limited": 10 at
 * once, then one every 6 minutes. A teacher writes a few a day (an edit is
 * not a new lesson); a school's teachers share an address. Without it one
 * laptop with a few hundred addresses filled the server's cap in 12 s.
 */
export const LESSON_CREATIONS_PER_ADDRESS = { capacity: 10, refillPerSecond: 1 / 360 };

export interface LessonsApiOptions {
  /** LESSON_WRITES: who may create and edit lessons without the admin token ("limited" when absent). */
  writes?: LessonWrites;
  /** MAX_LESSONS: lessons the server holds (MAX_LESSONS_PER_SERVER when absent). */
  maxLessons?: number;
  /** TRUST_PROXY: per-address limits use the last X-Forwarded-For entry. */
  trustProxy?: boolean;
  now?: () => number;
}

const lessonIdSchema = z.uuid();
const versionSchema = z.coerce.number().int().min(1).max(1_000_000);

export function lessonKeysOf(req: IncomingMessage): string[] {
  const raw = req.headers["x-lesson-keys"] ?? req.headers["x-lesson-key"] ?? "";
  const keys = (Array.isArray(raw) ? raw.join(",") : raw)
    .split(",")
    .map((k) => k.trim())
    .filter((k) => k.length > 0 && k.length <= 128);
  if (keys.length > MAX_LESSON_KEYS_PER_REQUEST)
    throw new HttpError(400, "BAD_REQUEST", `Send at most ${MAX_LESSON_KEYS_PER_REQUEST} lesson keys.`);
  return keys;
}

function parseLessonBody(body: unknown) {
  const parsed = lessonBodySchema.safeParse(body);
  if (!parsed.success) throw new HttpError(400, "BAD_LESSON", `The lesson is not valid: ${lessonIssue(parsed.error)}`);
  return parsed.data;
}

/** How a request's signed-in account stands to a lesson (server/auth/ownership.ts). */
export interface LessonAccountAccess {
  accountOf(req: IncomingMessage): Promise<Account | null>;
  lessonAccess(req: IncomingMessage, meta: LessonMeta): Promise<{ account: Account | null; relation: Relation | null }>;
}

/** Why a request may use a lesson: the admin token, its key, or the account's relation to it. */
type Holder = "token" | "key" | Relation;

export function createLessonsApi(
  store: LessonStore,
  adminToken: string | null,
  options: LessonsApiOptions = {},
  accounts?: LessonAccountAccess,
) {
  const { writes = "limited", maxLessons = MAX_LESSONS_PER_SERVER, trustProxy = false, now = Date.now } = options;
  const creations = new KeyedLimiter(LESSON_CREATIONS_PER_ADDRESS);
  const noSuchLesson = () => new HttpError(404, "NO_SUCH_LESSON", "There is no lesson with that id.");

  /**
   * With LESSON_WRITES=off only the admin (the token, or the administrator's account) writes (every lesson
   * already written can still be run, read and deleted).
   */
  async function mayWrite(req: IncomingMessage): Promise<void> {
    if (writes !== "off" || isAdmin(req, adminToken) || (await accounts?.accountOf(req))?.admin) return;
    throw new HttpError(403, "NO_ACCESS", "Writing lessons is turned off on this server. Ask the admin to write or change one.");
  }

  /** The lesson's record and why this request may use it; deleted lessons are gone for edits and reads. */
  async function holding(req: IncomingMessage, id: string): Promise<{ meta: LessonMeta; holder: Holder }> {
    if (!lessonIdSchema.safeParse(id).success) throw noSuchLesson();
    const meta = await store.meta(id);
    if (!meta || meta.deletedAt !== null) throw noSuchLesson();
    if (isAdmin(req, adminToken)) return { meta, holder: "token" };
    if (lessonKeysOf(req).some((k) => secretMatches(k, meta.ownerKeyHash))) return { meta, holder: "key" };
    const relation = (await accounts?.lessonAccess(req, meta))?.relation;
    if (relation) return { meta, holder: relation };
    throw new HttpError(
      403,
      "NO_ACCESS",
      "This lesson belongs to another browser: open it where it was written, or sign in as its teacher.",
    );
  }

  async function owned(req: IncomingMessage, id: string): Promise<LessonMeta> {
    return (await holding(req, id)).meta;
  }

  async function versionOf(id: string, versionParam: string | null) {
    let version: number | undefined;
    if (versionParam !== null) {
      const v = versionSchema.safeParse(versionParam);
      if (!v.success) throw new HttpError(400, "BAD_REQUEST", "version must be a positive whole number.");
      version = v.data;
    }
    const found = await store.version(id, version);
    if (!found) throw new HttpError(404, "NO_SUCH_LESSON", "That lesson has no such version.");
    return found;
  }

  return {
    async list(req: IncomingMessage): Promise<LessonList> {
      if (isAdmin(req, adminToken)) return { scope: "admin", lessons: await store.list(null) };
      return { scope: "owner", lessons: await store.list(lessonKeysOf(req).map(hashSecret)) };
    },

    async create(req: IncomingMessage, body: unknown): Promise<CreatedLesson> {
      await mayWrite(req);
      const { lesson, source } = parseLessonBody(body);
      if ((await store.count()) >= maxLessons)
        throw new HttpError(507, "LESSONS_FULL", "This server holds as many lessons as it allows. Ask the admin to remove some.");
      // Spent only by a lesson that would be stored: a refused one (invalid, or the server full) costs nothing.
      if (
        writes === "limited" &&
        !isAdmin(req, adminToken) &&
        !creations.take(addressOf(req.socket.remoteAddress, req.headers["x-forwarded-for"], trustProxy))
      )
        throw new HttpError(
          429,
          "RATE_LIMITED",
          "This network has created as many lessons as it may for now. Edit one, or try again later.",
        );
      const id = randomUUID();
      const lessonKey = newSecret();
      // Saved while signed in: the lesson is the account's, from any browser; the key still opens it here.
      const ownerAccountId = (await accounts?.accountOf(req))?.id ?? null;
      await store.create({ id, ownerKeyHash: hashSecret(lessonKey), at: now(), ownerAccountId }, lesson, source);
      return { id, version: 1, lessonKey };
    },

    /** An edit: a new version; sessions that ran the old one keep it. */
    async update(req: IncomingMessage, id: string, body: unknown): Promise<{ id: string; version: number }> {
      await mayWrite(req);
      await owned(req, id);
      const { lesson, source } = parseLessonBody(body);
      return { id, version: await store.addVersion(id, lesson, source, now()) };
    },

    async get(req: IncomingMessage, id: string, versionParam: string | null): Promise<LessonDetail> {
      const meta = await owned(req, id);
      const v = await versionOf(id, versionParam);
      return {
        id,
        version: v.version,
        latestVersion: meta.latestVersion,
        lesson: v.lesson,
        source: v.source,
        createdAt: meta.createdAt,
        updatedAt: meta.updatedAt,
      };
    },

    /** The Mermaid text, exactly as written. */
    async mermaid(req: IncomingMessage, id: string, versionParam: string | null): Promise<{ filename: string; body: string }> {
      await owned(req, id);
      const v = await versionOf(id, versionParam);
      const slug =
        v.lesson.title
          .toLowerCase()
          .replace(/[^a-z0-9]+/g, "-")
          .replace(/^-|-$/g, "")
          .slice(0, 40) || "lesson";
      return { filename: `${slug}-v${v.version}.mmd`, body: v.source };
    },

    /** Gone with every version, its place under the cap freed; sessions that ran it keep their own copy. */
    async remove(req: IncomingMessage, id: string): Promise<{ deleted: true }> {
      // A co-teacher edits, starts and exports the lesson; deleting it is its owner's (or the admin's).
      if ((await holding(req, id)).holder === "coteacher")
        throw new HttpError(403, "NO_ACCESS", "Only the teacher who owns this lesson can delete it.");
      await store.remove(id);
      return { deleted: true };
    },

    /** The version a new session runs: the caller must hold the lesson (or be the admin). */
    async forSession(req: IncomingMessage, ref: { id: string; version?: number }): Promise<SessionLesson> {
      await owned(req, ref.id);
      const v = await versionOf(ref.id, ref.version === undefined ? null : String(ref.version));
      // Kept while later edits prune older versions: the teacher may start another class from it.
      await store.markUsed(ref.id, v.version);
      return { id: ref.id, version: v.version, lesson: v.lesson };
    },
  };
}
