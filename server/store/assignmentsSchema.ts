import type Database from "better-sqlite3";
import type { Assignment, AssignmentAnswer, AssignmentStudent } from "../../lib/course/types";
import { isRecord } from "../../lib/guards";
import { StoreError } from "./types";

/**
 * What both assignment stores share: the SQLite tables (versioned on their
 * own in `assignment_meta`, like the accounts' tables, so they never move the
 * sessions' `user_version`), the size bounds every write is held to, and the
 * readers that turn stored JSON back into typed records, failing loudly on a
 * damaged one instead of handing the API half a record.
 */
export const ASSIGNMENTS_SCHEMA_VERSION = 1;

/**
 * An assignment as stored, the teacher's lesson included. The API caps what it
 * accepts well below this; the store's own cap keeps one bad caller from
 * writing megabytes per row (a lesson body is at most MAX_LESSON_BODY_BYTES, about 200 KiB).
 */
export const MAX_ASSIGNMENT_JSON_BYTES = 1024 * 1024;
/** Ids, hashes, nicknames, addresses: every short string a student's row or answer holds. */
export const MAX_ASSIGNMENT_FIELD_CHARS = 256;

const SCHEMA_1 = `
  CREATE TABLE assignments (
    id TEXT PRIMARY KEY,
    owner_account_id TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    due_at INTEGER,
    closed_at INTEGER,
    body TEXT NOT NULL
  );
  CREATE INDEX assignments_owner ON assignments (owner_account_id, created_at);
  CREATE TABLE assignment_students (
    assignment_id TEXT NOT NULL,
    id TEXT NOT NULL,
    token_hash TEXT NOT NULL,
    address TEXT NOT NULL,
    nickname TEXT NOT NULL,
    started_at INTEGER NOT NULL,
    step_index INTEGER NOT NULL,
    furthest_step INTEGER NOT NULL,
    finished_at INTEGER,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (assignment_id, id),
    UNIQUE (assignment_id, token_hash)
  );
  CREATE INDEX assignment_students_address ON assignment_students (assignment_id, address);
  CREATE TABLE assignment_answers (
    assignment_id TEXT NOT NULL,
    student_id TEXT NOT NULL,
    poll_id TEXT NOT NULL,
    option_id TEXT NOT NULL,
    at INTEGER NOT NULL,
    PRIMARY KEY (assignment_id, student_id, poll_id)
  );
  CREATE INDEX assignment_answers_order ON assignment_answers (assignment_id, at);
`;

export function migrateAssignments(db: Database.Database): void {
  db.exec(`CREATE TABLE IF NOT EXISTS assignment_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
  // Read and migrate under one write lock: a second connection opening the file at once waits, then sees the result.
  db.transaction(() => {
    const row = db.prepare<[], { value: string }>(`SELECT value FROM assignment_meta WHERE key = 'schema'`).get();
    const version = row ? Number(row.value) : 0;
    if (version > ASSIGNMENTS_SCHEMA_VERSION) {
      throw new StoreError(
        `the assignments in the session database were written by a newer version of this server (assignments schema ${version}, ` +
          `this server knows ${ASSIGNMENTS_SCHEMA_VERSION}). Upgrade the server.`,
      );
    }
    if (version === ASSIGNMENTS_SCHEMA_VERSION) return;
    if (version < 1) db.exec(SCHEMA_1);
    db.prepare(`INSERT INTO assignment_meta (key, value) VALUES ('schema', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`).run(
      String(ASSIGNMENTS_SCHEMA_VERSION),
    );
  }).immediate();
}

function checkField(what: string, value: string): void {
  if (value.length > MAX_ASSIGNMENT_FIELD_CHARS) throw new StoreError(`${what} is longer than ${MAX_ASSIGNMENT_FIELD_CHARS} characters`);
}

/** The assignment's JSON as stored, once checked against the store's bounds. */
export function assignmentJson(a: Assignment): string {
  checkField("an assignment id", a.id);
  checkField("an account id", a.ownerAccountId);
  const json = JSON.stringify(a);
  if (Buffer.byteLength(json) > MAX_ASSIGNMENT_JSON_BYTES)
    throw new StoreError(`assignment ${a.id} is larger than ${MAX_ASSIGNMENT_JSON_BYTES} bytes`);
  return json;
}

export function checkStudent(s: AssignmentStudent): void {
  checkField("a student id", s.id);
  checkField("a token hash", s.tokenHash);
  checkField("a nickname", s.nickname);
  checkField("an address", s.address);
}

export function checkAnswer(a: AssignmentAnswer): void {
  checkField("a student id", a.studentId);
  checkField("a poll id", a.pollId);
  checkField("an option id", a.optionId);
}

/** A stored assignment, its mutable fields (kept apart from the body so a close is a small write) laid over it. */
export function storedAssignment(json: string, fields: Pick<Assignment, "id" | "ownerAccountId" | "createdAt" | "dueAt" | "closedAt">) {
  const body: unknown = JSON.parse(json);
  if (!isRecord(body) || typeof body.title !== "string" || !Array.isArray(body.polls) || !isRecord(body.source))
    throw new StoreError(`assignment ${fields.id} is damaged`);
  // This store wrote the body from a typed Assignment (assignmentJson); the checks above catch a damaged row, not a foreign one.
  // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion
  const assignment = body as unknown as Assignment;
  return { ...assignment, ...fields };
}

const num = (r: Record<string, unknown>, key: string, id: string): number => {
  const v = r[key];
  if (typeof v !== "number") throw new StoreError(`assignment record ${id}: ${key} is not a number`);
  return v;
};
const str = (r: Record<string, unknown>, key: string, id: string): string => {
  const v = r[key];
  if (typeof v !== "string") throw new StoreError(`assignment record ${id}: ${key} is not a string`);
  return v;
};
const record = (json: string, id: string): Record<string, unknown> => {
  const v: unknown = JSON.parse(json);
  if (!isRecord(v)) throw new StoreError(`assignment record ${id} is damaged`);
  return v;
};

/** A student as the Redis store keeps one: who they are (written once) and their progress (rewritten as they move). */
export function storedStudent(who: string, progress: string | undefined, id: string): AssignmentStudent {
  const w = record(who, id);
  const p = progress === undefined ? w : record(progress, id);
  return {
    id: str(w, "id", id),
    assignmentId: str(w, "assignmentId", id),
    tokenHash: str(w, "tokenHash", id),
    nickname: str(w, "nickname", id),
    address: str(w, "address", id),
    startedAt: num(w, "startedAt", id),
    stepIndex: num(p, "stepIndex", id),
    furthestStep: num(p, "furthestStep", id),
    finishedAt: p.finishedAt === null ? null : num(p, "finishedAt", id),
    updatedAt: num(p, "updatedAt", id),
  };
}

export function storedAnswer(json: string, id: string): AssignmentAnswer {
  const r = record(json, id);
  return {
    assignmentId: str(r, "assignmentId", id),
    studentId: str(r, "studentId", id),
    pollId: str(r, "pollId", id),
    optionId: str(r, "optionId", id),
    at: num(r, "at", id),
  };
}
