import type Database from "better-sqlite3";
import { StoreError } from "./types";
import { addEvent, emptyDelta, type SummaryDelta } from "./summary";
import { consoleIdOf } from "./consoles";

/** The schema version this code writes; a database from a newer version is refused. */
export const SQLITE_SCHEMA_VERSION = 4;

/**
 * Brings a session database up to SQLITE_SCHEMA_VERSION, one step per
 * version, and refuses one written by a newer server: its rows may mean
 * something this code does not know, and reading them as nothing would show
 * teachers an empty list.
 */
export function migrate(db: Database.Database): void {
  const version = Number(db.pragma("user_version", { simple: true }));
  if (version > SQLITE_SCHEMA_VERSION) {
    throw new StoreError(
      `the session database was written by a newer version of this server (schema ${version}, this server knows ${SQLITE_SCHEMA_VERSION}). Upgrade the server.`,
    );
  }
  if (version === SQLITE_SCHEMA_VERSION) return;
  if (version < 1)
    db.exec(`
      CREATE TABLE IF NOT EXISTS sessions (
        id TEXT PRIMARY KEY,
        code TEXT NOT NULL,
        title TEXT NOT NULL,
        host_key_hash TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        ended_at INTEGER,
        last_event_at INTEGER NOT NULL,
        peak_participants INTEGER NOT NULL DEFAULT 0
      );
      CREATE INDEX IF NOT EXISTS sessions_code ON sessions (code);
      CREATE INDEX IF NOT EXISTS sessions_host_key ON sessions (host_key_hash);
      CREATE TABLE IF NOT EXISTS events (
        session_id TEXT NOT NULL REFERENCES sessions (id),
        seq INTEGER NOT NULL,
        at INTEGER NOT NULL,
        type TEXT NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (session_id, seq)
      ) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS participant_tokens (
        session_id TEXT NOT NULL REFERENCES sessions (id),
        token_hash TEXT NOT NULL,
        participant_id TEXT NOT NULL,
        PRIMARY KEY (session_id, token_hash)
      ) WITHOUT ROWID;
      PRAGMA user_version = 1;
    `);
  // 2: shared replay links are their own secret, no longer the session id.
  if (version < 2) {
    db.exec(`
      ALTER TABLE sessions ADD COLUMN share_key_hash TEXT;
      ALTER TABLE sessions ADD COLUMN share_generation INTEGER NOT NULL DEFAULT 0;
      PRAGMA user_version = 2;
    `);
  }
  // 3: a session's counts live in its row, kept as events are written (summary.ts), instead of being counted
  // from its log by every list. An older server would write events without counting them, hence the version.
  if (version < 3) db.transaction(() => addSummaryCounts(db))();
  // 4: sessions belong to teachers' accounts, which may invite co-teachers, and a session has one or more console
  // keys. An older server would check only the first key and see no owners, hence the version.
  if (version < 4) db.transaction(() => addOwnership(db))();
}

/**
 * Schema 4: the owner column, the co-teachers, and the consoles, each
 * session's first console being the key it was created with (host_key_hash,
 * which stays as it was: the key an earlier share link was derived from).
 */
function addOwnership(db: Database.Database): void {
  db.exec(`
    ALTER TABLE sessions ADD COLUMN owner_account_id TEXT;
    ALTER TABLE sessions ADD COLUMN share_key TEXT;
    CREATE INDEX sessions_owner ON sessions (owner_account_id) WHERE owner_account_id IS NOT NULL;
    CREATE TABLE session_coteachers (
      session_id TEXT NOT NULL REFERENCES sessions (id),
      account_id TEXT NOT NULL,
      added_at INTEGER NOT NULL,
      PRIMARY KEY (session_id, account_id)
    ) WITHOUT ROWID;
    CREATE INDEX session_coteachers_account ON session_coteachers (account_id);
    CREATE TABLE session_consoles (
      session_id TEXT NOT NULL REFERENCES sessions (id),
      key_hash TEXT NOT NULL,
      console_id TEXT NOT NULL,
      account_id TEXT,
      created_at INTEGER NOT NULL,
      PRIMARY KEY (session_id, key_hash)
    ) WITHOUT ROWID;
    CREATE INDEX session_consoles_key ON session_consoles (key_hash);
  `);
  const sessions = db.prepare<[], { id: string; host_key_hash: string; created_at: number }>(
    `SELECT id, host_key_hash, created_at FROM sessions`,
  );
  const insert = db.prepare(
    `INSERT OR IGNORE INTO session_consoles (key_hash, session_id, console_id, account_id, created_at) VALUES (?, ?, ?, NULL, ?)`,
  );
  for (const s of sessions.all()) insert.run(s.host_key_hash, s.id, consoleIdOf(s.host_key_hash), s.created_at);
  db.pragma("user_version = 4");
}

/** Schema 3: the count columns, filled from each session's log by the same rule the writes use (summary.ts). */
function addSummaryCounts(db: Database.Database): void {
  db.exec(`
    ALTER TABLE sessions ADD COLUMN event_count INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE sessions ADD COLUMN participant_count INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE sessions ADD COLUMN poll_count INTEGER NOT NULL DEFAULT 0;
  `);
  // Read first, then write: better-sqlite3 runs no other statement on a connection while one is being iterated.
  const bySession = new Map<string, SummaryDelta>();
  const rows = db.prepare<[], { session_id: string; type: string; at: number }>(
    `SELECT session_id, type, at FROM events ORDER BY session_id, seq`,
  );
  for (const row of rows.iterate()) {
    let delta = bySession.get(row.session_id);
    if (!delta) bySession.set(row.session_id, (delta = emptyDelta()));
    addEvent(delta, row);
  }
  const setCounts = db.prepare(`UPDATE sessions SET event_count = ?, participant_count = ?, poll_count = ? WHERE id = ?`);
  for (const [id, d] of bySession) setCounts.run(d.events, d.participants, d.polls, id);
  db.pragma("user_version = 3");
}
