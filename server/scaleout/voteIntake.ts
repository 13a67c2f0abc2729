import { protocolError, type Ack, type Command, type ErrorCode, type MyVote } from "../../lib/protocol";
import type { Member } from "../rooms/gateway";
import { StoreError } from "../store/types";
import { asStrings, evalCached, type RedisClient } from "../store/redis";
import { VOTES, votesArgs, type Restriction, type VoteIn } from "../store/redisGate";

/**
 * A student's vote in a scaled-out class, taken where the student's socket
 * is: one script checks it against the session's gate and appends it to the
 * intake (server/store/redisGate.ts), and Redis's answer is the vote's
 * acknowledgement. No round trip to the owner node: the owner folds the
 * intake into the log in order (./voteFold.ts), before anything that could
 * shut the vote out (a close, a pause, a removal, the end) and before serving
 * the same student's next command.
 */

/** The refusals the gate answers with: the codes `decide` gives a vote (lib/session/decide.ts). */
const VOTE_REFUSALS: ReadonlySet<string> = new Set<ErrorCode>([
  "SESSION_ENDED",
  "LOG_FULL",
  "CLASS_PAUSED",
  "NO_SUCH_POLL",
  "POLL_CLOSED",
  "NO_SUCH_OPTION",
  "REMOVED",
  "VOTE_LIMIT",
]);

function isVoteRefusal(code: string): code is ErrorCode {
  return VOTE_REFUSALS.has(code);
}

/** The gate has not been written yet (the owner has not served the session since): the owner takes the vote. */
export const NO_GATE = "NOGATE";

type Cast = Ack<MyVote> | typeof NO_GATE;

interface Waiting {
  vote: VoteIn;
  resolve: (cast: Cast) => void;
  reject: (err: unknown) => void;
}

/** Per client: the votes taken in this turn of the event loop, per session, sent once the turn's I/O is read. */
const turns = new WeakMap<Pick<RedisClient, "sendCommand">, Map<string, Waiting[]>>();

/**
 * Checks and takes a vote in (durable as Redis is once this resolves), or
 * says why not; NO_GATE when the owner must take it. Rejects with a
 * StoreError when Redis could not answer (classified: not sent, or
 * unconfirmed). The votes a node takes in one turn of its event loop (the
 * sockets read in one poll phase) go to Redis in one script call per
 * session, sent right after that phase (setImmediate): no wait beyond the
 * turn, and Redis runs one script for them, not one each. The script takes
 * them in one after another, each checked as if alone, so a batch is only a
 * cheaper way of sending them (a failed call fails each of its votes alike).
 */
export function castVote(
  client: Pick<RedisClient, "sendCommand">,
  member: Member,
  payload: { pollId: string; optionId: string },
): Promise<Cast> {
  const participantId = member.participantId;
  if (!participantId) return Promise.resolve({ ok: false, error: protocolError("NOT_STUDENT") });
  let turn = turns.get(client);
  if (!turn) {
    const fresh = new Map<string, Waiting[]>();
    turns.set(client, (turn = fresh));
    setImmediate(() => {
      turns.delete(client);
      for (const [sessionId, waiting] of fresh) void send(client, sessionId, waiting);
    });
  }
  return new Promise<Cast>((resolve, reject) => {
    const waiting = { vote: { pollId: payload.pollId, optionId: payload.optionId, participantId }, resolve, reject };
    const list = turn.get(member.sessionId);
    if (list) list.push(waiting);
    else turn.set(member.sessionId, [waiting]);
  });
}

async function send(client: Pick<RedisClient, "sendCommand">, sessionId: string, waiting: Waiting[]): Promise<void> {
  let reply: string[];
  try {
    reply = asStrings(
      await evalCached(
        client,
        VOTES,
        4,
        votesArgs(
          sessionId,
          waiting.map((w) => w.vote),
        ),
      ),
    );
    if (reply.length !== waiting.length * 3)
      throw new StoreError(`the vote script answered ${reply.length} strings for ${waiting.length} votes`);
  } catch (err) {
    for (const w of waiting) w.reject(err);
    return;
  }
  waiting.forEach((w, i) => {
    try {
      w.resolve(castOf(w.vote, reply[i * 3], reply[i * 3 + 1], reply[i * 3 + 2]));
    } catch (err) {
      w.reject(err);
    }
  });
}

function castOf(vote: VoteIn, code: string, round: string, rev: string): Cast {
  if (code === "OK") return { ok: true, data: { pollId: vote.pollId, round: Number(round), optionId: vote.optionId, rev: Number(rev) } };
  if (code === NO_GATE) return NO_GATE;
  if (isVoteRefusal(code)) return { ok: false, error: protocolError(code) };
  throw new StoreError(`the vote script answered ${code.slice(0, 40)}`);
}

/**
 * What a command shuts out of the gate before it is decided, so the owner
 * folds the votes taken before it first: a close, a pause, a removal, the end.
 */
export function restrictionOf(command: Command): Restriction | null {
  switch (command.event) {
    case "poll:close":
      return { kind: "close", pollId: command.payload.pollId };
    case "class:pause":
      return command.payload.paused ? { kind: "pause" } : null;
    case "participant:remove":
      return { kind: "remove", participantId: command.payload.participantId };
    case "session:end":
      return { kind: "end" };
    default:
      return null;
  }
}
