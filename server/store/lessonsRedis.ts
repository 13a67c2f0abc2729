import type { CustomLesson } from "../../lib/lesson/model";
import type { LessonSummary } from "../../lib/protocol/rest";
import { isRecord } from "../../lib/guards";
import { asString, asStrings, type RedisClient } from "./redisClient";
import { StoreError } from "./types";
import {
  LESSON_VERSIONS_KEPT,
  MAX_LESSON_VERSIONS_HELD,
  storedLesson,
  summary,
  type AccountLessons,
  type LessonMeta,
  type LessonStore,
  type LessonVersion,
  type NewLessonMeta,
} from "./lessons";

/**
 * Redis keys: `lesson:{id}` a hash (owner: the key's hash, account: the
 * owning account, latest, times), `lesson:{id}:v:{n}` a JSON string per
 * version, `lesson:{id}:held` the numbers of the versions it holds and
 * `lesson:{id}:used` those a session ran, `lesson:{id}:cot` the accounts
 * invited to edit it (by when), the set `lessons` of every id, and per account
 * `lessons:acct:{account}` (owned) and `lessons:acct-cot:{account}`
 * (co-edited). Versions are numbered with HINCRBY, so two edits arriving at
 * two nodes get two numbers.
 */
const owns = (accountId: string) => `lessons:acct:${accountId}`;
const coedits = (accountId: string) => `lessons:acct-cot:${accountId}`;

/** KEYS: the lesson's hash, the account's owned set. ARGV: account, lesson id. 1 when the account owns it afterwards. */
const CLAIM = `if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local owner = redis.call('HGET', KEYS[1], 'account')
if owner and owner ~= '' then
  if owner == ARGV[1] then return 1 end
  return 0
end
redis.call('HSET', KEYS[1], 'account', ARGV[1])
redis.call('ZADD', KEYS[2], redis.call('HGET', KEYS[1], 'createdAt'), ARGV[2])
return 1`;

/** KEYS: the lesson's hash. ARGV: the new owner ('' for none), lesson id. */
const SET_OWNER = `if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local old = redis.call('HGET', KEYS[1], 'account')
if old and old ~= '' then redis.call('ZREM', 'lessons:acct:' .. old, ARGV[2]) end
if ARGV[1] == '' then
  redis.call('HDEL', KEYS[1], 'account')
  return 1
end
redis.call('HSET', KEYS[1], 'account', ARGV[1])
redis.call('ZADD', 'lessons:acct:' .. ARGV[1], redis.call('HGET', KEYS[1], 'createdAt'), ARGV[2])
return 1`;

/** KEYS: the lesson's hash, its co-teachers, the account's co-edited set. ARGV: account, when, lesson id. */
const ADD_COTEACHER = `if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('ZADD', KEYS[2], 'NX', ARGV[2], ARGV[1])
redis.call('ZADD', KEYS[3], redis.call('HGET', KEYS[1], 'createdAt'), ARGV[3])
return 1`;
export class RedisLessonStore implements LessonStore {
  constructor(private readonly client: RedisClient) {}

  private cmd(...args: (string | number)[]): Promise<unknown> {
    return this.client.sendCommand(args.map(String));
  }

  async create(meta: NewLessonMeta, lesson: CustomLesson, source: string): Promise<void> {
    const version: LessonVersion = { id: meta.id, version: 1, lesson, source, createdAt: meta.at };
    const account = meta.ownerAccountId ? ["account", meta.ownerAccountId] : [];
    await this.cmd("SET", `lesson:${meta.id}:v:1`, JSON.stringify(version));
    await this.cmd("SADD", `lesson:${meta.id}:held`, 1);
    await this.cmd(
      "HSET",
      `lesson:${meta.id}`,
      "owner",
      meta.ownerKeyHash,
      "latest",
      1,
      "createdAt",
      meta.at,
      "updatedAt",
      meta.at,
      ...account,
    );
    if (meta.ownerAccountId) await this.cmd("ZADD", owns(meta.ownerAccountId), meta.at, meta.id);
    await this.cmd("SADD", "lessons", meta.id);
  }

  async addVersion(id: string, lesson: CustomLesson, source: string, at: number): Promise<number> {
    const meta = await this.meta(id);
    if (!meta || meta.deletedAt !== null) throw new StoreError(`lesson ${id} does not exist`);
    const n = Number(await this.cmd("HINCRBY", `lesson:${id}`, "latest", 1));
    const version: LessonVersion = { id, version: n, lesson, source, createdAt: at };
    await this.cmd("SET", `lesson:${id}:v:${n}`, JSON.stringify(version));
    await this.cmd("HSET", `lesson:${id}`, "updatedAt", at);
    await this.prune(id, n);
    return n;
  }

  /** Keeps the newest LESSON_VERSIONS_KEPT and the versions sessions ran, up to MAX_LESSON_VERSIONS_HELD in all. */
  private async prune(id: string, latest: number): Promise<void> {
    const heldKey = `lesson:${id}:held`;
    const usedKey = `lesson:${id}:used`;
    if (Number(await this.cmd("EXISTS", heldKey)) === 0 && latest > 1) {
      // Written before versions were pruned: which of them sessions ran was not recorded, so each counts as run.
      const earlier = Array.from({ length: latest - 1 }, (_, i) => i + 1);
      await this.cmd("SADD", heldKey, ...earlier);
      await this.cmd("SADD", usedKey, ...earlier);
    }
    await this.cmd("SADD", heldKey, latest);
    const held = asStrings(await this.cmd("SMEMBERS", heldKey))
      .map(Number)
      .sort((a, b) => a - b);
    const used = new Set(asStrings(await this.cmd("SMEMBERS", usedKey)).map(Number));
    const dropped = held.filter((v) => v <= latest - LESSON_VERSIONS_KEPT && !used.has(v));
    const kept = held.filter((v) => !dropped.includes(v));
    dropped.push(...kept.slice(0, Math.max(0, kept.length - MAX_LESSON_VERSIONS_HELD)));
    if (dropped.length === 0) return;
    await this.cmd("DEL", ...dropped.map((v) => `lesson:${id}:v:${v}`));
    await this.cmd("SREM", heldKey, ...dropped);
    await this.cmd("SREM", usedKey, ...dropped);
  }

  async meta(id: string): Promise<LessonMeta | null> {
    const flat = asStrings(await this.cmd("HGETALL", `lesson:${id}`));
    if (flat.length === 0) return null;
    const h: Record<string, string> = {};
    for (let i = 0; i < flat.length; i += 2) h[flat[i]] = flat[i + 1];
    return {
      id,
      ownerKeyHash: h.owner ?? "",
      ownerAccountId: h.account || null,
      latestVersion: Number(h.latest),
      createdAt: Number(h.createdAt),
      updatedAt: Number(h.updatedAt),
      deletedAt: h.deletedAt ? Number(h.deletedAt) : null,
    };
  }

  async version(id: string, version?: number): Promise<LessonVersion | null> {
    const v = version ?? (await this.meta(id))?.latestVersion;
    if (!v) return null;
    const json = asString(await this.cmd("GET", `lesson:${id}:v:${v}`));
    if (!json) return null;
    const stored: unknown = JSON.parse(json);
    if (!isRecord(stored) || typeof stored.source !== "string" || typeof stored.createdAt !== "number")
      throw new StoreError(`lesson ${id} version ${v} is damaged`);
    return { id, version: v, lesson: storedLesson(JSON.stringify(stored.lesson), id), source: stored.source, createdAt: stored.createdAt };
  }

  async list(ownerKeyHashes: readonly string[] | null, ids: readonly string[] = []): Promise<LessonSummary[]> {
    const owners = ownerKeyHashes ? new Set(ownerKeyHashes) : null;
    const named = new Set(ids);
    const out: LessonSummary[] = [];
    for (const id of asStrings(await this.cmd("SMEMBERS", "lessons"))) {
      const meta = await this.meta(id);
      if (!meta || meta.deletedAt !== null || (owners && !owners.has(meta.ownerKeyHash) && !named.has(id))) continue;
      const latest = await this.version(id);
      if (latest) out.push(summary(meta, latest));
    }
    return out.sort((a, b) => b.updatedAt - a.updatedAt);
  }

  async markDeleted(id: string, at: number): Promise<void> {
    await this.cmd("HSETNX", `lesson:${id}`, "deletedAt", at);
  }

  async remove(id: string): Promise<void> {
    const meta = await this.meta(id);
    if (!meta) return;
    const held = asStrings(await this.cmd("SMEMBERS", `lesson:${id}:held`)).map(Number);
    // A lesson written before `held` was kept has every number up to its latest.
    const versions = held.length > 0 ? held : Array.from({ length: meta.latestVersion }, (_, i) => i + 1);
    if (meta.ownerAccountId) await this.cmd("ZREM", owns(meta.ownerAccountId), id);
    for (const accountId of await this.lessonCoteachers(id)) await this.cmd("ZREM", coedits(accountId), id);
    await this.cmd(
      "DEL",
      `lesson:${id}`,
      `lesson:${id}:held`,
      `lesson:${id}:used`,
      `lesson:${id}:cot`,
      ...versions.map((v) => `lesson:${id}:v:${v}`),
    );
    await this.cmd("SREM", "lessons", id);
  }

  async markUsed(id: string, version: number): Promise<void> {
    if (Number(await this.cmd("SISMEMBER", `lesson:${id}:held`, version)) === 1) await this.cmd("SADD", `lesson:${id}:used`, version);
  }

  async count(): Promise<number> {
    return Number(await this.cmd("SCARD", "lessons"));
  }

  async claimLesson(id: string, accountId: string): Promise<boolean> {
    return Number(await this.cmd("EVAL", CLAIM, 2, `lesson:${id}`, owns(accountId), accountId, id)) === 1;
  }

  async setLessonOwner(id: string, accountId: string | null): Promise<void> {
    await this.cmd("EVAL", SET_OWNER, 1, `lesson:${id}`, accountId ?? "", id);
  }

  async setLessonKey(id: string, ownerKeyHash: string): Promise<void> {
    // Only an existing lesson: HSET on a removed one would bring back a husk.
    if (Number(await this.cmd("EXISTS", `lesson:${id}`)) === 1) await this.cmd("HSET", `lesson:${id}`, "owner", ownerKeyHash);
  }

  async addLessonCoteacher(id: string, accountId: string, at: number): Promise<void> {
    await this.cmd("EVAL", ADD_COTEACHER, 3, `lesson:${id}`, `lesson:${id}:cot`, coedits(accountId), accountId, at, id);
  }

  async removeLessonCoteacher(id: string, accountId: string): Promise<boolean> {
    const removed = Number(await this.cmd("ZREM", `lesson:${id}:cot`, accountId));
    await this.cmd("ZREM", coedits(accountId), id);
    return removed === 1;
  }

  async lessonCoteachers(id: string): Promise<string[]> {
    return asStrings(await this.cmd("ZRANGE", `lesson:${id}:cot`, 0, -1));
  }

  async lessonsOfAccount(accountId: string): Promise<AccountLessons> {
    const owned = asStrings(await this.cmd("ZREVRANGE", owns(accountId), 0, -1));
    const coediting = asStrings(await this.cmd("ZREVRANGE", coedits(accountId), 0, -1));
    return { owned, coediting };
  }

  async close(): Promise<void> {
    // The client belongs to the session store, which closes it.
  }
}
