import type { SessionEvent } from "../../lib/session/types";
import { parseStoredEvent } from "../../lib/session/eventSchema";
import { log } from "../logger";
import { BatchedStore } from "./writeQueue";
import {
  LostOwnershipError,
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
import { countEvent } from "../ops/metrics";
import { asStreamEntries, asString, asStrings, classifyRedisError, redisCommand, type RedisClient } from "./redisClient";
import {
  K,
  REDIS_SCHEMA_VERSION,
  appendEventsCommand,
  deleteEndedCommand,
  raisePeakCommand,
  summaryFields,
  type Fence,
} from "./redisLayout";
import { deltaOf } from "./summary";
import { RedisSessionAccess, consoleJson } from "./redisAccess";
import { firstConsole } from "./consoles";

// Where other modules have always found the Redis connection and the scale-out keys; they live beside it now.
export {
  asStreamEntries,
  asString,
  asStrings,
  classifyRedisError,
  connectRedis,
  evalCached,
  redisCommand,
  type RedisClient,
} from "./redisClient";
export { epochKey, ownerKey, presenceKey, type Fence } from "./redisLayout";

/**
 * The store for several server processes: a Redis stream per session holds
 * its event log (entry id = `<seq>-1`, so Redis itself refuses a second
 * writer of the same sequence number), a hash per session its record and
 * counters. The same SessionStore interface as SQLite; the rules do not know
 * which one they run on.
 */
const logError = (msg: string, err: Error) => log.error(msg, { error: err.message });

export class RedisSessionStore extends BatchedStore implements SessionStore {
  /**
   * Opens the store after checking the data's schema version: data written by
   * a newer server is refused with the reason, never read as an empty list.
   */
  static async open(client: RedisClient): Promise<RedisSessionStore> {
    await client.sendCommand(["SETNX", K.schema, String(REDIS_SCHEMA_VERSION)]);
    const version = Number(await client.sendCommand(["GET", K.schema]));
    if (!Number.isInteger(version) || version > REDIS_SCHEMA_VERSION) {
      throw new StoreError(
        `the Redis data was written by a newer version of this server (schema ${String(version)}, this server knows ${REDIS_SCHEMA_VERSION}). Upgrade the server.`,
      );
    }
    const store = new RedisSessionStore(client);
    if (version < 2) await store.access.migrateToConsoles();
    if (version < REDIS_SCHEMA_VERSION) await client.sendCommand(["SET", K.schema, String(REDIS_SCHEMA_VERSION)]);
    return store;
  }

  /** Owner, co-teachers and consoles (./redisAccess.ts). */
  private readonly access: RedisSessionAccess;

  /** Scale-out: the claim each session's events are written under; null refuses the write here. */
  private fenceOf: ((sessionId: string) => Fence | null) | null = null;

  /** Scale-out votes: the intake entry each folded vote's event takes out of the intake when it is written. */
  private readonly intakeIds = new WeakMap<SessionEvent, string>();
  /** The intake entry being folded now (see foldIntake). */
  private folding: { sessionId: string; entryId: string; used: boolean } | null = null;

  constructor(private readonly client: RedisClient) {
    super("events to redis", logError, "redis");
    this.access = new RedisSessionAccess(client);
  }

  /**
   * Writes each session's events only under the claim `fenceOf` names, and
   * refuses them (LostOwnershipError, nothing sent) when it names none: a node
   * that lost a session, or cannot be sure it still holds it, writes nothing.
   */
  fenceWith(fenceOf: (sessionId: string) => Fence | null): void {
    this.fenceOf = fenceOf;
  }

  /**
   * Runs `fold` (the owner applying one vote of the intake, server/scaleout/voteFold.ts) and ties the vote's event,
   * if it appends one, to the intake entry: the script that writes the event deletes the entry, so the intake
   * holds exactly the votes not yet in the log. Returns whether an event took it.
   */
  foldIntake(sessionId: string, entryId: string, fold: () => void): boolean {
    const folding = (this.folding = { sessionId, entryId, used: false });
    try {
      fold();
    } finally {
      this.folding = null;
    }
    return folding.used;
  }

  override append(sessionId: string, event: SessionEvent): void {
    const folding = this.folding;
    if (folding && !folding.used && folding.sessionId === sessionId && event.type === "poll:voted") {
      folding.used = true;
      this.intakeIds.set(event, folding.entryId);
    }
    super.append(sessionId, event);
  }

  /** One command; a failure says whether it was never sent, refused, or unconfirmed (classifyRedisError). */
  private cmd(args: (string | number)[]): Promise<unknown> {
    return redisCommand(this.client, args);
  }

  async createSession(record: NewSessionRecord, created: SessionEvent): Promise<void> {
    const first = firstConsole(record);
    await Promise.all([
      this.cmd([
        "HSET",
        K.session(record.id),
        "id",
        record.id,
        "code",
        record.code,
        "title",
        record.title,
        "hostKeyHash",
        record.hostKeyHash,
        "createdAt",
        record.createdAt,
        "peak",
        0,
        ...(record.ownerAccountId ? ["owner", record.ownerAccountId] : []),
        ...summaryFields(deltaOf([created])),
      ]),
      this.cmd(["HSET", K.consoles(record.id), first.id, consoleJson(first)]),
      ...(record.ownerAccountId ? [this.cmd(["ZADD", K.accountOwns(record.ownerAccountId), record.createdAt, record.id])] : []),
      this.cmd(["SET", K.code(record.code), record.id]),
      this.cmd(["SADD", K.hostKey(record.hostKeyHash), record.id]),
      this.cmd(["ZADD", K.sessions, record.createdAt, record.id]),
      this.cmd(["SADD", K.live, record.id]),
      this.cmd(["XADD", K.events(record.id), `${created.seq}-1`, "e", JSON.stringify(created)]),
    ]);
    countEvent(created.type);
  }

  /** A write Redis must accept: refused by a read-only replica, a full `maxmemory`, or a failed persistence (MISCONF). */
  async checkWritable(): Promise<void> {
    await this.cmd(["SET", K.probe, Date.now(), "PX", 60_000]);
  }

  /**
   * Sessions are indexed by creation time, and one that ended before the
   * cutoff was created before it too: only those are read. Each is deleted
   * by one script, which checks again that it ended before the cutoff.
   */
  async deleteEndedBefore(cutoff: number, signal?: AbortSignal): Promise<RetentionSweep> {
    const total: RetentionSweep = { sessions: 0, events: 0 };
    const candidates = asStrings(await this.cmd(["ZRANGEBYSCORE", K.sessions, "-inf", `(${cutoff}`]));
    for (const id of candidates) {
      if (signal?.aborted) break;
      const reply = await this.cmd(["HMGET", K.session(id), "endedAt", "code", "hostKeyHash"]);
      if (!Array.isArray(reply)) throw new StoreError("redis answered something other than a list to HMGET");
      const [endedAt, code, hostKeyHash] = reply.map((v) => (typeof v === "string" ? v : ""));
      if (!endedAt || Number(endedAt) >= cutoff) continue;
      const events = Number(await this.cmd(deleteEndedCommand(id, code, hostKeyHash, cutoff)));
      if (events < 0) continue;
      total.sessions += 1;
      total.events += events;
    }
    return total;
  }

  /** One pipelined round trip per batch, one script per session's events; a refused write fails only its session. */
  protected async writeBatch(batch: QueuedWrite[]): Promise<BatchOutcome> {
    const ops: { sessionId: string; op: Promise<unknown> }[] = [];
    // Each session's events in this batch, in order: written by one script, under one claim, or refused here.
    const events = new Map<string, SessionEvent[]>();
    for (const write of batch) {
      if (write.kind === "token") {
        ops.push({ sessionId: write.sessionId, op: this.cmd(["HSET", K.tokens(write.sessionId), write.tokenHash, write.participantId]) });
      } else if (write.kind === "peak") {
        ops.push({ sessionId: write.sessionId, op: this.cmd(raisePeakCommand(write.sessionId, write.peak)) });
      } else {
        const list = events.get(write.sessionId);
        if (list) list.push(write.event);
        else events.set(write.sessionId, [write.event]);
      }
    }
    for (const [sessionId, list] of events) {
      const fence = this.fenceOf ? this.fenceOf(sessionId) : undefined;
      const op =
        fence === null
          ? Promise.reject(new LostOwnershipError(false))
          : // The events' summary deltas ride in the same script call: no extra command per event.
            this.cmd(appendEventsCommand(sessionId, list, fence, (e) => this.intakeIds.get(e)));
      ops.push({ sessionId, op });
    }
    const results = await Promise.allSettled(ops.map((o) => o.op));
    // A refused write (a stale owner's) fails only its session; its first error says what happened to it.
    const failed = new Map<string, Error>();
    results.forEach((r, i) => {
      const { sessionId } = ops[i];
      if (r.status === "rejected" && !failed.has(sessionId)) failed.set(sessionId, classifyRedisError(r.reason));
    });
    return failed;
  }

  async loadEvents(sessionId: string): Promise<SessionEvent[]> {
    const entries = asStreamEntries(await this.cmd(["XRANGE", K.events(sessionId), "-", "+"]));
    return entries.map(([id, fields]) => {
      try {
        return parseStoredEvent(fields[1]);
      } catch {
        throw new StoreError(`session ${sessionId}: event ${id} is not valid JSON`);
      }
    });
  }

  private async hash(id: string): Promise<Record<string, string> | null> {
    const flat = asStrings(await this.cmd(["HGETALL", K.session(id)]));
    if (!flat || flat.length === 0) return null;
    const out: Record<string, string> = {};
    for (let i = 0; i < flat.length; i += 2) out[flat[i]] = flat[i + 1];
    return out;
  }

  async getSession(id: string): Promise<SessionRecord | null> {
    const h = await this.hash(id);
    if (!h) return null;
    return {
      id: h.id,
      code: h.code,
      title: h.title,
      hostKeyHash: h.hostKeyHash,
      createdAt: Number(h.createdAt),
      endedAt: h.endedAt ? Number(h.endedAt) : null,
      shareKeyHash: h.shareKeyHash || null,
      shareGeneration: h.shareGeneration ? Number(h.shareGeneration) : 0,
      shareKey: h.shareKey || null,
      ownerAccountId: h.owner || null,
    };
  }

  async findByCode(code: string): Promise<SessionRecord | null> {
    const id = asString(await this.cmd(["GET", K.code(code)]));
    return id ? this.getSession(id) : null;
  }

  async codeExists(code: string): Promise<boolean> {
    const rec = await this.findByCode(code);
    return !!rec && rec.endedAt === null;
  }

  async liveSessionIds(): Promise<string[]> {
    return asStrings(await this.cmd(["SMEMBERS", K.live]));
  }

  async listSessions(ids?: readonly string[]): Promise<SessionSummary[]> {
    const list = ids ? [...ids] : asStrings(await this.cmd(["ZREVRANGE", K.sessions, 0, 499]));
    const rows = await Promise.all(list.map((id) => this.hash(id)));
    return rows
      .filter((h): h is Record<string, string> => h !== null)
      .map((h) => ({
        id: h.id,
        code: h.code,
        title: h.title,
        createdAt: Number(h.createdAt),
        endedAt: h.endedAt ? Number(h.endedAt) : null,
        status: h.endedAt ? ("ended" as const) : ("live" as const),
        lastEventAt: Number(h.lastEventAt),
        eventCount: Number(h.events ?? 0),
        participantCount: Number(h.participants ?? 0),
        peakParticipants: Number(h.peak ?? 0),
        pollCount: Number(h.polls ?? 0),
        shared: !!h.shareKeyHash,
      }))
      .sort((a, b) => b.createdAt - a.createdAt);
  }

  async sessionIdsByHostKeyHash(hashes: readonly string[]): Promise<string[]> {
    const sets = await Promise.all(hashes.map(async (h) => asStrings(await this.cmd(["SMEMBERS", K.hostKey(h)]))));
    return [...new Set(sets.flat())];
  }

  async setReplaySharing(id: string, shareKeyHash: string | null, generation: number, shareKey: string | null = null): Promise<void> {
    const key = shareKeyHash === null ? "" : (shareKey ?? "");
    await this.cmd(["HSET", K.session(id), "shareKeyHash", shareKeyHash ?? "", "shareGeneration", generation, "shareKey", key]);
  }

  hostKeyHashes(sessionId: string): Promise<string[]> {
    return this.access.hostKeyHashes(sessionId);
  }

  consoles(sessionId: string): Promise<ConsoleKey[]> {
    return this.access.consoles(sessionId);
  }

  addConsole(sessionId: string, console: ConsoleKey): Promise<void> {
    return this.access.addConsole(sessionId, console);
  }

  revokeConsole(sessionId: string, consoleId: string): Promise<boolean> {
    return this.access.revokeConsole(sessionId, consoleId);
  }

  claimSession(sessionId: string, accountId: string): Promise<boolean> {
    return this.access.claim(sessionId, accountId);
  }

  setSessionOwner(sessionId: string, accountId: string | null): Promise<void> {
    return this.access.setOwner(sessionId, accountId);
  }

  addSessionCoteacher(sessionId: string, accountId: string, at: number): Promise<void> {
    return this.access.addCoteacher(sessionId, accountId, at);
  }

  removeSessionCoteacher(sessionId: string, accountId: string): Promise<boolean> {
    return this.access.removeCoteacher(sessionId, accountId);
  }

  sessionCoteachers(sessionId: string): Promise<string[]> {
    return this.access.coteachers(sessionId);
  }

  sessionsOfAccount(accountId: string): Promise<AccountSessions> {
    return this.access.sessionsOf(accountId);
  }

  async deleteEndedSession(sessionId: string): Promise<boolean> {
    const reply = await this.cmd(["HMGET", K.session(sessionId), "code", "hostKeyHash"]);
    if (!Array.isArray(reply)) throw new StoreError("redis answered something other than a list to HMGET");
    const [code, hostKeyHash] = reply.map((v) => (typeof v === "string" ? v : ""));
    if (!code) return false;
    return Number(await this.cmd(deleteEndedCommand(sessionId, code, hostKeyHash, Number.MAX_SAFE_INTEGER))) >= 0;
  }

  async findParticipantByToken(sessionId: string, tokenHash: string): Promise<string | null> {
    return asString(await this.cmd(["HGET", K.tokens(sessionId), tokenHash]));
  }

  async close(): Promise<void> {
    await this.flushBeforeClose(logError);
    await this.client.quit().catch(() => undefined);
  }
}
