import type Database from "better-sqlite3";
import { StoreError } from "./types";
import { addEvent, emptyDelta, type SummaryDelta } from "./summary";

/** The schema version this code writes; a database from a newer version is refused. */
export const SQLITE_SCHEMA_VERSION = 3;

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
