/**
 * What one address, and one session, may cost the server, on top of each
 * socket's own limits (RATE_LIMITS and FRAME_LIMITS in lib/constants.ts).
 * Per-socket limits alone let one address stall every other room: 300
 * sockets from one address, each resyncing at its own limit in a room of 300
 * long questions (a 150 KB whole patch each time), took another room's step
 * fan-out from 2.7 ms to 712 ms (issue 28). docs/security.md explains each
 * budget and gives the figures.
 *
 * Kept here, beside the protocol the budgets shape, until they join the other limits in lib/constants.ts.
 *
 * Byte budgets are spent after the work, by what was sent, so a bucket may
 * run into debt; while it is in debt, requests are refused before any work
 * is done (a refused request costs a lookup, not a projection and an encode).
 */
export const ADDRESS_BUDGETS = {
  /** `session:sync` per address, every socket together (a lecture hall behind one NAT address resyncing at once fits). */
  resyncs: { capacity: 1_000, refillPerSecond: 50 },
  /** Bytes resent to an address's resyncs (a whole class list can be 150 KB; what changed since a recent clock, a few hundred bytes). */
  resyncBytes: { capacity: 4 * 1024 * 1024, refillPerSecond: 1024 * 1024 },
  /** Bytes resent to one session's resyncs, every address together. */
  sessionResyncBytes: { capacity: 8 * 1024 * 1024, refillPerSecond: 2 * 1024 * 1024 },
  /** Handshakes looked up per address (reconnects included): a lecture hall reconnecting after a restart fits in the burst. */
  joins: { capacity: 2_000, refillPerSecond: 50 },
  /** Bytes of whole projections sent to an address's joining sockets. */
  joinBytes: { capacity: 32 * 1024 * 1024, refillPerSecond: 2 * 1024 * 1024 },
  /** A connection paused over its frame budget resumes after FRAME_LIMITS.pauseMs plus up to this much more, at random. */
  resumeJitterMs: 500,
  /** An address's paused connections resume at least this far apart, never all at once. */
  resumeSpacingMs: 5,
} as const;

export type AddressBudgets = {
  readonly [K in keyof typeof ADDRESS_BUDGETS]: (typeof ADDRESS_BUDGETS)[K] extends number
    ? number
    : { capacity: number; refillPerSecond: number };
};

/** A resync refused for a budget is answered RESYNC_LIMITED with a `retryAfterMs` of at least this. */
export const MIN_RESYNC_RETRY_MS = 250;
