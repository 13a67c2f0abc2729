/**
 * The scale-out's timings: what a deployment sets (ClusterTimings), what is
 * fixed, and the bounded pause every retry loop takes. The lease, the routing
 * and the gateway read them from here so one change moves them together.
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
export const OWNER_CACHE_MS = 1000;
/** How long an owner remembers answers by request id (well past a caller's retries). */
export const ANSWER_MEMORY_MS = 30_000;
/** Between two tries to reach a session's owner, or Redis. */
export const RETRY_PAUSE_MS = 100;
/** How often the lease is looked at: a node resuming after a freeze must notice before its timers write. */
export const LEASE_WATCH_MS = 100;
/** How often the claims this node holds are checked against Redis, and their rooms reloaded if dropped. */
export const CLAIM_CHECK_MS = 1000;
/** How often the owner recounts who is connected even when no node says anything changed. */
export const PRESENCE_RECONCILE_MS = 2000;
/** A burst of "presence changed" notices becomes one recount. */
export const RECOUNT_DELAY_MS = 100;

/** How often a node renews its heartbeat key: three times per NODE_TTL. */
export function heartbeatEveryMs(nodeTtlMs: number): number {
  return Math.max(50, Math.floor(nodeTtlMs / 3));
}

/** One try to reach an owner; a silent owner is looked up again after this. */
export function attemptMs(nodeTtlMs: number): number {
  return Math.min(1000, heartbeatEveryMs(nodeTtlMs));
}

/** Waits `ms`, or until the deadline (ms since the epoch) if that comes first. */
export function pause(ms: number, deadline: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.min(ms, deadline - Date.now()))));
}
