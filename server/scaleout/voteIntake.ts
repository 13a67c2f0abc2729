import { protocolError, type Ack, type Command, type ErrorCode, type MyVote } from "../../lib/protocol";
import type { Member } from "../rooms/gateway";
import { StoreError } from "../store/types";
import { asStrings, evalCached, type RedisClient } from "../store/redis";
import { VOTE, voteArgs, type Restriction } from "../store/redisGate";

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

/**
 * Checks and takes a vote in (durable as Redis is once this resolves), or
 * says why not; NO_GATE when the owner must take it. Throws a StoreError when
 * Redis could not answer (classified: not sent, or unconfirmed).
 */
export async function castVote(
  client: Pick<RedisClient, "sendCommand">,
  member: Member,
  payload: { pollId: string; optionId: string },
): Promise<Ack<MyVote> | typeof NO_GATE> {
  const participantId = member.participantId;
  if (!participantId) return { ok: false, error: protocolError("NOT_STUDENT") };
  const args = voteArgs(member.sessionId, payload.pollId, payload.optionId, participantId);
  const [code = "", round, rev] = asStrings(await evalCached(client, VOTE, 4, args));
  if (code === "OK")
    return { ok: true, data: { pollId: payload.pollId, round: Number(round), optionId: payload.optionId, rev: Number(rev) } };
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
