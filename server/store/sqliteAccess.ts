import type Database from "better-sqlite3";
import type { AccountSessions, ConsoleKey } from "./types";

/**
 * Who may use a session, in the SQLite file (schema 4, sqliteSchema.ts): its
 * owner's account (a column of `sessions`), the accounts invited to drive it
 * (`session_coteachers`) and the keys that open its console
 * (`session_consoles`). The session store delegates here; deleting a session
 * deletes these rows with it (`deleteRowsOf`).
 */
export class SqliteSessionAccess {
  private readonly stmts;

  constructor(private readonly db: Database.Database) {
    this.stmts = {
      consoles: db.prepare<[string], ConsoleRow>(`SELECT * FROM session_consoles WHERE session_id = ? ORDER BY created_at, console_id`),
      hashes: db.prepare<[string], { key_hash: string }>(`SELECT key_hash FROM session_consoles WHERE session_id = ?`),
      addConsole: db.prepare(
        `INSERT OR IGNORE INTO session_consoles (session_id, key_hash, console_id, account_id, created_at) VALUES (?, ?, ?, ?, ?)`,
      ),
      revokeConsole: db.prepare(`DELETE FROM session_consoles WHERE session_id = ? AND console_id = ?`),
      claim: db.prepare(`UPDATE sessions SET owner_account_id = ? WHERE id = ? AND owner_account_id IS NULL`),
      owner: db.prepare<[string], { owner_account_id: string | null }>(`SELECT owner_account_id FROM sessions WHERE id = ?`),
      setOwner: db.prepare(`UPDATE sessions SET owner_account_id = ? WHERE id = ?`),
      addCoteacher: db.prepare(
        `INSERT OR IGNORE INTO session_coteachers (session_id, account_id, added_at) SELECT id, ?, ? FROM sessions WHERE id = ?`,
      ),
      removeCoteacher: db.prepare(`DELETE FROM session_coteachers WHERE session_id = ? AND account_id = ?`),
      coteachers: db.prepare<[string], { account_id: string }>(
        `SELECT account_id FROM session_coteachers WHERE session_id = ? ORDER BY added_at, account_id`,
      ),
      owned: db.prepare<[string], { id: string }>(`SELECT id FROM sessions WHERE owner_account_id = ? ORDER BY created_at DESC`),
      coteaching: db.prepare<[string], { id: string }>(
        `SELECT s.id FROM session_coteachers c JOIN sessions s ON s.id = c.session_id WHERE c.account_id = ? ORDER BY s.created_at DESC`,
      ),
      deleteConsoles: db.prepare(`DELETE FROM session_consoles WHERE session_id = ?`),
      deleteCoteachers: db.prepare(`DELETE FROM session_coteachers WHERE session_id = ?`),
    };
  }

  /** Inside the transaction that creates the session: its first console is the key it was created with. */
  addFirstConsole(sessionId: string, console: ConsoleKey): void {
    this.stmts.addConsole.run(sessionId, console.keyHash, console.id, console.accountId, console.createdAt);
  }

  /** Inside the transaction that deletes the session, before its row. */
  deleteRowsOf(sessionId: string): void {
    this.stmts.deleteConsoles.run(sessionId);
    this.stmts.deleteCoteachers.run(sessionId);
  }

  hostKeyHashes(sessionId: string): string[] {
    return this.stmts.hashes.all(sessionId).map((r) => r.key_hash);
  }

  consoles(sessionId: string): ConsoleKey[] {
    return this.stmts.consoles.all(sessionId).map((r) => ({
      id: r.console_id,
      keyHash: r.key_hash,
      accountId: r.account_id,
      createdAt: r.created_at,
    }));
  }

  addConsole(sessionId: string, console: ConsoleKey): void {
    this.addFirstConsole(sessionId, console);
  }

  revokeConsole(sessionId: string, consoleId: string): boolean {
    return this.stmts.revokeConsole.run(sessionId, consoleId).changes > 0;
  }

  claim(sessionId: string, accountId: string): boolean {
    return this.db.transaction(() => {
      this.stmts.claim.run(accountId, sessionId);
      return this.stmts.owner.get(sessionId)?.owner_account_id === accountId;
    })();
  }

  setOwner(sessionId: string, accountId: string | null): void {
    this.stmts.setOwner.run(accountId, sessionId);
  }

  addCoteacher(sessionId: string, accountId: string, at: number): void {
    this.stmts.addCoteacher.run(accountId, at, sessionId);
  }

  removeCoteacher(sessionId: string, accountId: string): boolean {
    return this.stmts.removeCoteacher.run(sessionId, accountId).changes > 0;
  }

  coteachers(sessionId: string): string[] {
    return this.stmts.coteachers.all(sessionId).map((r) => r.account_id);
  }

  sessionsOf(accountId: string): AccountSessions {
    return {
      owned: this.stmts.owned.all(accountId).map((r) => r.id),
      coteaching: this.stmts.coteaching.all(accountId).map((r) => r.id),
    };
  }
}

interface ConsoleRow {
  session_id: string;
  key_hash: string;
  console_id: string;
  account_id: string | null;
  created_at: number;
}
