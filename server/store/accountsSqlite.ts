import Database from "better-sqlite3";
import type { SignInMethod } from "../../lib/account/rest";
import type { Account, AccountPatch, AccountStore, Ceremony, CreateAccountResult, NewAccount, Passkey, SignIn } from "./accounts";
import { migrateAccounts } from "./accountsSchema";
import { StoreError } from "./types";

interface AccountRow {
  id: string;
  email: string;
  display_name: string;
  is_admin: number;
  created_at: number;
  password_hash: string | null;
  oidc_issuer: string | null;
  oidc_subject: string | null;
  user_handle: string;
}

interface PasskeyRow {
  credential_id: string;
  account_id: string;
  public_key: string;
  counter: number;
  transports: string;
  backed_up: number;
  created_at: number;
  last_used_at: number | null;
}

interface SignInRow {
  id_hash: string;
  public_id: string;
  account_id: string;
  method: string;
  created_at: number;
  expires_at: number;
  last_seen_at: number;
  user_agent: string;
}

const toAccount = (r: AccountRow): Account => ({
  id: r.id,
  email: r.email,
  displayName: r.display_name,
  admin: r.is_admin === 1,
  createdAt: r.created_at,
  passwordHash: r.password_hash,
  oidc: r.oidc_issuer !== null && r.oidc_subject !== null ? { issuer: r.oidc_issuer, subject: r.oidc_subject } : null,
  userHandle: r.user_handle,
});

const toPasskey = (r: PasskeyRow): Passkey => ({
  credentialId: r.credential_id,
  accountId: r.account_id,
  publicKey: r.public_key,
  counter: r.counter,
  transports: r.transports === "" ? [] : r.transports.split(","),
  backedUp: r.backed_up === 1,
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at,
});

export function signInMethod(value: string): SignInMethod {
  if (value === "password" || value === "passkey" || value === "oidc") return value;
  throw new StoreError(`a stored sign-in has an unknown method: ${value}`);
}

const toSignIn = (r: SignInRow): SignIn => ({
  idHash: r.id_hash,
  publicId: r.public_id,
  accountId: r.account_id,
  method: signInMethod(r.method),
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  lastSeenAt: r.last_seen_at,
  userAgent: r.user_agent,
});

export function ceremonyKind(value: string): Ceremony["kind"] {
  if (value === "passkey-register" || value === "passkey-authenticate" || value === "oidc") return value;
  throw new StoreError(`a stored ceremony has an unknown kind: ${value}`);
}

/**
 * The embedded default: tables in the session database file, on a connection
 * of their own (WAL lets it write beside the session store's), created and
 * versioned by accountsSchema.ts without touching the sessions' schema.
 */
export class SqliteAccountStore implements AccountStore {
  private readonly db: Database.Database;
  private readonly stmts;

  constructor(file: string) {
    this.db = new Database(file);
    this.db.pragma("journal_mode = WAL");
    this.db.pragma("synchronous = NORMAL");
    this.db.pragma("busy_timeout = 5000");
    this.db.pragma("foreign_keys = ON");
    try {
      migrateAccounts(this.db);
    } catch (err) {
      this.db.close();
      throw err;
    }
    const db = this.db;
    this.stmts = {
      insertAccount: db.prepare(
        `INSERT INTO accounts (id, email, display_name, is_admin, created_at, password_hash, oidc_issuer, oidc_subject, user_handle)
         VALUES (@id, @email, @displayName, @admin, @createdAt, @passwordHash, @oidcIssuer, @oidcSubject, @userHandle)`,
      ),
      firstAccount: db.prepare(`INSERT OR IGNORE INTO account_meta (key, value) VALUES ('first_account', ?)`),
      byId: db.prepare<[string], AccountRow>(`SELECT * FROM accounts WHERE id = ?`),
      byEmail: db.prepare<[string], AccountRow>(`SELECT * FROM accounts WHERE email = ?`),
      byOidc: db.prepare<[string, string], AccountRow>(`SELECT * FROM accounts WHERE oidc_issuer = ? AND oidc_subject = ?`),
      all: db.prepare<[], AccountRow>(`SELECT * FROM accounts ORDER BY created_at, id`),
      count: db.prepare<[], { n: number }>(`SELECT COUNT(*) AS n FROM accounts`),
      deleteAccount: db.prepare(`DELETE FROM accounts WHERE id = ?`),
      updateAccount: db.prepare(
        `UPDATE accounts SET display_name = ?, is_admin = ?, password_hash = ?, oidc_issuer = ?, oidc_subject = ? WHERE id = ?`,
      ),
      insertPasskey: db.prepare(
        `INSERT OR IGNORE INTO account_passkeys (credential_id, account_id, public_key, counter, transports, backed_up, created_at, last_used_at)
         VALUES (@credentialId, @accountId, @publicKey, @counter, @transports, @backedUp, @createdAt, @lastUsedAt)`,
      ),
      passkey: db.prepare<[string], PasskeyRow>(`SELECT * FROM account_passkeys WHERE credential_id = ?`),
      passkeysOf: db.prepare<[string], PasskeyRow>(
        `SELECT * FROM account_passkeys WHERE account_id = ? ORDER BY created_at, credential_id`,
      ),
      usePasskey: db.prepare(`UPDATE account_passkeys SET counter = ?, last_used_at = ? WHERE credential_id = ?`),
      removePasskey: db.prepare(`DELETE FROM account_passkeys WHERE account_id = ? AND credential_id = ?`),
      insertSignIn: db.prepare(
        `INSERT INTO account_sign_ins (id_hash, public_id, account_id, method, created_at, expires_at, last_seen_at, user_agent)
         VALUES (@idHash, @publicId, @accountId, @method, @createdAt, @expiresAt, @lastSeenAt, @userAgent)`,
      ),
      signIn: db.prepare<[string], SignInRow>(`SELECT * FROM account_sign_ins WHERE id_hash = ?`),
      signInsOf: db.prepare<[string, number], SignInRow>(
        `SELECT * FROM account_sign_ins WHERE account_id = ? AND expires_at > ? ORDER BY created_at DESC, public_id`,
      ),
      touchSignIn: db.prepare(`UPDATE account_sign_ins SET last_seen_at = ? WHERE id_hash = ?`),
      endSignIn: db.prepare(`DELETE FROM account_sign_ins WHERE id_hash = ?`),
      endSignInByPublicId: db.prepare(`DELETE FROM account_sign_ins WHERE account_id = ? AND public_id = ?`),
      endSignInsOf: db.prepare(`DELETE FROM account_sign_ins WHERE account_id = ?`),
      expireSignIns: db.prepare(`DELETE FROM account_sign_ins WHERE expires_at <= ?`),
      saveCeremony: db.prepare(`INSERT OR REPLACE INTO auth_ceremonies (id_hash, kind, payload, expires_at) VALUES (?, ?, ?, ?)`),
      ceremony: db.prepare<[string], { kind: string; payload: string; expires_at: number }>(
        `SELECT kind, payload, expires_at FROM auth_ceremonies WHERE id_hash = ?`,
      ),
      endCeremony: db.prepare(`DELETE FROM auth_ceremonies WHERE id_hash = ?`),
      expireCeremonies: db.prepare(`DELETE FROM auth_ceremonies WHERE expires_at <= ?`),
    };
  }

  async createAccount(a: NewAccount): Promise<CreateAccountResult> {
    return this.db
      .transaction((): CreateAccountResult => {
        if (this.stmts.byEmail.get(a.email)) return { ok: false, reason: "EMAIL_TAKEN" };
        if (a.oidc && this.stmts.byOidc.get(a.oidc.issuer, a.oidc.subject)) return { ok: false, reason: "OIDC_TAKEN" };
        // The marker is never removed: deleting the first account does not hand the next sign-up the server.
        const first = this.stmts.firstAccount.run(a.id).changes === 1;
        const account: Account = { ...a, admin: a.admin === true || first };
        this.stmts.insertAccount.run({
          id: account.id,
          email: account.email,
          displayName: account.displayName,
          admin: account.admin ? 1 : 0,
          createdAt: account.createdAt,
          passwordHash: account.passwordHash,
          oidcIssuer: account.oidc?.issuer ?? null,
          oidcSubject: account.oidc?.subject ?? null,
          userHandle: account.userHandle,
        });
        return { ok: true, account };
      })
      .immediate();
  }

  async account(id: string): Promise<Account | null> {
    const row = this.stmts.byId.get(id);
    return row ? toAccount(row) : null;
  }

  async accountByEmail(email: string): Promise<Account | null> {
    const row = this.stmts.byEmail.get(email);
    return row ? toAccount(row) : null;
  }

  async accountByOidc(issuer: string, subject: string): Promise<Account | null> {
    const row = this.stmts.byOidc.get(issuer, subject);
    return row ? toAccount(row) : null;
  }

  async listAccounts(): Promise<Account[]> {
    return this.stmts.all.all().map(toAccount);
  }

  async countAccounts(): Promise<number> {
    return this.stmts.count.get()!.n;
  }

  async updateAccount(id: string, patch: AccountPatch): Promise<boolean> {
    return this.db
      .transaction(() => {
        const row = this.stmts.byId.get(id);
        if (!row) return false;
        if (patch.oidc) {
          const holder = this.stmts.byOidc.get(patch.oidc.issuer, patch.oidc.subject);
          if (holder && holder.id !== id) return false;
        }
        const next = { ...toAccount(row), ...patch };
        this.stmts.updateAccount.run(
          next.displayName,
          next.admin ? 1 : 0,
          next.passwordHash,
          next.oidc?.issuer ?? null,
          next.oidc?.subject ?? null,
          id,
        );
        return true;
      })
      .immediate();
  }

  async deleteAccount(id: string): Promise<boolean> {
    // Passkeys and sign-ins go with it (ON DELETE CASCADE; this connection turns foreign keys on).
    return this.stmts.deleteAccount.run(id).changes === 1;
  }

  async addPasskey(p: Passkey): Promise<boolean> {
    const inserted = this.stmts.insertPasskey.run({
      ...p,
      transports: p.transports.join(","),
      backedUp: p.backedUp ? 1 : 0,
    });
    return inserted.changes === 1;
  }

  async passkey(credentialId: string): Promise<Passkey | null> {
    const row = this.stmts.passkey.get(credentialId);
    return row ? toPasskey(row) : null;
  }

  async passkeysOf(accountId: string): Promise<Passkey[]> {
    return this.stmts.passkeysOf.all(accountId).map(toPasskey);
  }

  async notePasskeyUse(credentialId: string, counter: number, at: number): Promise<void> {
    this.stmts.usePasskey.run(counter, at, credentialId);
  }

  async removePasskey(accountId: string, credentialId: string): Promise<boolean> {
    return this.stmts.removePasskey.run(accountId, credentialId).changes === 1;
  }

  async createSignIn(s: SignIn): Promise<void> {
    // Expired rows are swept as new ones arrive: nothing else has to run on a timer.
    this.stmts.expireSignIns.run(s.createdAt);
    this.stmts.insertSignIn.run(s);
  }

  async signIn(idHash: string, now: number): Promise<SignIn | null> {
    const row = this.stmts.signIn.get(idHash);
    if (!row) return null;
    if (row.expires_at <= now) {
      this.stmts.endSignIn.run(idHash);
      return null;
    }
    return toSignIn(row);
  }

  async touchSignIn(idHash: string, at: number): Promise<void> {
    this.stmts.touchSignIn.run(at, idHash);
  }

  async signInsOf(accountId: string, now: number): Promise<SignIn[]> {
    return this.stmts.signInsOf.all(accountId, now).map(toSignIn);
  }

  async endSignIn(idHash: string): Promise<void> {
    this.stmts.endSignIn.run(idHash);
  }

  async endSignInByPublicId(accountId: string, publicId: string): Promise<boolean> {
    return this.stmts.endSignInByPublicId.run(accountId, publicId).changes === 1;
  }

  async endSignInsOf(accountId: string): Promise<number> {
    return this.stmts.endSignInsOf.run(accountId).changes;
  }

  async saveCeremony(idHash: string, c: Ceremony, now: number): Promise<void> {
    this.stmts.expireCeremonies.run(now);
    this.stmts.saveCeremony.run(idHash, c.kind, c.payload, c.expiresAt);
  }

  async takeCeremony(idHash: string, now: number): Promise<Ceremony | null> {
    return this.db
      .transaction(() => {
        const row = this.stmts.ceremony.get(idHash);
        if (!row) return null;
        this.stmts.endCeremony.run(idHash);
        if (row.expires_at <= now) return null;
        return { kind: ceremonyKind(row.kind), payload: row.payload, expiresAt: row.expires_at };
      })
      .immediate();
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
