import { ERROR_CODES, normalizeRoomCode, protocolError, type Ack, type Command } from "../../lib/protocol";
import {
  UnavailableError,
  type JoinRequest,
  type JoinResult,
  type LocalGateway,
  type Member,
  type MemberView,
  type RoomGateway,
} from "../rooms/gateway";
import { log } from "../logger";
import type { PresenceFigure, RoomRegistry } from "../rooms/registry";
import { newId } from "../secrets";
import { redisCommand, type Fence, type RedisClient, type RedisSessionStore } from "../store/redis";
import { StoreError, StoreInDoubtError, StoreUnavailableError } from "../store/types";
import { toError } from "../../lib/errors";
import { NodeLease } from "./lease";
import { OrderedQueue } from "./orderedQueue";
import { SessionOwnership } from "./ownership";
import { PRESENCE_CHANNEL, PresenceBoard } from "./presenceBoard";
import { PresenceRecount } from "./presenceRecount";
import { CallRouter, asUnavailable, type Progress } from "./routing";
import { RpcTransport, type Call } from "./rpc";
import { CLAIM_CHECK_MS, LEASE_WATCH_MS, PRESENCE_RECONCILE_MS, RETRY_PAUSE_MS, type ClusterTimings } from "./timing";
import { VoteFold } from "./voteFold";
import { NO_GATE, castVote } from "./voteIntake";

export type { ClusterTimings } from "./timing";

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
 *
 * This class is the RoomGateway the socket layer sees, and wires the parts,
 * each lower one knowing nothing of those above it:
 *   timing.ts          the timings, and the bounded pause of every retry
 *   lease.ts           this node's heartbeat lease: renewal, lapse
 *   presenceBoard.ts   who is connected, counted where the sockets are
 *   ownership.ts       who owns each session: claims, fences, takeovers
 *   rpc.ts             the envelope between nodes and its pub/sub transport
 *   routing.ts         each call run on its owner, and when one may run again
 *   presenceRecount.ts the owner's rooms counted from every node's figures
 *   voteIntake.ts      a student's vote taken where the socket is, checked and kept in Redis
 *   voteFold.ts        the owner folding those votes into the log, in order
 *
 * Votes make no round trip to the owner: the node holding the student's
 * socket checks the vote against the session's gate in Redis and appends it
 * to the session's intake in one script, and acknowledges it once Redis has
 * it; the owner folds the intake into the log in order, before anything that
 * shuts votes out (server/store/redisGate.ts says how the gate follows the log).
 */

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
  /** Whether one of this node's sockets is still connected (a command from one that is gone is not started: routing.ts). */
  connected?: (socketId: string) => boolean;
  nodeId?: string;
}

export class ClusterGateway implements RoomGateway {
  readonly nodeId: string;
  private readonly t: ClusterTimings;
  /** This node's sockets: one call at a time per sender, in arrival order. */
  private readonly senders = new OrderedQueue();
  private readonly presence: PresenceBoard;
  private readonly lease: NodeLease;
  private readonly ownership: SessionOwnership;
  private readonly rpc: RpcTransport;
  private readonly routing: CallRouter;
  private readonly recounts: PresenceRecount;
  private readonly votes: VoteFold;
  /** The vote fold's own connection (its blocking read would hold up every other command). */
  private readonly reader: RedisClient;
  private timers: NodeJS.Timeout[] = [];

  constructor(private readonly o: ClusterOptions) {
    const nodeId = (this.nodeId = o.nodeId ?? newId());
    this.t = o.timings;
    this.presence = new PresenceBoard({
      nodeId,
      cmd: (args) => redisCommand(this.o.client, args),
      publish: (channel, message) => this.o.client.publish(channel, message),
      local: o.localPresence,
      staleMs: o.timings.presenceStaleMs,
    });
    this.lease = new NodeLease({
      nodeId,
      client: o.leaseClient,
      nodeTtlMs: o.timings.nodeTtlMs,
      onLapse: () => this.ownership.leaseLapsed(),
      onRegained: () => void this.ownership.checkClaims(),
    });
    this.ownership = new SessionOwnership({ nodeId, client: o.client, lease: this.lease, rooms: o.rooms, presence: this.presence });
    this.rpc = new RpcTransport({ nodeId, client: o.client, subscriber: o.subscriber, answer: (request) => this.routing.answer(request) });
    this.reader = o.client.duplicate();
    this.reader.on("error", (err: Error) => log.warn("redis client error (vote fold)", { error: err.message }));
    const fenceOf = (sessionId: string) => this.ownership.fenceOf(sessionId);
    this.votes = new VoteFold({ client: o.client, reader: this.reader, store: o.store, rooms: o.rooms, fenceOf });
    this.routing = new CallRouter({
      nodeId,
      local: o.local,
      ownership: this.ownership,
      rpc: this.rpc,
      nodeTtlMs: o.timings.nodeTtlMs,
      votes: this.votes,
    });
    this.recounts = new PresenceRecount({ rooms: o.rooms, board: this.presence });
  }

  async start(): Promise<void> {
    await this.lease.renew();
    if (!this.lease.valid()) throw new StoreError("could not register this node in Redis");
    this.o.store.fenceWith((sessionId) => this.ownership.fenceOf(sessionId));
    this.o.rooms.closeDueWith((sessionId, pollId) => this.closeDue(sessionId, pollId));
    await this.reader.connect();
    await this.rpc.listen();
    await this.o.subscriber.subscribe(PRESENCE_CHANNEL, (sessionId: string) => this.recounts.soon(sessionId));
    this.timers.push(setInterval(() => void this.lease.renew(), this.lease.heartbeatMs));
    this.timers.push(setInterval(() => this.lease.watch(), LEASE_WATCH_MS));
    this.timers.push(setInterval(() => void this.ownership.checkClaims(), CLAIM_CHECK_MS));
    this.timers.push(setInterval(() => this.reconcilePresence(), PRESENCE_RECONCILE_MS));
    for (const t of this.timers) t.unref();
    this.presence.start();
    this.votes.start();
    log.info("cluster node started", { nodeId: this.nodeId });
  }

  async stop(): Promise<void> {
    this.lease.end();
    for (const t of this.timers) clearInterval(t);
    this.recounts.stop();
    this.presence.stop();
    await this.votes.stop();
    await this.reader.quit().catch(() => undefined);
    // Leave cleanly: others may take our sessions at once instead of waiting for the key to expire.
    await this.lease.release();
    await this.rpc.close();
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
      return this.routing.routeTyped(record.id, call, { deadline, sender: "", progress: { mayHaveRunOn: null } });
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
    const { connected } = this.o;
    const socketId = member.socketId;
    const wanted = connected && socketId ? () => connected(socketId) : undefined;
    const route = async (): Promise<Ack<unknown>> => {
      try {
        return await this.routing.routeTyped(member.sessionId, call, { deadline, sender: `${this.nodeId}|${sender}`, progress, wanted });
      } catch (err) {
        return { ok: false, error: refusal(err, member.sessionId) };
      }
    };
    if (command.event === "poll:vote" && member.participantId) {
      // Taken here, in Redis (./voteIntake.ts); the owner only while the session has no gate yet.
      const vote = async (): Promise<Ack<unknown>> => {
        // A vote read from a connection its student has given up on would overwrite the later one sent elsewhere.
        if (wanted && !wanted()) return { ok: false, error: protocolError("UNAVAILABLE") };
        let cast: Awaited<ReturnType<typeof castVote>>;
        try {
          cast = await castVote(this.o.client, member, command.payload);
        } catch (err) {
          return { ok: false, error: voteRefusal(err, member.sessionId) };
        }
        return cast === NO_GATE ? route() : cast;
      };
      // Sent to Redis and not answered in time: it may have been taken.
      return this.senders.run(sender, deadline, vote, (started) => ({
        ok: false,
        error: protocolError(started ? "UNCONFIRMED" : "UNAVAILABLE"),
      }));
    }
    return this.senders.run(sender, deadline, route, (started) => ({
      ok: false,
      error: protocolError(started && progress.mayHaveRunOn ? "UNCONFIRMED" : "UNAVAILABLE"),
    }));
  }

  /**
   * A poll's countdown ran out in a room this node owns: it is closed like the
   * teacher's close, through the owner's path, which first folds the votes
   * other nodes took (./voteFold.ts). Tried again while the room stays here and
   * the close neither happened nor became pointless (a second close is refused).
   */
  private closeDue(sessionId: string, pollId: string): void {
    // Routed like any call: a node resuming from a freeze confirms its claim first, or hands the close to the owner.
    const member: Member = { sessionId, role: "host", participantId: null };
    const call: Call = { method: "command", args: [member, { event: "poll:close", payload: { pollId } }] };
    const progress: Progress = { mayHaveRunOn: null };
    const again = () => {
      const room = this.o.rooms.get(sessionId);
      if (room && !room.isEnded) setTimeout(() => this.closeDue(sessionId, pollId), RETRY_PAUSE_MS * 10).unref();
    };
    this.routing
      .routeTyped(sessionId, call, { deadline: Date.now() + this.t.ackBudgetMs, sender: "", progress })
      .then((ack) => {
        if (!ack.ok && !["POLL_CLOSED", "NO_SUCH_POLL", "SESSION_ENDED"].includes(ack.error.code)) again();
      })
      .catch((err: unknown) => {
        log.warn("a poll that is due could not be closed yet", { sessionId, error: toError(err).message });
        again();
      });
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
      return await settleBy(
        deadline,
        this.routing.routeTyped(member.sessionId, call, { deadline, sender: "", progress: { mayHaveRunOn: null } }),
      );
    } catch (err) {
      // A resync changes nothing: whatever happened, nothing was applied.
      if (asUnavailable(err)) throw new UnavailableError("UNAVAILABLE");
      throw err;
    }
  }

  // ---------------------------------------------------------------------------
  // Scale-out's hooks for the rooms and the store (server/app.ts)

  /** A new session: the node that created it owns it from the start. */
  claimNew(sessionId: string): Promise<void> {
    return this.ownership.claimNew(sessionId);
  }

  /** The claim this node may write a session's events under now, or null (not ours, or not sure it still is). */
  fenceOf(sessionId: string): Fence | null {
    return this.ownership.fenceOf(sessionId);
  }

  /** Whether a room here may broadcast: a node that may have lost the session must not show the class stale state. */
  mayPublish(sessionId: string): boolean {
    return this.ownership.fenceOf(sessionId) !== null;
  }

  /** A room loaded here: the class's count across the nodes, so it does not start at zero. */
  presenceOf(sessionId: string): Promise<PresenceFigure> {
    return this.presence.count(sessionId);
  }

  /** Writes of these sessions failed (server/app.ts has dropped their rooms): see SessionOwnership.writesFailed. */
  writesFailed(failures: ReadonlyMap<string, Error>): void {
    this.ownership.writesFailed(failures);
  }

  /** The live owner of a session, claiming it when there is none or the recorded one is gone. */
  ownerOf(sessionId: string): Promise<string> {
    return this.ownership.ownerOf(sessionId);
  }

  private reconcilePresence(): void {
    this.recounts.all();
    void this.ownership.adoptOrphans();
  }
}

/** The refusal a command's sender gets for an error: a documented code for Redis or an owner out of reach, INTERNAL for the rest. */
function refusal(err: unknown, sessionId: string): ReturnType<typeof protocolError> {
  const unavailable = asUnavailable(err);
  if (unavailable) return protocolError(unavailable.code, unavailable.message);
  log.error("command failed", { sessionId, error: toError(err).stack });
  return protocolError("INTERNAL", ERROR_CODES.INTERNAL);
}

/** What a vote's sender is told when Redis did not take it, or may have. */
function voteRefusal(err: unknown, sessionId: string): ReturnType<typeof protocolError> {
  if (err instanceof StoreUnavailableError) return protocolError("UNAVAILABLE");
  if (err instanceof StoreInDoubtError) return protocolError("UNCONFIRMED");
  log.error("a vote could not be taken", { sessionId, error: toError(err).stack });
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
