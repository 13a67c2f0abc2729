import {
  DEFAULT_CLUSTER_ACK_BUDGET_MS,
  DEFAULT_CLUSTER_NODE_TTL_MS,
  SOCKET_PING_INTERVAL_MS,
  SOCKET_PING_TIMEOUT_MS,
} from "../../lib/constants";
import type { FaultRecord, History } from "./history";

/**
 * Which faults could touch what. A command, resync or handshake of session S
 * through node N is *exposed* when its life (from sending it to its budget)
 * overlaps a fault, or the recovery after one, of Redis, of N, or of a node
 * that owned S meanwhile (the nodes' logs say who owned what, when). A fault
 * anywhere else must not touch it: that is what "no session is touched by
 * another's fault" can be checked as.
 */

/**
 * After a node is back (resumed, or restarted and ready), what it held takes
 * this long to settle: a lapsed lease is renewed and its claims confirmed, a
 * taken-over session is loaded by its new owner (the key expires after
 * NODE_TTL), and a command that waited through it is answered within the budget.
 */
export const RECOVERY_MS = DEFAULT_CLUSTER_NODE_TTL_MS + DEFAULT_CLUSTER_ACK_BUDGET_MS + 2_000;
/** A frozen node's sockets are dropped by the client's heartbeat, or by the node's own timers firing late once it resumes. */
const HEARTBEAT_MS = SOCKET_PING_INTERVAL_MS + SOCKET_PING_TIMEOUT_MS;

export class Exposure {
  constructor(private readonly history: History) {}

  private window(f: FaultRecord): [number, number] {
    return [f.start, (f.end ?? Infinity) + RECOVERY_MS];
  }

  /** The nodes that owned `sessionId` at some moment of [from, to]. */
  ownersOf(sessionId: string, from: number, to: number): Set<number> {
    const changes = this.history.owners.filter((c) => c.sessionId === sessionId);
    const owners = new Set<number>();
    let before: number | null = null;
    for (const c of changes) {
      if (c.at <= from) before = c.node;
      else if (c.at <= to) owners.add(c.node);
    }
    if (before !== null) owners.add(before);
    return owners;
  }

  /** The fault that may have touched a call of `sessionId` through `node` alive over [from, to], described; null if none. */
  touchedBy(sessionId: string, node: number, from: number, to: number): string | null {
    const owners = this.ownersOf(sessionId, from - RECOVERY_MS, to);
    for (const f of this.history.faults) {
      const [start, end] = this.window(f);
      if (start > to || end < from) continue;
      if (f.node === null) return `redis ${f.kind}`;
      if (f.node === node) return `${f.kind} of its node ${node}`;
      if (owners.has(f.node)) return `${f.kind} of node ${f.node}, an owner of the session`;
    }
    return null;
  }

  /** Whether a socket on `node` dropping at `at` follows from a fault of that node (Redis outages disconnect nobody). */
  explainsDisconnect(node: number, at: number): boolean {
    return this.history.faults.some((f) => f.node === node && f.start <= at && at <= (f.end ?? Infinity) + HEARTBEAT_MS + RECOVERY_MS);
  }

  /** Whether any fault is in effect (or recovering) at `at`. */
  anyAt(at: number): boolean {
    return this.history.faults.some((f) => {
      const [start, end] = this.window(f);
      return start <= at && at <= end;
    });
  }
}
