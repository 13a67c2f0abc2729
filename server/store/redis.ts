import { ClientClosedError, ClientOfflineError, ErrorReply, createClient } from "redis";
import { parseStoredEvent, type SessionEvent } from "../../lib/session/types";
import { log } from "../logger";
import { BatchedStore } from "./writeQueue";
import {
  LostOwnershipError,
  StoreError,
  StoreInDoubtError,
  StoreUnavailableError,
  type BatchOutcome,
  type QueuedWrite,
  type NewSessionRecord,
  type SessionRecord,
  type SessionStore,
  type SessionSummary,
  type RetentionSweep,
} from "./types";
import { errorMessage } from "../../lib/errors";
import { countEvent } from "../ops/metrics";

/** The slice of a node-redis client this code uses (raw commands keep replies predictable across versions). */
export interface RedisClient {
  sendCommand(args: string[], options?: { timeout?: number }): Promise<unknown>;
  publish(channel: string, message: string): Promise<unknown>;
  subscribe(channel: string, listener: (message: string) => void): Promise<unknown>;
  unsubscribe(channel: string): Promise<unknown>;
  connect(): Promise<unknown>;
  quit(): Promise<unknown>;
  duplicate(): RedisClient;
  on(event: "error", listener: (err: Error) => void): unknown;
}

/** A RESP2 bulk string reply, or nil. Anything else means the data is not what this server wrote. */
export function asString(reply: unknown): string | null {
  if (reply === null || typeof reply === "string") return reply;
  throw new StoreError(`redis answered ${typeof reply} where a string was expected`);
}

/** A RESP2 array of bulk strings (SMEMBERS, ZRANGE, HGETALL's flat pairs). */
export function asStrings(reply: unknown): string[] {
  if (Array.isArray(reply) && reply.every((x) => typeof x === "string")) return reply;
  throw new StoreError("redis answered something other than a list of strings");
}

/** XRANGE's entries: [id, [field, value, …]]. */
function asStreamEntries(reply: unknown): [string, string[]][] {
  if (!Array.isArray(reply)) throw new StoreError("redis answered something other than stream entries");
  return reply.map((entry) => {
    if (!Array.isArray(entry) || typeof entry[0] !== "string") throw new StoreError("a stream entry is malformed");
    return [entry[0], asStrings(entry[1] ?? [])];
  });
}

/**
 * A connected client speaking RESP2 (flat arrays for HGETALL, as the parsing below expects).
 *
 * `failFast`: while Redis is unreachable a command fails at once instead of
 * waiting in the client's queue to be sent on reconnect. The store and the
 * cluster's own connections need it: a write queued during an outage would
 * land seconds later, after its command was answered as not applied, and a
 * caller could not bound its wait. (socket.io's adapter keeps the queue: its
 * read loop retries at once on an error, and would spin.)
 */
export async function connectRedis(url: string, options: { failFast?: boolean } = {}): Promise<RedisClient> {
  // node-redis's client type is a deep generic over its modules; this code uses the small slice RedisClient names.
  // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion
  const client = createClient({ url, RESP: 2, disableOfflineQueue: options.failFast ?? false }) as unknown as RedisClient;
  client.on("error", (err: Error) => log.warn("redis client error", { error: err.message }));
  await client.connect();
  return client;
}

/**
 * Scale-out ownership (server/scaleout/clusterGateway.ts): the node that owns
 * a live session, and a counter bumped by every claim. A write names the
 * owner and count it was made under, and is refused once either moved on.
 */
export const ownerKey = (sessionId: string) => `cls:owner:${sessionId}`;
export const epochKey = (sessionId: string) => `cls:epoch:${sessionId}`;
/** Scale-out presence: per node, the students and watchers connected to the session through it. */
export const presenceKey = (sessionId: string) => `cls:pr:${sessionId}`;

/** Who may write a session's events: the owning node and the claim it holds (see ownerKey). */
export interface Fence {
  node: string;
  epoch: number;
}

/**
 * What a failed Redis command means for the write: never sent (the client was
 * offline), refused by Redis (a fenced or duplicate entry: nothing written), or
 * unknown (the connection broke while Redis was answering).
 */
export function classifyRedisError(err: unknown): StoreError {
  if (err instanceof StoreError) return err;
  const message = errorMessage(err);
  if (err instanceof ErrorReply && message.includes("FENCED")) return new LostOwnershipError(true);
  if (err instanceof ErrorReply) return new StoreError(`redis refused a write: ${message}`);
  if (err instanceof ClientOfflineError || err instanceof ClientClosedError)
    return new StoreUnavailableError(`redis is unreachable: ${message}`);
  return new StoreInDoubtError(`redis did not confirm a write: ${message}`);
}

/** One raw command; its failure is a StoreError saying what happened to it (see classifyRedisError). */
export function redisCommand(client: Pick<RedisClient, "sendCommand">, args: (string | number)[]): Promise<unknown> {
  return client.sendCommand(args.map(String)).catch((err: unknown) => {
    throw classifyRedisError(err);
  });
}

const K = {
  session: (id: string) => `cls:s:${id}`,
  code: (code: string) => `cls:code:${code}`,
  hostKey: (hash: string) => `cls:hk:${hash}`,
  events: (id: string) => `cls:e:${id}`,
  tokens: (id: string) => `cls:t:${id}`,
  sessions: "cls:sessions",
  schema: "cls:schema",
  live: "cls:live",
  /** The cluster's record of a session's owner node and its claim count (server/scaleout/clusterGateway.ts). */
  owner: ownerKey,
  epoch: epochKey,
  /** Who is connected to the session through each node (server/scaleout/presenceBoard.ts). */
  presence: presenceKey,
  /** Readiness writes here (server/ops/readiness.ts); it expires on its own. */
  probe: "cls:probe",
};

/** The layout of the keys below; bumped on any incompatible change. */
export const REDIS_SCHEMA_VERSION = 1;

/**
 * One event, atomically: the fence first (when the writer names one, it must
 * still be the session's owner under the same claim), then the stream entry
 * (Redis refuses a sequence number that exists, which aborts the script), then
 * the record's counters. A stale owner's refused event therefore changes
 * nothing, not even "ended".
 * KEYS: events stream, session hash, live set, owner, claim count.
 * ARGV: entry id, json, at, type, session id, owner node ('' for no fence), claim count.
 */
const APPEND_EVENT = `if ARGV[6] ~= '' and (redis.call('GET', KEYS[4]) ~= ARGV[6] or redis.call('GET', KEYS[5]) ~= ARGV[7]) then
  return redis.error_reply('FENCED this node no longer owns the session')
end
redis.call('XADD', KEYS[1], ARGV[1], 'e', ARGV[2])
redis.call('HSET', KEYS[2], 'lastEventAt', ARGV[3])
redis.call('HINCRBY', KEYS[2], 'events', 1)
if ARGV[4] == 'participant:joined' then redis.call('HINCRBY', KEYS[2], 'participants', 1) end
if ARGV[4] == 'poll:opened' then redis.call('HINCRBY', KEYS[2], 'polls', 1) end
if ARGV[4] == 'session:ended' then
  redis.call('HSET', KEYS[2], 'endedAt', ARGV[3])
  redis.call('SREM', KEYS[3], ARGV[5])
end
return 1`;

const RAISE_PEAK = `local c = tonumber(redis.call('HGET', KEYS[1], 'peak') or '0')
if tonumber(ARGV[1]) > c then redis.call('HSET', KEYS[1], 'peak', ARGV[1]) end
return 1`;

/**
 * Retention: one ended session and everything of it, atomically, if it still
 * ended before the cutoff. The code key goes only if it still names this
 * session (codes are reused once a session ends). Returns the events deleted,
 * or -1 when the session does not qualify.
 * KEYS: session hash, events, tokens, owner, sessions zset, host-key set, live set, code, claim count, presence.
 * ARGV: session id, cutoff (ms).
 */
const DELETE_ENDED = `local ended = tonumber(redis.call('HGET', KEYS[1], 'endedAt') or '')
if ended == nil or ended >= tonumber(ARGV[2]) then return -1 end
local n = redis.call('XLEN', KEYS[2])
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[9], KEYS[10])
redis.call('ZREM', KEYS[5], ARGV[1])
redis.call('SREM', KEYS[6], ARGV[1])
redis.call('SREM', KEYS[7], ARGV[1])
if redis.call('GET', KEYS[8]) == ARGV[1] then redis.call('DEL', KEYS[8]) end
return n`;

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
    return new RedisSessionStore(client);
  }

  /** Scale-out: the claim each session's events are written under; null refuses the write here. */
  private fenceOf: ((sessionId: string) => Fence | null) | null = null;

  constructor(private readonly client: RedisClient) {
    super("events to redis", logError, "redis");
  }

  /**
   * Writes each session's events only under the claim `fenceOf` names, and
   * refuses them (LostOwnershipError, nothing sent) when it names none: a node
   * that lost a session, or cannot be sure it still holds it, writes nothing.
   */
  fenceWith(fenceOf: (sessionId: string) => Fence | null): void {
    this.fenceOf = fenceOf;
  }

  /** One command; a failure says whether it was never sent, refused, or unconfirmed (classifyRedisError). */
  private cmd(args: (string | number)[]): Promise<unknown> {
    return redisCommand(this.client, args);
  }

  async createSession(record: NewSessionRecord, created: SessionEvent): Promise<void> {
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
        "endedAt",
        "",
        "lastEventAt",
        record.createdAt,
        "peak",
        0,
        "participants",
        0,
        "polls",
        0,
        "events",
        1,
      ]),
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
      const keys = [
        K.session(id),
        K.events(id),
        K.tokens(id),
        K.owner(id),
        K.sessions,
        K.hostKey(hostKeyHash),
        K.live,
        K.code(code),
        K.epoch(id),
        K.presence(id),
      ];
      const events = Number(await this.cmd(["EVAL", DELETE_ENDED, keys.length, ...keys, id, cutoff]));
      if (events < 0) continue;
      total.sessions += 1;
      total.events += events;
    }
    return total;
  }

  /** One pipelined round trip per batch; a refused entry fails only its session. */
  protected async writeBatch(batch: QueuedWrite[]): Promise<BatchOutcome> {
    const ops: Promise<unknown>[] = [];
    // Decided once per batch, so a session's events in one batch are all written under one claim, or none is.
    const fences = new Map<string, Fence | null>();
    const fenceFor = (sessionId: string): Fence | null | undefined => {
      if (!this.fenceOf) return undefined;
      if (!fences.has(sessionId)) fences.set(sessionId, this.fenceOf(sessionId));
      return fences.get(sessionId);
    };
    for (const write of batch) {
      if (write.kind === "token") {
        ops.push(this.cmd(["HSET", K.tokens(write.sessionId), write.tokenHash, write.participantId]));
        continue;
      }
      if (write.kind === "peak") {
        ops.push(this.cmd(["EVAL", RAISE_PEAK, 1, K.session(write.sessionId), write.peak]));
        continue;
      }
      const { sessionId, event } = write;
      const fence = fenceFor(sessionId);
      if (fence === null) {
        ops.push(Promise.reject(new LostOwnershipError(false)));
        continue;
      }
      ops.push(
        this.cmd([
          "EVAL",
          APPEND_EVENT,
          5,
          K.events(sessionId),
          K.session(sessionId),
          K.live,
          K.owner(sessionId),
          K.epoch(sessionId),
          `${event.seq}-1`,
          JSON.stringify(event),
          event.at,
          event.type,
          sessionId,
          fence?.node ?? "",
          fence?.epoch ?? 0,
        ]),
      );
    }
    const results = await Promise.allSettled(ops);
    // Each entry is its own command: a refused one (a stale owner's) fails only its session. The first error of
    // a session says what happened to it (its later entries fail for the same reason, or on the sequence gap).
    const failed = new Map<string, Error>();
    results.forEach((r, i) => {
      const { sessionId } = batch[i];
      if (r.status === "rejected" && !failed.has(sessionId)) {
        failed.set(sessionId, classifyRedisError(r.reason));
      }
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

  async setReplaySharing(id: string, shareKeyHash: string | null, generation: number): Promise<void> {
    await this.cmd(["HSET", K.session(id), "shareKeyHash", shareKeyHash ?? "", "shareGeneration", generation]);
  }

  async findParticipantByToken(sessionId: string, tokenHash: string): Promise<string | null> {
    return asString(await this.cmd(["HGET", K.tokens(sessionId), tokenHash]));
  }

  async close(): Promise<void> {
    await this.flushBeforeClose(logError);
    await this.client.quit().catch(() => undefined);
  }
}
