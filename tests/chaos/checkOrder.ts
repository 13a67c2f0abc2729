import { COMMANDS } from "../../lib/session/commands";
import { decide } from "../../lib/session/decide";
import type { Actor, Decision, DurableCommand } from "../../lib/session/decision";
import type { SessionEvent, SessionEventBody, SessionState } from "../../lib/session";
import { answerCode, formatOp, rel, type Op } from "./history";

/**
 * Each sender's commands against the session's log: applied in the order
 * sent, or refused, never reordered, never applied twice, never applied
 * after a refusal that said "not applied".
 *
 * Precisely, from docs/protocol.md (*Acknowledgements*): a command answered
 * `ok` was applied (its events are in the log, once) or changed nothing; one
 * answered with any other code but UNCONFIRMED was not applied (UNAVAILABLE:
 * not applied; a rule's refusal: not applied); one answered UNCONFIRMED, or
 * never answered (the client gave up after COMMAND_ACK_TIMEOUT_MS, or was
 * not connected and sent nothing, which is not applied), may have been,
 * and if it was, in order. So the sender's events in the log must be
 * explained by its commands in the order sent: walking the commands in send
 * order, each one either consumes the next of the sender's events (if the
 * rules, `decide`, say it makes exactly those events in the state the log
 * had there) or is skipped (refused, not applied, or a change of nothing).
 * The check searches every such walk (a maybe-applied command may or may not
 * have been), and fails when none explains every one of the sender's events.
 */

/** How a command ended, as far as anyone can know. */
export type Fate = "applied" | "not applied" | "maybe";

export function fateOf(op: Op): Fate {
  if (op.answer) {
    if (op.answer.ack.ok) return "applied";
    return op.answer.ack.error.code === "UNCONFIRMED" || op.answer.ack.error.code === "INTERNAL" ? "maybe" : "not applied";
  }
  // Never sent (not connected), or sent and never answered.
  return op.reported?.local && op.reported.code === "UNAVAILABLE" ? "not applied" : "maybe";
}

/** Keep a copy of the state every this many events (a copy per event of a ten-minute log is hundreds of MB). */
const CHECKPOINT_EVERY = 32;

/** The session's states before each event of its log (and after the last), for `decide` at any point. */
export class LogStates {
  private readonly checkpoints: SessionState[] = [];
  private readonly index = new Map<number, number>();
  private cached: { i: number; state: SessionState } | null = null;

  constructor(
    readonly events: readonly SessionEvent[],
    private readonly fold: (state: SessionState, event: SessionEvent) => SessionState,
    initial: SessionState,
  ) {
    let state = initial;
    events.forEach((e, i) => {
      if (i % CHECKPOINT_EVERY === 0) this.checkpoints.push(state);
      this.index.set(e.seq, i);
      state = fold(state, e);
    });
    if (events.length % CHECKPOINT_EVERY === 0) this.checkpoints.push(state);
  }

  /** The state just before the event at log index i (i = events.length: the final state). Not to be changed. */
  at(i: number): SessionState {
    if (this.cached?.i === i) return this.cached.state;
    const k = Math.floor(i / CHECKPOINT_EVERY);
    let state = this.checkpoints[k];
    for (let x = k * CHECKPOINT_EVERY; x < i; x++) state = this.fold(state, this.events[x]);
    this.cached = { i, state };
    return state;
  }

  /** The state once the event with this seq was applied. */
  afterSeq(seq: number): SessionState | undefined {
    const i = this.index.get(seq);
    return i === undefined ? undefined : this.at(i + 1);
  }

  indexOf(seq: number): number | undefined {
    return this.index.get(seq);
  }
}

const ctx = { now: 0, newId: () => "checker", shuffle: <T>(items: T[]) => items };

function decideAt(state: SessionState, op: Op, actor: Actor): Decision | null {
  const spec = COMMANDS[op.event as keyof typeof COMMANDS];
  if (!spec || op.event === "session:sync" || op.event === "lookback:set" || op.event === "projectors:close") return null;
  const parsed = spec.schema.safeParse(op.payload);
  if (!parsed.success) return null;
  // The payload as the edge hands it to the rules.
  const command = { event: op.event, payload: parsed.data ?? {} } as DurableCommand;
  return decide(state, command, actor, ctx);
}

/** Whether a logged event is the one `expected` describes (fields the server stamps or draws are left out). */
function sameEvent(expected: SessionEventBody, actual: SessionEvent): boolean {
  if (expected.type !== actual.type) return false;
  switch (expected.type) {
    case "poll:opened": {
      const a = actual as Extract<SessionEvent, { type: "poll:opened" }>;
      return expected.poll.kind === a.poll.kind && (expected.poll.kind === "next-step" || expected.poll.question === a.poll.question);
    }
    case "poll:closed":
      return expected.pollId === (actual as Extract<SessionEvent, { type: "poll:closed" }>).pollId;
    default: {
      const { seq: _seq, at: _at, ...rest } = actual;
      return JSON.stringify(rest) === JSON.stringify(expected);
    }
  }
}

/** How the checker sees the run around a sender: its clock's start, and when each command's connection closed. */
export interface OrderView {
  t0: number;
  connClosedAt(op: Op): number | undefined;
}

export interface OrderResult {
  ok: boolean;
  /** What went wrong, with the commands and events around it. */
  problem?: string;
}

/**
 * `ops`: one sender's commands in the order sent; `mine`: the log indexes of
 * the sender's events, in log order.
 */
export function checkSenderOrder(
  ops: readonly Op[],
  mine: readonly number[],
  states: LogStates,
  actor: Actor,
  view: OrderView,
): OrderResult {
  const result = walk(ops, mine, states, actor, view, fateOf);
  if (result.ok) return result;
  // Name the culprit when one command refused as not applied explains the log once taken as applied.
  const refused = ops.filter((op) => op.answer && fateOf(op) === "not applied").slice(0, MAX_RELAXED);
  for (const suspect of refused) {
    if (walk(ops, mine, states, actor, view, (op) => (op === suspect ? "maybe" : fateOf(op))).ok)
      return {
        ok: false,
        problem: `answered ${answerCode(suspect.answer!.ack)} (not applied), yet the log holds what it did:\n${formatOp(suspect, view.t0)}`,
      };
  }
  return result;
}

/** At most this many refused commands are tried one by one as applied, to name a culprit. */
const MAX_RELAXED = 200;

function walk(
  ops: readonly Op[],
  mine: readonly number[],
  states: LogStates,
  actor: Actor,
  view: OrderView,
  fateOf: (op: Op) => Fate,
): OrderResult {
  const { t0 } = view;
  const events = states.events;
  const m = mine.length;
  let reach = new Set<number>([0]);
  const durable = ops.filter((op) => decideAt(states.at(0), op, actor) !== null);
  for (const op of durable) {
    const fate = fateOf(op);
    const next = new Set<number>();
    const why: string[] = [];
    for (const j of reach) {
      const here = j < m ? mine[j] : events.length;
      const dec = decideAt(states.at(here), op, actor);
      if (!dec) continue;
      // Skipped: not applied, or maybe not, or applied and changing nothing where it ran.
      if (fate !== "applied") next.add(j);
      else if (noOp(op, dec, j, mine, states, actor)) next.add(j);
      else why.push(`before ${j < m ? `event seq ${events[mine[j]].seq}` : "the end of the log"} the rules say ${describe(dec)}`);
      // Consumed: it made the next events of this sender.
      if (fate === "not applied" || !dec.ok || dec.events.length === 0) continue;
      const k = dec.events.length;
      if (j + k > m) continue;
      const matches = dec.events.every((e, x) => mine[j + x] === mine[j] + x && sameEvent(e, events[mine[j + x]]));
      if (matches && receiptFits(op, events[mine[j]])) next.add(j + k);
    }
    if (next.size === 0) {
      const j = Math.min(...reach);
      const nextEvent = j < m ? `#${events[mine[j]].seq} ${JSON.stringify(events[mine[j]])}` : "none";
      return {
        ok: false,
        problem:
          `acknowledged ok but not in the log where it could be: ${why.join("; ")}; this sender's next event in the log is ${nextEvent}` +
          `${suspects(durable.slice(0, durable.indexOf(op)), j, mine, states, actor, view)}\n${formatOp(op, t0)}`,
      };
    }
    reach = next;
  }
  if (reach.has(m)) return { ok: true };
  const furthest = Math.max(...reach);
  const e = events[mine[furthest]];
  return {
    ok: false,
    problem:
      `event #${e.seq} ${JSON.stringify(e)} is in the log but no command of this sender explains it in the order sent (applied twice, ` +
      `out of order, or after a refusal)${suspects(durable, furthest, mine, states, actor, view)}`,
  };
}

/**
 * The commands that would have made the sender's event j and were not answered `ok`: the likely culprits, named,
 * with what became of them (refused as not applied, or given up with its connection before the event was written).
 */
function suspects(ops: readonly Op[], j: number, mine: readonly number[], states: LogStates, actor: Actor, view: OrderView): string {
  if (j >= mine.length) return "";
  const event = states.events[mine[j]];
  const found = ops.filter((op) => {
    if (fateOf(op) === "applied") return false;
    const dec = decideAt(states.at(mine[j]), op, actor);
    return !!dec?.ok && dec.events.length > 0 && sameEvent(dec.events[0], event);
  });
  if (found.length === 0) return "";
  const why = (op: Op) => {
    if (fateOf(op) === "not applied") return "answered as not applied";
    const closed = view.connClosedAt(op);
    // A command its client gave up on, on a connection that was gone, written after the sender's later commands.
    if (closed !== undefined && closed < event.at)
      return `its connection was gone at ${rel(closed, view.t0)}; #${event.seq} was written at ${rel(event.at, view.t0)}, after commands sent later`;
    return "may have applied, but only in order";
  };
  return `; it is what these commands would have made:\n${found.map((op) => `${formatOp(op, view.t0)} [${why(op)}]`).join("\n")}`;
}

/** An applied command that changed nothing: the rules say so where it ran. */
function noOp(op: Op, dec: Decision, j: number, mine: readonly number[], states: LogStates, actor: Actor): boolean {
  if (op.event === "poll:vote") {
    // A student's vote in force changes only by their own votes here: between their previous vote event and their
    // next one it is the previous one's. Its receipt's rev is at most where it ran (docs/protocol.md: in a cluster,
    // a lower bound), so not past their next event.
    if (j === 0) return false;
    const rev = (op.answer?.ack.ok ? (op.answer.ack.data as { rev?: number } | null)?.rev : undefined) ?? 0;
    const next = j < mine.length ? states.events[mine[j]].seq : Infinity;
    const state = states.at(mine[j - 1] + 1);
    return state.polls[op.payload.pollId as string]?.votes[actor.participantId ?? ""] === op.payload.optionId && rev < next;
  }
  if (dec.ok && dec.events.length === 0) return true;
  // Teacher commands: their fields change only by the teacher's own events, so the state after the previous one will do.
  const after = j > 0 ? decideAt(states.at(mine[j - 1] + 1), op, actor) : null;
  return !!after && after.ok && after.events.length === 0;
}

/** An answer that says where its event is must say the truth: a poll's id, a vote's position in the log. */
function receiptFits(op: Op, event: SessionEvent): boolean {
  const ack = op.answer?.ack;
  if (!ack?.ok || ack.data === null || typeof ack.data !== "object") return true;
  if (op.event === "poll:open" && event.type === "poll:opened") return event.poll.id === (ack.data as { pollId: string }).pollId;
  // A vote's rev is where it is in force, exactly on one node, a lower bound in a cluster (folded by the owner later).
  if (op.event === "poll:vote") return event.seq >= (ack.data as { rev: number }).rev;
  return true;
}

function describe(dec: Decision): string {
  if (!dec.ok) return `refuse it (${dec.error.code})`;
  return dec.events.length === 0 ? "it changes nothing" : `it makes ${dec.events.map((e) => e.type).join(", ")}`;
}
