import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { EVENT_LOG_VERSION, type SessionEvent } from "../../lib/session/types";
import { parseStoredEvent } from "../../lib/session/eventSchema";
import { log } from "../logger";
import { BatchedStore } from "./writeQueue";
import {
  StoreError,
  type BatchOutcome,
  type QueuedWrite,
  type NewSessionRecord,
  type SessionRecord,
  type SessionStore,
  type SessionSummary,
  type RetentionSweep,
  type AccountSessions,
  type ConsoleKey,
} from "./types";
import { toError, errorMessage } from "../../lib/errors";
import { countEvent } from "../ops/metrics";
import { migrate } from "./sqliteSchema";
import { addEvent, deltaOf, emptyDelta, type SummaryDelta } from "./summary";
import { SqliteSessionAccess } from "./sqliteAccess";
import { firstConsole } from "./consoles";

export { StoreError };

/**
 * The embedded default: one SQLite file in WAL mode. Each event is one row,
 * written with a prepared statement; the events of one turn of the event loop
 * go in one transaction, before anything is acknowledged or broadcast. With
 * `synchronous = NORMAL` in WAL mode a process crash loses nothing that was
 * committed (only an OS crash can lose the last commits).
 */
const logError = (msg: string, err: Error) => log.error(msg, { error: err.message });

export class SqliteSessionStore extends BatchedStore implements SessionStore {
  private readonly db: Database.Database;
  private readonly stmts;
  private readonly writeTransaction: (batch: QueuedWrite[]) => void;
  private readonly access: SqliteSessionAccess;
  private readonly deleteOne: (id: string, cutoff: number) => number | null;

  constructor(private readonly file: string) {
    super("events", logError, "sqlite");
    fs.mkdirSync(path.dirname(file), { recursive: true });
    try {
      this.db = new Database(file);
      this.db.pragma("journal_mode = WAL");
      this.db.pragma("synchronous = NORMAL");
      this.db.pragma("foreign_keys = ON");
      migrate(this.db);
      // Readiness writes one row here (server/ops/readiness.ts). It holds no data, so it is not part of the
      // versioned schema: an older or newer server ignores it.
      this.db.exec(`CREATE TABLE IF NOT EXISTS ops_probe (id INTEGER PRIMARY KEY CHECK (id = 1), at INTEGER NOT NULL)`);
      const check = this.db.pragma("quick_check", { simple: true });
      if (check !== "ok") throw new StoreError(`integrity check failed: ${String(check)}`);
    } catch (err) {
      if (err instanceof StoreError) throw err;
      throw new StoreError(
        `cannot open the session database ${file}: ${errorMessage(err)}. ` +
          `Move the file aside to start with an empty one, or restore it from a backup.`,
      );
    }
    this.stmts = {
      insertSession: this.db.prepare(
        `INSERT INTO sessions (id, code, title, host_key_hash, created_at, ended_at, last_event_at, peak_participants,
                               event_count, participant_count, poll_count, owner_account_id)
         VALUES (@id, @code, @title, @hostKeyHash, @createdAt, @endedAt, @lastEventAt, 0, @events, @participants, @polls, @owner)`,
      ),
      insertEvent: this.db.prepare(`INSERT INTO events (session_id, seq, at, type, body) VALUES (?, ?, ?, ?, ?)`),
      addToSummary: this.db.prepare(
        `UPDATE sessions SET event_count = event_count + @events, participant_count = participant_count + @participants,
           poll_count = poll_count + @polls, last_event_at = @lastEventAt, ended_at = COALESCE(@endedAt, ended_at)
         WHERE id = @id`,
      ),
      loadEvents: this.db.prepare<[string], { body: string }>(`SELECT body FROM events WHERE session_id = ? ORDER BY seq`),
      getSession: this.db.prepare<[string], SessionRow>(`SELECT * FROM sessions WHERE id = ?`),
      findByCode: this.db.prepare<[string], SessionRow>(`SELECT * FROM sessions WHERE code = ? ORDER BY created_at DESC LIMIT 1`),
      codeExists: this.db.prepare(`SELECT 1 FROM sessions WHERE code = ? AND ended_at IS NULL LIMIT 1`),
      liveIds: this.db.prepare<[], { id: string }>(`SELECT id FROM sessions WHERE ended_at IS NULL`),
      peak: this.db.prepare(`UPDATE sessions SET peak_participants = MAX(peak_participants, ?) WHERE id = ?`),
      saveToken: this.db.prepare(`INSERT OR REPLACE INTO participant_tokens (session_id, token_hash, participant_id) VALUES (?, ?, ?)`),
      setSharing: this.db.prepare(`UPDATE sessions SET share_key_hash = ?, share_generation = ?, share_key = ? WHERE id = ?`),
      probe: this.db.prepare(`INSERT INTO ops_probe (id, at) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET at = excluded.at`),
      endedBefore: this.db.prepare<[number], { id: string }>(
        `SELECT id FROM sessions WHERE ended_at IS NOT NULL AND ended_at < ? ORDER BY ended_at LIMIT 100`,
      ),
      stillEnded: this.db.prepare(`SELECT 1 FROM sessions WHERE id = ? AND ended_at IS NOT NULL AND ended_at < ?`),
      countEvents: this.db.prepare<[string], { n: number }>(`SELECT COUNT(*) AS n FROM events WHERE session_id = ?`),
      deleteEvents: this.db.prepare(`DELETE FROM events WHERE session_id = ?`),
      deleteTokens: this.db.prepare(`DELETE FROM participant_tokens WHERE session_id = ?`),
      deleteSession: this.db.prepare(`DELETE FROM sessions WHERE id = ?`),
      findToken: this.db.prepare<[string, string], { participant_id: string }>(
        `SELECT participant_id FROM participant_tokens WHERE session_id = ? AND token_hash = ?`,
      ),
    };
    this.access = new SqliteSessionAccess(this.db);
    // One ended session with everything of it, if it still ended before the cutoff: children first (the log, the
    // tokens, the consoles and co-teachers reference the session row), then the row, which holds the share key.
    this.deleteOne = this.db.transaction((id: string, cutoff: number): number | null => {
      if (this.stmts.stillEnded.get(id, cutoff) === undefined) return null;
      const events = this.stmts.countEvents.get(id)?.n ?? 0;
      this.stmts.deleteEvents.run(id);
      this.stmts.deleteTokens.run(id);
      this.access.deleteRowsOf(id);
      this.stmts.deleteSession.run(id);
      return events;
    });
    // Everything a turn of the event loop wrote (a join's token and its event, a vote storm) in one transaction.
    // A session's row (its summary) is updated once per batch, with what all its events in the batch changed: a
    // vote storm is one session's 256 events, one UPDATE.
    this.writeTransaction = this.db.transaction((batch: QueuedWrite[]) => {
      const summaries = new Map<string, SummaryDelta>();
      for (const write of batch) {
        if (write.kind === "token") {
          this.stmts.saveToken.run(write.sessionId, write.tokenHash, write.participantId);
        } else if (write.kind === "peak") {
          this.stmts.peak.run(write.peak, write.sessionId);
        } else {
          const { sessionId, event } = write;
          this.stmts.insertEvent.run(sessionId, event.seq, event.at, event.type, JSON.stringify(event));
          let delta = summaries.get(sessionId);
          if (!delta) summaries.set(sessionId, (delta = emptyDelta()));
          addEvent(delta, event);
        }
      }
      for (const [id, delta] of summaries) this.stmts.addToSummary.run({ id, ...delta });
    });
  }

  protected writeBatch(batch: QueuedWrite[]): BatchOutcome {
    try {
      this.writeTransaction(batch);
      return;
    } catch (err) {
      // One transaction per session, so one session's bad write (a duplicate seq) does not fail the others;
      // when the disk is full they all fail again, which is the truth.
      const bySession = new Map<string, QueuedWrite[]>();
      for (const write of batch) {
        const list = bySession.get(write.sessionId) ?? [];
        list.push(write);
        bySession.set(write.sessionId, list);
      }
      if (bySession.size === 1) throw err;
      const failed = new Map<string, Error>();
      for (const [sessionId, writes] of bySession) {
        try {
          this.writeTransaction(writes);
        } catch (e) {
          failed.set(sessionId, toError(e));
        }
      }
      return failed;
    }
  }

  async createSession(record: NewSessionRecord, created: SessionEvent): Promise<void> {
    const { events, participants, polls, lastEventAt, endedAt } = deltaOf([created]);
    const { ownerAccountId, ...fields } = record;
    this.db.transaction(() => {
      this.stmts.insertSession.run({ ...fields, endedAt, lastEventAt, events, participants, polls, owner: ownerAccountId ?? null });
      this.stmts.insertEvent.run(record.id, created.seq, created.at, created.type, JSON.stringify(created));
      this.access.addFirstConsole(record.id, firstConsole(record));
    })();
    countEvent(created.type);
  }

  async checkWritable(): Promise<void> {
    this.stmts.probe.run(Date.now());
  }

  /**
   * One transaction per session (its events, its students' tokens, then the
   * row, which holds the share key), yielding between sessions: a session
   * with a long log must not hold the write lock, or the event loop, for
   * every class at once.
   */
  async deleteEndedBefore(cutoff: number, signal?: AbortSignal): Promise<RetentionSweep> {
    const total: RetentionSweep = { sessions: 0, events: 0 };
    for (;;) {
      const before = total.sessions;
      for (const { id } of this.stmts.endedBefore.all(cutoff)) {
        if (signal?.aborted) return total;
        const events = this.deleteOne(id, cutoff);
        if (events !== null) {
          total.sessions += 1;
          total.events += events;
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
      if (total.sessions === before) return total;
    }
  }

  async loadEvents(sessionId: string): Promise<SessionEvent[]> {
    return this.loadEventsSync(sessionId);
  }

  /** Synchronous read for tools and tests that inspect a file directly. */
  loadEventsSync(sessionId: string): SessionEvent[] {
    const rows = this.stmts.loadEvents.all(sessionId);
    return rows.map((row, i) => {
      let event: SessionEvent & { v?: number };
      try {
        event = parseStoredEvent(row.body);
      } catch {
        throw new StoreError(`session ${sessionId}: event ${i + 1} is not a valid event; the database is damaged`);
      }
      if (typeof event.v === "number" && event.v > EVENT_LOG_VERSION) {
        throw new StoreError(`session ${sessionId}: the log was written by a newer version (v${event.v})`);
      }
      return event;
    });
  }

  async getSession(id: string): Promise<SessionRecord | null> {
    return toRecord(this.stmts.getSession.get(id));
  }

  async findByCode(code: string): Promise<SessionRecord | null> {
    return toRecord(this.stmts.findByCode.get(code));
  }

  async codeExists(code: string): Promise<boolean> {
    return this.stmts.codeExists.get(code) !== undefined;
  }

  liveSessionIdsSync(): string[] {
    return this.stmts.liveIds.all().map((r) => r.id);
  }

  async liveSessionIds(): Promise<string[]> {
    return this.liveSessionIdsSync();
  }

  async listSessions(ids?: readonly string[]): Promise<SessionSummary[]> {
    const where = ids ? `WHERE s.id IN (${ids.map(() => "?").join(",") || "NULL"})` : "";
    const rows = this.db
      .prepare<string[], SessionRow>(`SELECT * FROM sessions s ${where} ORDER BY s.created_at DESC LIMIT 500`)
      .all(...(ids ?? []));
    return rows.map((r) => ({
      id: r.id,
      code: r.code,
      title: r.title,
      createdAt: r.created_at,
      endedAt: r.ended_at,
      status: r.ended_at === null ? "live" : "ended",
      lastEventAt: r.last_event_at,
      eventCount: r.event_count,
      participantCount: r.participant_count,
      peakParticipants: r.peak_participants,
      pollCount: r.poll_count,
      shared: r.share_key_hash !== null,
    }));
  }

  async sessionIdsByHostKeyHash(hashes: readonly string[]): Promise<string[]> {
    if (hashes.length === 0) return [];
    const rows = this.db
      .prepare<string[], { id: string }>(
        `SELECT DISTINCT session_id AS id FROM session_consoles WHERE key_hash IN (${hashes.map(() => "?").join(",")})`,
      )
      .all(...hashes);
    return rows.map((r) => r.id);
  }

  async setReplaySharing(id: string, shareKeyHash: string | null, generation: number, shareKey: string | null = null): Promise<void> {
    this.stmts.setSharing.run(shareKeyHash, generation, shareKeyHash === null ? null : shareKey, id);
  }

  async hostKeyHashes(sessionId: string): Promise<string[]> {
    return this.access.hostKeyHashes(sessionId);
  }

  async consoles(sessionId: string): Promise<ConsoleKey[]> {
    return this.access.consoles(sessionId);
  }

  async addConsole(sessionId: string, console: ConsoleKey): Promise<void> {
    this.access.addConsole(sessionId, console);
  }

  async revokeConsole(sessionId: string, consoleId: string): Promise<boolean> {
    return this.access.revokeConsole(sessionId, consoleId);
  }

  async claimSession(sessionId: string, accountId: string): Promise<boolean> {
    return this.access.claim(sessionId, accountId);
  }

  async setSessionOwner(sessionId: string, accountId: string | null): Promise<void> {
    this.access.setOwner(sessionId, accountId);
  }

  async addSessionCoteacher(sessionId: string, accountId: string, at: number): Promise<void> {
    this.access.addCoteacher(sessionId, accountId, at);
  }

  async removeSessionCoteacher(sessionId: string, accountId: string): Promise<boolean> {
    return this.access.removeCoteacher(sessionId, accountId);
  }

  async sessionCoteachers(sessionId: string): Promise<string[]> {
    return this.access.coteachers(sessionId);
  }

  async sessionsOfAccount(accountId: string): Promise<AccountSessions> {
    return this.access.sessionsOf(accountId);
  }

  async deleteEndedSession(sessionId: string): Promise<boolean> {
    return this.deleteOne(sessionId, Number.MAX_SAFE_INTEGER) !== null;
  }

  async findParticipantByToken(sessionId: string, tokenHash: string): Promise<string | null> {
    const row = this.stmts.findToken.get(sessionId, tokenHash);
    return row?.participant_id ?? null;
  }

  sqliteFile(): string {
    return this.file;
  }

  async close(): Promise<void> {
    await this.flushBeforeClose(logError);
    if (this.db.open) this.db.close();
  }

  /** For tests that open a file only to look at it. */
  closeSync(): void {
    if (this.db.open) this.db.close();
  }
}

interface SessionRow {
  id: string;
  code: string;
  title: string;
  host_key_hash: string;
  created_at: number;
  ended_at: number | null;
  last_event_at: number;
  peak_participants: number;
  share_key_hash: string | null;
  share_generation: number;
  share_key: string | null;
  owner_account_id: string | null;
  event_count: number;
  participant_count: number;
  poll_count: number;
}

function toRecord(row: SessionRow | undefined): SessionRecord | null {
  if (!row) return null;
  return {
    id: row.id,
    code: row.code,
    title: row.title,
    hostKeyHash: row.host_key_hash,
    createdAt: row.created_at,
    endedAt: row.ended_at,
    shareKeyHash: row.share_key_hash ?? null,
    shareGeneration: row.share_generation ?? 0,
    shareKey: row.share_key ?? null,
    ownerAccountId: row.owner_account_id ?? null,
  };
}
