import { z } from "zod";
import { COMMAND_RULES, ROLES, isCommandName, normalizeRoomCode, protocolError, type Ack, type Command } from "../../lib/protocol";
import type { JoinRequest, JoinResult, LocalGateway, Member, MemberView, RoomGateway } from "../rooms/gateway";
import { assertNever } from "../../lib/assertNever";
import { log } from "../logger";
import type { RoomRegistry } from "../rooms/registry";
import { newId } from "../secrets";
import { asString, type RedisClient, type RedisSessionStore } from "../store/redis";
import { errorMessage } from "../../lib/errors";

/**
 * Several server processes behind one load balancer, on Redis.
 *
 * Every live session has one owner node at a time, which holds its Room in
 * memory: the rules, the tally coalescing and the poll timers run once per
 * session, not once per node. Any node takes any socket and any command; a
 * node that does not own the session forwards the call to the owner over
 * Redis pub/sub and relays the answer. Broadcasts reach every node's sockets
 * through socket.io's Redis streams adapter.
 *
 * Nodes announce themselves with a short-lived key. When an owner dies its
 * key expires, and the next node that needs the session takes it over and
 * rebuilds the Room from the session's Redis stream with the same reducer:
 * the teacher reconnects anywhere and the class carries on at the same step
 * with the open poll and its votes. Redis refuses a stream entry whose
 * sequence number already exists, so a stale owner can never write over a
 * new one's log.
 */

export const NODE_TTL_MS = 3000;
const HEARTBEAT_MS = 1000;
const RPC_TIMEOUT_MS = 2500;
const OWNERSHIP_CHECK_MS = 1000;
const PRESENCE_RECONCILE_MS = 5000;
/**
 * How long a node trusts what it last learned about a session's owner. Every
 * forwarded vote would otherwise cost two Redis round trips before it is even
 * sent; a stale answer costs at most a retry (the owner answers "not owner",
 * or times out), and Redis's sequence check keeps the log single-writer.
 */
const OWNER_CACHE_MS = 1000;
/** How long an owner remembers answers by request id (well past a caller's retries). */
const ANSWER_MEMORY_MS = 30_000;

const K = {
  node: (id: string) => `cls:node:${id}`,
  owner: (sessionId: string) => `cls:owner:${sessionId}`,
  rpc: (id: string) => `cls:rpc:${id}`,
};

/** Take ownership if the recorded owner is still the one we saw (or none). */
const CLAIM = `local cur = redis.call('GET', KEYS[1])
if (cur == false and ARGV[1] == '') or cur == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2])
  return 1
end
return 0`;

/**
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
  const rules = isCommandName(c.event) ? COMMAND_RULES[c.event] : null;
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
  z.object({ method: z.literal("connected"), args: z.tuple([memberSchema]) }),
  z.object({ method: z.literal("left"), args: z.tuple([memberSchema]) }),
  z.object({ method: z.literal("view"), args: z.tuple([memberSchema]) }),
]);
const envelopeSchema = z.union([
  z.object({ kind: z.literal("req"), id: z.string(), from: z.string(), sessionId: z.string(), call: callSchema }),
  z.object({ kind: z.literal("res"), id: z.string(), ok: z.literal(true), result: z.unknown() }),
  z.object({ kind: z.literal("res"), id: z.string(), ok: z.literal(false), notOwner: z.boolean(), message: z.string() }),
]);

/** One call to a session's owner, and what each returns. */
type Call = z.output<typeof callSchema>;
type Method = Call["method"];
interface Results {
  join: JoinResult;
  command: Ack<unknown>;
  connected: void;
  left: void;
  view: MemberView | null;
}
interface RpcRequest {
  id: string;
  from: string;
  sessionId: string;
  call: Call;
}
type RpcResponse = { id: string; ok: true; result: unknown } | { id: string; ok: false; notOwner: boolean; message: string };

class NotOwner extends Error {}

export interface ClusterOptions {
  local: LocalGateway;
  rooms: RoomRegistry;
  store: RedisSessionStore;
  /** For commands and publishing. */
  client: RedisClient;
  /** A dedicated subscriber connection. */
  subscriber: RedisClient;
  /** Counts the students and watchers connected to a session on every node. */
  countPresence: (sessionId: string) => Promise<{ participants: string[]; watchers: number; projectors: number }>;
  nodeId?: string;
}

export class ClusterGateway implements RoomGateway {
  readonly nodeId: string;
  private readonly pending = new Map<string, { resolve: (r: RpcResponse) => void; timer: NodeJS.Timeout }>();
  private timers: NodeJS.Timeout[] = [];
  private readonly ownerCache = new Map<string, { owner: string; at: number }>();
  /**
   * Answers by request id, kept for a while: a caller that timed out resends
   * the same request, and a command must not run twice (a step would move
   * twice). In flight or done, the second copy gets the first one's answer.
   */
  private readonly answered = new Map<string, { at: number; response: Promise<RpcResponse> }>();
  private stopped = false;

  constructor(private readonly o: ClusterOptions) {
    this.nodeId = o.nodeId ?? newId();
  }

  async start(): Promise<void> {
    await this.heartbeat();
    await this.o.subscriber.subscribe(K.rpc(this.nodeId), (message: string) => void this.onMessage(message));
    this.timers.push(setInterval(() => void this.heartbeat(), HEARTBEAT_MS));
    this.timers.push(setInterval(() => void this.checkOwnership(), OWNERSHIP_CHECK_MS));
    this.timers.push(setInterval(() => void this.reconcilePresence(), PRESENCE_RECONCILE_MS));
    for (const t of this.timers) t.unref();
    log.info("cluster node started", { nodeId: this.nodeId });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    // Leave cleanly: others may take our sessions at once instead of waiting for the key to expire.
    await this.cmd(["DEL", K.node(this.nodeId)]).catch(() => undefined);
    await this.o.subscriber.unsubscribe(K.rpc(this.nodeId)).catch(() => undefined);
  }

  // ---------------------------------------------------------------------------
  // RoomGateway

  async join(request: JoinRequest): Promise<JoinResult> {
    const record = await this.o.store.findByCode(normalizeRoomCode(request.code));
    // Unknown and ended sessions are answered by the local rules, which need no owner.
    if (!record || record.endedAt !== null) return this.o.local.join(request);
    return this.route(record.id, { method: "join", args: [request] });
  }

  command(member: Member, command: Command): Promise<Ack<unknown>> {
    return this.route(member.sessionId, { method: "command", args: [member, command] });
  }

  async connected(member: Member): Promise<void> {
    await this.route(member.sessionId, { method: "connected", args: [member] });
  }

  async left(member: Member): Promise<void> {
    await this.route(member.sessionId, { method: "left", args: [member] });
  }

  view(member: Member): Promise<MemberView | null> {
    return this.route(member.sessionId, { method: "view", args: [member] });
  }

  // ---------------------------------------------------------------------------
  // Ownership and forwarding

  /** Runs a call on the session's owner: here, or over RPC; takes over from a dead owner. */
  private async route<C extends Call>(sessionId: string, call: C): Promise<Results[C["method"]]> {
    // What an owner answers is what runLocal returns for that method, on this version of the code.
    // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion
    return (await this.routeUntyped(sessionId, call)) as Results[C["method"]];
  }

  private async routeUntyped(sessionId: string, call: Call): Promise<unknown> {
    const { method } = call;
    // One id for every attempt, so the owner can tell a resend from a new command.
    const requestId = newId();
    for (let attempt = 0; attempt < 4; attempt++) {
      const owner = await this.ownerOf(sessionId);
      if (owner === this.nodeId) {
        try {
          return await this.runLocal(call);
        } catch (err) {
          if (err instanceof NotOwner) {
            this.ownerCache.delete(sessionId);
            continue;
          }
          throw err;
        }
      }
      const response = await this.call(owner, { id: requestId, from: this.nodeId, sessionId, call });
      if (response.ok) return response.result;
      this.ownerCache.delete(sessionId);
      if (!response.notOwner && response.message !== "timeout") throw new Error(response.message);
      // The owner moved or did not answer: look again (its key expires if it is dead).
      if (response.message === "timeout") await new Promise((r) => setTimeout(r, 200));
    }
    if (method === "command") return { ok: false, error: protocolError("INTERNAL", "The class's server is changing hands. Try again.") };
    throw new Error(`no owner answered for session ${sessionId}`);
  }

  private runLocal(call: Call): Promise<Results[Method]> {
    const { local } = this.o;
    switch (call.method) {
      case "join":
        return local.join(call.args[0]);
      case "command":
        return local.command(call.args[0], call.args[1]);
      case "connected":
        return local.connected(call.args[0]);
      case "left":
        return local.left(call.args[0]);
      case "view":
        return local.view(call.args[0]);
      default:
        return assertNever(call);
    }
  }

  /** The live owner of a session, claiming it when there is none or the recorded one is dead. */
  async ownerOf(sessionId: string): Promise<string> {
    const cached = this.ownerCache.get(sessionId);
    if (cached && Date.now() - cached.at < OWNER_CACHE_MS) return cached.owner;
    const owner = await this.resolveOwner(sessionId);
    this.ownerCache.set(sessionId, { owner, at: Date.now() });
    return owner;
  }

  private async resolveOwner(sessionId: string): Promise<string> {
    for (let i = 0; i < 5; i++) {
      const current = asString(await this.cmd(["GET", K.owner(sessionId)]));
      if (current === this.nodeId) return current;
      if (current && (await this.cmd(["EXISTS", K.node(current)])) === 1) return current;
      const claimed = await this.cmd(["EVAL", CLAIM, 1, K.owner(sessionId), current ?? "", this.nodeId]);
      if (claimed === 1) {
        if (current) log.info("took over a session from a node that is gone", { sessionId, from: current });
        // Any copy in memory may be stale: rebuild from the log on first use.
        const stale = this.o.rooms.get(sessionId);
        if (stale) this.o.rooms.drop(stale);
        void this.reconcileOne(sessionId);
        return this.nodeId;
      }
    }
    throw new Error(`could not resolve the owner of session ${sessionId}`);
  }

  private call(node: string, request: RpcRequest): Promise<RpcResponse> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(request.id);
        resolve({ id: request.id, ok: false, notOwner: false, message: "timeout" });
      }, RPC_TIMEOUT_MS);
      this.pending.set(request.id, { resolve, timer });
      this.o.client.publish(K.rpc(node), JSON.stringify({ kind: "req", ...request })).catch((err: Error) => {
        clearTimeout(timer);
        this.pending.delete(request.id);
        resolve({ id: request.id, ok: false, notOwner: false, message: err.message });
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
      entry = { at: now, response: this.answer(request) };
      this.answered.set(request.id, entry);
    }
    const response = await entry.response;
    // A "not owner" answer ran nothing: a resend after the owner moved must be tried afresh.
    if (!response.ok) this.answered.delete(request.id);
    await this.o.client
      .publish(K.rpc(request.from), JSON.stringify({ kind: "res", ...response }))
      .catch((err: Error) => log.warn("could not send an RPC answer", { to: request.from, error: err.message }));
  }

  private async answer(request: RpcRequest): Promise<RpcResponse> {
    try {
      if ((await this.ownerOf(request.sessionId)) !== this.nodeId) throw new NotOwner();
      return { id: request.id, ok: true, result: await this.runLocal(request.call) };
    } catch (err) {
      return { id: request.id, ok: false, notOwner: err instanceof NotOwner, message: errorMessage(err) };
    }
  }

  // ---------------------------------------------------------------------------
  // Housekeeping

  private heartbeat(): Promise<unknown> {
    if (this.stopped) return Promise.resolve();
    return this.cmd(["SET", K.node(this.nodeId), String(Date.now()), "PX", String(NODE_TTL_MS)]).catch((err: Error) =>
      log.warn("cluster heartbeat failed", { error: err.message }),
    );
  }

  /** Drop rooms this node no longer owns (another node took over while we were unreachable). */
  private async checkOwnership(): Promise<void> {
    for (const room of this.o.rooms.all()) {
      const owner = await this.cmd(["GET", K.owner(room.id)]).catch(() => this.nodeId);
      if (owner !== this.nodeId) {
        log.warn("no longer the owner of a session; dropping its room", { sessionId: room.id });
        this.ownerCache.delete(room.id);
        this.o.rooms.drop(room);
      }
    }
  }

  /** Presence is counted where the sockets are; the owner re-counts so a dead node's sockets do not linger. */
  private async reconcilePresence(): Promise<void> {
    for (const room of this.o.rooms.all()) await this.reconcileOne(room.id);
  }

  private async reconcileOne(sessionId: string): Promise<void> {
    try {
      const room = this.o.rooms.get(sessionId) ?? (await this.o.rooms.load(sessionId));
      if (!room) return;
      const { participants, watchers, projectors } = await this.o.countPresence(sessionId);
      room.presence.reset(participants, watchers, projectors);
    } catch (err) {
      log.warn("presence reconcile failed", { sessionId, error: errorMessage(err) });
    }
  }

  private cmd(args: (string | number)[]): Promise<unknown> {
    return this.o.client.sendCommand(args.map(String));
  }
}
