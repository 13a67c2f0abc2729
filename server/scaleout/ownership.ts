import { UnavailableError } from "../rooms/gateway";
import { log } from "../logger";
import type { RoomRegistry } from "../rooms/registry";
import { asString, epochKey, ownerKey, redisCommand, type Fence, type RedisClient } from "../store/redis";
import { LostOwnershipError, StoreError } from "../store/types";
import { errorMessage } from "../../lib/errors";
import { countOwnershipClaim } from "../ops/metrics";
import { nodeKey, type NodeLease } from "./lease";
import type { PresenceBoard } from "./presenceBoard";
import { OWNER_CACHE_MS, RETRY_PAUSE_MS, pause } from "./timing";

/**
 * Which node owns each session, and the claims this node holds with their
 * fences.
 *
 * Another node takes a session over only once its owner's heartbeat key has
 * expired (server/scaleout/lease.ts), and each claim bumps the session's claim
 * count. Every event is written under the owner and claim count its writer
 * holds (fenceOf), and Redis refuses it once either has moved on, so a node
 * that was frozen, cut off or slow writes nothing after a takeover. A claim
 * made or kept while the lease lapsed is unverified: nothing of its session is
 * written or broadcast until Redis confirms it again.
 */

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

/** Not run here: this node does not own the session (or no longer does). */
export class NotOwner extends Error {}

/** A claim this node holds on a session: the claim count it was made under, and whether Redis confirmed it since the last lapse. */
interface Claim {
  epoch: number;
  verified: boolean;
}

export interface SessionOwnershipOptions {
  nodeId: string;
  /** For commands; fails at once while Redis is unreachable. */
  client: RedisClient;
  lease: NodeLease;
  rooms: RoomRegistry;
  presence: PresenceBoard;
}

export class SessionOwnership {
  private readonly claims = new Map<string, Claim>();
  private readonly ownerCache = new Map<string, { owner: string; at: number }>();
  private checkingClaims = false;

  constructor(private readonly o: SessionOwnershipOptions) {}

  /** The node that created a session owns it from the start. */
  async claimNew(sessionId: string): Promise<void> {
    const epoch = Number(await this.cmd(["EVAL", CLAIM, 2, ownerKey(sessionId), epochKey(sessionId), "", this.o.nodeId]));
    if (!epoch) throw new StoreError(`session ${sessionId} already had an owner`);
    countOwnershipClaim(false);
    this.claims.set(sessionId, { epoch, verified: true });
  }

  /** The claim this node may write a session's events under now, or null (not ours, or not sure it still is). */
  fenceOf(sessionId: string): Fence | null {
    const claim = this.claims.get(sessionId);
    return claim?.verified && this.o.lease.valid() ? { node: this.o.nodeId, epoch: claim.epoch } : null;
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
  refused(sessionId: string, err: LostOwnershipError): void {
    if (err.certain) return this.lose(sessionId, "a write was refused: another node took the session over");
    const claim = this.claims.get(sessionId);
    if (claim) claim.verified = false;
  }

  /** The live owner of a session, claiming it when there is none or the recorded one is gone. */
  async ownerOf(sessionId: string): Promise<string> {
    if (this.claims.get(sessionId)?.verified) return this.o.nodeId;
    const cached = this.ownerCache.get(sessionId);
    if (cached && Date.now() - cached.at < OWNER_CACHE_MS) return cached.owner;
    const owner = await this.resolveOwner(sessionId);
    if (owner !== this.o.nodeId) this.ownerCache.set(sessionId, { owner, at: Date.now() });
    return owner;
  }

  /** What this node learned about another node owning a session is stale (it said "not owner", or went silent). */
  forgetCachedOwner(sessionId: string): void {
    this.ownerCache.delete(sessionId);
  }

  private async resolveOwner(sessionId: string): Promise<string> {
    const { nodeId, lease, rooms } = this.o;
    for (let i = 0; i < 5; i++) {
      const [current, epoch] = asPair(await this.cmd(["MGET", ownerKey(sessionId), epochKey(sessionId)]));
      const claim = this.claims.get(sessionId);
      if (current === nodeId && claim && Number(epoch) === claim.epoch) return nodeId;
      if (current && current !== nodeId) {
        if (claim) this.lose(sessionId, "another node owns it");
        if ((await this.cmd(["EXISTS", nodeKey(current)])) === 1) return current;
      }
      // No owner, a gone one, or this node under a claim it no longer holds: claim it. The claim count moves on,
      // so anything written under an older claim (by a node that was frozen, say) is refused from now on.
      const claimed = Number(await this.cmd(["EVAL", CLAIM, 2, ownerKey(sessionId), epochKey(sessionId), current ?? "", nodeId]));
      if (claimed > 0) {
        countOwnershipClaim(current !== null && current !== nodeId);
        if (current && current !== nodeId) log.info("took over a session from a node that is gone", { sessionId, from: current });
        // Any copy in memory may be stale: rebuild from the log on first use.
        const stale = rooms.get(sessionId);
        if (stale) rooms.drop(stale);
        this.claims.set(sessionId, { epoch: claimed, verified: lease.valid() });
        return nodeId;
      }
    }
    throw new UnavailableError("UNAVAILABLE", "The class's server is changing hands. Try again.");
  }

  /** Before running anything as the owner: the lease holds and Redis still names this node under our claim. */
  async confirm(sessionId: string, deadline: number): Promise<void> {
    const { lease } = this.o;
    // Just after an outage each Redis connection comes back on its own schedule: keep trying to renew until the
    // call's deadline rather than refusing the first command that arrives before the heartbeat's connection does.
    while (!lease.valid()) {
      await lease.renew();
      if (lease.valid()) break;
      if (Date.now() + RETRY_PAUSE_MS >= deadline) {
        throw new UnavailableError("UNAVAILABLE", "The class's server cannot reach Redis. Try again in a moment.");
      }
      await pause(RETRY_PAUSE_MS, deadline);
    }
    const claim = this.claims.get(sessionId);
    if (!claim) throw new NotOwner();
    if (claim.verified) return;
    const [owner, epoch] = asPair(await this.cmd(["MGET", ownerKey(sessionId), epochKey(sessionId)]));
    if (owner !== this.o.nodeId || Number(epoch) !== claim.epoch || !lease.valid()) {
      this.lose(sessionId, "another node took it over");
      throw new NotOwner();
    }
    claim.verified = true;
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
  leaseLapsed(): void {
    if (this.claims.size)
      log.warn("this node's ownership lease ran out; its sessions write and broadcast nothing until Redis confirms them", {
        sessions: this.claims.size,
      });
    for (const claim of this.claims.values()) claim.verified = false;
  }

  /**
   * Checks every claim against Redis (one round trip): a session another node
   * took over is forgotten, and the room of one still ours comes back if it
   * was dropped (a write that failed while Redis was away, a lapse), so an
   * open poll's countdown keeps running.
   */
  async checkClaims(): Promise<void> {
    const { nodeId, lease, rooms } = this.o;
    if (this.checkingClaims || !lease.valid() || this.claims.size === 0) return;
    this.checkingClaims = true;
    try {
      const ids = [...this.claims.keys()];
      const replies = await this.cmd(["MGET", ...ids.map(ownerKey), ...ids.map(epochKey)]);
      if (!Array.isArray(replies)) return;
      const confirmed: string[] = [];
      ids.forEach((id, i) => {
        const claim = this.claims.get(id);
        if (!claim) return;
        if (replies[i] === nodeId && Number(replies[ids.length + i]) === claim.epoch) {
          if (lease.valid() && !claim.verified) confirmed.push(id);
          if (lease.valid()) claim.verified = true;
        } else this.lose(id, "another node took it over");
      });
      // The class's screens may have missed broadcasts while the claim was unconfirmed (they were held back) or
      // Redis was away (socket.io's adapter drops what it could not send): one snapshot per audience brings every
      // screen to the log's state.
      for (const id of confirmed) rooms.get(id)?.publish();
      for (const [id, claim] of this.claims) {
        if (!claim.verified || rooms.get(id)) continue;
        const room = await rooms.load(id).catch(() => undefined);
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

  /**
   * Sessions with sockets here whose owner is gone: take them over, so their
   * timers run (an open poll's countdown) even if nobody sends a command. A
   * session never owned (nobody needed it yet) or owned by a live node is left alone.
   */
  async adoptOrphans(): Promise<void> {
    const { nodeId, lease, presence } = this.o;
    const ids = presence.localSessions().filter((id) => !this.claims.has(id));
    if (ids.length === 0 || !lease.valid()) return;
    try {
      const reply = await this.cmd(["MGET", ...ids.map(ownerKey)]);
      if (!Array.isArray(reply)) return;
      const owners = reply.map((o: unknown) => (typeof o === "string" ? o : null));
      const others = [...new Set(owners.filter((o): o is string => o !== null && o !== nodeId))];
      if (others.length === 0) return;
      const alive = await this.cmd(["MGET", ...others.map(nodeKey)]);
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

  /** Forget a session this node no longer owns, and its room. */
  private lose(sessionId: string, reason: string): void {
    this.claims.delete(sessionId);
    this.ownerCache.delete(sessionId);
    this.o.presence.forget(sessionId);
    const room = this.o.rooms.get(sessionId);
    if (room) {
      log.warn("no longer the owner of a session; dropping its room", { sessionId, reason });
      this.o.rooms.drop(room);
    }
  }

  private cmd(args: (string | number)[]): Promise<unknown> {
    return redisCommand(this.o.client, args);
  }
}

/** MGET of two keys. */
function asPair(reply: unknown): [string | null, string | null] {
  if (!Array.isArray(reply) || reply.length !== 2) throw new StoreError("redis answered MGET with something other than two values");
  return [asString(reply[0]), asString(reply[1])];
}
