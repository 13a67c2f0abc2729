import { z } from "zod";
import { COMMANDS, ROLES, isCommandName, type Ack, type Command } from "../../lib/protocol";
import type { JoinResult, MemberView } from "../rooms/gateway";
import { log } from "../logger";
import { classifyRedisError, type RedisClient } from "../store/redis";
import { StoreUnavailableError } from "../store/types";
import { errorMessage } from "../../lib/errors";
import { ANSWER_MEMORY_MS } from "./timing";

/**
 * Calls between nodes over Redis pub/sub: the envelope a caller publishes on
 * the owner's channel, the answer it gets back on its own, and each request
 * id run once on the receiving node. What a call runs, and whether this node
 * may run it, is the routing's (server/scaleout/routing.ts).
 */

/** The channel a node listens on for requests to it and answers to its own. */
const rpcChannel = (nodeId: string) => `cls:rpc:${nodeId}`;

/*
 * The RPC envelope between nodes, validated on receipt like any other input
 * (a node of another version, or anything else publishing on the channel,
 * must not reach the rooms with a malformed call).
 */
const memberSchema = z.object({
  sessionId: z.string(),
  role: z.enum(ROLES),
  participantId: z.string().nullable(),
  socketId: z.string().optional(),
});
const joinRequestSchema = z.object({
  code: z.string(),
  role: z.enum(ROLES),
  hostKey: z.string().optional(),
  token: z.string().optional(),
  nickname: z.string().optional(),
  address: z.string(),
  admitNew: z.boolean().optional(),
});
/** A command as the edge parsed it; parsed again with its own schema on the owner. */
const commandSchema = z.object({ event: z.string(), payload: z.unknown() }).transform((c, ctx): Command => {
  const rules = isCommandName(c.event) ? COMMANDS[c.event] : null;
  const payload = rules?.schema.safeParse(c.payload ?? {});
  if (!payload?.success) {
    ctx.addIssue({ code: "custom", message: `not a command: ${c.event.slice(0, 40)}` });
    return z.NEVER;
  }
  // The payload has just passed this command's schema (TypeScript cannot correlate the two).
  // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion
  return { event: c.event, payload: payload.data } as Command;
});
const callSchema = z.discriminatedUnion("method", [
  z.object({ method: z.literal("join"), args: z.tuple([joinRequestSchema]) }),
  z.object({ method: z.literal("command"), args: z.tuple([memberSchema, commandSchema]) }),
  z.object({ method: z.literal("view"), args: z.tuple([memberSchema]) }),
]);
const requestSchema = z.object({
  kind: z.literal("req"),
  id: z.string(),
  from: z.string(),
  sessionId: z.string(),
  /** Who sent it, through which node: the owner runs one sender's calls in arrival order ('' for calls that need none). */
  sender: z.string(),
  /** When the caller gives up (ms since the epoch); the owner does not start it after that. */
  deadline: z.number(),
  call: callSchema,
});
const responseSchema = z.discriminatedUnion("status", [
  z.object({ kind: z.literal("res"), id: z.string(), status: z.literal("ok"), result: z.unknown() }),
  /** Not run: that node does not own the session. */
  z.object({ kind: z.literal("res"), id: z.string(), status: z.literal("notOwner") }),
  /** Not run: it arrived (or its turn came) after the caller's deadline. */
  z.object({ kind: z.literal("res"), id: z.string(), status: z.literal("expired") }),
  z.object({
    kind: z.literal("res"),
    id: z.string(),
    status: z.literal("failed"),
    code: z.enum(["UNAVAILABLE", "UNCONFIRMED", "INTERNAL"]),
    message: z.string(),
  }),
]);
const envelopeSchema = z.union([requestSchema, responseSchema]);

/** One call to a session's owner, and what each returns. */
export type Call = z.output<typeof callSchema>;
export type Method = Call["method"];
export interface Results {
  join: JoinResult;
  command: Ack<unknown>;
  view: MemberView | null;
}
type WithoutKind<T> = T extends unknown ? Omit<T, "kind"> : never;
export type RpcRequest = WithoutKind<z.output<typeof requestSchema>>;
export type RpcResponse = WithoutKind<z.output<typeof responseSchema>>;
/** What a caller learns from one attempt: the owner's answer, or that none came. */
export type Attempt = RpcResponse | { id: string; status: "timeout" | "unsent" | "unknown" };

export interface RpcTransportOptions {
  nodeId: string;
  /** For publishing; fails at once while Redis is unreachable. */
  client: RedisClient;
  /** A dedicated subscriber connection. */
  subscriber: RedisClient;
  /** Runs a request sent to this node and says what became of it (called once per request id while remembered). */
  answer: (request: RpcRequest) => Promise<RpcResponse>;
}

export class RpcTransport {
  private readonly pending = new Map<string, { resolve: (r: Attempt) => void; timer: NodeJS.Timeout }>();
  /**
   * Answers by request id, kept for a while: a caller that timed out resends
   * the same request, and a command must not run twice (a step would move
   * twice). A copy that arrives while the first still runs is covered by the
   * answer the first sends when it is done; a later copy gets it from here.
   */
  private readonly answered = new Map<string, { at: number; response: Promise<RpcResponse>; settled: boolean }>();

  constructor(private readonly o: RpcTransportOptions) {}

  /** Starts taking requests and answers on this node's channel. */
  async listen(): Promise<void> {
    await this.o.subscriber.subscribe(rpcChannel(this.o.nodeId), (message: string) => void this.onMessage(message));
  }

  async close(): Promise<void> {
    await this.o.subscriber.unsubscribe(rpcChannel(this.o.nodeId)).catch(() => undefined);
  }

  /** Sends a request to a node and resolves with its answer, or with why none came within `waitMs`. Never rejects. */
  call(node: string, request: RpcRequest, waitMs: number): Promise<Attempt> {
    return new Promise((resolve) => {
      const timer = setTimeout(
        () => {
          this.pending.delete(request.id);
          resolve({ id: request.id, status: "timeout" });
        },
        Math.max(0, waitMs),
      );
      this.pending.set(request.id, { resolve, timer });
      redisPublish(this.o.client, rpcChannel(node), JSON.stringify({ kind: "req", ...request })).catch((err: unknown) => {
        clearTimeout(timer);
        this.pending.delete(request.id);
        // Never sent (the client was offline), or sent and unconfirmed (the connection broke meanwhile).
        resolve({ id: request.id, status: err instanceof StoreUnavailableError ? "unsent" : "unknown" });
      });
    });
  }

  private async onMessage(raw: string): Promise<void> {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      log.warn("an RPC message that is not JSON was ignored");
      return;
    }
    const envelope = envelopeSchema.safeParse(parsed);
    if (!envelope.success) {
      log.warn("a malformed RPC message was ignored", { issue: envelope.error.issues[0]?.message });
      return;
    }
    const message = envelope.data;
    if (message.kind === "res") {
      const waiter = this.pending.get(message.id);
      if (!waiter) return;
      clearTimeout(waiter.timer);
      this.pending.delete(message.id);
      waiter.resolve(message);
      return;
    }
    const request = message;
    const now = Date.now();
    for (const [id, entry] of this.answered) {
      if (now - entry.at < ANSWER_MEMORY_MS) break; // insertion order: the rest are newer
      this.answered.delete(id);
    }
    let entry = this.answered.get(request.id);
    if (!entry) {
      const fresh = { at: now, response: this.o.answer(request), settled: false };
      void fresh.response.then(() => (fresh.settled = true));
      this.answered.set(request.id, (entry = fresh));
    } else if (!entry.settled) {
      // A resend of a call still running here (the caller's attempt timed out while it waited its turn): its
      // answer goes out when it is done. A second copy would only add to the load that made the caller resend;
      // a caller that missed that answer resends once more and gets it from memory.
      return;
    }
    const response = await entry.response;
    // A "not owner" answer ran nothing: a resend after the owner moved must be tried afresh.
    if (response.status === "notOwner") this.answered.delete(request.id);
    await redisPublish(this.o.client, rpcChannel(request.from), JSON.stringify({ kind: "res", ...response })).catch((err: unknown) =>
      log.warn("could not send an RPC answer", { to: request.from, error: errorMessage(err) }),
    );
  }
}

/** A publish whose failure says whether it was sent (see classifyRedisError). */
function redisPublish(client: RedisClient, channel: string, message: string): Promise<unknown> {
  // No per-command timeout: every caller bounds its own wait (an attempt's timer, the ack budget), and node-redis's
  // (an AbortSignal.timeout and its listeners per command) took a tenth of an owner's CPU in a 10,000-vote burst.
  return client.sendCommand(["PUBLISH", channel, message], { timeout: 0 }).catch((err: unknown) => {
    throw classifyRedisError(err);
  });
}
