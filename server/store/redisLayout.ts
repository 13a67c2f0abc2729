import type { SessionEvent } from "../../lib/session/types";
import { addEvent, emptyDelta, type SummaryDelta } from "./summary";
import { APPEND_GATE, APPEND_GATE_CHECK, appendGateArgs, appendGateKeys } from "./redisGate";
import { K, type Fence } from "./redisKeys";

export { K, epochKey, ownerKey, presenceKey, type Fence } from "./redisKeys";

/**
 * The scripts that change several of a session's Redis keys at once (the keys
 * are named in ./redisKeys.ts). Changing a key's name or meaning is a schema
 * change: bump REDIS_SCHEMA_VERSION.
 */

/**
 * The layout of the keys below; bumped on any incompatible change. 2: sessions
 * have consoles (`cls:cons:`), an owner and co-teachers; the first console of a
 * session written under 1 is made from its `hostKeyHash` when the store opens.
 */
export const REDIS_SCHEMA_VERSION = 2;

/** A session's first summary as hash fields (HSET pairs); `endedAt` is '' while it is live. */
export function summaryFields(d: SummaryDelta): (string | number)[] {
  return ["events", d.events, "participants", d.participants, "polls", d.polls, "lastEventAt", d.lastEventAt, "endedAt", d.endedAt ?? ""];
}

/**
 * A session's events of one write batch, in order, in one script: the fence
 * first (when the writer names one, it must still be the session's owner
 * under the same claim), then for each event its stream entry (Redis refuses
 * a sequence number that exists, which aborts the script), the summary, by
 * the delta summary.ts computed for the event (the script applies it and
 * decides nothing), and the votes' gate (./redisGate.ts): a close, pause or end
 * is refused, before it is written, while votes taken before it wait in the
 * intake; the event's gate operation; the intake entry the event folds leaves
 * the intake with it. A stale owner's refused events therefore change
 * nothing, not even "ended". (One script per session and batch, not per event:
 * a vote burst's events cost Redis and the owner a command each otherwise. The
 * counters that only add up, `lastEventAt`, the gate's `seq` and the folded
 * intake entries are written once per call, before it returns, also when it
 * refuses an event: nobody reads them in between, a script being atomic.)
 * KEYS: events stream, session hash, live set, owner, claim count, then the gate's (gate, votes, removed, intake).
 * ARGV: session id, owner node ('' for no fence), claim count, then 13 per event: entry id, json,
 *       the delta (events, participants, polls, lastEventAt, endedAt: '' when it did not end the session),
 *       and the gate's six (appendGateArgs).
 */
const APPEND_EVENTS = `if ARGV[2] ~= '' and (redis.call('GET', KEYS[4]) ~= ARGV[2] or redis.call('GET', KEYS[5]) ~= ARGV[3]) then
  return redis.error_reply('FENCED this node no longer owns the session')
end
local written, events, lastAt, seq, folded = false, 0, '', '', {}
local function settle()
  if written then
    if events ~= 0 then redis.call('HINCRBY', KEYS[2], 'events', events) end
    redis.call('HSET', KEYS[2], 'lastEventAt', lastAt)
    redis.call('HSET', KEYS[6], 'seq', seq)
    written, events = false, 0
  end
  for j = 1, #folded, 500 do redis.call('XDEL', KEYS[9], unpack(folded, j, math.min(j + 499, #folded))) end
  folded = {}
end
for i = 4, #ARGV, 13 do
  local g_op, g_a, g_b, g_in, g_r = ARGV[i + 8], ARGV[i + 9], ARGV[i + 10], ARGV[i + 11], ARGV[i + 12]
  ${APPEND_GATE_CHECK}
  local added = redis.pcall('XADD', KEYS[1], ARGV[i], 'e', ARGV[i + 1])
  if type(added) == 'table' and added.err then
    settle()
    return added
  end
  written, events = true, events + tonumber(ARGV[i + 2])
  lastAt, seq = ARGV[i + 5], ARGV[i + 7]
  if g_in ~= '' then folded[#folded + 1] = g_in end
  if ARGV[i + 3] ~= '0' then redis.call('HINCRBY', KEYS[2], 'participants', ARGV[i + 3]) end
  if ARGV[i + 4] ~= '0' then redis.call('HINCRBY', KEYS[2], 'polls', ARGV[i + 4]) end
  if ARGV[i + 6] ~= '' then
    redis.call('HSET', KEYS[2], 'endedAt', ARGV[i + 6])
    redis.call('SREM', KEYS[3], ARGV[1])
  end
  ${APPEND_GATE}
end
settle()
return 1`;

/**
 * The EVAL that appends a session's events (under `fence` when the writer names one), each with its summary
 * delta and its change to the votes' gate, taking out of the intake the vote each folds (`intakeIdOf`).
 */
export function appendEventsCommand(
  sessionId: string,
  events: readonly SessionEvent[],
  fence: Fence | undefined,
  intakeIdOf: (event: SessionEvent) => string | undefined,
): (string | number)[] {
  const args: (string | number)[] = [sessionId, fence?.node ?? "", fence?.epoch ?? 0];
  for (const event of events) {
    const d = emptyDelta();
    addEvent(d, event);
    args.push(`${event.seq}-1`, JSON.stringify(event), d.events, d.participants, d.polls, d.lastEventAt, d.endedAt ?? "");
    args.push(...appendGateArgs(event, intakeIdOf(event)));
  }
  const keys = [K.events(sessionId), K.session(sessionId), K.live, K.owner(sessionId), K.epoch(sessionId), ...appendGateKeys(sessionId)];
  return ["EVAL", APPEND_EVENTS, keys.length, ...keys, ...args];
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
 *       consoles, co-teachers, then the votes' gate, votes, removed and intake.
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
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[9], KEYS[10], KEYS[11], KEYS[12], KEYS[13], KEYS[14], KEYS[15], KEYS[16])
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
    K.gate(id),
    K.gateVotes(id),
    K.gateRemoved(id),
    K.intake(id),
  ];
  return ["EVAL", DELETE_ENDED, keys.length, ...keys, id, cutoff];
}
