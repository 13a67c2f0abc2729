import type { IncomingMessage, Server as HttpServer } from "node:http";
import type { Socket as NetSocket } from "node:net";
import { HTTP_HEADERS_TIMEOUT_MS, HTTP_REQUEST_TIMEOUT_MS } from "../../lib/constants";
import { log } from "../logger";
import { addressOf } from "./rateLimit";
import { countRateLimited } from "../ops/metrics";

export interface ConnectionLimits {
  /** Connections one address may hold open (WebSockets and HTTP keep-alive). */
  maxOpenPerAddress: number;
  /** Of those, connections that have not finished a handshake. */
  maxPendingPerAddress: number;
}

interface Tracked {
  key: string;
  pending: boolean;
  /** Closes the connection (a TCP socket directly on the network, an engine.io connection behind a proxy). */
  close: () => void;
}

/**
 * Per-address caps on held connections, so that one address cannot use up
 * the server's file descriptors (20,000 held connections from two addresses
 * once stopped every new student and page).
 *
 * A connection is "pending" until its client has spoken: an HTTP request
 * whose headers arrived, or a WebSocket that has sent its CONNECT.
 * Slow headers are cut by `headersTimeout`, WebSockets that never join by
 * socket.io's `connectTimeout`, so pending connections also expire.
 *
 * When an address is at its pending cap, a new connection does not wait for
 * one of them to expire: the address's oldest pending connection is closed to
 * make room. A class behind one NAT address shares the cap, and one student's
 * script holding 500 silent connections (each cut after 10 s, reopened at
 * once) kept every page load and reconnect of the class out; a real
 * handshake finishes in milliseconds, so the oldest pending one is the one
 * that is stalling.
 *
 * Directly on the network, connections are counted per TCP peer from the
 * first byte. Behind a trusted proxy every TCP peer is the proxy, so only
 * WebSockets are counted, per forwarded address, from the upgrade request
 * (the proxy guards its own connections).
 */
export class ConnectionGuard {
  private readonly open = new Map<string, number>();
  /** Each address's pending connections, oldest first (their count is the set's size). */
  private readonly pending = new Map<string, Set<object>>();
  private readonly tracked = new WeakMap<object, Tracked>();
  /** Refusals since start, for logs and tests. */
  refused = 0;
  /** Pending connections closed to make room for a newer one from the same address. */
  evicted = 0;

  constructor(
    private readonly limits: ConnectionLimits,
    private readonly trustProxy: boolean,
  ) {}

  /** Timeouts for slow clients, and (directly on the network) counting from the first byte. */
  attach(httpServer: HttpServer): void {
    httpServer.headersTimeout = HTTP_HEADERS_TIMEOUT_MS;
    httpServer.requestTimeout = HTTP_REQUEST_TIMEOUT_MS;
    // Node checks the two timeouts above on this interval (default 30 s, which would let slow clients linger).
    (httpServer as HttpServer & { connectionsCheckingInterval?: number }).connectionsCheckingInterval = 1_000;
    if (this.trustProxy) return;
    httpServer.on("connection", (socket: NetSocket) => {
      const key = socket.remoteAddress ?? "unknown";
      if (!this.admit(key)) {
        socket.destroy();
        return;
      }
      this.track(socket, key, () => socket.destroy());
      socket.once("close", () => this.release(socket));
    });
    // A complete request has finished its handshake (the upgrade to a WebSocket has not: it waits for its join).
    httpServer.on("request", (req: IncomingMessage) => this.settle(req.socket));
  }

  /**
   * The WebSocket handshake (engine.io's allowRequest). Directly on the
   * network the TCP connection was already counted; behind a proxy this is
   * where the forwarded address is first known.
   */
  admitUpgrade(req: IncomingMessage): boolean {
    if (!this.trustProxy) return true;
    return this.admit(addressOf(req.socket.remoteAddress, req.headers["x-forwarded-for"], true));
  }

  /** engine.io opened a connection for a request that passed `admitUpgrade`. */
  opened(conn: { request: IncomingMessage; once(event: "close", fn: () => void): unknown; close(): unknown }): void {
    if (!this.trustProxy) return;
    const req = conn.request;
    this.track(conn, addressOf(req.socket.remoteAddress, req.headers["x-forwarded-for"], true), () => conn.close());
    conn.once("close", () => this.release(conn));
  }

  /**
   * The WebSocket has sent its CONNECT: the client has spoken, and the
   * handshake is now the server's to finish (in milliseconds) or to refuse,
   * closing the connection. It is no longer pending, so a script churning
   * silent connections from the same address (each new one closing the
   * oldest pending) cannot close a student whose join is being looked up.
   * It still counts against the address's open connections.
   */
  connecting(conn: { request: { socket: object } }): void {
    this.settle(this.trustProxy ? conn : conn.request.socket);
  }

  /** Open connections and pending handshakes of one address (for tests and diagnostics). */
  countsFor(key: string): { open: number; pending: number } {
    return { open: this.open.get(key) ?? 0, pending: this.pendingCount(key) };
  }

  private admit(key: string): boolean {
    if (this.pendingCount(key) >= this.limits.maxPendingPerAddress && (this.open.get(key) ?? 0) < this.limits.maxOpenPerAddress) {
      this.evictOldestPending(key);
    }
    const open = this.open.get(key) ?? 0;
    const pending = this.pendingCount(key);
    if (open < this.limits.maxOpenPerAddress && pending < this.limits.maxPendingPerAddress) return true;
    this.refused += 1;
    countRateLimited("connection");
    // One line per hundred refusals: a flood must not become a flood of log lines.
    if (this.refused % 100 === 1) {
      log.warn("connection refused: per-address cap", { open, pending, refusedSoFar: this.refused, ...this.limits });
    }
    return false;
  }

  private track(target: object, key: string, close: () => void): void {
    this.tracked.set(target, { key, pending: true, close });
    bump(this.open, key, 1);
    let pending = this.pending.get(key);
    if (!pending) this.pending.set(key, (pending = new Set()));
    pending.add(target);
  }

  private settle(target: object | null | undefined): void {
    if (!target) return;
    const t = this.tracked.get(target);
    if (!t || !t.pending) return;
    t.pending = false;
    this.unpend(t.key, target);
  }

  private release(target: object): void {
    const t = this.tracked.get(target);
    if (!t) return;
    this.tracked.delete(target);
    if (t.pending) this.unpend(t.key, target);
    bump(this.open, t.key, -1);
  }

  /** Closes an address's longest-pending connection and stops counting it (its close event comes later). */
  private evictOldestPending(key: string): void {
    const oldest = this.pending.get(key)?.values().next().value;
    if (!oldest) return;
    const t = this.tracked.get(oldest);
    this.release(oldest);
    this.evicted += 1;
    // One line per hundred: the address is being flooded with connections that never speak.
    if (this.evicted % 100 === 1)
      log.warn("closed a silent pending connection to let a newer one in: per-address cap", { evictedSoFar: this.evicted, ...this.limits });
    t?.close();
  }

  private pendingCount(key: string): number {
    return this.pending.get(key)?.size ?? 0;
  }

  private unpend(key: string, target: object): void {
    const pending = this.pending.get(key);
    if (!pending) return;
    pending.delete(target);
    if (pending.size === 0) this.pending.delete(key);
  }
}

function bump(map: Map<string, number>, key: string, by: number): void {
  const n = (map.get(key) ?? 0) + by;
  if (n <= 0) map.delete(key);
  else map.set(key, n);
}
