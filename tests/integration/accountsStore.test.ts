import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { setLogLevel } from "../../server/logger";
import { hashSecret, newId } from "../../server/secrets";
import type { AccountStore, NewAccount, Passkey, SignIn } from "../../server/store/accounts";
import { openAccountStore } from "../../server/store/accountsOpen";
import { RedisSessionStore } from "../../server/store/redis";
import { connectRedis, type RedisClient } from "../../server/store/redisClient";
import { SqliteSessionStore } from "../../server/store/sqlite";
import { StoreError, type SessionStore } from "../../server/store/types";
import { startRedis, type RedisServer } from "../support/loopback";

/**
 * The account store's contract (server/store/accounts.ts), on the SQLite file
 * and on a real redis-server alike, opened the way the server opens them
 * (openAccountStore beside the session store). The HTTP rules around it are
 * tests/integration/accounts.test.ts.
 */
setLogLevel("silent");

interface Opened {
  accounts: AccountStore;
  sessions: SessionStore;
  /** Closes and opens the same data again, as a restarted server does. */
  reopen: () => Promise<Opened>;
  /** SQLite only: the file. */
  file?: string;
}

const opened: { close(): Promise<void> }[] = [];
let redis: RedisServer | null = null;
afterEach(async () => {
  for (const s of opened.splice(0).reverse()) await s.close();
});
afterAll(async () => {
  await redis?.stop();
});

async function openSqlite(file: string): Promise<Opened> {
  const sessions = new SqliteSessionStore(file);
  const accounts = openAccountStore(sessions, undefined)!;
  opened.push(sessions, accounts);
  return {
    accounts,
    sessions,
    file,
    reopen: async () => {
      await accounts.close();
      await sessions.close();
      return openSqlite(file);
    },
  };
}

async function openRedis(url: string): Promise<Opened> {
  const client: RedisClient = await connectRedis(url, { failFast: true });
  const sessions = await RedisSessionStore.open(client);
  const accounts = openAccountStore(sessions, client)!;
  opened.push(sessions, accounts);
  return {
    accounts,
    sessions,
    reopen: async () => {
      await accounts.close();
      await sessions.close();
      return openRedis(url);
    },
  };
}

const backends = [
  { name: "SQLite", open: () => openSqlite(path.join(fs.mkdtempSync(path.join(os.tmpdir(), "classroom-accounts-")), "sessions.sqlite")) },
  {
    name: "Redis",
    open: async () => {
      redis ??= await startRedis();
      const flusher = await connectRedis(redis.url);
      await flusher.sendCommand(["FLUSHALL"]);
      await flusher.quit();
      return openRedis(redis.url);
    },
  },
];

const T0 = Date.UTC(2031, 8, 1, 9, 0, 0);
let n = 0;
function teacher(overrides: Partial<NewAccount> = {}): NewAccount {
  n++;
  return {
    id: newId(),
    email: `teacher${n}@school.example`,
    displayName: `Teacher ${n}`,
    createdAt: T0 + n,
    passwordHash: `scrypt$17$8$1$salt${n}$key${n}`,
    oidc: null,
    userHandle: `handle-${n}`,
    ...overrides,
  };
}

function passkey(accountId: string, overrides: Partial<Passkey> = {}): Passkey {
  return {
    credentialId: `cred-${newId()}`,
    accountId,
    publicKey: "pQECAyYgASFYIA",
    counter: 0,
    transports: ["internal", "hybrid"],
    backedUp: true,
    createdAt: T0,
    lastUsedAt: null,
    ...overrides,
  };
}

function signIn(accountId: string, overrides: Partial<SignIn> = {}): SignIn {
  return {
    idHash: hashSecret(newId()),
    publicId: newId(),
    accountId,
    method: "password",
    createdAt: T0,
    expiresAt: T0 + 60_000,
    lastSeenAt: T0,
    userAgent: "Mozilla/5.0 (test)",
    ...overrides,
  };
}

describe.each(backends)("the account store on $name", ({ open }) => {
  it("creates accounts, one per email and per school identity, and makes the first one ever the administrator", async () => {
    const { accounts } = await open();
    expect(await accounts.countAccounts()).toBe(0);
    const first = teacher();
    const created = await accounts.createAccount(first);
    expect(created).toEqual({ ok: true, account: { ...first, admin: true } });
    const second = teacher({ oidc: { issuer: "https://idp.example", subject: "s-1" } });
    expect(await accounts.createAccount(second)).toEqual({ ok: true, account: { ...second, admin: false } });

    expect(await accounts.createAccount(teacher({ email: first.email }))).toEqual({ ok: false, reason: "EMAIL_TAKEN" });
    expect(await accounts.createAccount(teacher({ oidc: { issuer: "https://idp.example", subject: "s-1" } }))).toEqual({
      ok: false,
      reason: "OIDC_TAKEN",
    });
    expect(await accounts.countAccounts()).toBe(2);

    expect(await accounts.account(first.id)).toEqual({ ...first, admin: true });
    expect(await accounts.accountByEmail(second.email)).toEqual({ ...second, admin: false });
    expect(await accounts.accountByOidc("https://idp.example", "s-1")).toMatchObject({ id: second.id });
    expect(await accounts.accountByOidc("https://other.example", "s-1")).toBeNull();
    expect(await accounts.account(newId())).toBeNull();
    expect(await accounts.accountByEmail("nobody@school.example")).toBeNull();
    expect((await accounts.listAccounts()).map((a) => a.id)).toEqual([first.id, second.id]);
  });

  it("keeps the administrator's place taken after the first account is deleted; an operator's --admin still makes one", async () => {
    const { accounts } = await open();
    const first = teacher();
    await accounts.createAccount(first);
    expect(await accounts.deleteAccount(first.id)).toBe(true);
    expect(await accounts.deleteAccount(first.id)).toBe(false);
    const next = await accounts.createAccount(teacher());
    expect(next.ok && next.account.admin).toBe(false);
    const made = await accounts.createAccount(teacher({ admin: true }));
    expect(made.ok && made.account.admin).toBe(true);
    // The email of a deleted account is free again.
    expect((await accounts.createAccount(teacher({ email: first.email }))).ok).toBe(true);
  });

  it("updates name, password, admin and school identity, refusing an identity another account holds", async () => {
    const { accounts } = await open();
    const a = teacher();
    const b = teacher();
    await accounts.createAccount(a);
    await accounts.createAccount(b);
    const idp = { issuer: "https://idp.example", subject: "s-9" };
    expect(await accounts.updateAccount(a.id, { displayName: "Ms A", passwordHash: null, oidc: idp })).toBe(true);
    expect(await accounts.account(a.id)).toMatchObject({ displayName: "Ms A", passwordHash: null, oidc: idp });
    expect(await accounts.accountByOidc(idp.issuer, idp.subject)).toMatchObject({ id: a.id });
    expect(await accounts.updateAccount(b.id, { oidc: idp })).toBe(false);
    expect(await accounts.account(b.id)).toMatchObject({ oidc: null });
    // Moving to another identity frees the old one.
    expect(await accounts.updateAccount(a.id, { oidc: { issuer: idp.issuer, subject: "s-10" } })).toBe(true);
    expect(await accounts.accountByOidc(idp.issuer, "s-9")).toBeNull();
    expect(await accounts.updateAccount(b.id, { oidc: idp, admin: true, passwordHash: "scrypt$new" })).toBe(true);
    expect(await accounts.account(b.id)).toMatchObject({ oidc: idp, admin: true, passwordHash: "scrypt$new" });
    expect(await accounts.updateAccount(newId(), { displayName: "ghost" })).toBe(false);
  });

  it("keeps passkeys per account, one registration per credential, with their counter and last use", async () => {
    const { accounts } = await open();
    const a = teacher();
    const b = teacher();
    await accounts.createAccount(a);
    await accounts.createAccount(b);
    const k1 = passkey(a.id, { createdAt: T0 + 1 });
    const k2 = passkey(a.id, { createdAt: T0 + 2, transports: [], backedUp: false });
    expect(await accounts.addPasskey(k1)).toBe(true);
    expect(await accounts.addPasskey(k2)).toBe(true);
    expect(await accounts.addPasskey({ ...k1, accountId: b.id })).toBe(false);
    expect(await accounts.passkeysOf(a.id)).toEqual([k1, k2]);
    expect(await accounts.passkeysOf(b.id)).toEqual([]);
    await accounts.notePasskeyUse(k1.credentialId, 7, T0 + 100);
    expect(await accounts.passkey(k1.credentialId)).toEqual({ ...k1, counter: 7, lastUsedAt: T0 + 100 });
    expect(await accounts.removePasskey(b.id, k1.credentialId)).toBe(false);
    expect(await accounts.removePasskey(a.id, k1.credentialId)).toBe(true);
    expect(await accounts.passkey(k1.credentialId)).toBeNull();
    // A use noted after removal does not bring it back.
    await accounts.notePasskeyUse(k1.credentialId, 8, T0 + 200);
    expect(await accounts.passkey(k1.credentialId)).toBeNull();
    expect(await accounts.passkeysOf(a.id)).toEqual([k2]);
  });

  it("finds a sign-in by its cookie hash until it expires, lists and ends them one by one or all at once", async () => {
    const { accounts } = await open();
    const a = teacher();
    const b = teacher();
    await accounts.createAccount(a);
    await accounts.createAccount(b);
    const laptop = signIn(a.id, { createdAt: T0, expiresAt: T0 + 60_000 });
    const phone = signIn(a.id, { createdAt: T0 + 10, expiresAt: T0 + 120_000, method: "passkey" });
    const theirs = signIn(b.id, { method: "oidc" });
    for (const s of [laptop, phone, theirs]) await accounts.createSignIn(s);

    expect(await accounts.signIn(laptop.idHash, T0 + 1)).toEqual(laptop);
    expect(await accounts.signIn(hashSecret("never issued"), T0)).toBeNull();
    expect(await accounts.signInsOf(a.id, T0 + 1)).toEqual([phone, laptop]);
    await accounts.touchSignIn(laptop.idHash, T0 + 500);
    expect(await accounts.signIn(laptop.idHash, T0 + 501)).toMatchObject({ lastSeenAt: T0 + 500 });

    // Expired: reads as nothing, and leaves the list.
    expect(await accounts.signIn(laptop.idHash, T0 + 60_000)).toBeNull();
    expect((await accounts.signInsOf(a.id, T0 + 60_000)).map((s) => s.publicId)).toEqual([phone.publicId]);

    expect(await accounts.endSignInByPublicId(b.id, phone.publicId)).toBe(false);
    expect(await accounts.endSignInByPublicId(a.id, phone.publicId)).toBe(true);
    expect(await accounts.signIn(phone.idHash, T0)).toBeNull();

    const again = [signIn(a.id), signIn(a.id), signIn(a.id)];
    for (const s of again) await accounts.createSignIn(s);
    expect(await accounts.endSignInsOf(a.id)).toBe(3);
    for (const s of again) expect(await accounts.signIn(s.idHash, T0)).toBeNull();
    expect(await accounts.signIn(theirs.idHash, T0)).toEqual(theirs);
    await accounts.endSignIn(theirs.idHash);
    expect(await accounts.signIn(theirs.idHash, T0)).toBeNull();
  });

  it("deletes an account with its passkeys and sign-ins, and nothing of anyone else's", async () => {
    const { accounts } = await open();
    const a = teacher({ oidc: { issuer: "https://idp.example", subject: "gone" } });
    const b = teacher();
    await accounts.createAccount(a);
    await accounts.createAccount(b);
    const [ka, kb] = [passkey(a.id), passkey(b.id)];
    await accounts.addPasskey(ka);
    await accounts.addPasskey(kb);
    const [sa, sb] = [signIn(a.id), signIn(b.id)];
    await accounts.createSignIn(sa);
    await accounts.createSignIn(sb);

    expect(await accounts.deleteAccount(a.id)).toBe(true);
    expect(await accounts.account(a.id)).toBeNull();
    expect(await accounts.accountByEmail(a.email)).toBeNull();
    expect(await accounts.accountByOidc("https://idp.example", "gone")).toBeNull();
    expect(await accounts.passkey(ka.credentialId)).toBeNull();
    expect(await accounts.signIn(sa.idHash, T0)).toBeNull();
    expect(await accounts.countAccounts()).toBe(1);

    expect(await accounts.account(b.id)).toMatchObject({ id: b.id });
    expect(await accounts.passkey(kb.credentialId)).toEqual(kb);
    expect(await accounts.signIn(sb.idHash, T0)).toEqual(sb);
  });

  it("hands a ceremony out once, and never after it expires", async () => {
    const { accounts } = await open();
    const now = Date.now();
    const id = hashSecret("ceremony cookie");
    await accounts.saveCeremony(id, { kind: "oidc", payload: '{"state":"s"}', expiresAt: now + 60_000 }, now);
    expect(await accounts.takeCeremony(id, now + 1)).toEqual({ kind: "oidc", payload: '{"state":"s"}', expiresAt: now + 60_000 });
    expect(await accounts.takeCeremony(id, now + 2)).toBeNull();
    await accounts.saveCeremony(id, { kind: "passkey-register", payload: "{}", expiresAt: now + 60_000 }, now);
    expect(await accounts.takeCeremony(id, now + 60_000)).toBeNull();
    expect(await accounts.takeCeremony(hashSecret("unknown"), now)).toBeNull();
  });

  it("keeps everything across a restart", async () => {
    const store = await open();
    const a = teacher();
    await store.accounts.createAccount(a);
    const k = passkey(a.id);
    await store.accounts.addPasskey(k);
    const s = signIn(a.id, { expiresAt: Date.now() + 60_000 });
    await store.accounts.createSignIn(s);
    const reopened = await store.reopen();
    expect(await reopened.accounts.account(a.id)).toEqual({ ...a, admin: true });
    expect(await reopened.accounts.passkey(k.credentialId)).toEqual(k);
    expect(await reopened.accounts.signIn(s.idHash, Date.now())).toEqual(s);
  });
});

describe("the accounts' tables in the SQLite file", () => {
  it("live beside the sessions' tables without touching their schema version, and refuse a newer accounts schema", async () => {
    const store = await backends[0].open();
    const file = store.file!;
    const db = new Database(file, { readonly: true });
    const userVersion = Number(db.pragma("user_version", { simple: true }));
    const tables = db.prepare<[], { name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).all();
    db.close();
    expect(tables.map((t) => t.name)).toEqual(
      expect.arrayContaining(["accounts", "account_passkeys", "account_sign_ins", "auth_ceremonies", "account_meta", "sessions"]),
    );
    // The sessions' migrations own user_version; the accounts' schema is versioned in account_meta.
    await store.accounts.close();
    await store.sessions.close();
    const again = new SqliteSessionStore(file);
    expect(Number(new Database(file, { readonly: true }).pragma("user_version", { simple: true }))).toBe(userVersion);
    const writer = new Database(file);
    writer.prepare(`UPDATE account_meta SET value = '99' WHERE key = 'schema'`).run();
    writer.close();
    expect(() => openAccountStore(again, undefined)).toThrow(StoreError);
    expect(() => openAccountStore(again, undefined)).toThrow(/newer version/);
    await again.close();
  });
});
