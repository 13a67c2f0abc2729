import type { Ack } from "../../lib/protocol";

/**
 * What a chaos run did and saw, with times (ms since the epoch, one clock:
 * the runner's). The checker reads nothing else but the sessions' saved logs.
 */

/** A command (or `session:sync`) as one client sent it, and what came back. */
export interface Op {
  id: number;
  /** The client's name: "c1 teacher", "c2 student 3", … */
  client: string;
  /** The class (0-based) the client belongs to. */
  cls: number;
  /** Which of the client's connections carried it (1, 2, … as it reconnects). */
  conn: number;
  /** The node that held the socket. */
  node: number;
  event: string;
  payload: Record<string, unknown>;
  sentAt: number;
  /** The server's answer, whenever it came (after the client gave up too: a frozen node answers once resumed). */
  answer?: { at: number; ack: Ack<unknown> };
  /**
   * What the client reported to its screen, as the bundled client does: the
   * server's answer, or on its own UNAVAILABLE at once when it was not
   * connected (nothing sent) and UNCONFIRMED after COMMAND_ACK_TIMEOUT_MS.
   */
  reported?: { at: number; code: string; local: boolean };
}

/** One socket connection: its handshake and how it ended. */
export interface Conn {
  client: string;
  cls: number;
  conn: number;
  node: number;
  openedAt: number;
  /** session:welcome arrived. */
  welcomeAt?: number;
  /** connect_error: when, with which code ("timeout" when nothing came back and the client gave up). */
  refused?: { at: number; code: string };
  closed?: { at: number; reason: string; byClient: boolean };
}

/** Something a screen noticed in its patches: a gap (it asked for a resync) or a new room instance. */
export interface ScreenNote {
  client: string;
  cls: number;
  conn: number;
  node: number;
  at: number;
  kind: "gap" | "instance";
  detail: string;
}

/** A fault as it happened: from the signal to the target being back (resumed, or restarted and answering). */
export interface FaultRecord {
  kind: string;
  /** The app node; null for Redis. */
  node: number | null;
  start: number;
  /** Resumed, or started again and ready; undefined while it lasts. */
  end?: number;
  note?: string;
}

/** A client as the checker knows it: whose commands are whose. */
export interface CheckedClient {
  name: string;
  cls: number;
  role: "host" | "projector" | "student";
  participantId: string | undefined;
}

/** Who owned a session from when (read from the nodes' logs: created, or taken over). */
export interface OwnerChange {
  sessionId: string;
  node: number;
  at: number;
  how: "created" | "took over";
}

export class History {
  readonly ops: Op[] = [];
  readonly conns: Conn[] = [];
  readonly notes: ScreenNote[] = [];
  readonly faults: FaultRecord[] = [];
  owners: OwnerChange[] = [];
  /** Session ids by class. */
  sessions: { id: string; code: string; sheltered: boolean }[] = [];
  private nextOp = 1;

  constructor(readonly seed: number) {}

  newOp(fields: Omit<Op, "id">): Op {
    const op: Op = { id: this.nextOp++, ...fields };
    this.ops.push(op);
    return op;
  }

  /** Every op of `client` whose life overlaps [from, to]: the excerpt a failure report prints. */
  excerpt(client: string, from: number, to: number, t0: number): string {
    return this.ops
      .filter((o) => o.client === client && o.sentAt <= to && (o.reported?.at ?? o.answer?.at ?? Infinity) >= from)
      .map((o) => formatOp(o, t0))
      .join("\n");
  }

  toJSON(): object {
    const { seed, sessions, faults, owners, conns, notes, ops } = this;
    return { seed, sessions, faults, owners, conns, notes, ops };
  }

  /** A history saved with `toJSON` (a failed run keeps one, to check again: `npm run chaos -- --recheck=DIR`). */
  static fromJSON(saved: ReturnType<History["toJSON"]>): History {
    const h = saved as History;
    const history = new History(h.seed);
    history.sessions = h.sessions;
    history.owners = h.owners;
    history.ops.push(...h.ops);
    history.conns.push(...h.conns);
    history.notes.push(...h.notes);
    history.faults.push(...h.faults);
    return history;
  }
}

export function answerCode(ack: Ack<unknown>): string {
  return ack.ok ? "ok" : ack.error.code;
}

/** `+12.345 s` from the start of the run. */
export function rel(at: number | undefined, t0: number): string {
  return at === undefined ? "never" : `+${((at - t0) / 1000).toFixed(3)} s`;
}

export function formatOp(o: Op, t0: number): string {
  const answer = o.answer ? `${answerCode(o.answer.ack)} at ${rel(o.answer.at, t0)} (${o.answer.at - o.sentAt} ms)` : "no answer";
  const reported = o.reported?.local ? `, client reported ${o.reported.code} at ${rel(o.reported.at, t0)}` : "";
  const data = o.answer?.ack.ok && o.answer.ack.data !== null ? ` ${JSON.stringify(o.answer.ack.data)}` : "";
  return `  #${o.id} ${rel(o.sentAt, t0)} ${o.client} conn ${o.conn}@node ${o.node}: ${o.event} ${JSON.stringify(o.payload)} -> ${answer}${data}${reported}`;
}
