import { createHash } from "node:crypto";
import type { Account, AccountPatch, AccountStore, Ceremony, CreateAccountResult, NewAccount, Passkey, SignIn } from "./accounts";
import { ceremonyKind, signInMethod } from "./accountsSqlite";
import { asString, asStrings, redisCommand, type RedisClient } from "./redisClient";
import { StoreError } from "./types";

/**
 * Scale-out: accounts in the Redis every process shares, so a teacher signed
 * in through one node is signed in on all of them. Keys (all `cls:` like the
 * sessions'): `cls:acct:{id}` a hash, `cls:acct-email:{email}` and
 * `cls:acct-oidc:{sha256(issuer, subject)}` pointing at the id, the sorted set
 * `cls:accounts` (by creation), `cls:acct-first` (the first account ever:
 * the administrator), `cls:acct:{id}:passkeys` / `:signins` sets, a hash per
 * `cls:passkey:{credentialId}` and per `cls:signin:{cookie hash}` (expiring
 * with the sign-in), and `cls:ceremony:{cookie hash}` (expiring, read once).
 * Whatever must hold across keys (one account per email, the first is admin,
 * deleting everything of an account) runs as one script.
 */
const K = {
  account: (id: string) => `cls:acct:${id}`,
  email: (email: string) => `cls:acct-email:${email}`,
  oidc: (issuer: string, subject: string) =>
    `cls:acct-oidc:${createHash("sha256").update(issuer).update("\n").update(subject).digest("hex")}`,
  accounts: "cls:accounts",
  first: "cls:acct-first",
  passkeys: (id: string) => `cls:acct:${id}:passkeys`,
  signIns: (id: string) => `cls:acct:${id}:signins`,
  passkey: (credentialId: string) => `cls:passkey:${credentialId}`,
  signIn: (idHash: string) => `cls:signin:${idHash}`,
  ceremony: (idHash: string) => `cls:ceremony:${idHash}`,
};
/** A key no account uses, for a script's KEYS slot that a call leaves empty. */
const NO_KEY = "cls:acct-oidc:none";

const CREATE = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 'EMAIL_TAKEN' end
if ARGV[4] == '1' and redis.call('EXISTS', KEYS[2]) == 1 then return 'OIDC_TAKEN' end
local first = redis.call('SETNX', KEYS[5], ARGV[1])
local admin = '0'
if ARGV[3] == '1' or first == 1 then admin = '1' end
redis.call('SET', KEYS[1], ARGV[1])
if ARGV[4] == '1' then redis.call('SET', KEYS[2], ARGV[1]) end
redis.call('HSET', KEYS[3], 'admin', admin, unpack(ARGV, 5))
redis.call('ZADD', KEYS[4], ARGV[2], ARGV[1])
return admin
`;

/** ARGV[1]: 'set' | 'clear' | 'keep' the school identity (KEYS[2] its key), ARGV[2] the id, then field/value pairs ('' deletes). */
const UPDATE = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local old = redis.call('HGET', KEYS[1], 'oidcKey')
if ARGV[1] == 'set' then
  local holder = redis.call('GET', KEYS[2])
  if holder and holder ~= ARGV[2] then return 0 end
  if old and old ~= KEYS[2] then redis.call('DEL', old) end
  redis.call('SET', KEYS[2], ARGV[2])
  redis.call('HSET', KEYS[1], 'oidcKey', KEYS[2])
elseif ARGV[1] == 'clear' then
  if old then redis.call('DEL', old) end
  redis.call('HDEL', KEYS[1], 'oidcKey', 'oidcIssuer', 'oidcSubject')
end
for i = 3, #ARGV, 2 do
  if ARGV[i + 1] == '' then redis.call('HDEL', KEYS[1], ARGV[i]) else redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
end
return 1
`;

/** Everything of one account: KEYS account hash, accounts set, passkeys set, sign-ins set; ARGV the id. */
const DELETE = `
local email = redis.call('HGET', KEYS[1], 'email')
if not email then return 0 end
if redis.call('GET', 'cls:acct-email:' .. email) == ARGV[1] then redis.call('DEL', 'cls:acct-email:' .. email) end
local oidc = redis.call('HGET', KEYS[1], 'oidcKey')
if oidc and redis.call('GET', oidc) == ARGV[1] then redis.call('DEL', oidc) end
for _, c in ipairs(redis.call('SMEMBERS', KEYS[3])) do redis.call('DEL', 'cls:passkey:' .. c) end
for _, s in ipairs(redis.call('SMEMBERS', KEYS[4])) do redis.call('DEL', 'cls:signin:' .. s) end
redis.call('DEL', KEYS[1], KEYS[3], KEYS[4])
redis.call('ZREM', KEYS[2], ARGV[1])
return 1
`;

const ADD_PASSKEY = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
redis.call('SADD', KEYS[2], redis.call('HGET', KEYS[1], 'credentialId'))
return 1
`;

type Hash = Record<string, string>;

function hashOf(reply: unknown): Hash | null {
  const flat = asStrings(reply);
  if (flat.length === 0) return null;
  const h: Hash = {};
  for (let i = 0; i < flat.length; i += 2) h[flat[i]] = flat[i + 1];
  return h;
}

function need(h: Hash, field: string, what: string): string {
  const v = h[field];
  if (v === undefined) throw new StoreError(`${what} is damaged: no ${field}`);
  return v;
}

function toAccount(id: string, h: Hash): Account {
  const issuer = h.oidcIssuer;
  const subject = h.oidcSubject;
  return {
    id,
    email: need(h, "email", `account ${id}`),
    displayName: need(h, "displayName", `account ${id}`),
    admin: h.admin === "1",
    createdAt: Number(need(h, "createdAt", `account ${id}`)),
    passwordHash: h.passwordHash ?? null,
    oidc: issuer !== undefined && subject !== undefined ? { issuer, subject } : null,
    userHandle: need(h, "userHandle", `account ${id}`),
  };
}

function toPasskey(h: Hash): Passkey {
  const last = h.lastUsedAt;
  return {
    credentialId: need(h, "credentialId", "a passkey"),
    accountId: need(h, "accountId", "a passkey"),
    publicKey: need(h, "publicKey", "a passkey"),
    counter: Number(need(h, "counter", "a passkey")),
    transports: h.transports ? h.transports.split(",") : [],
    backedUp: h.backedUp === "1",
    createdAt: Number(need(h, "createdAt", "a passkey")),
    lastUsedAt: last === undefined ? null : Number(last),
  };
}

function toSignIn(idHash: string, h: Hash): SignIn {
  return {
    idHash,
    publicId: need(h, "publicId", "a sign-in"),
    accountId: need(h, "accountId", "a sign-in"),
    method: signInMethod(need(h, "method", "a sign-in")),
    createdAt: Number(need(h, "createdAt", "a sign-in")),
    expiresAt: Number(need(h, "expiresAt", "a sign-in")),
    lastSeenAt: Number(need(h, "lastSeenAt", "a sign-in")),
    userAgent: h.userAgent ?? "",
  };
}

export class RedisAccountStore implements AccountStore {
  constructor(private readonly client: RedisClient) {}

  private cmd(...args: (string | number)[]): Promise<unknown> {
    return redisCommand(this.client, args);
  }

  async createAccount(a: NewAccount): Promise<CreateAccountResult> {
    const fields: (string | number)[] = [
      "email",
      a.email,
      "displayName",
      a.displayName,
      "createdAt",
      a.createdAt,
      "userHandle",
      a.userHandle,
    ];
    if (a.passwordHash !== null) fields.push("passwordHash", a.passwordHash);
    const oidcKey = a.oidc ? K.oidc(a.oidc.issuer, a.oidc.subject) : NO_KEY;
    if (a.oidc) fields.push("oidcIssuer", a.oidc.issuer, "oidcSubject", a.oidc.subject, "oidcKey", oidcKey);
    const keys = [K.email(a.email), oidcKey, K.account(a.id), K.accounts, K.first];
    const reply = asString(
      await this.cmd("EVAL", CREATE, keys.length, ...keys, a.id, a.createdAt, a.admin ? "1" : "0", a.oidc ? "1" : "0", ...fields),
    );
    if (reply === "EMAIL_TAKEN" || reply === "OIDC_TAKEN") return { ok: false, reason: reply };
    const { admin: _forced, ...rest } = a;
    return { ok: true, account: { ...rest, admin: reply === "1" } };
  }

  async account(id: string): Promise<Account | null> {
    const h = hashOf(await this.cmd("HGETALL", K.account(id)));
    return h ? toAccount(id, h) : null;
  }

  private async byPointer(key: string): Promise<Account | null> {
    const id = asString(await this.cmd("GET", key));
    return id ? this.account(id) : null;
  }

  accountByEmail(email: string): Promise<Account | null> {
    return this.byPointer(K.email(email));
  }

  accountByOidc(issuer: string, subject: string): Promise<Account | null> {
    return this.byPointer(K.oidc(issuer, subject));
  }

  async listAccounts(): Promise<Account[]> {
    const out: Account[] = [];
    for (const id of asStrings(await this.cmd("ZRANGE", K.accounts, 0, -1))) {
      const account = await this.account(id);
      if (account) out.push(account);
    }
    return out;
  }

  async countAccounts(): Promise<number> {
    return Number(await this.cmd("ZCARD", K.accounts));
  }

  async updateAccount(id: string, patch: AccountPatch): Promise<boolean> {
    const fields: string[] = [];
    if (patch.displayName !== undefined) fields.push("displayName", patch.displayName);
    if (patch.admin !== undefined) fields.push("admin", patch.admin ? "1" : "0");
    if (patch.passwordHash !== undefined) fields.push("passwordHash", patch.passwordHash ?? "");
    let oidc: "set" | "clear" | "keep" = "keep";
    let oidcKey = NO_KEY;
    if (patch.oidc) {
      oidc = "set";
      oidcKey = K.oidc(patch.oidc.issuer, patch.oidc.subject);
      fields.push("oidcIssuer", patch.oidc.issuer, "oidcSubject", patch.oidc.subject);
    } else if (patch.oidc === null) oidc = "clear";
    return Number(await this.cmd("EVAL", UPDATE, 2, K.account(id), oidcKey, oidc, id, ...fields)) === 1;
  }

  async deleteAccount(id: string): Promise<boolean> {
    const keys = [K.account(id), K.accounts, K.passkeys(id), K.signIns(id)];
    return Number(await this.cmd("EVAL", DELETE, keys.length, ...keys, id)) === 1;
  }

  async addPasskey(p: Passkey): Promise<boolean> {
    const fields: (string | number)[] = [
      "credentialId",
      p.credentialId,
      "accountId",
      p.accountId,
      "publicKey",
      p.publicKey,
      "counter",
      p.counter,
      "transports",
      p.transports.join(","),
      "backedUp",
      p.backedUp ? "1" : "0",
      "createdAt",
      p.createdAt,
    ];
    if (p.lastUsedAt !== null) fields.push("lastUsedAt", p.lastUsedAt);
    return Number(await this.cmd("EVAL", ADD_PASSKEY, 2, K.passkey(p.credentialId), K.passkeys(p.accountId), ...fields)) === 1;
  }

  async passkey(credentialId: string): Promise<Passkey | null> {
    const h = hashOf(await this.cmd("HGETALL", K.passkey(credentialId)));
    return h ? toPasskey(h) : null;
  }

  async passkeysOf(accountId: string): Promise<Passkey[]> {
    const out: Passkey[] = [];
    for (const credentialId of asStrings(await this.cmd("SMEMBERS", K.passkeys(accountId)))) {
      const passkey = await this.passkey(credentialId);
      if (passkey) out.push(passkey);
    }
    return out.sort((a, b) => a.createdAt - b.createdAt || a.credentialId.localeCompare(b.credentialId));
  }

  async notePasskeyUse(credentialId: string, counter: number, at: number): Promise<void> {
    // Only an existing passkey: HSET on a removed one would bring back a husk.
    const key = K.passkey(credentialId);
    if (Number(await this.cmd("EXISTS", key)) === 1) await this.cmd("HSET", key, "counter", counter, "lastUsedAt", at);
  }

  async removePasskey(accountId: string, credentialId: string): Promise<boolean> {
    const passkey = await this.passkey(credentialId);
    if (!passkey || passkey.accountId !== accountId) return false;
    await this.cmd("DEL", K.passkey(credentialId));
    await this.cmd("SREM", K.passkeys(accountId), credentialId);
    return true;
  }

  async createSignIn(s: SignIn): Promise<void> {
    const key = K.signIn(s.idHash);
    await this.cmd(
      "HSET",
      key,
      "publicId",
      s.publicId,
      "accountId",
      s.accountId,
      "method",
      s.method,
      "createdAt",
      s.createdAt,
      "expiresAt",
      s.expiresAt,
      "lastSeenAt",
      s.lastSeenAt,
      "userAgent",
      s.userAgent,
    );
    // Redis forgets it when it ends; the account's set is pruned as it is read.
    await this.cmd("PEXPIREAT", key, s.expiresAt);
    await this.cmd("SADD", K.signIns(s.accountId), s.idHash);
  }

  async signIn(idHash: string, now: number): Promise<SignIn | null> {
    const h = hashOf(await this.cmd("HGETALL", K.signIn(idHash)));
    if (!h) return null;
    const s = toSignIn(idHash, h);
    return s.expiresAt > now ? s : null;
  }

  async touchSignIn(idHash: string, at: number): Promise<void> {
    const key = K.signIn(idHash);
    if (Number(await this.cmd("EXISTS", key)) === 1) await this.cmd("HSET", key, "lastSeenAt", at);
  }

  async signInsOf(accountId: string, now: number): Promise<SignIn[]> {
    const out: SignIn[] = [];
    for (const idHash of asStrings(await this.cmd("SMEMBERS", K.signIns(accountId)))) {
      const s = await this.signIn(idHash, now);
      if (s) out.push(s);
      else await this.cmd("SREM", K.signIns(accountId), idHash);
    }
    return out.sort((a, b) => b.createdAt - a.createdAt || a.publicId.localeCompare(b.publicId));
  }

  async endSignIn(idHash: string): Promise<void> {
    const h = hashOf(await this.cmd("HGETALL", K.signIn(idHash)));
    await this.cmd("DEL", K.signIn(idHash));
    if (h?.accountId) await this.cmd("SREM", K.signIns(h.accountId), idHash);
  }

  async endSignInByPublicId(accountId: string, publicId: string): Promise<boolean> {
    for (const idHash of asStrings(await this.cmd("SMEMBERS", K.signIns(accountId)))) {
      if (asString(await this.cmd("HGET", K.signIn(idHash), "publicId")) !== publicId) continue;
      await this.cmd("DEL", K.signIn(idHash));
      await this.cmd("SREM", K.signIns(accountId), idHash);
      return true;
    }
    return false;
  }

  async endSignInsOf(accountId: string): Promise<number> {
    const hashes = asStrings(await this.cmd("SMEMBERS", K.signIns(accountId)));
    const ended = hashes.length > 0 ? Number(await this.cmd("DEL", ...hashes.map(K.signIn))) : 0;
    await this.cmd("DEL", K.signIns(accountId));
    return ended;
  }

  async saveCeremony(idHash: string, c: Ceremony, _now: number): Promise<void> {
    await this.cmd(
      "SET",
      K.ceremony(idHash),
      JSON.stringify({ kind: c.kind, payload: c.payload, expiresAt: c.expiresAt }),
      "PXAT",
      c.expiresAt,
    );
  }

  async takeCeremony(idHash: string, now: number): Promise<Ceremony | null> {
    const json = asString(await this.cmd("GETDEL", K.ceremony(idHash)));
    if (!json) return null;
    const stored: unknown = JSON.parse(json);
    if (typeof stored !== "object" || stored === null || !("kind" in stored) || !("payload" in stored) || !("expiresAt" in stored))
      throw new StoreError("a stored ceremony is damaged");
    const { kind, payload, expiresAt } = stored;
    if (typeof kind !== "string" || typeof payload !== "string" || typeof expiresAt !== "number")
      throw new StoreError("a stored ceremony is damaged");
    return expiresAt > now ? { kind: ceremonyKind(kind), payload, expiresAt } : null;
  }

  async close(): Promise<void> {
    // The client belongs to the session store, which closes it.
  }
}
