import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import { ROLES, isCommandName, isErrorCode, type Ack, type Role } from "../../lib/protocol";

/**
 * What an operator graphs, in the Prometheus text format (`GET /metrics`,
 * behind METRICS_TOKEN). One registry per process, like the process it
 * describes: the hot paths call the small functions below (one line each),
 * and what is already counted elsewhere (sockets, rooms) is read when
 * Prometheus scrapes. Recording is always on and costs a map lookup; only
 * the endpoint is off by default. docs: README "Operations".
 */
export const registry = new Registry();

/** Something that holds sockets and rooms: one classroom server (a test process may run several). */
export interface MetricsSource {
  /** Sockets connected to this process, by role. */
  socketsByRole(): Partial<Record<Role, number>>;
  /** Live sessions whose room this process holds. */
  liveSessions(): number;
}

const sources = new Set<MetricsSource>();

/** Counts this source's sockets and rooms at every scrape; the returned function stops that. */
export function addMetricsSource(source: MetricsSource): () => void {
  sources.add(source);
  return () => void sources.delete(source);
}

let processMetrics = false;
/** Event-loop delay, heap, RSS, CPU and file descriptors (prom-client's defaults); started once, when /metrics is enabled. */
export function enableProcessMetrics(): void {
  if (processMetrics) return;
  processMetrics = true;
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 10 });
}

new Gauge({
  name: "classroom_sockets_connected",
  help: "Sockets joined to a session on this process, by role.",
  labelNames: ["role"],
  registers: [registry],
  collect() {
    for (const role of ROLES) {
      let n = 0;
      for (const source of sources) n += source.socketsByRole()[role] ?? 0;
      this.set({ role }, n);
    }
  },
});

new Gauge({
  name: "classroom_live_sessions",
  help: "Live sessions whose room this process holds (in scale-out mode, the sessions it owns).",
  registers: [registry],
  collect() {
    let n = 0;
    for (const source of sources) n += source.liveSessions();
    this.set(n);
  },
});

// ---------------------------------------------------------------------------
/** Seconds, for anything that waits on a disk or a network round trip: 0.5 ms to 2.5 s. */
const ROUND_TRIP_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

// The store: every batch of writes (both stores share the queue)

const eventsAppended = new Counter({
  name: "classroom_events_appended_total",
  help: "Durable events written to the session log, by event type.",
  labelNames: ["type"],
  registers: [registry],
});
const votes = new Counter({
  name: "classroom_votes_total",
  help: "Votes written to the log (poll:voted events); rate() gives votes per second.",
  registers: [registry],
});
const writeSeconds = new Histogram({
  name: "classroom_store_write_seconds",
  help: "Time to make one batch of queued writes durable (one SQLite transaction, or one Redis pipeline).",
  labelNames: ["store"],
  buckets: ROUND_TRIP_BUCKETS,
  registers: [registry],
});
const batchSize = new Histogram({
  name: "classroom_store_batch_size",
  help: "Writes (events, tokens, peaks) in one batch: everything queued in one turn of the event loop.",
  labelNames: ["store"],
  buckets: [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500],
  registers: [registry],
});
const writeFailures = new Counter({
  name: "classroom_store_write_failures_total",
  help: "Batches, or sessions within a batch, whose writes the store refused.",
  labelNames: ["store"],
  registers: [registry],
});

export type StoreKind = "sqlite" | "redis";

/**
 * A queued write as this module sees it (the store's QueuedWrite, matched by shape): the store calls these
 * functions, so importing its types back would make a circle between the two.
 */
interface ObservedWrite {
  sessionId: string;
  event?: { type: string };
}
/** The store's BatchOutcome: nothing when all is durable, else the sessions refused. */
type ObservedOutcome = void | ReadonlyMap<string, Error>;

/** Counts the events of a write that did not go through the queue (a session's first event). */
export function countEvent(type: string): void {
  eventsAppended.inc({ type });
}

/** Runs one batch write and records its time, size and the events that became durable. */
export function observeBatch(
  store: StoreKind,
  batch: readonly ObservedWrite[],
  write: () => Promise<ObservedOutcome> | ObservedOutcome,
): Promise<ObservedOutcome> | ObservedOutcome {
  const end = writeSeconds.startTimer({ store });
  batchSize.observe({ store }, batch.length);
  const done = (outcome: ObservedOutcome): ObservedOutcome => {
    end();
    if (outcome && outcome.size > 0) writeFailures.inc({ store });
    // Counted per type, once per batch (a vote burst writes thousands in one).
    const byType = new Map<string, number>();
    for (const w of batch) {
      if (!w.event || outcome?.has(w.sessionId)) continue;
      byType.set(w.event.type, (byType.get(w.event.type) ?? 0) + 1);
    }
    for (const [type, n] of byType) eventsAppended.inc({ type }, n);
    const voted = byType.get("poll:voted");
    if (voted) votes.inc(voted);
    return outcome;
  };
  const failed = (err: unknown): never => {
    end();
    writeFailures.inc({ store });
    throw err;
  };
  let result: Promise<ObservedOutcome> | ObservedOutcome;
  try {
    result = write();
  } catch (err) {
    return failed(err);
  }
  return result instanceof Promise ? result.then(done, failed) : done(result);
}

// ---------------------------------------------------------------------------
// The socket edge

const commands = new Counter({
  name: "classroom_commands_total",
  help: "Socket commands answered, by command and outcome (ok, or refused).",
  labelNames: ["command", "outcome"],
  registers: [registry],
});
const refusals = new Counter({
  name: "classroom_commands_refused_total",
  help: "Socket commands refused, by command and error code.",
  labelNames: ["command", "code"],
  registers: [registry],
});
const joinRefusals = new Counter({
  name: "classroom_joins_refused_total",
  help: "Socket handshakes (joins) refused, by error code.",
  labelNames: ["code"],
  registers: [registry],
});
const rateLimits = new Counter({
  name: "classroom_rate_limited_total",
  help: "Requests refused by a rate limit or cap: vote, command, resync, join, frame (per-connection and per-address frame budgets), connection (per-address caps), http (429).",
  labelNames: ["scope"],
  registers: [registry],
});
const abusiveCloses = new Counter({
  name: "classroom_connections_closed_for_abuse_total",
  help: "Connections the frame guard closed (binary frames, a second CONNECT, flooding, refusals in a row).",
  registers: [registry],
});

export type RateLimitScope = "vote" | "command" | "resync" | "join" | "frame" | "connection" | "http";

export function countRateLimited(scope: RateLimitScope): void {
  rateLimits.inc({ scope });
}

export function countAbusiveClose(): void {
  abusiveCloses.inc();
}

/** A command's acknowledgement (`event` as received: only known command names become labels). */
export function observeCommand(event: unknown, ack: Ack<unknown>): void {
  // A frame refused unread (the frame guard) carries a Symbol, not a name; the guard counted its rate limit.
  const command = typeof event !== "string" ? "unread" : isCommandName(event) || event === "session:sync" ? event : "unknown";
  if (ack.ok) return void commands.inc({ command, outcome: "ok" });
  commands.inc({ command, outcome: "refused" });
  const code = isErrorCode(ack.error.code) ? ack.error.code : "INTERNAL";
  refusals.inc({ command, code });
  if (code === "RATE_LIMITED" && command !== "unread") {
    rateLimits.inc({ scope: command === "poll:vote" ? "vote" : command === "session:sync" ? "resync" : "command" });
  }
}

/** A refused handshake; the socket edge's refusals carry their error code as the message. */
export function observeJoinRefused(error: Error): void {
  const code = isErrorCode(error.message) ? error.message : "INTERNAL";
  joinRefusals.inc({ code });
  if (code === "RATE_LIMITED") rateLimits.inc({ scope: "join" });
}

const broadcastSeconds = new Histogram({
  name: "classroom_broadcast_seconds",
  help: "Time to encode one message and hand it to every local socket of its audience, by message. With Redis this is the publish call; delivery follows the adapter's XADD.",
  labelNames: ["message"],
  buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5],
  registers: [registry],
});

/**
 * The same outbox, each message timed (its fan-out to the sockets is synchronous in socket.io's local adapter).
 * Every function of the outbox is wrapped, so a message added to RoomOutbox is timed without a change here.
 */
export function timedOutbox<O extends object>(outbox: O): O {
  const timed: Record<string, unknown> = {};
  for (const [message, send] of Object.entries(outbox) as [string, unknown][]) {
    timed[message] =
      typeof send !== "function"
        ? send
        : (...args: unknown[]) => {
            const end = broadcastSeconds.startTimer({ message });
            try {
              Reflect.apply(send, outbox, args);
            } finally {
              end();
            }
          };
  }
  // The same keys, each function with its own signature (only wrapped): the outbox's type still holds.
  // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion
  return timed as O;
}

// ---------------------------------------------------------------------------
// Scale-out (Redis)

const redisPing = new Histogram({
  name: "classroom_redis_roundtrip_seconds",
  help: "Round trip of a PING to Redis, timed every few seconds by each scale-out node.",
  buckets: ROUND_TRIP_BUCKETS,
  registers: [registry],
});
const redisPingFailures = new Counter({
  name: "classroom_redis_ping_failures_total",
  help: "PINGs to Redis that failed or did not answer within the readiness timeout.",
  registers: [registry],
});
const forwardSeconds = new Histogram({
  name: "classroom_cluster_forward_seconds",
  help: "Round trip of a call forwarded to the session's owner node over Redis pub/sub.",
  buckets: ROUND_TRIP_BUCKETS,
  registers: [registry],
});
const claims = new Counter({
  name: "classroom_cluster_ownership_claims_total",
  help: "Sessions this node took ownership of: from no owner (first use), or taken over from a node that is gone.",
  labelNames: ["from"],
  registers: [registry],
});

export function observeRedisPing(seconds: number | null): void {
  if (seconds === null) redisPingFailures.inc();
  else redisPing.observe(seconds);
}

/** A session claimed by this node; `takeover` when a node that is gone held it. */
export function countOwnershipClaim(takeover: boolean): void {
  claims.inc({ from: takeover ? "gone_node" : "none" });
}

/** Times a forwarded call (resolves with the same answer). */
export function timeForward<T>(call: Promise<T>): Promise<T> {
  const end = forwardSeconds.startTimer();
  return call.finally(() => void end());
}
