import { isRecord } from "../../lib/guards";
import { asStrings, type RedisClient, redisCommand } from "./redisClient";
import { consoleIdOf } from "./consoles";
import { K } from "./redisLayout";
import { StoreError, type AccountSessions, type ConsoleKey } from "./types";

/**
 * Who may use a session, in Redis (schema 2, redisLayout.ts): the `owner`
 * field of the session's hash, its co-teachers (`cls:cot:`), its consoles
 * (`cls:cons:`, each key hash also in the `cls:hk:` index that lists a
 * browser's sessions), and per account the sessions it owns and co-teaches.
 * Each change that touches several keys is one script; retention's script
 * (redisLayout.ts DELETE_ENDED) removes all of it with the session.
 */

/** KEYS: session hash, the account's owned set. ARGV: account, session id. 1 when the account owns it afterwards. */
const CLAIM = `if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local owner = redis.call('HGET', KEYS[1], 'owner')
if owner and owner ~= '' then
  if owner == ARGV[1] then return 1 end
  return 0
end
redis.call('HSET', KEYS[1], 'owner', ARGV[1])
redis.call('ZADD', KEYS[2], redis.call('HGET', KEYS[1], 'createdAt'), ARGV[2])
return 1`;

/** KEYS: session hash. ARGV: the new owner ('' for none), session id. */
const SET_OWNER = `if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local old = redis.call('HGET', KEYS[1], 'owner')
if old and old ~= '' then redis.call('ZREM', 'cls:acct:' .. old .. ':owns', ARGV[2]) end
if ARGV[1] == '' then
  redis.call('HDEL', KEYS[1], 'owner')
  return 1
end
redis.call('HSET', KEYS[1], 'owner', ARGV[1])
redis.call('ZADD', 'cls:acct:' .. ARGV[1] .. ':owns', redis.call('HGET', KEYS[1], 'createdAt'), ARGV[2])
return 1`;

/** KEYS: session hash, its co-teachers, the account's co-taught set. ARGV: account, when, session id. */
const ADD_COTEACHER = `if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('ZADD', KEYS[2], 'NX', ARGV[2], ARGV[1])
redis.call('ZADD', KEYS[3], redis.call('HGET', KEYS[1], 'createdAt'), ARGV[3])
return 1`;

/** KEYS: session hash, its consoles, the key hash's index. ARGV: console id, console JSON, session id. */
const ADD_CONSOLE = `if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSETNX', KEYS[2], ARGV[1], ARGV[2])
redis.call('SADD', KEYS[3], ARGV[3])
return 1`;

/** KEYS: the session's consoles. ARGV: console id, session id. */
const REVOKE_CONSOLE = `local c = redis.call('HGET', KEYS[1], ARGV[1])
if not c then return 0 end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('SREM', 'cls:hk:' .. cjson.decode(c).keyHash, ARGV[2])
return 1`;

/** How a console is kept in its session's hash (the id is the field). */
export function consoleJson(console: ConsoleKey): string {
  return JSON.stringify({ keyHash: console.keyHash, accountId: console.accountId, createdAt: console.createdAt });
}

function parseConsole(id: string, json: string): ConsoleKey {
  const c: unknown = JSON.parse(json);
  if (
    !isRecord(c) ||
    typeof c.keyHash !== "string" ||
    typeof c.createdAt !== "number" ||
    !(c.accountId === null || typeof c.accountId === "string")
  )
    throw new StoreError(`a stored console is damaged`);
  return { id, keyHash: c.keyHash, accountId: c.accountId, createdAt: c.createdAt };
}

export class RedisSessionAccess {
  constructor(private readonly client: Pick<RedisClient, "sendCommand">) {}

  private cmd(args: (string | number)[]): Promise<unknown> {
    return redisCommand(this.client, args);
  }

  async consoles(sessionId: string): Promise<ConsoleKey[]> {
    const flat = asStrings(await this.cmd(["HGETALL", K.consoles(sessionId)]));
    const out: ConsoleKey[] = [];
    for (let i = 0; i < flat.length; i += 2) out.push(parseConsole(flat[i], flat[i + 1]));
    return out.sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
  }

  async hostKeyHashes(sessionId: string): Promise<string[]> {
    return (await this.consoles(sessionId)).map((c) => c.keyHash);
  }

  async addConsole(sessionId: string, console: ConsoleKey): Promise<void> {
    const keys = [K.session(sessionId), K.consoles(sessionId), K.hostKey(console.keyHash)];
    await this.cmd(["EVAL", ADD_CONSOLE, keys.length, ...keys, console.id, consoleJson(console), sessionId]);
  }

  async revokeConsole(sessionId: string, consoleId: string): Promise<boolean> {
    return Number(await this.cmd(["EVAL", REVOKE_CONSOLE, 1, K.consoles(sessionId), consoleId, sessionId])) === 1;
  }

  async claim(sessionId: string, accountId: string): Promise<boolean> {
    const keys = [K.session(sessionId), K.accountOwns(accountId)];
    return Number(await this.cmd(["EVAL", CLAIM, keys.length, ...keys, accountId, sessionId])) === 1;
  }

  async setOwner(sessionId: string, accountId: string | null): Promise<void> {
    await this.cmd(["EVAL", SET_OWNER, 1, K.session(sessionId), accountId ?? "", sessionId]);
  }

  async addCoteacher(sessionId: string, accountId: string, at: number): Promise<void> {
    const keys = [K.session(sessionId), K.coteachers(sessionId), K.accountCoteaches(accountId)];
    await this.cmd(["EVAL", ADD_COTEACHER, keys.length, ...keys, accountId, at, sessionId]);
  }

  async removeCoteacher(sessionId: string, accountId: string): Promise<boolean> {
    const removed = Number(await this.cmd(["ZREM", K.coteachers(sessionId), accountId]));
    await this.cmd(["ZREM", K.accountCoteaches(accountId), sessionId]);
    return removed === 1;
  }

  async coteachers(sessionId: string): Promise<string[]> {
    return asStrings(await this.cmd(["ZRANGE", K.coteachers(sessionId), 0, -1]));
  }

  async sessionsOf(accountId: string): Promise<AccountSessions> {
    const [owned, coteaching] = await Promise.all([
      this.cmd(["ZREVRANGE", K.accountOwns(accountId), 0, -1]),
      this.cmd(["ZREVRANGE", K.accountCoteaches(accountId), 0, -1]),
    ]);
    return { owned: asStrings(owned), coteaching: asStrings(coteaching) };
  }

  /**
   * Schema 1 to 2: each session's first console, from the `hostKeyHash` it was
   * created with (its index entry is already there). Idempotent, so two nodes
   * opening the same data at once both finish it.
   */
  async migrateToConsoles(): Promise<void> {
    for (const id of asStrings(await this.cmd(["ZRANGE", K.sessions, 0, -1]))) {
      const reply = await this.cmd(["HMGET", K.session(id), "hostKeyHash", "createdAt"]);
      const [keyHash, createdAt] = Array.isArray(reply) ? reply.map((v) => (typeof v === "string" ? v : "")) : [];
      if (!keyHash) continue;
      const first: ConsoleKey = { id: consoleIdOf(keyHash), keyHash, accountId: null, createdAt: Number(createdAt) };
      await this.cmd(["HSETNX", K.consoles(id), first.id, consoleJson(first)]);
    }
  }
}
