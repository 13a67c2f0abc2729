import type Database from "better-sqlite3";
import { StoreError } from "./types";

/**
 * The accounts' tables in the session database file, versioned on their own
 * (`account_meta.schema`) so they never touch the sessions' `user_version`
 * steps (server/store/sqliteSchema.ts), which other work moves forward
 * independently. A file whose accounts were written by a newer server is
 * refused, as the sessions' schema does.
 */
export const ACCOUNTS_SCHEMA_VERSION = 1;

/** Accounts, their passkeys, their signed-in browsers, and passkey/OIDC round trips in progress. */
const SCHEMA_1 = `
  CREATE TABLE accounts (
    id TEXT PRIMARY KEY,
    email TEXT NOT NULL UNIQUE,
    display_name TEXT NOT NULL,
    is_admin INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    password_hash TEXT,
    oidc_issuer TEXT,
    oidc_subject TEXT,
    user_handle TEXT NOT NULL UNIQUE
  );
  CREATE UNIQUE INDEX accounts_oidc ON accounts (oidc_issuer, oidc_subject) WHERE oidc_subject IS NOT NULL;
  CREATE TABLE account_passkeys (
    credential_id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    public_key TEXT NOT NULL,
    counter INTEGER NOT NULL,
    transports TEXT NOT NULL,
    backed_up INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    last_used_at INTEGER
  );
  CREATE INDEX account_passkeys_account ON account_passkeys (account_id);
  CREATE TABLE account_sign_ins (
    id_hash TEXT PRIMARY KEY,
    public_id TEXT NOT NULL UNIQUE,
    account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    method TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    last_seen_at INTEGER NOT NULL,
    user_agent TEXT NOT NULL
  );
  CREATE INDEX account_sign_ins_account ON account_sign_ins (account_id);
  CREATE INDEX account_sign_ins_expiry ON account_sign_ins (expires_at);
  CREATE TABLE auth_ceremonies (
    id_hash TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    payload TEXT NOT NULL,
    expires_at INTEGER NOT NULL
  );
  CREATE INDEX auth_ceremonies_expiry ON auth_ceremonies (expires_at);
`;

export function migrateAccounts(db: Database.Database): void {
  db.exec(`CREATE TABLE IF NOT EXISTS account_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
  // Read and migrate under one write lock: a second connection opening the file at once waits, then sees the result.
  db.transaction(() => {
    const row = db.prepare<[], { value: string }>(`SELECT value FROM account_meta WHERE key = 'schema'`).get();
    const version = row ? Number(row.value) : 0;
    if (version > ACCOUNTS_SCHEMA_VERSION) {
      throw new StoreError(
        `the accounts in the session database were written by a newer version of this server (accounts schema ${version}, ` +
          `this server knows ${ACCOUNTS_SCHEMA_VERSION}). Upgrade the server.`,
      );
    }
    if (version === ACCOUNTS_SCHEMA_VERSION) return;
    if (version < 1) db.exec(SCHEMA_1);
    db.prepare(`INSERT INTO account_meta (key, value) VALUES ('schema', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`).run(
      String(ACCOUNTS_SCHEMA_VERSION),
    );
  }).immediate();
}
