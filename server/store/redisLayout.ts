import type { SessionEvent } from "../../lib/session/types";
import { addEvent, emptyDelta, type SummaryDelta } from "./summary";

/**
 * Where the Redis store keeps a session, and the scripts that change several
 * of its keys at once. Changing a key's name or meaning is a schema change:
 * bump REDIS_SCHEMA_VERSION.
 */

/**
 * The layout of the keys below; bumped on any incompatible change. 2: sessions
 * have consoles (`cls:cons:`), an owner and co-teachers; the first console of a
 * session written under 1 is made from its `hostKeyHash` when the store opens.
 */
export const REDIS_SCHEMA_VERSION = 2;

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

export const K = {
  /** A hash: the session's record and its summary (the fields summaryFields names, and `peak`). */
  session: (id: string) => `cls:s:${id}`,
  code: (code: string) => `cls:code:${code}`,
  hostKey: (hash: string) => `cls:hk:${hash}`,
  /** A stream: the event log, entry id `<seq>-1`. */
  events: (id: string) => `cls:e:${id}`,
  tokens: (id: string) => `cls:t:${id}`,
  /** A hash: console id -> JSON { keyHash, accountId, createdAt }; each key hash also indexed under `hostKey`. */
  consoles: (id: string) => `cls:cons:${id}`,
  /** A sorted set: the accounts invited to drive the session, by when. */
  coteachers: (id: string) => `cls:cot:${id}`,
  /** Sorted sets per account, by the session's creation: the sessions it owns, and those it co-teaches. */
  accountOwns: (accountId: string) => `cls:acct:${accountId}:owns`,
  accountCoteaches: (accountId: string) => `cls:acct:${accountId}:cot`,
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

/** A session's first summary as hash fields (HSET pairs); `endedAt` is '' while it is live. */
export function summaryFields(d: SummaryDelta): (string | number)[] {
  return ["events", d.events, "participants", d.participants, "polls", d.polls, "lastEventAt", d.lastEventAt, "endedAt", d.endedAt ?? ""];
}

/**
 * One event, atomically: the fence first (when the writer names one, it must
 * still be the session's owner under the same claim), then the stream entry
 * (Redis refuses a sequence number that exists, which aborts the script), then
 * the summary, by the delta summary.ts computed for the event (the script
 * applies it and decides nothing). A stale owner's refused event therefore
 * changes nothing, not even "ended".
 * KEYS: events stream, session hash, live set, owner, claim count.
 * ARGV: entry id, json, session id, owner node ('' for no fence), claim count,
 *       then the delta: events, participants, polls, lastEventAt, endedAt ('' when it did not end the session).
 */
const APPEND_EVENT = `if ARGV[4] ~= '' and (redis.call('GET', KEYS[4]) ~= ARGV[4] or redis.call('GET', KEYS[5]) ~= ARGV[5]) then
  return redis.error_reply('FENCED this node no longer owns the session')
end
redis.call('XADD', KEYS[1], ARGV[1], 'e', ARGV[2])
redis.call('HINCRBY', KEYS[2], 'events', ARGV[6])
if ARGV[7] ~= '0' then redis.call('HINCRBY', KEYS[2], 'participants', ARGV[7]) end
if ARGV[8] ~= '0' then redis.call('HINCRBY', KEYS[2], 'polls', ARGV[8]) end
redis.call('HSET', KEYS[2], 'lastEventAt', ARGV[9])
if ARGV[10] ~= '' then
  redis.call('HSET', KEYS[2], 'endedAt', ARGV[10])
  redis.call('SREM', KEYS[3], ARGV[3])
end
return 1`;

/** The EVAL that appends one event (under `fence` when the writer names one) and applies its summary delta. */
export function appendEventCommand(sessionId: string, event: SessionEvent, fence: Fence | undefined): (string | number)[] {
  const d = emptyDelta();
  addEvent(d, event);
  return [
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
    sessionId,
    fence?.node ?? "",
    fence?.epoch ?? 0,
    d.events,
    d.participants,
    d.polls,
    d.lastEventAt,
    d.endedAt ?? "",
  ];
}

const RAISE_PEAK = `local c = tonumber(redis.call('HGET', KEYS[1], 'peak') or '0')
if tonumber(ARGV[1]) > c then redis.call('HSET', KEYS[1], 'peak', ARGV[1]) end
return 1`;

/** The EVAL that raises a session's peak of connected students (never lowers it). */
export function raisePeakCommand(sessionId: string, peak: number): (string | number)[] {
  return ["EVAL", RAISE_PEAK, 1, K.session(sessionId), peak];
}

/**
 * Retention: one ended session and everything of it, atomically, if it still
 * ended before the cutoff. The code key goes only if it still names this
 * session (codes are reused once a session ends). Its consoles leave the
 * host-key index, and it leaves its owner's and co-teachers' lists. Returns
 * the events deleted, or -1 when the session does not qualify.
 * KEYS: session hash, events, tokens, owner, sessions zset, host-key set, live set, code, claim count, presence,
 *       consoles, co-teachers.
 * ARGV: session id, cutoff (ms).
 */
const DELETE_ENDED = `local ended = tonumber(redis.call('HGET', KEYS[1], 'endedAt') or '')
if ended == nil or ended >= tonumber(ARGV[2]) then return -1 end
local n = redis.call('XLEN', KEYS[2])
for _, c in ipairs(redis.call('HVALS', KEYS[11])) do
  redis.call('SREM', 'cls:hk:' .. cjson.decode(c).keyHash, ARGV[1])
end
local account = redis.call('HGET', KEYS[1], 'owner')
if account and account ~= '' then redis.call('ZREM', 'cls:acct:' .. account .. ':owns', ARGV[1]) end
for _, a in ipairs(redis.call('ZRANGE', KEYS[12], 0, -1)) do redis.call('ZREM', 'cls:acct:' .. a .. ':cot', ARGV[1]) end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[9], KEYS[10], KEYS[11], KEYS[12])
redis.call('ZREM', KEYS[5], ARGV[1])
redis.call('SREM', KEYS[6], ARGV[1])
redis.call('SREM', KEYS[7], ARGV[1])
if redis.call('GET', KEYS[8]) == ARGV[1] then redis.call('DEL', KEYS[8]) end
return n`;

/** The EVAL that deletes one session that ended before `cutoff`, found under its `code` and `hostKeyHash`. */
export function deleteEndedCommand(id: string, code: string, hostKeyHash: string, cutoff: number): (string | number)[] {
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
    K.consoles(id),
    K.coteachers(id),
  ];
  return ["EVAL", DELETE_ENDED, keys.length, ...keys, id, cutoff];
}
