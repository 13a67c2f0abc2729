import { log } from "../logger";
import { redisCommand, type RedisClient } from "../store/redis";
import { errorMessage } from "../../lib/errors";
import { heartbeatEveryMs } from "./timing";

/**
 * This node's lease: it holds its sessions while its heartbeat key lives in
 * Redis, and renews that key every third of NODE_TTL. The lease is counted on
 * this node's own monotonic clock from when a renewal was sent, and ends a
 * margin before the key could expire, so the node stops writing before any
 * other node may take its sessions over (server/scaleout/ownership.ts).
 */

/** A node's heartbeat key: while it lives, no other node takes this node's sessions. */
export const nodeKey = (id: string) => `cls:node:${id}`;

export interface NodeLeaseOptions {
  nodeId: string;
  /** A connection for the heartbeat alone (see ClusterOptions.leaseClient). */
  client: RedisClient;
  nodeTtlMs: number;
  /** The lease ran out: another node may own this node's sessions by now. */
  onLapse: () => void;
  /** A renewal got through after a lapse: this node's sessions can be confirmed again. */
  onRegained: () => void;
}

export class NodeLease {
  /** performance.now() until which this node's heartbeat key surely lives (no one can take its sessions). */
  private until = 0;
  private lapsed = false;
  private renewing: Promise<void> | null = null;
  private stopped = false;

  constructor(private readonly o: NodeLeaseOptions) {}

  get heartbeatMs(): number {
    return heartbeatEveryMs(this.o.nodeTtlMs);
  }
  /** The lease ends this much before the key could expire (clock rates, a slow round trip). */
  private get marginMs(): number {
    return Math.max(100, Math.floor(this.o.nodeTtlMs / 6));
  }

  valid(): boolean {
    return performance.now() < this.until;
  }

  /** Renews this node's key; the lease runs from when the renewal was sent. One renewal at a time. */
  renew(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.renewing ??= (async () => {
      const sentAt = performance.now();
      try {
        await redisCommand(this.o.client, ["SET", nodeKey(this.o.nodeId), String(Date.now()), "PX", this.o.nodeTtlMs]);
        this.until = Math.max(this.until, sentAt + this.o.nodeTtlMs - this.marginMs);
        if (this.lapsed) {
          this.lapsed = false;
          log.info("reached Redis again; confirming this node's sessions");
          this.o.onRegained();
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
   * Notices a lease that ran out (Redis unreachable, or this process was
   * frozen), tells the claims (onLapse), and tries to renew at once. Called
   * often: a node resuming after a freeze must notice before its timers write.
   */
  watch(): void {
    if (this.lapsed || this.stopped || this.valid()) return;
    this.lapsed = true;
    this.o.onLapse();
    void this.renew();
  }

  /** Stops renewing and ends the lease now: nothing is written under it from here on. */
  end(): void {
    this.stopped = true;
    this.until = 0;
  }

  /** Deletes the heartbeat key: others may take this node's sessions at once instead of waiting for it to expire. */
  async release(): Promise<void> {
    await redisCommand(this.o.client, ["DEL", nodeKey(this.o.nodeId)]).catch(() => undefined);
  }
}
