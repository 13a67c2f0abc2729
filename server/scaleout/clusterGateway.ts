import { z } from "zod";
import {
  COMMANDS,
  ERROR_CODES,
  ROLES,
  isCommandName,
  isRerunnable,
  normalizeRoomCode,
  protocolError,
  type Ack,
  type Command,
} from "../../lib/protocol";
import {
  UnavailableError,
  type JoinRequest,
  type JoinResult,
  type LocalGateway,
  type Member,
  type MemberView,
  type RoomGateway,
} from "../rooms/gateway";
import { assertNever } from "../../lib/assertNever";
import { log } from "../logger";
import type { PresenceFigure, RoomRegistry } from "../rooms/registry";
import { newId } from "../secrets";
import {
  asString,
  classifyRedisError,
  epochKey,
  ownerKey,
  redisCommand,
  type Fence,
  type RedisClient,
  type RedisSessionStore,
} from "../store/redis";
import { LostOwnershipError, StoreError, StoreInDoubtError, StoreUnavailableError } from "../store/types";
import { errorMessage, toError } from "../../lib/errors";
import { OrderedQueue } from "./orderedQueue";
import { countOwnershipClaim, timeForward } from "../ops/metrics";
import { PRESENCE_CHANNEL, PresenceBoard } from "./presenceBoard";

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
 * Ownership is a lease with a fence. A node holds its sessions while its
 * heartbeat key lives (it renews it every third of NODE_TTL); another node
 * takes a session over only once that key has expired, and each claim bumps
 * the session's claim count. Every event is written under the owner and
 * claim count its writer holds, and Redis refuses it once either has moved
 * on, so a node that was frozen, cut off or slow writes nothing after a
 * takeover (nor over a new owner's log: Redis also refuses a stream entry whose
 * sequence number exists). A node that cannot renew its heartbeat in time
 * writes and broadcasts nothing for its sessions from the moment its lease
 * ends until Redis confirms each claim again: a timer that fires meanwhile
 * (a poll countdown on a node resuming from a freeze) changes nothing.
 *
 * Order: each sender's commands run one at a time in the order they arrived
 * (OrderedQueue), on this node and again on the owner, and every one is
 * answered within the ack budget. A command that may have run on an owner
 * that then went silent is never run again elsewhere (it could apply twice):
 * it is answered UNCONFIRMED, and the takeover's fence keeps it from landing
 * after anything that runs on the new owner. A command that certainly did not
 * run is answered UNAVAILABLE.
 */

export interface ClusterTimings {
  /** A node whose heartbeat key is this old is taken for gone, and its sessions are taken over. */
  nodeTtlMs: number;
  /** Every command, join and resync is answered within this. */
  ackBudgetMs: number;
  /** A node that stops reporting its sockets keeps counting with its last figure this long. */
  presenceStaleMs: number;
}

/** How long a node trusts what it last learned about another node owning a session (a stale answer costs a retry). */
const OWNER_CACHE_MS = 1000;
/** How long an owner remembers answers by request id (well past a caller's retries). */
const ANSWER_MEMORY_MS = 30_000;
/** Between two tries to reach a session's owner, or Redis. */
const RETRY_PAUSE_MS = 100;
/** How often the lease is looked at: a node resuming after a freeze must notice before its timers write. */
const LEASE_WATCH_MS = 100;
/** How often the claims this node holds are checked against Redis, and their rooms reloaded if dropped. */
const CLAIM_CHECK_MS = 1000;
/** How often the owner recounts who is connected even when no node says anything changed. */
const PRESENCE_RECONCILE_MS = 2000;
/** A burst of "presence changed" notices becomes one recount. */
const RECOUNT_DELAY_MS = 100;

const K = {
  node: (id: string) => `cls:node:${id}`,
  rpc: (id: string) => `cls:rpc:${id}`,
};

/**
 * Take ownership if the recorded owner is still the one we saw (or none), and
 * bump the claim count; returns the new count, or 0 when someone else moved first.
 * KEYS: owner, claim count. ARGV: the owner we saw ('' for none), this node.
 */
const CLAIM = `local cur = redis.call('GET', KEYS[1])
if (cur == false and ARGV[1] == '') or cur == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2])
  return redis.call('INCR', KEYS[2])
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
type Call = z.output<typeof callSchema>;
type Method = Call["method"];
interface Results {
  join: JoinResult;
  command: Ack<unknown>;
  view: MemberView | null;
}
type WithoutKind<T> = T extends unknown ? Omit<T, "kind"> : never;
type RpcRequest = WithoutKind<z.output<typeof requestSchema>>;
type RpcResponse = WithoutKind<z.output<typeof responseSchema>>;
/** What a caller learns from one attempt: the owner's answer, or that none came. */
type Attempt = RpcResponse | { id: string; status: "timeout" | "unsent" | "unknown" };

class NotOwner extends Error {}

/** A claim this node holds on a session: the claim count it was made under, and whether Redis confirmed it since the last lapse. */
interface Claim {
  epoch: number;
  verified: boolean;
}

/** What became of one call so far: the node that may have run it (null: certainly none). */
interface Progress {
  mayHaveRunOn: string | null;
}

export interface ClusterOptions {
  local: LocalGateway;
  rooms: RoomRegistry;
  store: RedisSessionStore;
  /** For commands and publishing; fails at once while Redis is unreachable (connectRedis's failFast). */
  client: RedisClient;
  /** A dedicated subscriber connection. */
  subscriber: RedisClient;
  /**
   * A connection for this node's heartbeat alone (failFast too). On the shared
   * one the renewal waited behind a vote burst's writes and forwarded calls:
   * with four nodes and 10,000 students the owner's lease ran out mid-poll and
   * another node took the class over.
   */
  leaseClient: RedisClient;
  /** The students and watchers connected to a session through this node. */
  localPresence: (sessionId: string) => PresenceFigure;
  timings: ClusterTimings;
  nodeId?: string;
}

export class ClusterGateway implements RoomGateway {
  readonly nodeId: string;
  private readonly t: ClusterTimings;
  private readonly claims = new Map<string, Claim>();
  private readonly ownerCache = new Map<string, { owner: string; at: number }>();
  private readonly pending = new Map<string, { resolve: (r: Attempt) => void; timer: NodeJS.Timeout }>();
  /**
   * Answers by request id, kept for a while: a caller that timed out resends
   * the same request, and a command must not run twice (a step would move
   * twice). A copy that arrives while the first still runs is covered by the
   * answer the first sends when it is done; a later copy gets it from here.
   */
  private readonly answered = new Map<string, { at: number; response: Promise<RpcResponse>; settled: boolean }>();
  /** This node's sockets: one call at a time per sender, in arrival order. */
  private readonly senders = new OrderedQueue();
  /** Calls run here as the owner: one at a time per sender, in arrival order. */
  private readonly ownerTurns = new OrderedQueue();
  private readonly presence: PresenceBoard;
  private readonly recounts = new Set<string>();
  private recountTimer: NodeJS.Timeout | null = null;
  /** performance.now() until which this node's heartbeat key surely lives (no one can take its sessions). */
  private leaseUntil = 0;
  private lapsed = false;
  private renewing: Promise<void> | null = null;
  private checkingClaims = false;
  private timers: NodeJS.Timeout[] = [];
  private stopped = false;

  constructor(private readonly o: ClusterOptions) {
    this.nodeId = o.nodeId ?? newId();
    this.t = o.timings;
    this.presence = new PresenceBoard({
      nodeId: this.nodeId,
      cmd: (args) => this.cmd(args),
      publish: (channel, message) => this.o.client.publish(channel, message),
      local: o.localPresence,
      staleMs: o.timings.presenceStaleMs,
    });
  }

  private get heartbeatMs(): number {
    return Math.max(50, Math.floor(this.t.nodeTtlMs / 3));
  }
  /** The lease ends this much before the key could expire (clock rates, a slow round trip). */
  private get leaseMarginMs(): number {
    return Math.max(100, Math.floor(this.t.nodeTtlMs / 6));
  }
  /** One try to reach an owner; a silent owner is looked up again after this. */
  private get attemptMs(): number {
    return Math.min(1000, this.heartbeatMs);
  }

  async start(): Promise<void> {
    await this.heartbeat();
    if (!this.leaseValid()) throw new StoreError("could not register this node in Redis");
    this.o.store.fenceWith((sessionId) => this.fenceOf(sessionId));
    await this.o.subscriber.subscribe(K.rpc(this.nodeId), (message: string) => void this.onMessage(message));
    await this.o.subscriber.subscribe(PRESENCE_CHANNEL, (sessionId: string) => this.recountSoon(sessionId));
    this.timers.push(setInterval(() => void this.heartbeat(), this.heartbeatMs));
    this.timers.push(setInterval(() => this.watchLease(), LEASE_WATCH_MS));
    this.timers.push(setInterval(() => void this.checkClaims(), CLAIM_CHECK_MS));
    this.timers.push(setInterval(() => this.reconcilePresence(), PRESENCE_RECONCILE_MS));
    for (const t of this.timers) t.unref();
    this.presence.start();
    log.info("cluster node started", { nodeId: this.nodeId });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.leaseUntil = 0;
    for (const t of this.timers) clearInterval(t);
    if (this.recountTimer) clearTimeout(this.recountTimer);
    this.presence.stop();
    // Leave cleanly: others may take our sessions at once instead of waiting for the key to expire.
    await redisCommand(this.o.leaseClient, ["DEL", K.node(this.nodeId)]).catch(() => undefined);
    await this.o.subscriber.unsubscribe(K.rpc(this.nodeId)).catch(() => undefined);
    await this.o.subscriber.unsubscribe(PRESENCE_CHANNEL).catch(() => undefined);
  }

  // ---------------------------------------------------------------------------
  // RoomGateway

  async join(request: JoinRequest): Promise<JoinResult> {
    const deadline = Date.now() + this.t.ackBudgetMs;
    const join = async (): Promise<JoinResult> => {
      const record = await this.o.store.findByCode(normalizeRoomCode(request.code));
      // Unknown and ended sessions are answered by the local rules, which need no owner.
      if (!record || record.endedAt !== null) return this.o.local.join(request);
      const call: Call = { method: "join", args: [request] };
      return this.routeTyped(record.id, call, { deadline, sender: "", progress: { mayHaveRunOn: null } });
    };
    try {
      return await settleBy(deadline, join());
    } catch (err) {
      const unavailable = asUnavailable(err);
      if (!unavailable) throw err;
      // Whether or not the owner admitted them, this socket was not: it joins again (as new, if it was).
      return { ok: false, error: protocolError("UNAVAILABLE") };
    }
  }

  command(member: Member, command: Command): Promise<Ack<unknown>> {
    // Presence, counted where the socket is (the edge marked it): the owner reads it with this node's figure.
    if (command.event === "lookback:set") {
      this.presence.touch(member.sessionId);
      return Promise.resolve({ ok: true, data: null });
    }
    const deadline = Date.now() + this.t.ackBudgetMs;
    const sender = `${member.sessionId}|${member.participantId ?? member.role}`;
    const progress: Progress = { mayHaveRunOn: null };
    const call: Call = { method: "command", args: [member, command] };
    return this.senders.run(
      sender,
      deadline,
      async () => {
        try {
          return await this.routeTyped(member.sessionId, call, { deadline, sender: `${this.nodeId}|${sender}`, progress });
        } catch (err) {
          return { ok: false, error: refusal(err, member.sessionId) };
        }
      },
      (started) => ({ ok: false, error: protocolError(started && progress.mayHaveRunOn ? "UNCONFIRMED" : "UNAVAILABLE") }),
    );
  }

  /** Presence is counted where the sockets are: this node writes its figure, the owner adds them up. */
  connected(member: Member): Promise<void> {
    this.presence.touch(member.sessionId);
    return Promise.resolve();
  }

  left(member: Member): Promise<void> {
    this.presence.touch(member.sessionId);
    return Promise.resolve();
  }

  async view(member: Member): Promise<MemberView | null> {
    const deadline = Date.now() + this.t.ackBudgetMs;
    const call: Call = { method: "view", args: [member] };
    try {
      return await settleBy(deadline, this.routeTyped(member.sessionId, call, { deadline, sender: "", progress: { mayHaveRunOn: null } }));
    } catch (err) {
      // A resync changes nothing: whatever happened, nothing was applied.
      if (asUnavailable(err)) throw new UnavailableError("UNAVAILABLE");
      throw err;
    }
  }

  // ---------------------------------------------------------------------------
  // Ownership

  /** Scale-out's hook for a new session: the node that created it owns it from the start. */
  async claimNew(sessionId: string): Promise<void> {
    const epoch = Number(await this.cmd(["EVAL", CLAIM, 2, ownerKey(sessionId), epochKey(sessionId), "", this.nodeId]));
    if (!epoch) throw new StoreError(`session ${sessionId} already had an owner`);
    countOwnershipClaim(false);
    this.claims.set(sessionId, { epoch, verified: true });
  }

  /** The claim this node may write a session's events under now, or null (not ours, or not sure it still is). */
  fenceOf(sessionId: string): Fence | null {
    const claim = this.claims.get(sessionId);
    return claim?.verified && this.leaseValid() ? { node: this.nodeId, epoch: claim.epoch } : null;
  }

  /** Whether a room here may broadcast: a node that may have lost the session must not show the class stale state. */
  mayPublish(sessionId: string): boolean {
    return this.fenceOf(sessionId) !== null;
  }

  /** Scale-out's hook for a room loaded here: the class's count across the nodes, so it does not start at zero. */
  presenceOf(sessionId: string): Promise<PresenceFigure> {
    return this.presence.count(sessionId);
  }

  /**
   * Writes of these sessions failed (server/app.ts has dropped their rooms).
   * A refused claim means another node owns the session now; otherwise Redis
   * was unreachable and the room comes back from the log once it answers.
   */
  writesFailed(failures: ReadonlyMap<string, Error>): void {
    for (const [sessionId, err] of failures) if (err instanceof LostOwnershipError) this.refused(sessionId, err);
  }

  /** A write of this session was refused: forget it if another node owns it now, or confirm the claim before the next write. */
  private refused(sessionId: string, err: LostOwnershipError): void {
    if (err.certain) return this.lose(sessionId, "a write was refused: another node took the session over");
    const claim = this.claims.get(sessionId);
    if (claim) claim.verified = false;
  }

  /** The live owner of a session, claiming it when there is none or the recorded one is gone. */
  async ownerOf(sessionId: string): Promise<string> {
    if (this.claims.get(sessionId)?.verified) return this.nodeId;
    const cached = this.ownerCache.get(sessionId);
    if (cached && Date.now() - cached.at < OWNER_CACHE_MS) return cached.owner;
    const owner = await this.resolveOwner(sessionId);
    if (owner !== this.nodeId) this.ownerCache.set(sessionId, { owner, at: Date.now() });
    return owner;
  }

  private async resolveOwner(sessionId: string): Promise<string> {
    for (let i = 0; i < 5; i++) {
      const [current, epoch] = asPair(await this.cmd(["MGET", ownerKey(sessionId), epochKey(sessionId)]));
      const claim = this.claims.get(sessionId);
      if (current === this.nodeId && claim && Number(epoch) === claim.epoch) return this.nodeId;
      if (current && current !== this.nodeId) {
        if (claim) this.lose(sessionId, "another node owns it");
        if ((await this.cmd(["EXISTS", K.node(current)])) === 1) return current;
      }
      // No owner, a gone one, or this node under a claim it no longer holds: claim it. The claim count moves on,
      // so anything written under an older claim (by a node that was frozen, say) is refused from now on.
      const claimed = Number(await this.cmd(["EVAL", CLAIM, 2, ownerKey(sessionId), epochKey(sessionId), current ?? "", this.nodeId]));
      if (claimed > 0) {
        countOwnershipClaim(current !== null && current !== this.nodeId);
        if (current && current !== this.nodeId) log.info("took over a session from a node that is gone", { sessionId, from: current });
        // Any copy in memory may be stale: rebuild from the log on first use.
        const stale = this.o.rooms.get(sessionId);
        if (stale) this.o.rooms.drop(stale);
        this.claims.set(sessionId, { epoch: claimed, verified: this.leaseValid() });
        return this.nodeId;
      }
    }
    throw new UnavailableError("UNAVAILABLE", "The class's server is changing hands. Try again.");
  }

  /** Before running anything as the owner: the lease holds and Redis still names this node under our claim. */
  private async confirmOwnership(sessionId: string, deadline: number): Promise<void> {
    // Just after an outage each Redis connection comes back on its own schedule: keep trying to renew until the
    // call's deadline rather than refusing the first command that arrives before the heartbeat's connection does.
    while (!this.leaseValid()) {
      await this.heartbeat();
      if (this.leaseValid()) break;
      if (Date.now() + RETRY_PAUSE_MS >= deadline) {
        throw new UnavailableError("UNAVAILABLE", "The class's server cannot reach Redis. Try again in a moment.");
      }
      await pause(RETRY_PAUSE_MS, deadline);
    }
    const claim = this.claims.get(sessionId);
    if (!claim) throw new NotOwner();
    if (claim.verified) return;
    const [owner, epoch] = asPair(await this.cmd(["MGET", ownerKey(sessionId), epochKey(sessionId)]));
    if (owner !== this.nodeId || Number(epoch) !== claim.epoch || !this.leaseValid()) {
      this.lose(sessionId, "another node took it over");
      throw new NotOwner();
    }
    claim.verified = true;
  }

  /** Forget a session this node no longer owns, and its room. */
  private lose(sessionId: string, reason: string): void {
    this.claims.delete(sessionId);
    this.ownerCache.delete(sessionId);
    this.presence.forget(sessionId);
    const room = this.o.rooms.get(sessionId);
    if (room) {
      log.warn("no longer the owner of a session; dropping its room", { sessionId, reason });
      this.o.rooms.drop(room);
    }
  }

  // ---------------------------------------------------------------------------
  // Forwarding

  private async routeTyped<C extends Call>(
    sessionId: string,
    call: C,
    how: { deadline: number; sender: string; progress: Progress },
  ): Promise<Results[C["method"]]> {
    // What an owner answers is what runLocal returns for that method, on this version of the code.
    // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion
    return (await this.route(sessionId, call, how)) as Results[C["method"]];
  }

  /**
   * Runs a call on the session's owner (here, or over RPC) before the
   * deadline, taking over from an owner that is gone. Throws UnavailableError:
   * UNAVAILABLE when the call certainly did not run, UNCONFIRMED when it may have.
   */
  private async route(sessionId: string, call: Call, how: { deadline: number; sender: string; progress: Progress }): Promise<unknown> {
    const { deadline, sender, progress } = how;
    // One id for every attempt, so the owner can tell a resend from a new call.
    const requestId = newId();
    while (Date.now() < deadline) {
      let owner: string;
      try {
        owner = await this.ownerOf(sessionId);
      } catch (err) {
        if (!asUnavailable(err)) throw err;
        // Redis is unreachable, or the owner record kept moving: nothing was sent. Look again shortly.
        await pause(RETRY_PAUSE_MS, deadline);
        continue;
      }
      if (progress.mayHaveRunOn !== null && progress.mayHaveRunOn !== owner) {
        // It may have run on the old owner, which can no longer write: running it here could apply it twice.
        if (!rerunnable(call)) throw new UnavailableError("UNCONFIRMED");
        progress.mayHaveRunOn = null;
      }
      if (owner === this.nodeId) {
        try {
          return await this.runAsOwner(sessionId, call, sender, deadline, progress);
        } catch (err) {
          if (!(err instanceof NotOwner)) throw err;
          // Nothing ran (or its write was refused): ask again who owns it.
          progress.mayHaveRunOn = null;
          continue;
        }
      }
      const attemptMs = Math.min(this.attemptMs, deadline - Date.now());
      const response = await timeForward(
        this.call(owner, { id: requestId, from: this.nodeId, sessionId, sender, deadline, call }, attemptMs),
      );
      switch (response.status) {
        case "ok":
          return response.result;
        case "notOwner":
          progress.mayHaveRunOn = null;
          this.ownerCache.delete(sessionId);
          continue;
        case "expired":
          throw new UnavailableError("UNAVAILABLE");
        case "failed":
          if (response.code === "INTERNAL") throw new Error(`the owner failed: ${response.message}`);
          throw new UnavailableError(response.code, response.message);
        case "unsent":
          await pause(RETRY_PAUSE_MS, deadline);
          continue;
        case "timeout":
        case "unknown":
          // It may be running there. Resending the same id is safe (the owner answers a resend with the first
          // answer); running it anywhere else is not, unless that owner says it never ran it.
          progress.mayHaveRunOn = owner;
          this.ownerCache.delete(sessionId);
          await pause(RETRY_PAUSE_MS, deadline);
          continue;
        default:
          assertNever(response);
      }
    }
    throw new UnavailableError(progress.mayHaveRunOn ? "UNCONFIRMED" : "UNAVAILABLE");
  }

  /** Runs a call here as the session's owner, after the same sender's earlier calls. */
  private runAsOwner(sessionId: string, call: Call, sender: string, deadline: number, progress: Progress): Promise<Results[Method]> {
    const run = async () => {
      await this.confirmOwnership(sessionId, deadline);
      if (call.method === "command") progress.mayHaveRunOn = this.nodeId;
      try {
        return await this.runLocal(call);
      } catch (err) {
        if (!(err instanceof LostOwnershipError)) throw err;
        // Its write was refused, so nothing of it was written: run it wherever the session is owned now.
        this.refused(sessionId, err);
        throw new NotOwner();
      }
    };
    if (!sender) return run();
    return this.ownerTurns.run(sender, deadline, run, () => {
      throw new UnavailableError(progress.mayHaveRunOn ? "UNCONFIRMED" : "UNAVAILABLE");
    });
  }

  private runLocal(call: Call): Promise<Results[Method]> {
    const { local } = this.o;
    switch (call.method) {
      case "join":
        return local.join(call.args[0]);
      case "command":
        return local.command(call.args[0], call.args[1]);
      case "view":
        return local.view(call.args[0]);
      default:
        return assertNever(call);
    }
  }

  private call(node: string, request: RpcRequest, waitMs: number): Promise<Attempt> {
    return new Promise((resolve) => {
      const timer = setTimeout(
        () => {
          this.pending.delete(request.id);
          resolve({ id: request.id, status: "timeout" });
        },
        Math.max(0, waitMs),
      );
      this.pending.set(request.id, { resolve, timer });
      redisPublish(this.o.client, K.rpc(node), JSON.stringify({ kind: "req", ...request })).catch((err: unknown) => {
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
      const fresh = { at: now, response: this.answer(request), settled: false };
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
    await redisPublish(this.o.client, K.rpc(request.from), JSON.stringify({ kind: "res", ...response })).catch((err: unknown) =>
      log.warn("could not send an RPC answer", { to: request.from, error: errorMessage(err) }),
    );
  }

  private async answer(request: RpcRequest): Promise<RpcResponse> {
    const { id, sessionId, call, sender, deadline } = request;
    // The caller has given up (it sat in a frozen node's buffer, say): starting it now could only surprise.
    if (Date.now() >= deadline) return { id, status: "expired" };
    const progress: Progress = { mayHaveRunOn: null };
    try {
      if ((await this.ownerOf(sessionId)) !== this.nodeId) return { id, status: "notOwner" };
      return { id, status: "ok", result: await this.runAsOwner(sessionId, call, sender, deadline, progress) };
    } catch (err) {
      if (err instanceof NotOwner) return { id, status: "notOwner" };
      const unavailable = asUnavailable(err);
      if (unavailable) return { id, status: "failed", code: unavailable.code, message: unavailable.message };
      log.error("a forwarded call failed", { sessionId, method: call.method, error: toError(err).stack });
      return { id, status: "failed", code: "INTERNAL", message: errorMessage(err) };
    }
  }

  // ---------------------------------------------------------------------------
  // Lease and housekeeping

  private leaseValid(): boolean {
    return performance.now() < this.leaseUntil;
  }

  /** Renews this node's key; the lease runs from when the renewal was sent. One renewal at a time. */
  private heartbeat(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.renewing ??= (async () => {
      const sentAt = performance.now();
      try {
        await redisCommand(this.o.leaseClient, ["SET", K.node(this.nodeId), String(Date.now()), "PX", this.t.nodeTtlMs]);
        this.leaseUntil = Math.max(this.leaseUntil, sentAt + this.t.nodeTtlMs - this.leaseMarginMs);
        if (this.lapsed) {
          this.lapsed = false;
          log.info("reached Redis again; confirming this node's sessions");
          void this.checkClaims();
        }
      } catch (err) {
        log.warn("cluster heartbeat failed", { error: errorMessage(err) });
      }
    })().finally(() => {
      this.renewing = null;
    });
    return this.renewing;
  }

  /**
   * The lease ran out (Redis unreachable, or this process was frozen): another
   * node may own these sessions by now. Until Redis confirms a claim again,
   * nothing of its session is written (the store refuses it here) or broadcast
   * (the outbox stays silent), so a timer that fires meanwhile (a poll's
   * countdown, a throttled tally) changes nothing anyone sees; its room is then
   * reloaded from the log. The rooms are kept otherwise: a node that merely
   * stalled under load keeps its classes without rebuilding them.
   */
  private watchLease(): void {
    if (this.lapsed || this.stopped || this.leaseValid()) return;
    this.lapsed = true;
    if (this.claims.size)
      log.warn("this node's ownership lease ran out; its sessions write and broadcast nothing until Redis confirms them", {
        sessions: this.claims.size,
      });
    for (const claim of this.claims.values()) claim.verified = false;
    void this.heartbeat();
  }

  /**
   * Checks every claim against Redis (one round trip): a session another node
   * took over is forgotten, and the room of one still ours comes back if it
   * was dropped (a write that failed while Redis was away, a lapse), so an
   * open poll's countdown keeps running.
   */
  private async checkClaims(): Promise<void> {
    if (this.checkingClaims || !this.leaseValid() || this.claims.size === 0) return;
    this.checkingClaims = true;
    try {
      const ids = [...this.claims.keys()];
      const replies = await this.cmd(["MGET", ...ids.map(ownerKey), ...ids.map(epochKey)]);
      if (!Array.isArray(replies)) return;
      const confirmed: string[] = [];
      ids.forEach((id, i) => {
        const claim = this.claims.get(id);
        if (!claim) return;
        if (replies[i] === this.nodeId && Number(replies[ids.length + i]) === claim.epoch) {
          if (this.leaseValid() && !claim.verified) confirmed.push(id);
          if (this.leaseValid()) claim.verified = true;
        } else this.lose(id, "another node took it over");
      });
      // The class's screens may have missed broadcasts while the claim was unconfirmed (they were held back) or
      // Redis was away (socket.io's adapter drops what it could not send): one snapshot per audience brings every
      // screen to the log's state.
      for (const id of confirmed) this.o.rooms.get(id)?.publish();
      for (const [id, claim] of this.claims) {
        if (!claim.verified || this.o.rooms.get(id)) continue;
        const room = await this.o.rooms.load(id).catch(() => undefined);
        // Ended (or gone): nothing left to own.
        if (room === null) this.claims.delete(id);
        else room?.publish();
      }
    } catch (err) {
      log.debug("could not check this node's claims", { error: errorMessage(err) });
    } finally {
      this.checkingClaims = false;
    }
  }

  /** A node says the sockets of a session changed: if its room is here, recount soon (one recount per burst). */
  private recountSoon(sessionId: string): void {
    if (!this.o.rooms.get(sessionId)) return;
    this.recounts.add(sessionId);
    this.recountTimer ??= setTimeout(() => {
      this.recountTimer = null;
      const ids = [...this.recounts];
      this.recounts.clear();
      for (const id of ids) void this.recount(id);
    }, RECOUNT_DELAY_MS);
  }

  private reconcilePresence(): void {
    for (const room of this.o.rooms.all()) void this.recount(room.id);
    void this.adoptOrphans();
  }

  /**
   * Sessions with sockets here whose owner is gone: take them over, so their
   * timers run (an open poll's countdown) even if nobody sends a command. A
   * session never owned (nobody needed it yet) or owned by a live node is left alone.
   */
  private async adoptOrphans(): Promise<void> {
    const ids = this.presence.localSessions().filter((id) => !this.claims.has(id));
    if (ids.length === 0 || !this.leaseValid()) return;
    try {
      const reply = await this.cmd(["MGET", ...ids.map(ownerKey)]);
      if (!Array.isArray(reply)) return;
      const owners = reply.map((o: unknown) => (typeof o === "string" ? o : null));
      const others = [...new Set(owners.filter((o): o is string => o !== null && o !== this.nodeId))];
      if (others.length === 0) return;
      const alive = await this.cmd(["MGET", ...others.map(K.node)]);
      if (!Array.isArray(alive)) return;
      const gone = new Set(others.filter((_, i) => alive[i] === null));
      ids.forEach((id, i) => {
        const owner = owners[i];
        if (owner !== null && gone.has(owner)) void this.ownerOf(id).catch(() => undefined);
      });
    } catch (err) {
      log.debug("could not look for sessions whose owner is gone", { error: errorMessage(err) });
    }
  }

  private async recount(sessionId: string): Promise<void> {
    if (!this.o.rooms.get(sessionId)) return;
    try {
      const figure = await this.presence.count(sessionId);
      // The room may have been dropped or replaced meanwhile: count into the one there is now.
      this.o.rooms.get(sessionId)?.presence.reset(figure.participants, figure.watchers, figure.projectors, figure.lookingBack);
    } catch (err) {
      log.warn("presence recount failed", { sessionId, error: errorMessage(err) });
    }
  }

  private cmd(args: (string | number)[]): Promise<unknown> {
    return redisCommand(this.o.client, args);
  }
}

/**
 * Whether a call that may have run on a silent owner can run again on the new
 * one without doing anything twice: a resync; a join that brings its identity
 * (a returning student's token, the teacher's key; a new student's second run
 * would make a second student); a command the table marks rerunnable
 * (lib/session/commands.ts: it names where to go, not a move from where things are).
 */
function rerunnable(call: Call): boolean {
  switch (call.method) {
    case "view":
      return true;
    case "join":
      return call.args[0].role !== "student" || call.args[0].token !== undefined;
    case "command":
      return isRerunnable(call.args[1].event);
    default:
      return assertNever(call);
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

/** Redis unreachable, or an answer not confirmed in time: the call's outcome, as the code the client gets. */
function asUnavailable(err: unknown): UnavailableError | null {
  if (err instanceof UnavailableError) return err;
  if (err instanceof StoreUnavailableError) return new UnavailableError("UNAVAILABLE");
  // A read (or a claim) that was not confirmed changed nothing a client was told about.
  if (err instanceof StoreInDoubtError) return new UnavailableError("UNAVAILABLE");
  return null;
}

/** The refusal a command's sender gets for an error: a documented code for Redis or an owner out of reach, INTERNAL for the rest. */
function refusal(err: unknown, sessionId: string): ReturnType<typeof protocolError> {
  const unavailable = asUnavailable(err);
  if (unavailable) return protocolError(unavailable.code, unavailable.message);
  log.error("command failed", { sessionId, error: toError(err).stack });
  return protocolError("INTERNAL", ERROR_CODES.INTERNAL);
}

/** Resolves or rejects with `work`, or rejects with UNAVAILABLE at the deadline (the work may go on; it changes nothing a client sees). */
function settleBy<T>(deadline: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new UnavailableError("UNAVAILABLE")), Math.max(0, deadline - Date.now()));
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

function pause(ms: number, deadline: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.min(ms, deadline - Date.now()))));
}

/** MGET of two keys. */
function asPair(reply: unknown): [string | null, string | null] {
  if (!Array.isArray(reply) || reply.length !== 2) throw new StoreError("redis answered MGET with something other than two values");
  return [asString(reply[0]), asString(reply[1])];
}
