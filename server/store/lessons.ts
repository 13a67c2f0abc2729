import Database from "better-sqlite3";
import type { CustomLesson } from "../../lib/lesson/model";
import type { LessonSummary } from "../../lib/protocol/rest";
import { asString, asStrings, type RedisClient } from "./redisClient";
import { StoreError } from "./types";
import { customLessonSchema } from "../../lib/lesson/customSchema";
import { isRecord } from "../../lib/guards";

/**
 * Teachers' lessons, behind one small interface: SQLite on one machine (its
 * own tables in the session database file, so a backup of the file keeps
 * them), Redis in scale-out mode. A lesson is a list of immutable versions:
 * an edit adds one, and a session records the version it ran (in its
 * `session:created` event, content included), so deleting a lesson hides it
 * from lists and edits but never breaks a replay.
 */

export interface LessonVersion {
  id: string;
  version: number;
  lesson: CustomLesson;
  /** The Mermaid text the teacher wrote, exported verbatim. */
  source: string;
  createdAt: number;
}

export interface LessonMeta {
  id: string;
  /** sha256 of the lesson key the creating browser holds; the key itself is never stored. */
  ownerKeyHash: string;
  latestVersion: number;
  createdAt: number;
  updatedAt: number;
  deletedAt: number | null;
}

export interface LessonStore {
  /** A new lesson with its first version. */
  create(meta: { id: string; ownerKeyHash: string; at: number }, lesson: CustomLesson, source: string): Promise<void>;
  /** Adds the next version; resolves with its number. */
  addVersion(id: string, lesson: CustomLesson, source: string, at: number): Promise<number>;
  meta(id: string): Promise<LessonMeta | null>;
  /** One version (the latest when `version` is absent), deleted lessons included. */
  version(id: string, version?: number): Promise<LessonVersion | null>;
  /** Lessons not deleted: those owned by one of `ownerKeyHashes`, or all of them (null). */
  list(ownerKeyHashes: readonly string[] | null): Promise<LessonSummary[]>;
  /** Hides the lesson from lists and refuses edits; its versions stay for the sessions that ran them. */
  markDeleted(id: string, at: number): Promise<void>;
  /** How many lessons exist (deleted included), for the per-server cap. */
  count(): Promise<number>;
  close(): Promise<void>;
}

/** A stored lesson, checked again with the same schema that admitted it: a damaged row fails here, loudly. */
function storedLesson(json: string, id: string): CustomLesson {
  const parsed = customLessonSchema.safeParse(JSON.parse(json));
  if (!parsed.success) throw new StoreError(`lesson ${id}: a stored version is not a valid lesson`);
  return parsed.data;
}

function summary(meta: LessonMeta, latest: LessonVersion): LessonSummary {
  return {
    id: meta.id,
    version: meta.latestVersion,
    title: latest.lesson.title,
    lifelineCount: latest.lesson.lifelines.length,
    stepCount: latest.lesson.steps.length,
    createdAt: meta.createdAt,
    updatedAt: meta.updatedAt,
  };
}

// ---------------------------------------------------------------------------

interface MetaRow {
  id: string;
  owner_key_hash: string;
  latest_version: number;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
}

const toMeta = (r: MetaRow): LessonMeta => ({
  id: r.id,
  ownerKeyHash: r.owner_key_hash,
  latestVersion: r.latest_version,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  deletedAt: r.deleted_at,
});

export class SqliteLessonStore implements LessonStore {
  private readonly db: Database.Database;
  private readonly stmts;

  /** Its own connection to the sessions file (WAL lets both write); the session store's schema is left alone. */
  constructor(file: string) {
    this.db = new Database(file);
    this.db.pragma("journal_mode = WAL");
    this.db.pragma("synchronous = NORMAL");
    this.db.pragma("busy_timeout = 5000");
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS lessons (
        id TEXT PRIMARY KEY,
        owner_key_hash TEXT NOT NULL,
        latest_version INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        deleted_at INTEGER
      );
      CREATE INDEX IF NOT EXISTS lessons_owner ON lessons (owner_key_hash);
      CREATE TABLE IF NOT EXISTS lesson_versions (
        lesson_id TEXT NOT NULL REFERENCES lessons (id),
        version INTEGER NOT NULL,
        body TEXT NOT NULL,
        source TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (lesson_id, version)
      );
    `);
    this.stmts = {
      insertLesson: this.db.prepare(
        `INSERT INTO lessons (id, owner_key_hash, latest_version, created_at, updated_at, deleted_at) VALUES (?, ?, 1, ?, ?, NULL)`,
      ),
      insertVersion: this.db.prepare(`INSERT INTO lesson_versions (lesson_id, version, body, source, created_at) VALUES (?, ?, ?, ?, ?)`),
      bump: this.db.prepare(`UPDATE lessons SET latest_version = latest_version + 1, updated_at = ? WHERE id = ? AND deleted_at IS NULL`),
      meta: this.db.prepare<[string], MetaRow>(`SELECT * FROM lessons WHERE id = ?`),
      version: this.db.prepare<[string, number], { body: string; source: string; created_at: number }>(
        `SELECT body, source, created_at FROM lesson_versions WHERE lesson_id = ? AND version = ?`,
      ),
      all: this.db.prepare<[], MetaRow>(`SELECT * FROM lessons WHERE deleted_at IS NULL ORDER BY updated_at DESC`),
      markDeleted: this.db.prepare(`UPDATE lessons SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL`),
      count: this.db.prepare<[], { n: number }>(`SELECT COUNT(*) AS n FROM lessons`),
    };
  }

  async create(meta: { id: string; ownerKeyHash: string; at: number }, lesson: CustomLesson, source: string): Promise<void> {
    this.db.transaction(() => {
      this.stmts.insertLesson.run(meta.id, meta.ownerKeyHash, meta.at, meta.at);
      this.stmts.insertVersion.run(meta.id, 1, JSON.stringify(lesson), source, meta.at);
    })();
  }

  async addVersion(id: string, lesson: CustomLesson, source: string, at: number): Promise<number> {
    return this.db.transaction(() => {
      if (this.stmts.bump.run(at, id).changes !== 1) throw new StoreError(`lesson ${id} does not exist`);
      const version = this.stmts.meta.get(id)!.latest_version;
      this.stmts.insertVersion.run(id, version, JSON.stringify(lesson), source, at);
      return version;
    })();
  }

  async meta(id: string): Promise<LessonMeta | null> {
    const row = this.stmts.meta.get(id);
    return row ? toMeta(row) : null;
  }

  async version(id: string, version?: number): Promise<LessonVersion | null> {
    const meta = this.stmts.meta.get(id);
    if (!meta) return null;
    const v = version ?? meta.latest_version;
    const row = this.stmts.version.get(id, v);
    if (!row) return null;
    return { id, version: v, lesson: storedLesson(row.body, id), source: row.source, createdAt: row.created_at };
  }

  async list(ownerKeyHashes: readonly string[] | null): Promise<LessonSummary[]> {
    const owners = ownerKeyHashes ? new Set(ownerKeyHashes) : null;
    const out: LessonSummary[] = [];
    for (const row of this.stmts.all.all()) {
      if (owners && !owners.has(row.owner_key_hash)) continue;
      const latest = await this.version(row.id);
      if (latest) out.push(summary(toMeta(row), latest));
    }
    return out;
  }

  async markDeleted(id: string, at: number): Promise<void> {
    this.stmts.markDeleted.run(at, id);
  }

  async count(): Promise<number> {
    return this.stmts.count.get()!.n;
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}

// ---------------------------------------------------------------------------

/**
 * Redis keys: `lesson:{id}` a hash (owner, latest, times), `lesson:{id}:v:{n}`
 * a JSON string per version, and the set `lessons` of every id. Versions are
 * numbered with HINCRBY, so two edits arriving at two nodes get two numbers.
 */
export class RedisLessonStore implements LessonStore {
  constructor(private readonly client: RedisClient) {}

  private cmd(...args: (string | number)[]): Promise<unknown> {
    return this.client.sendCommand(args.map(String));
  }

  async create(meta: { id: string; ownerKeyHash: string; at: number }, lesson: CustomLesson, source: string): Promise<void> {
    const version: LessonVersion = { id: meta.id, version: 1, lesson, source, createdAt: meta.at };
    await this.cmd("SET", `lesson:${meta.id}:v:1`, JSON.stringify(version));
    await this.cmd("HSET", `lesson:${meta.id}`, "owner", meta.ownerKeyHash, "latest", 1, "createdAt", meta.at, "updatedAt", meta.at);
    await this.cmd("SADD", "lessons", meta.id);
  }

  async addVersion(id: string, lesson: CustomLesson, source: string, at: number): Promise<number> {
    const meta = await this.meta(id);
    if (!meta || meta.deletedAt !== null) throw new StoreError(`lesson ${id} does not exist`);
    const n = Number(await this.cmd("HINCRBY", `lesson:${id}`, "latest", 1));
    const version: LessonVersion = { id, version: n, lesson, source, createdAt: at };
    await this.cmd("SET", `lesson:${id}:v:${n}`, JSON.stringify(version));
    await this.cmd("HSET", `lesson:${id}`, "updatedAt", at);
    return n;
  }

  async meta(id: string): Promise<LessonMeta | null> {
    const flat = asStrings(await this.cmd("HGETALL", `lesson:${id}`));
    if (flat.length === 0) return null;
    const h: Record<string, string> = {};
    for (let i = 0; i < flat.length; i += 2) h[flat[i]] = flat[i + 1];
    return {
      id,
      ownerKeyHash: h.owner ?? "",
      latestVersion: Number(h.latest),
      createdAt: Number(h.createdAt),
      updatedAt: Number(h.updatedAt),
      deletedAt: h.deletedAt ? Number(h.deletedAt) : null,
    };
  }

  async version(id: string, version?: number): Promise<LessonVersion | null> {
    const v = version ?? (await this.meta(id))?.latestVersion;
    if (!v) return null;
    const json = asString(await this.cmd("GET", `lesson:${id}:v:${v}`));
    if (!json) return null;
    const stored: unknown = JSON.parse(json);
    if (!isRecord(stored) || typeof stored.source !== "string" || typeof stored.createdAt !== "number")
      throw new StoreError(`lesson ${id} version ${v} is damaged`);
    return { id, version: v, lesson: storedLesson(JSON.stringify(stored.lesson), id), source: stored.source, createdAt: stored.createdAt };
  }

  async list(ownerKeyHashes: readonly string[] | null): Promise<LessonSummary[]> {
    const owners = ownerKeyHashes ? new Set(ownerKeyHashes) : null;
    const out: LessonSummary[] = [];
    for (const id of asStrings(await this.cmd("SMEMBERS", "lessons"))) {
      const meta = await this.meta(id);
      if (!meta || meta.deletedAt !== null || (owners && !owners.has(meta.ownerKeyHash))) continue;
      const latest = await this.version(id);
      if (latest) out.push(summary(meta, latest));
    }
    return out.sort((a, b) => b.updatedAt - a.updatedAt);
  }

  async markDeleted(id: string, at: number): Promise<void> {
    await this.cmd("HSETNX", `lesson:${id}`, "deletedAt", at);
  }

  async count(): Promise<number> {
    return Number(await this.cmd("SCARD", "lessons"));
  }

  async close(): Promise<void> {
    // The client belongs to the session store, which closes it.
  }
}
