import Database from "better-sqlite3";
import type { CustomLesson } from "../../lib/lesson/model";
import type { LessonSummary } from "../../lib/protocol/rest";
import { StoreError } from "./types";
import { customLessonSchema } from "../../lib/lesson/customSchema";
import { SqliteLessonAccess, type AccountLessons } from "./lessonsAccess";

export type { AccountLessons };

/**
 * Teachers' lessons, behind one small interface: SQLite on one machine (its
 * own tables in the session database file, so a backup of the file keeps
 * them), Redis in scale-out mode. A lesson is a list of immutable versions:
 * an edit adds one, and a session records the version it ran (in its
 * `session:created` event, content included), so neither pruning old
 * versions nor deleting a lesson ever breaks a session, its replay or its exports.
 *
 * Bounded per lesson: an edit is a new version, and edits are free to anyone
 * holding the key, so a lesson keeps its newest LESSON_VERSIONS_KEPT versions
 * and, beside them, the versions a session ran (a teacher may start another
 * class from one), up to MAX_LESSON_VERSIONS_HELD in all; older ones are
 * removed as each edit lands. (An outside review grew the file by about 11 GB
 * a day with 30 edits a minute from one address when every version was kept.)
 */

/** The newest versions a lesson keeps, whether a session ran them or not (the latest always among them). */
export const LESSON_VERSIONS_KEPT = 10;
/** Versions a lesson holds at most, those sessions ran included: past it, the oldest go (each session keeps its own copy). */
export const MAX_LESSON_VERSIONS_HELD = 30;

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
  /** sha256 of the lesson key the creating browser holds (until the owner rotates it); the key itself is never stored. */
  ownerKeyHash: string;
  /** The teacher's account the lesson belongs to; null: only its lesson key opens it. */
  ownerAccountId: string | null;
  latestVersion: number;
  createdAt: number;
  updatedAt: number;
  deletedAt: number | null;
}

/** What a new lesson starts as: its key's hash, when, and the signed-in teacher who saved it (if any). */
export interface NewLessonMeta {
  id: string;
  ownerKeyHash: string;
  at: number;
  ownerAccountId?: string | null;
}

export interface LessonStore {
  /** A new lesson with its first version. */
  create(meta: NewLessonMeta, lesson: CustomLesson, source: string): Promise<void>;
  /** Adds the next version; resolves with its number. */
  addVersion(id: string, lesson: CustomLesson, source: string, at: number): Promise<number>;
  meta(id: string): Promise<LessonMeta | null>;
  /** One version (the latest when `version` is absent), deleted lessons included. */
  version(id: string, version?: number): Promise<LessonVersion | null>;
  /** Lessons not deleted: those owned by one of `ownerKeyHashes` or named in `ids`, or all of them (null). */
  list(ownerKeyHashes: readonly string[] | null, ids?: readonly string[]): Promise<LessonSummary[]>;
  /**
   * Hides the lesson from lists and refuses edits, keeping its versions: how
   * earlier servers deleted. The API now deletes with `remove`; a lesson hidden
   * this way still counts until the store removes it (SQLite, when it next opens).
   */
  markDeleted(id: string, at: number): Promise<void>;
  /** Deletes the lesson and every version, freeing its place under the server's cap (sessions keep their own copy). */
  remove(id: string): Promise<void>;
  /** A session ran this version: pruning keeps it (up to MAX_LESSON_VERSIONS_HELD). */
  markUsed(id: string, version: number): Promise<void>;
  /** How many lessons exist (hidden ones included), for the per-server cap. */
  count(): Promise<number>;
  /** Gives an unowned lesson to the account; true when the account owns it afterwards (it did, or it took it). */
  claimLesson(id: string, accountId: string): Promise<boolean>;
  /** Sets (or, with null, clears) the owner, whoever it was: handing a lesson over. */
  setLessonOwner(id: string, accountId: string | null): Promise<void>;
  /** A new lesson key (its hash): the key browsers held before opens nothing from now on. */
  setLessonKey(id: string, ownerKeyHash: string): Promise<void>;
  /** Invites the account to edit the lesson (again: nothing changes); `at` orders the list. */
  addLessonCoteacher(id: string, accountId: string, at: number): Promise<void>;
  /** False when the account was not a co-teacher of the lesson. */
  removeLessonCoteacher(id: string, accountId: string): Promise<boolean>;
  lessonCoteachers(id: string): Promise<string[]>;
  lessonsOfAccount(accountId: string): Promise<AccountLessons>;
  close(): Promise<void>;
}

/** A stored lesson, checked again with the same schema that admitted it: a damaged row fails here, loudly. */
export function storedLesson(json: string, id: string): CustomLesson {
  const parsed = customLessonSchema.safeParse(JSON.parse(json));
  if (!parsed.success) throw new StoreError(`lesson ${id}: a stored version is not a valid lesson`);
  return parsed.data;
}

export function summary(meta: LessonMeta, latest: LessonVersion): LessonSummary {
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
  owner_account_id: string | null;
  latest_version: number;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
}

const toMeta = (r: MetaRow): LessonMeta => ({
  id: r.id,
  ownerKeyHash: r.owner_key_hash,
  ownerAccountId: r.owner_account_id ?? null,
  latestVersion: r.latest_version,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  deletedAt: r.deleted_at,
});

export class SqliteLessonStore implements LessonStore {
  private readonly db: Database.Database;
  private readonly stmts;
  /** Owners and co-teachers (./lessonsAccess.ts). */
  private readonly access: SqliteLessonAccess;

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
        used INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (lesson_id, version)
      );
    `);
    const columns = this.db.prepare<[], { name: string }>(`PRAGMA table_info(lesson_versions)`).all();
    // A file from before versions were pruned: nobody recorded which versions sessions ran, so every one of them counts as run.
    if (!columns.some((c) => c.name === "used")) this.db.exec(`ALTER TABLE lesson_versions ADD COLUMN used INTEGER NOT NULL DEFAULT 1`);
    this.access = new SqliteLessonAccess(this.db);
    // Lessons an earlier server hid when deleting them: nothing reads their versions (sessions keep their own copy), and they
    // held places under the server's cap.
    this.db.exec(`
      DELETE FROM lesson_versions WHERE lesson_id IN (SELECT id FROM lessons WHERE deleted_at IS NOT NULL);
      DELETE FROM lessons WHERE deleted_at IS NOT NULL;
    `);
    this.stmts = {
      insertLesson: this.db.prepare(
        `INSERT INTO lessons (id, owner_key_hash, latest_version, created_at, updated_at, deleted_at, owner_account_id)
         VALUES (?, ?, 1, ?, ?, NULL, ?)`,
      ),
      insertVersion: this.db.prepare(
        `INSERT INTO lesson_versions (lesson_id, version, body, source, created_at, used) VALUES (?, ?, ?, ?, ?, 0)`,
      ),
      // Out of the newest LESSON_VERSIONS_KEPT, and no session ran it.
      pruneUnused: this.db.prepare(`DELETE FROM lesson_versions WHERE lesson_id = ? AND version <= ? AND used = 0`),
      held: this.db.prepare<[string], { n: number }>(`SELECT COUNT(*) AS n FROM lesson_versions WHERE lesson_id = ?`),
      pruneOldest: this.db.prepare(
        `DELETE FROM lesson_versions WHERE lesson_id = ? AND version IN (SELECT version FROM lesson_versions WHERE lesson_id = ? ORDER BY version LIMIT ?)`,
      ),
      markUsed: this.db.prepare(`UPDATE lesson_versions SET used = 1 WHERE lesson_id = ? AND version = ?`),
      removeVersions: this.db.prepare(`DELETE FROM lesson_versions WHERE lesson_id = ?`),
      removeLesson: this.db.prepare(`DELETE FROM lessons WHERE id = ?`),
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

  async create(meta: NewLessonMeta, lesson: CustomLesson, source: string): Promise<void> {
    this.db.transaction(() => {
      this.stmts.insertLesson.run(meta.id, meta.ownerKeyHash, meta.at, meta.at, meta.ownerAccountId ?? null);
      this.stmts.insertVersion.run(meta.id, 1, JSON.stringify(lesson), source, meta.at);
    })();
  }

  async addVersion(id: string, lesson: CustomLesson, source: string, at: number): Promise<number> {
    return this.db.transaction(() => {
      if (this.stmts.bump.run(at, id).changes !== 1) throw new StoreError(`lesson ${id} does not exist`);
      const version = this.stmts.meta.get(id)!.latest_version;
      this.stmts.insertVersion.run(id, version, JSON.stringify(lesson), source, at);
      this.stmts.pruneUnused.run(id, version - LESSON_VERSIONS_KEPT);
      const over = this.stmts.held.get(id)!.n - MAX_LESSON_VERSIONS_HELD;
      if (over > 0) this.stmts.pruneOldest.run(id, id, over);
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

  async list(ownerKeyHashes: readonly string[] | null, ids: readonly string[] = []): Promise<LessonSummary[]> {
    const owners = ownerKeyHashes ? new Set(ownerKeyHashes) : null;
    const named = new Set(ids);
    const out: LessonSummary[] = [];
    for (const row of this.stmts.all.all()) {
      if (owners && !owners.has(row.owner_key_hash) && !named.has(row.id)) continue;
      const latest = await this.version(row.id);
      if (latest) out.push(summary(toMeta(row), latest));
    }
    return out;
  }

  async markDeleted(id: string, at: number): Promise<void> {
    this.stmts.markDeleted.run(at, id);
  }

  async remove(id: string): Promise<void> {
    this.db.transaction(() => {
      this.access.deleteRowsOf(id);
      this.stmts.removeVersions.run(id);
      this.stmts.removeLesson.run(id);
    })();
  }

  async markUsed(id: string, version: number): Promise<void> {
    this.stmts.markUsed.run(id, version);
  }

  async count(): Promise<number> {
    return this.stmts.count.get()!.n;
  }

  async claimLesson(id: string, accountId: string): Promise<boolean> {
    return this.access.claim(id, accountId);
  }

  async setLessonOwner(id: string, accountId: string | null): Promise<void> {
    this.access.setOwner(id, accountId);
  }

  async setLessonKey(id: string, ownerKeyHash: string): Promise<void> {
    this.access.setKey(id, ownerKeyHash);
  }

  async addLessonCoteacher(id: string, accountId: string, at: number): Promise<void> {
    this.access.addCoteacher(id, accountId, at);
  }

  async removeLessonCoteacher(id: string, accountId: string): Promise<boolean> {
    return this.access.removeCoteacher(id, accountId);
  }

  async lessonCoteachers(id: string): Promise<string[]> {
    return this.access.coteachers(id);
  }

  async lessonsOfAccount(accountId: string): Promise<AccountLessons> {
    return this.access.lessonsOf(accountId);
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
