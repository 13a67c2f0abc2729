import type { Rng } from "./rng";

/**
 * The faults a run puts the fleet through, drawn from the seed before
 * anything starts: which process, what happens to it, when, for how long.
 * The same seed draws the same schedule on every machine.
 */

export const FAULT_KINDS = ["kill", "pause", "restart", "redis-kill", "redis-pause"] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface Fault {
  /** When it starts, in ms from the start of the run's chaos phase. */
  at: number;
  kind: FaultKind;
  /** The app node it hits; null for Redis. */
  node: number | null;
  /**
   * kill: how long the node stays dead before it is started again; pause: how
   * long it stays stopped (SIGSTOP to SIGCONT); restart: 0 (SIGTERM, then
   * started again at once); redis-kill, redis-pause: the same for Redis.
   */
  durationMs: number;
}

export interface ScheduleOptions {
  /** Nodes 0..faultableNodes-1 may be hit; the nodes above are never touched (the sheltered classes live there). */
  faultableNodes: number;
  /** Fixed size: exactly this many faults, every kind at least once. */
  faults?: number;
  /** Or: faults until this many ms have been filled. */
  durationMs?: number;
}

/** Roughly how long a node takes to come back once started (tsx compiles the server; two shared cores). */
const NODE_START_ESTIMATE_MS = 12_000;
/** At most this many faults at once: a lasting majority of dead nodes tests only the load balancer. */
const MAX_CONCURRENT = 2;
/** Quiet time between two fault starts. */
const GAP_MS = [3_000, 10_000] as const;

function duration(kind: FaultKind, rng: Rng): number {
  switch (kind) {
    case "kill":
      return rng.int(500, 10_000);
    case "pause":
      // Now and then longer than the clients' heartbeat (10 s ping + 10 s timeout): they give up on the node and
      // reconnect elsewhere while its buffers still hold their commands.
      return rng.chance(0.25) ? rng.int(20_000, 28_000) : rng.int(1_000, 12_000);
    case "restart":
      return 0;
    case "redis-kill":
      return rng.int(1_000, 8_000);
    case "redis-pause":
      return rng.int(1_000, 8_000);
  }
}

/** How long the target is busy after the fault starts (its process back and ready), as planned. */
function busyFor(f: Fault): number {
  if (f.kind === "kill" || f.kind === "restart") return f.durationMs + NODE_START_ESTIMATE_MS;
  if (f.kind === "redis-kill") return f.durationMs + 1_000;
  return f.durationMs;
}

export function drawSchedule(rng: Rng, o: ScheduleOptions): Fault[] {
  if (!o.faults && !o.durationMs) throw new Error("a schedule needs a number of faults or a duration");
  // A fixed-size schedule has every kind at least once, in an order the seed picks.
  const kinds: FaultKind[] = [];
  if (o.faults) {
    const base = [...FAULT_KINDS];
    while (base.length) kinds.push(base.splice(rng.int(0, base.length - 1), 1)[0]);
    while (kinds.length < o.faults) kinds.push(rng.pick(FAULT_KINDS));
    kinds.length = o.faults;
  }
  const busyUntil = new Map<number | null, number>();
  const planned: Fault[] = [];
  let t = rng.int(GAP_MS[0], GAP_MS[1]);
  for (let k = 0; o.faults ? k < o.faults : t < o.durationMs!; k++) {
    const kind = o.faults ? kinds[k] : rng.pick(FAULT_KINDS);
    const redis = kind.startsWith("redis");
    // Wait for a free target, and for a free slot under the concurrency limit.
    for (;;) {
      const active = planned.filter((f) => f.at + busyFor(f) > t);
      const free = redis
        ? (busyUntil.get(null) ?? 0) <= t
          ? [null]
          : []
        : [...Array(o.faultableNodes).keys()].filter((n) => (busyUntil.get(n) ?? 0) <= t);
      if (active.length < MAX_CONCURRENT && free.length > 0) {
        const node = redis ? null : rng.pick(free as number[]);
        const fault: Fault = { at: t, kind, node, durationMs: duration(kind, rng) };
        planned.push(fault);
        busyUntil.set(node, t + busyFor(fault));
        break;
      }
      const ends = [...active.map((f) => f.at + busyFor(f)), ...busyUntil.values()].filter((e) => e > t);
      t = Math.min(...ends);
    }
    t += rng.int(GAP_MS[0], GAP_MS[1]);
  }
  return planned;
}

/** One line per fault, for the run's header and a failure's report. */
export function describeSchedule(faults: readonly Fault[]): string {
  return faults
    .map((f) => {
      const target = f.node === null ? "redis" : `node ${f.node}`;
      const what = f.kind === "restart" ? "graceful restart" : `${f.kind.replace("redis-", "")} ${(f.durationMs / 1000).toFixed(1)} s`;
      return `  +${(f.at / 1000).toFixed(1)} s  ${target}: ${what}`;
    })
    .join("\n");
}

/** When the last fault's target is planned to be back, in ms from the start of the chaos phase. */
export function scheduleEnd(faults: readonly Fault[]): number {
  return Math.max(0, ...faults.map((f) => f.at + busyFor(f)));
}
