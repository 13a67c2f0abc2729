import { COMMAND_ACK_TIMEOUT_MS } from "../../lib/constants";
import { initialState, reduce, type SessionEvent } from "../../lib/session";
import { checkSenderOrder, fateOf, LogStates, type Fate } from "./checkOrder";
import { checkVotes } from "./checkVotes";
import { Exposure } from "./exposure";
import { answerCode, formatOp, rel, type CheckedClient, type History, type Op } from "./history";

/**
 * The invariants a chaos run must keep, checked after it from the history
 * and each session's saved log (docs/protocol.md, *Acknowledgements*,
 * *Durability*, *Several processes*):
 *
 * - log: every session's log is contiguous (seq 1, 2, 3, …), starts with its
 *   own creation, and holds nobody from another session;
 * - joined once: every student that was welcomed joined the log exactly
 *   once, however often it reconnected;
 * - order: each sender's commands are applied in the order sent or refused
 *   (./checkOrder.ts), which also makes every acknowledged event be in the
 *   log exactly once;
 * - votes: every vote receipt names its place in the log truly, every
 *   poll's final counts equal the votes in force, and each student's vote in
 *   force is the last one acknowledged or a later one that may have applied
 *   (./checkVotes.ts);
 * - budget: a command, resync or handshake whose socket's node kept running
 *   is answered by the server within CLUSTER_ACK_BUDGET_MS (plus the slack a
 *   loaded machine needs), never INTERNAL; one whose node was killed or
 *   frozen is reported failed by the client within COMMAND_ACK_TIMEOUT_MS;
 * - isolation: a command, resync or handshake no fault could touch
 *   (./exposure.ts) is answered without UNAVAILABLE or UNCONFIRMED; a socket
 *   is dropped only by a fault of its own node (a Redis outage disconnects
 *   nobody); a screen meets a gap or a new room instance only when a fault
 *   of Redis, its node or its session's owner explains it;
 * - no crash: no node exits unless the schedule killed or stopped it.
 */

export interface CheckInput {
  history: History;
  /** Each class's saved log, by class index. */
  logs: SessionEvent[][];
  clients: CheckedClient[];
  budgetMs: number;
  /** What a loaded machine adds to the budget: the loopback round trip and event-loop lag. */
  slackMs: number;
  crashes: string[];
  t0: number;
  /** What the end of the run found (./settle.ts): screens that did not converge, commands that failed after the heal. */
  problems: string[];
}

export interface Violation {
  invariant: string;
  message: string;
}

export interface CheckReport {
  violations: Violation[];
  stats: Record<string, number>;
}

/** A screen may meet a gap while it is still joining its audiences (docs/protocol.md, *Projections and patches*). */
const JOINING_MS = 2_000;

export function check(input: CheckInput): CheckReport {
  const { history, t0 } = input;
  const violations: Violation[] = [];
  const fail = (invariant: string, message: string) => violations.push({ invariant, message });
  const stats: Record<string, number> = {};
  const count = (key: string, n = 1) => (stats[key] = (stats[key] ?? 0) + n);
  const exposure = new Exposure(history);
  const view = { t0, connClosedAt: (op: Op) => history.conns.find((c) => c.client === op.client && c.conn === op.conn)?.closed?.at };

  for (const crash of input.crashes) fail("no crash", crash);
  for (const problem of input.problems) fail("convergence", problem);

  input.logs.forEach((events, cls) => {
    const session = history.sessions[cls];
    count("events", events.length);
    const seqs = events.map((e) => e.seq);
    const firstBad = seqs.findIndex((s, i) => s !== i + 1);
    if (firstBad >= 0) fail("log", `class ${cls}: the log is not contiguous at index ${firstBad}: seq ${seqs[firstBad]}`);
    const created = events[0];
    if (created?.type !== "session:created" || created.id !== session.id)
      fail("log", `class ${cls}: the log does not start with its creation`);
    const joined = new Map<string, number>();
    for (const e of events) if (e.type === "participant:joined") joined.set(e.participantId, (joined.get(e.participantId) ?? 0) + 1);
    for (const e of events) {
      if (e.type === "poll:voted" && !joined.has(e.participantId))
        fail("log", `class ${cls}: vote #${e.seq} by ${e.participantId}, who never joined this session`);
    }
    const students = input.clients.filter((c) => c.cls === cls && c.role === "student" && c.participantId);
    for (const s of students) {
      const n = joined.get(s.participantId!) ?? 0;
      if (n !== 1) fail("joined once", `class ${cls}: ${s.name} (${s.participantId}) joined the log ${n} times`);
    }
    count("ghost joins (a join whose handshake failed, joined again as new: allowed)", joined.size - students.length);

    const states = new LogStates(events, reduce, initialState());
    const opsOf = (name: string) => history.ops.filter((o) => o.client === name);
    // The teacher's events: all but the students' (joins, votes) and the countdowns' closes.
    const teacher = input.clients.find((c) => c.cls === cls && c.role === "host")!;
    const teacherOps = opsOf(teacher.name);
    const timed = new Map<string, number>();
    for (const e of events) if (e.type === "poll:opened" && e.closesAt !== null) timed.set(e.poll.id, e.closesAt);
    const closedByTeacher = new Set(
      teacherOps.filter((o) => o.event === "poll:close" && fateOf(o) === "applied").map((o) => o.payload.pollId as string),
    );
    // A close the teacher was told may or may not have been applied (UNCONFIRMED, or no answer).
    const maybeClosedByTeacher = new Set(
      teacherOps.filter((o) => o.event === "poll:close" && fateOf(o) === "maybe").map((o) => o.payload.pollId as string),
    );
    const teacherEvents: number[] = [];
    events.forEach((e, i) => {
      if (e.type === "session:created" || e.type === "participant:joined" || e.type === "poll:voted") return;
      if (e.type === "poll:closed" && timed.has(e.pollId) && !closedByTeacher.has(e.pollId)) {
        // At or after its time: the countdown's, or the teacher's unconfirmed close; either is in order.
        if (e.at >= timed.get(e.pollId)!) return;
        // Before its time only the teacher's unconfirmed close can have made it: checked in the teacher's order below.
        if (!maybeClosedByTeacher.has(e.pollId)) {
          fail("order", `class ${cls}: poll ${e.pollId} closed at #${e.seq} before its countdown ended`);
          return;
        }
      }
      teacherEvents.push(i);
    });
    const order = checkSenderOrder(teacherOps, teacherEvents, states, { participantId: null }, view);
    if (!order.ok) fail("order", `class ${cls} ${teacher.name}: ${order.problem}`);
    for (const s of students) {
      const mine: number[] = [];
      events.forEach((e, i) => e.type === "poll:voted" && e.participantId === s.participantId && mine.push(i));
      const result = checkSenderOrder(opsOf(s.name), mine, states, { participantId: s.participantId! }, view);
      if (!result.ok) fail("order", `class ${cls} ${s.name}: ${result.problem}`);
    }
    for (const v of checkVotes(cls, states, students, opsOf, t0)) fail("votes", v);
  });

  // Budgets and isolation, op by op.
  const limit = input.budgetMs + input.slackMs;
  const nodeFaulted = (node: number, from: number, to: number) =>
    history.faults.some((f) => f.node === node && f.start <= to && (f.end ?? Infinity) >= from);
  for (const op of history.ops) {
    const fate: Fate = fateOf(op);
    count(`ops ${fate}`);
    if (!op.reported) {
      fail("budget", `never answered nor reported by the client:\n${formatOp(op, t0)}`);
      continue;
    }
    if (op.reported.local && op.reported.code === "UNAVAILABLE") {
      count("ops not sent (not connected)");
      continue;
    }
    const sessionId = history.sessions[op.cls].id;
    const lifeEnd = Math.min(op.answer?.at ?? Infinity, op.sentAt + limit);
    if (nodeFaulted(op.node, op.sentAt, lifeEnd)) {
      count("ops whose node was killed or frozen");
      if (op.reported.at - op.sentAt > COMMAND_ACK_TIMEOUT_MS + 250)
        fail("budget", `its node failed and the client did not report it within ${COMMAND_ACK_TIMEOUT_MS} ms:\n${formatOp(op, t0)}`);
      continue;
    }
    const latency = op.answer ? op.answer.at - op.sentAt : Infinity;
    const closed = history.conns.find((c) => c.client === op.client && c.conn === op.conn)?.closed;
    if (closed && closed.at < Math.min(op.answer?.at ?? Infinity, op.sentAt + limit)) {
      // Its connection closed first (the student left; a drop is judged by the disconnect check): no answer could come.
      count("ops cut off by their connection closing");
      continue;
    }
    stats["max latency, node up (ms)"] = Math.max(stats["max latency, node up (ms)"] ?? 0, Number.isFinite(latency) ? latency : 0);
    if (latency > limit) {
      fail(
        "budget",
        `not answered within ${input.budgetMs} ms (+${input.slackMs} slack) though its node kept running:\n${formatOp(op, t0)}`,
      );
      continue;
    }
    const code = answerCode(op.answer!.ack);
    if (code === "INTERNAL") fail("budget", `answered INTERNAL:\n${formatOp(op, t0)}`);
    const touched = exposure.touchedBy(sessionId, op.node, op.sentAt, op.sentAt + limit);
    count(touched ? "ops exposed to a fault" : "ops no fault could touch");
    if (!touched && (code === "UNAVAILABLE" || code === "UNCONFIRMED"))
      fail("isolation", `answered ${code} though no fault of Redis, its node or its session's owner was under way:\n${formatOp(op, t0)}`);
  }

  for (const conn of history.conns) {
    const sessionId = history.sessions[conn.cls].id;
    const who = `${conn.client} conn ${conn.conn}@node ${conn.node} opened ${rel(conn.openedAt, t0)}`;
    const answeredAt = conn.welcomeAt ?? (conn.refused && !/^(timeout|transport)/.test(conn.refused.code) ? conn.refused.at : undefined);
    const lifeEnd = Math.min(answeredAt ?? Infinity, conn.openedAt + limit);
    count("handshakes");
    const cutOff = conn.closed?.byClient && conn.closed.at < lifeEnd;
    if (cutOff) count("handshakes given up by their client (a student who left)");
    else if (!nodeFaulted(conn.node, conn.openedAt, lifeEnd)) {
      if (answeredAt === undefined || answeredAt - conn.openedAt > limit)
        fail("budget", `${who}: handshake not answered within the budget (${conn.refused?.code ?? "no answer"})`);
      else if (!conn.welcomeAt && !exposure.touchedBy(sessionId, conn.node, conn.openedAt, conn.openedAt + limit))
        fail("isolation", `${who}: refused ${conn.refused?.code} though no fault could touch it`);
    }
    if (conn.closed && !conn.closed.byClient) {
      count("disconnects by the server or network");
      if (!exposure.explainsDisconnect(conn.node, conn.closed.at))
        fail(
          "isolation",
          `${who}: disconnected (${conn.closed.reason}) at ${rel(conn.closed.at, t0)} with no fault of its node to explain it`,
        );
    }
  }

  // A room instance is first seen on the stream that changes first; a quiet stream (a student's own, `me`) shows
  // the same reload only at its next patch, maybe long after. A reload is judged where the class first saw it.
  const firstSeen = new Map<string, number>();
  for (const note of history.notes) {
    const to = note.kind === "instance" ? note.detail.split(" -> ")[1] : undefined;
    if (to === undefined) continue;
    const key = `${note.cls} ${to}`;
    firstSeen.set(key, Math.min(firstSeen.get(key) ?? Infinity, note.at));
  }
  for (const note of history.notes) {
    count(`screen notes: ${note.kind}`);
    const conn = history.conns.find((c) => c.client === note.client && c.conn === note.conn);
    if (conn?.welcomeAt !== undefined && note.at - conn.welcomeAt < JOINING_MS) continue;
    const to = note.kind === "instance" ? note.detail.split(" -> ")[1] : undefined;
    const at = to === undefined ? note.at : (firstSeen.get(`${note.cls} ${to}`) ?? note.at);
    if (!exposure.touchedBy(history.sessions[note.cls].id, note.node, at, note.at))
      fail(
        "isolation",
        `${note.client} conn ${note.conn}@node ${note.node} at ${rel(note.at, t0)}: ${note.kind} (${note.detail}) with no fault to explain it`,
      );
  }
  return { violations, stats };
}

/** The report's text: every invariant's first violations (and how many more), then the figures. */
export function formatReport(report: CheckReport, perInvariant = 5): string {
  const lines: string[] = [];
  const byInvariant = new Map<string, Violation[]>();
  for (const v of report.violations) byInvariant.set(v.invariant, [...(byInvariant.get(v.invariant) ?? []), v]);
  for (const [invariant, list] of byInvariant) {
    lines.push(`✗ ${invariant}: ${list.length} violation(s)`);
    for (const v of list.slice(0, perInvariant)) lines.push(`  - ${v.message.replace(/\n/g, "\n    ")}`);
    if (list.length > perInvariant) lines.push(`  … and ${list.length - perInvariant} more`);
  }
  for (const [k, v] of Object.entries(report.stats).sort()) lines.push(`  ${k}: ${v}`);
  return lines.join("\n");
}
