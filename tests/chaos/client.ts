import { io as connect } from "socket.io-client";
import { COMMAND_ACK_TIMEOUT_MS, RECONNECT_DELAY_MAX_MS, RECONNECT_DELAY_MS } from "../../lib/constants";
import { PROTOCOL_VERSION, type Ack, type AnySnapshot, type MyVote, type Patch, type ProtocolError } from "../../lib/protocol";
import { PatchFollower, Replica, myVoteOf, snapshotOf } from "../../lib/protocol/replica";
import type { ClientSocket } from "../support/testClient";
import { answerCode, type Conn, type History, type Op } from "./history";
import type { Rng } from "./rng";

/**
 * A screen of the chaos run: a real socket.io client speaking the documented
 * protocol as the bundled browser client does (lib/protocol/replica.ts's one
 * rule for patches, one resync per gap, a command refused UNAVAILABLE when
 * not connected and reported UNCONFIRMED after COMMAND_ACK_TIMEOUT_MS). When
 * its connection drops it comes back through another node, with its token,
 * as a browser behind a load balancer would. Everything it sends and
 * receives that the checker needs goes into the history.
 */

export type Role = "host" | "projector" | "student";

export interface ClientOptions {
  name: string;
  cls: number;
  role: Role;
  code: string;
  hostKey?: string;
  /** The nodes a load balancer may send it to; `first` for its first connection. */
  nodes: readonly number[];
  first: number;
  /** Whether a node is up (not killed): the balancer sends new connections elsewhere. */
  reachable: (node: number) => boolean;
  url: (node: number) => string;
  history: History;
  rng: Rng;
}

/** A handshake that neither succeeds nor is refused within this is given up, and tried on another node. */
const HANDSHAKE_GIVE_UP_MS = COMMAND_ACK_TIMEOUT_MS;

export class ChaosClient {
  readonly replica = new Replica();
  private readonly follower: PatchFollower;
  private socket: ClientSocket | null = null;
  private current: Conn | null = null;
  private connNo = 0;
  /** false once the script let it go (a student who left): no reconnects. */
  private wanted = false;
  private retry: NodeJS.Timeout | null = null;
  token: string | undefined;
  participantId: string | undefined;
  /** Commands sent and not yet reported. */
  inFlight = 0;
  /** Set once a welcome arrived after the last (re)connect. */
  private welcomed: (() => void) | null = null;

  constructor(readonly o: ClientOptions) {
    this.follower = new PatchFollower(this.replica, (request, answered) => {
      void this.send("session:sync", request as Record<string, unknown>).then((op) => {
        const ack = op.answer && op.reported && !op.reported.local ? op.answer.ack : null;
        answered(ack?.ok ? { ok: true } : { ok: false, retryAfterMs: ack && !ack.ok ? ack.error.retryAfterMs : undefined });
      });
    });
  }

  get name(): string {
    return this.o.name;
  }

  get connected(): boolean {
    return this.socket?.connected === true && this.current?.welcomeAt !== undefined;
  }

  get node(): number {
    return this.current?.node ?? -1;
  }

  snapshot(): AnySnapshot | null {
    return snapshotOf(this.replica);
  }

  myVote(): MyVote | null {
    return myVoteOf(this.replica);
  }

  /** Connects (and keeps reconnecting) until it leaves; resolves at the first welcome. */
  join(): Promise<void> {
    this.wanted = true;
    const welcomed = new Promise<void>((resolve) => (this.welcomed = resolve));
    this.open(this.o.first);
    return welcomed;
  }

  /** The student closes the tab: the socket goes, and nothing reconnects it until `join` again. */
  leave(): void {
    this.wanted = false;
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    this.close("left", true);
  }

  private close(reason: string, byClient: boolean): void {
    const socket = this.socket;
    const conn = this.current;
    this.socket = null;
    if (conn && !conn.closed) conn.closed = { at: Date.now(), reason, byClient };
    if (socket) {
      socket.removeAllListeners();
      socket.disconnect();
    }
  }

  private reconnectSoon(): void {
    if (!this.wanted || this.retry) return;
    const delay = this.o.rng.int(RECONNECT_DELAY_MS, Math.min(RECONNECT_DELAY_MAX_MS, RECONNECT_DELAY_MS * 4));
    this.retry = setTimeout(() => {
      this.retry = null;
      if (!this.wanted) return;
      const up = this.o.nodes.filter((n) => this.o.reachable(n));
      this.open(this.o.rng.pick(up.length ? up : this.o.nodes));
    }, delay);
  }

  private open(node: number): void {
    const conn: Conn = { client: this.o.name, cls: this.o.cls, conn: ++this.connNo, node, openedAt: Date.now() };
    this.o.history.conns.push(conn);
    this.current = conn;
    const socket: ClientSocket = connect(this.o.url(node), {
      transports: ["websocket"],
      reconnection: false,
      forceNew: true,
      timeout: HANDSHAKE_GIVE_UP_MS,
      auth: {
        v: PROTOCOL_VERSION,
        role: this.o.role,
        code: this.o.code,
        ...(this.o.hostKey && this.o.role !== "student" ? { hostKey: this.o.hostKey } : {}),
        ...(this.token ? { token: this.token } : {}),
      },
    });
    this.socket = socket;
    // A frozen node accepts the TCP connection and then says nothing: give up and try elsewhere.
    const giveUp = setTimeout(() => {
      if (this.socket !== socket || conn.welcomeAt || conn.refused) return;
      conn.refused = { at: Date.now(), code: "timeout" };
      this.close("handshake timeout", true);
      this.reconnectSoon();
    }, HANDSHAKE_GIVE_UP_MS);
    socket.on("connect_error", (err: Error & { data?: ProtocolError }) => {
      clearTimeout(giveUp);
      if (this.socket !== socket) return;
      conn.refused = { at: Date.now(), code: err.data?.code ?? `transport: ${err.message}` };
      // A refusal, not a disconnect: the handshake's own check judges it.
      this.close("refused", true);
      this.reconnectSoon();
    });
    socket.on("session:welcome", (w) => {
      clearTimeout(giveUp);
      conn.welcomeAt = Date.now();
      if (w.token) this.token = w.token;
      if (w.participantId) this.participantId = w.participantId;
      this.welcomed?.();
      this.welcomed = null;
    });
    socket.on("session:patch", (patch) => this.receive(patch, conn));
    socket.on("disconnect", (reason) => {
      clearTimeout(giveUp);
      if (this.socket !== socket) return;
      this.close(reason, false);
      this.reconnectSoon();
    });
  }

  /** Applies a patch by the one rule, noting gaps and new room instances (the checker asks whether a fault explains them). */
  private receive(patch: Patch, conn: Conn): void {
    const before = this.replica.held()[patch.stream]?.instance;
    const outcome = this.follower.receive(patch);
    const note = (kind: "gap" | "instance", detail: string) =>
      this.o.history.notes.push({ client: this.o.name, cls: this.o.cls, conn: conn.conn, node: conn.node, at: Date.now(), kind, detail });
    if (outcome === "gap") note("gap", `${patch.stream} ${patch.instance} from ${patch.from} to ${patch.to}`);
    const after = this.replica.held()[patch.stream]?.instance;
    if (before !== undefined && after !== before) note("instance", `${patch.stream} ${before} -> ${after}`);
    this.replica.takeChanges();
  }

  /** Sends a command as the bundled client does, recording it and whatever answer comes, however late. */
  send(event: string, payload: Record<string, unknown>): Promise<Op> {
    const conn = this.current;
    const op = this.o.history.newOp({
      client: this.o.name,
      cls: this.o.cls,
      conn: conn?.conn ?? 0,
      node: conn?.node ?? -1,
      event,
      payload,
      sentAt: Date.now(),
    });
    const socket = this.socket;
    if (!socket || !this.connected) {
      // Nothing was sent, so nothing was applied.
      op.reported = { at: op.sentAt, code: "UNAVAILABLE", local: true };
      return Promise.resolve(op);
    }
    this.inFlight += 1;
    return new Promise((resolve) => {
      const report = (code: string, local: boolean) => {
        if (op.reported) return;
        op.reported = { at: Date.now(), code, local };
        this.inFlight -= 1;
        resolve(op);
      };
      const timer = setTimeout(() => report("UNCONFIRMED", true), COMMAND_ACK_TIMEOUT_MS);
      // socket.io's typed emit cannot follow a generic event name.
      (socket.emit as (e: string, p: unknown, cb: (r: Ack<unknown>) => void) => void)(event, payload, (ack) => {
        op.answer = { at: Date.now(), ack };
        // A vote that counted is this tab's vote, even when its answer came too late for the one who waited.
        if (event === "poll:vote" && ack.ok) this.replica.putOwn("me", "vote", ack.data);
        clearTimeout(timer);
        report(answerCode(ack), false);
      });
    });
  }

  /** Waits until nothing it sent is unanswered (or reported by its own timeout). */
  async drained(timeoutMs: number): Promise<boolean> {
    const until = Date.now() + timeoutMs;
    while (this.inFlight > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    return this.inFlight === 0;
  }

  /** Gone for good (end of run). */
  stop(): void {
    this.leave();
  }
}
