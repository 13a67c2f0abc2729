import type Database from "better-sqlite3";

/** The lessons an account has: those it owns, and those it was invited to edit. */
export interface AccountLessons {
  owned: string[];
  coediting: string[];
}

/**
 * Who may use a lesson, in the SQLite file: its owner's account (a column of
 * `lessons`, added to a file from before accounts) and the accounts invited
 * to edit it (`lesson_coteachers`). The lesson store delegates here; removing
 * a lesson removes these rows with it (`deleteRowsOf`).
 */
export class SqliteLessonAccess {
  private readonly stmts;

  constructor(private readonly db: Database.Database) {
    const columns = db.prepare<[], { name: string }>(`PRAGMA table_info(lessons)`).all();
    if (!columns.some((c) => c.name === "owner_account_id")) {
      db.exec(`
        ALTER TABLE lessons ADD COLUMN owner_account_id TEXT;
        CREATE INDEX IF NOT EXISTS lessons_account ON lessons (owner_account_id) WHERE owner_account_id IS NOT NULL;
      `);
    }
    db.exec(`
      CREATE TABLE IF NOT EXISTS lesson_coteachers (
        lesson_id TEXT NOT NULL REFERENCES lessons (id),
        account_id TEXT NOT NULL,
        added_at INTEGER NOT NULL,
        PRIMARY KEY (lesson_id, account_id)
      ) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS lesson_coteachers_account ON lesson_coteachers (account_id);
    `);
    this.stmts = {
      claim: db.prepare(`UPDATE lessons SET owner_account_id = ? WHERE id = ? AND owner_account_id IS NULL`),
      owner: db.prepare<[string], { owner_account_id: string | null }>(`SELECT owner_account_id FROM lessons WHERE id = ?`),
      setOwner: db.prepare(`UPDATE lessons SET owner_account_id = ? WHERE id = ?`),
      setKey: db.prepare(`UPDATE lessons SET owner_key_hash = ? WHERE id = ?`),
      addCoteacher: db.prepare(
        `INSERT OR IGNORE INTO lesson_coteachers (lesson_id, account_id, added_at) SELECT id, ?, ? FROM lessons WHERE id = ?`,
      ),
      removeCoteacher: db.prepare(`DELETE FROM lesson_coteachers WHERE lesson_id = ? AND account_id = ?`),
      coteachers: db.prepare<[string], { account_id: string }>(
        `SELECT account_id FROM lesson_coteachers WHERE lesson_id = ? ORDER BY added_at, account_id`,
      ),
      owned: db.prepare<[string], { id: string }>(
        `SELECT id FROM lessons WHERE owner_account_id = ? AND deleted_at IS NULL ORDER BY updated_at DESC`,
      ),
      coediting: db.prepare<[string], { id: string }>(
        `SELECT l.id FROM lesson_coteachers c JOIN lessons l ON l.id = c.lesson_id
         WHERE c.account_id = ? AND l.deleted_at IS NULL ORDER BY l.updated_at DESC`,
      ),
      deleteCoteachers: db.prepare(`DELETE FROM lesson_coteachers WHERE lesson_id = ?`),
    };
  }

  /** Inside the transaction that removes the lesson, before its row. */
  deleteRowsOf(id: string): void {
    this.stmts.deleteCoteachers.run(id);
  }

  claim(id: string, accountId: string): boolean {
    return this.db.transaction(() => {
      this.stmts.claim.run(accountId, id);
      return this.stmts.owner.get(id)?.owner_account_id === accountId;
    })();
  }

  setOwner(id: string, accountId: string | null): void {
    this.stmts.setOwner.run(accountId, id);
  }

  setKey(id: string, ownerKeyHash: string): void {
    this.stmts.setKey.run(ownerKeyHash, id);
  }

  addCoteacher(id: string, accountId: string, at: number): void {
    this.stmts.addCoteacher.run(accountId, at, id);
  }

  removeCoteacher(id: string, accountId: string): boolean {
    return this.stmts.removeCoteacher.run(id, accountId).changes > 0;
  }

  coteachers(id: string): string[] {
    return this.stmts.coteachers.all(id).map((r) => r.account_id);
  }

  lessonsOf(accountId: string): AccountLessons {
    return {
      owned: this.stmts.owned.all(accountId).map((r) => r.id),
      coediting: this.stmts.coediting.all(accountId).map((r) => r.id),
    };
  }
}
