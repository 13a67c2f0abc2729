import { MAX_EVENTS_PER_SESSION, MAX_VOTES_PER_ROUND } from "../../lib/constants";
import type { SessionEvent, SessionState } from "../../lib/session/types";
import { K, type Fence } from "./redisKeys";

/**
 * Scale-out votes without a round trip to the owner (server/scaleout/voteIntake.ts).
 *
 * Each session has a **gate** in Redis: what a vote is checked against (the
 * active poll, whether it is open, its options and round, paused, ended, who
 * was removed, and each student's vote in force with the writes logged this
 * round), the same rules `decide` applies to `poll:vote`. The node holding a
 * student's socket runs VOTES: it checks the gate and appends the vote to the
 * session's **intake** stream, atomically, and the vote is acknowledged once
 * Redis answers (durable as Redis is). The owner folds the intake into the
 * log in order; each folded event deletes its intake entry in the same script
 * that appends it (APPEND_EVENT), so the intake holds exactly the votes
 * acknowledged and not yet in the log, whoever owns the session next.
 *
 * The gate moves with the log, so it never admits a vote the log would not:
 * - what lets votes in (a poll opened or reopened, the class resumed, a student
 *   let back in) changes the gate in the script that appends its event, before
 *   anyone is told of it;
 * - what shuts votes out (a close, a pause, a removal, the end) changes the
 *   gate first (RESTRICT, which also returns the intake still to fold), so the
 *   owner folds every vote taken before it and only then decides the command;
 *   a close, pause or end appended while the intake is not empty is refused
 *   (the poll's countdown or the idle sweep, which do not go through RESTRICT,
 *   are then run again on a room reloaded from the log).
 * A new owner folds the intake and then writes the gate from its state (SYNC),
 * which undoes a restriction whose command never made it into the log.
 */

/** A gate field per poll: its round, and its options (`,o1,o2,`). */
const ROUND = "r:";
const OPTIONS = "o:";

/** Below the log's cap by this much the gate refuses votes: the owner's own events in flight must still fit. */
export const INTAKE_LOG_MARGIN = 1024;

/**
 * Students' votes in one session, checked and taken in one after another (the
 * votes a node took in one turn of its event loop: one script call, not one
 * each). Replies 3 strings per vote, in order: `code, '', ''` for a refusal
 * (the codes `decide` gives), `'NOGATE', '', ''` when the owner has not yet
 * written the gate, or `'OK', round, rev`: `rev` is a lower bound of the log
 * position the vote will take (the log's length plus the votes ahead of it).
 * KEYS: gate, votes in force, removed, intake. ARGV: max writes, log cap, then per vote: poll, option, participant.
 */
export const VOTES = `local g = redis.call('HMGET', KEYS[1], 'v', 'ended', 'seq', 'paused', 'poll', 'open', 'opts', 'round')
local out = {}
local function reply(code, a, b)
  out[#out + 1] = code
  out[#out + 1] = a
  out[#out + 1] = b
end
local pending = redis.call('XLEN', KEYS[4])
local seq = tonumber(g[3]) or 0
local maxWrites, cap, opts = tonumber(ARGV[1]), tonumber(ARGV[2]), g[7] or ''
for i = 3, #ARGV, 3 do
  local poll, option, who = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  if not g[1] then reply('NOGATE', '', '')
  elseif g[2] == '1' then reply('SESSION_ENDED', '', '')
  elseif seq + pending >= cap then reply('LOG_FULL', '', '')
  elseif g[4] == '1' then reply('CLASS_PAUSED', '', '')
  elseif g[5] ~= poll then reply('NO_SUCH_POLL', '', '')
  elseif g[6] ~= '1' then reply('POLL_CLOSED', '', '')
  elseif string.find(option, ',', 1, true) or not string.find(opts, ',' .. option .. ',', 1, true) then reply('NO_SUCH_OPTION', '', '')
  elseif redis.call('SISMEMBER', KEYS[3], who) == 1 then reply('REMOVED', '', '')
  else
    local cur = redis.call('HGET', KEYS[2], who)
    local held, writes = '', 0
    if cur then
      local sp = string.find(cur, ' ', 1, true)
      held = string.sub(cur, 1, sp - 1)
      writes = tonumber(string.sub(cur, sp + 1))
    end
    if held == option then reply('OK', g[8], tostring(seq + pending))
    elseif writes >= maxWrites then reply('VOTE_LIMIT', '', '')
    else
      redis.call('HSET', KEYS[2], who, option .. ' ' .. (writes + 1))
      redis.call('XADD', KEYS[4], '*', 'p', who, 'q', poll, 'o', option)
      pending = pending + 1
      reply('OK', g[8], tostring(seq + pending))
    end
  end
end
return out`;

/** One vote of a VOTES call. */
export interface VoteIn {
  pollId: string;
  optionId: string;
  participantId: string;
}

export function votesArgs(sessionId: string, votes: readonly VoteIn[]): string[] {
  const args = [...gateKeys(sessionId), String(MAX_VOTES_PER_ROUND), String(MAX_EVENTS_PER_SESSION - INTAKE_LOG_MARGIN)];
  for (const v of votes) args.push(v.pollId, v.optionId, v.participantId);
  return args;
}

const FENCE = `if redis.call('GET', KEYS[5]) ~= ARGV[1] or redis.call('GET', KEYS[6]) ~= ARGV[2] then
  return redis.error_reply('FENCED this node no longer owns the session')
end
`;

/** What shuts votes out, applied to the gate before the command that does it is decided. */
export type Restriction =
  { kind: "close"; pollId: string } | { kind: "pause" } | { kind: "remove"; participantId: string } | { kind: "end" };

/**
 * The owner, under its fence: shut the gate as the restriction says, and
 * return the intake after `cursor` (an exclusive XRANGE start, or '-').
 * KEYS: gate, votes, removed, intake, owner, claim count. ARGV: node, claim count, kind, argument, cursor.
 */
export const RESTRICT = `${FENCE}if ARGV[3] == 'close' then
  if redis.call('HGET', KEYS[1], 'poll') == ARGV[4] then redis.call('HSET', KEYS[1], 'open', '0') end
elseif ARGV[3] == 'pause' then redis.call('HSET', KEYS[1], 'paused', '1')
elseif ARGV[3] == 'remove' then
  redis.call('SADD', KEYS[3], ARGV[4])
  redis.call('HDEL', KEYS[2], ARGV[4])
elseif ARGV[3] == 'end' then redis.call('HSET', KEYS[1], 'ended', '1', 'open', '0') end
return redis.call('XRANGE', KEYS[4], ARGV[5], '+')`;

export function restrictArgs(sessionId: string, fence: Fence, r: Restriction, cursor: string): (string | number)[] {
  const arg = r.kind === "close" ? r.pollId : r.kind === "remove" ? r.participantId : "";
  return [...fencedKeys(sessionId), fence.node, fence.epoch, r.kind, arg, cursor];
}

/**
 * The owner, under its fence: the gate written whole from its state, unless the
 * intake has entries past what it has folded (`after`, an exclusive XRANGE
 * start, or '-'), which it must fold first. Returns 1, or 0 for "fold more and try again".
 * KEYS: gate, votes, removed, intake, owner, claim count.
 * ARGV: node, claim count, after, seq, poll, round, open, options, paused, ended,
 *       polls n, then n × (poll, round, options), votes m, then m × (participant, "option writes"), then removed ids.
 */
export const SYNC = `${FENCE}if #redis.call('XRANGE', KEYS[4], ARGV[3], '+', 'COUNT', 1) > 0 then return 0 end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
redis.call('HSET', KEYS[1], 'v', '1', 'seq', ARGV[4], 'poll', ARGV[5], 'round', ARGV[6], 'open', ARGV[7], 'opts', ARGV[8], 'paused', ARGV[9], 'ended', ARGV[10])
local i = 12
for _ = 1, tonumber(ARGV[11]) do
  redis.call('HSET', KEYS[1], '${ROUND}' .. ARGV[i], ARGV[i + 1], '${OPTIONS}' .. ARGV[i], ARGV[i + 2])
  i = i + 3
end
local m = tonumber(ARGV[i])
i = i + 1
for _ = 1, m do
  redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1])
  i = i + 2
end
while i <= #ARGV do
  redis.call('SADD', KEYS[3], ARGV[i])
  i = i + 1
end
return 1`;

export function syncArgs(sessionId: string, fence: Fence, after: string, s: SessionState): (string | number)[] {
  const poll = s.activePollId ? s.polls[s.activePollId] : undefined;
  const options = (p: { options: { id: string }[] }) => `,${p.options.map((o) => o.id).join(",")},`;
  const polls = Object.values(s.polls).flatMap((p) => [p.id, p.round, options(p)]);
  const votes: (string | number)[] = [];
  if (poll?.status === "open") {
    for (const [participantId, optionId] of Object.entries(poll.votes))
      votes.push(participantId, `${optionId} ${poll.voteWrites[participantId] ?? 1}`);
  }
  const removed = Object.values(s.participants)
    .filter((p) => p.removed)
    .map((p) => p.id);
  return [
    ...fencedKeys(sessionId),
    fence.node,
    fence.epoch,
    after,
    s.seq,
    poll?.id ?? "",
    poll?.round ?? 0,
    poll?.status === "open" ? 1 : 0,
    poll ? options(poll) : "",
    s.paused ? 1 : 0,
    s.status === "ended" ? 1 : 0,
    polls.length / 3,
    ...polls,
    votes.length / 2,
    ...votes,
    ...removed,
  ];
}

/**
 * The owner, under its fence: intake entries that folded into nothing (a vote
 * the owner's state refused after the gate took it: logged as an error) leave the intake.
 * KEYS: gate, votes, removed, intake, owner, claim count. ARGV: node, claim count, entry ids.
 */
export const DROP = `${FENCE}return redis.call('XDEL', KEYS[4], unpack(ARGV, 3))`;

export function dropArgs(sessionId: string, fence: Fence, ids: string[]): (string | number)[] {
  return [...fencedKeys(sessionId), fence.node, fence.epoch, ...ids];
}

function gateKeys(sessionId: string): string[] {
  return [K.gate(sessionId), K.gateVotes(sessionId), K.gateRemoved(sessionId), K.intake(sessionId)];
}

function fencedKeys(sessionId: string): string[] {
  return [...gateKeys(sessionId), K.owner(sessionId), K.epoch(sessionId)];
}

/**
 * What an appended event does to the gate (APPEND_EVENT applies it): its
 * operation with two arguments, and whether it shuts votes out (then the
 * intake must be empty: every vote taken before it is in the log before it).
 */
export function gateOpOf(event: SessionEvent): { op: string; a: string; b: string; restrictive: boolean } {
  const none = { op: "", a: "", b: "", restrictive: false };
  switch (event.type) {
    case "poll:opened":
      return { op: "open", a: event.poll.id, b: `,${event.poll.options.map((o) => o.id).join(",")},`, restrictive: false };
    case "poll:reopened":
      return { op: "reopen", a: event.pollId, b: "", restrictive: false };
    case "poll:closed":
      return { op: "close", a: event.pollId, b: "", restrictive: true };
    case "class:paused":
      return { op: "pause", a: event.paused ? "1" : "0", b: "", restrictive: event.paused };
    case "participant:removed":
      // Only that student's votes are shut out: the others' may still come in meanwhile (RESTRICT folded theirs).
      return { op: "remove", a: event.participantId, b: "", restrictive: false };
    case "participant:readmitted":
      return { op: "readmit", a: event.participantId, b: "", restrictive: false };
    case "session:ended":
      return { op: "end", a: "", b: "", restrictive: true };
    default:
      return none;
  }
}

/**
 * The gate's part of APPEND_EVENTS (server/store/redisLayout.ts), for each
 * event after it is in the log: KEYS 6..9 are the gate, votes in force,
 * removed and intake; the locals are the operation and its two arguments.
 * (The gate's `seq` and the intake entries the events fold are written once
 * per call, by the script, before it returns.)
 */
export const APPEND_GATE = `if g_op == 'open' then
    redis.call('HSET', KEYS[6], 'poll', g_a, 'round', '1', 'open', '1', 'opts', g_b, '${ROUND}' .. g_a, '1', '${OPTIONS}' .. g_a, g_b)
    redis.call('DEL', KEYS[7])
  elseif g_op == 'reopen' then
    local r = redis.call('HINCRBY', KEYS[6], '${ROUND}' .. g_a, 1)
    local opts = redis.call('HGET', KEYS[6], '${OPTIONS}' .. g_a) or ''
    redis.call('HSET', KEYS[6], 'poll', g_a, 'round', r, 'open', '1', 'opts', opts)
    redis.call('DEL', KEYS[7])
  elseif g_op == 'close' then
    if redis.call('HGET', KEYS[6], 'poll') == g_a then redis.call('HSET', KEYS[6], 'open', '0') end
  elseif g_op == 'pause' then
    redis.call('HSET', KEYS[6], 'paused', g_a)
  elseif g_op == 'remove' then
    redis.call('SADD', KEYS[8], g_a)
    redis.call('HDEL', KEYS[7], g_a)
  elseif g_op == 'readmit' then
    redis.call('SREM', KEYS[8], g_a)
  elseif g_op == 'end' then
    redis.call('HSET', KEYS[6], 'ended', '1', 'open', '0')
    redis.call('DEL', KEYS[7], KEYS[8])
  end`;

/**
 * Before an event is written: a restrictive one (g_r) with votes still in the
 * intake is refused. `settle()` first takes out the entries folded by the
 * events before it in the same call.
 */
export const APPEND_GATE_CHECK = `if g_r == '1' then
    settle()
    if redis.call('XLEN', KEYS[9]) > 0 then
      return redis.error_reply('INTAKE votes taken before this are not in the log yet')
    end
  end`;

/** The gate's keys (KEYS 6..9 of APPEND_EVENTS). */
export function appendGateKeys(sessionId: string): string[] {
  return gateKeys(sessionId);
}

/** The gate's six arguments of one event in APPEND_EVENTS: seq, operation, its two arguments, intake entry, restrictive. */
export function appendGateArgs(event: SessionEvent, intakeId: string | undefined): (string | number)[] {
  const g = gateOpOf(event);
  return [event.seq, g.op, g.a, g.b, intakeId ?? "", g.restrictive ? "1" : ""];
}
