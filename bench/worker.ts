import { io, type ManagerOptions, type Socket, type SocketOptions } from "socket.io-client";
import { PROTOCOL_VERSION, type Patch } from "../lib/protocol";
import { now, type DriverCommand, type WorkerEvent } from "./messages";
import { classSession, isClassTally, type PublicSession } from "./patch";

/**
 * A client worker: forked by bench/run.ts with an IPC channel. It holds its
 * share of the simulated students (socket.io-client over WebSocket), records
 * receipt times with the same clock as the driver, votes on command, and
 * reports back with process.send. Every wait is bounded by a timer.
 */

if (!process.send) {
  console.error("bench/worker.ts is started by bench/run.ts (it needs an IPC channel)");
  process.exit(2);
}

function send(event: WorkerEvent): void {
  process.send!(event);
}

interface Student {
  socket: Socket;
  globalIndex: number;
  joined: boolean;
  tallies: number;
  stepAt: number;
  finalAt: number;
  finalTotal: number;
}

const students: Student[] = [];
const disconnects: Record<string, number> = {};

// --- step fan-out state
let step: { seq: number; stepIndex: number; received: number; of: number; timer: NodeJS.Timeout } | null = null;
// --- vote burst state
let countingTallies = false;
let final: { pollId: string; expected: number; upTo: number; received: number; of: number; timer: NodeJS.Timeout } | null = null;

function joinedStudents(): Student[] {
  return students.filter((s) => s.joined && s.socket.connected);
}

/**
 * A session record from the class's stream (bench/patch.ts): the first is the
 * join (the whole patch), later ones a step or the poll. Returns the receipt
 * time of the first (its join), else 0.
 */
function onSession(student: Student, snap: PublicSession): number {
  const t = now();
  if (!student.joined) {
    student.joined = true;
    return t;
  }
  if (step && snap.stepIndex === step.stepIndex && student.stepAt === 0) {
    student.stepAt = t;
    step.received += 1;
    if (step.received >= step.of) finishStep();
  }
  if (final && snap.poll?.id === final.pollId && snap.poll.status === "closed" && student.finalAt === 0) {
    student.finalAt = t;
    student.finalTotal = snap.poll.results?.total ?? -1;
    final.received += 1;
    if (final.received >= final.of) finishFinal();
  }
  return 0;
}

function finishStep(): void {
  if (!step) return;
  clearTimeout(step.timer);
  const active = joinedStudents();
  const times = active.filter((s) => s.stepAt > 0).map((s) => s.stepAt);
  send({ ev: "step", seq: step.seq, times, missing: active.length - times.length });
  step = null;
}

function finishFinal(): void {
  if (!final) return;
  clearTimeout(final.timer);
  const active = joinedStudents();
  const got = active.filter((s) => s.finalAt > 0);
  const { expected, upTo } = final;
  const right = (total: number) => total >= expected && total <= upTo;
  const tallies = active.reduce((sum, s) => sum + s.tallies, 0);
  send({
    ev: "final",
    times: got.map((s) => s.finalAt),
    matched: got.filter((s) => right(s.finalTotal)).length,
    mismatched: got.filter((s) => !right(s.finalTotal)).length,
    missing: active.length - got.length,
    totals: [...new Set(got.map((s) => s.finalTotal))],
    tallies,
    talliesMaxPerStudent: active.reduce((m, s) => Math.max(m, s.tallies), 0),
  });
  final = null;
  countingTallies = false;
}

function join(c: Extract<DriverCommand, { cmd: "join" }>): void {
  const errors: Record<string, number> = {};
  let next = 0;
  let inFlight = 0;
  let settled = 0;
  let reported = false;
  const firstAt: number[] = [];
  const deadline = setTimeout(report, c.timeoutMs);

  function report(): void {
    if (reported) return;
    reported = true;
    clearTimeout(deadline);
    // Students still connecting at the deadline are dropped, so they do not skew later phases.
    for (const s of students) if (!s.joined) s.socket.close();
    const stillOpen = next - settled;
    if (stillOpen > 0 || next < c.count) errors["join deadline"] = c.count - settled;
    send({ ev: "joined", ok: firstAt.length, failed: c.count - firstAt.length, errors, firstSnapshotAt: firstAt });
  }

  function done(): void {
    inFlight -= 1;
    settled += 1;
    if (settled >= c.count) return report();
    launch();
  }

  function open(i: number): void {
    const globalIndex = c.offset + i;
    const auth =
      c.kind !== "bare" ? { v: PROTOCOL_VERSION, role: "student", code: c.code, nickname: `bench ${globalIndex}` } : { role: "student" };
    const options = {
      transports: ["websocket"],
      reconnection: false,
      forceNew: true,
      timeout: 30_000,
      auth,
      // engine.io-client passes this through to ws (and so to net.connect) in Node.
      localAddress: c.addresses[globalIndex % c.addresses.length],
    } as Partial<ManagerOptions & SocketOptions>;
    // Round-robin over the nodes (one URL unless --cluster): as a load balancer would spread the class.
    const socket = io(c.urls[globalIndex % c.urls.length], options);
    const student: Student = { socket, globalIndex, joined: false, tallies: 0, stepAt: 0, finalAt: 0, finalTotal: -1 };
    students.push(student);
    let pending = true;
    const settle = () => {
      if (!pending) return;
      pending = false;
      done();
    };
    // One message kind: the class's session record (join, step, poll) and its running counts; the student's own
    // stream ("me") is not read.
    socket.on("session:patch", (patch: Patch) => {
      if (isClassTally(patch)) {
        if (countingTallies) student.tallies += 1;
        return;
      }
      const snap = classSession(patch);
      if (!snap) return;
      const first = onSession(student, snap);
      if (first > 0) {
        firstAt.push(first);
        settle();
      }
    });
    socket.on("connect_error", (err: Error & { data?: { code?: string } }) => {
      const key = err.data?.code ?? err.message ?? "connect_error";
      errors[key] = (errors[key] ?? 0) + 1;
      settle();
    });
    socket.on("disconnect", (reason: string) => {
      if (student.joined) {
        if (reason !== "io client disconnect") disconnects[reason] = (disconnects[reason] ?? 0) + 1;
      } else {
        errors["disconnect before snapshot"] = (errors["disconnect before snapshot"] ?? 0) + 1;
        settle();
      }
    });
  }

  function launch(): void {
    while (inFlight < c.window && next < c.count) {
      inFlight += 1;
      open(next++);
    }
  }
  launch();
}

function vote(c: Extract<DriverCommand, { cmd: "vote" }>): void {
  const active = joinedStudents();
  const total = active.length;
  const errors: Record<string, number> = {};
  let sent = 0;
  let ok = 0;
  let timeouts = 0;
  let settled = 0;
  const ackMs: number[] = [];
  let reported = false;
  for (const s of active) s.tallies = 0;
  countingTallies = true;
  const report = () => {
    if (reported) return;
    reported = true;
    clearTimeout(deadline);
    send({ ev: "voted", sent, ok, errors, timeouts, ackMs, disconnects });
  };
  const deadline = setTimeout(report, Math.max(0, c.startAt - now()) + c.spreadMs + c.ackTimeoutMs + 2_000);
  if (total === 0) return report();
  // The spread is over the whole class; this worker's students take their slots by global index.
  for (const s of active) {
    const at = c.startAt + (c.spreadMs * s.globalIndex) / Math.max(1, c.total);
    const optionId = c.options[s.globalIndex % c.options.length];
    setTimeout(
      () => {
        sent += 1;
        const sentAt = now();
        s.socket
          .timeout(c.ackTimeoutMs)
          .emit("poll:vote", { pollId: c.pollId, optionId }, (err: Error | null, res?: { ok?: boolean; error?: { code?: string } }) => {
            if (err) timeouts += 1;
            else if (res?.ok) {
              ok += 1;
              ackMs.push(now() - sentAt);
            } else {
              const key = res?.error?.code ?? "refused";
              errors[key] = (errors[key] ?? 0) + 1;
            }
            settled += 1;
            if (settled >= total) report();
          });
      },
      Math.max(0, at - now()),
    );
  }
}

process.on("message", (msg: DriverCommand) => {
  try {
    switch (msg.cmd) {
      case "join":
        join(msg);
        break;
      case "armStep":
        for (const s of students) s.stepAt = 0;
        step = {
          seq: msg.seq,
          stepIndex: msg.stepIndex,
          received: 0,
          of: joinedStudents().length,
          timer: setTimeout(finishStep, msg.timeoutMs),
        };
        send({ ev: "armed", what: "step", seq: msg.seq });
        if (step.of === 0) finishStep();
        break;
      case "vote":
        vote(msg);
        break;
      case "armFinal":
        for (const s of students) {
          s.finalAt = 0;
          s.finalTotal = -1;
        }
        final = {
          pollId: msg.pollId,
          expected: msg.expected,
          upTo: msg.upTo,
          received: 0,
          of: joinedStudents().length,
          timer: setTimeout(finishFinal, msg.timeoutMs),
        };
        send({ ev: "armed", what: "final", seq: 0 });
        if (final.of === 0) finishFinal();
        break;
      case "close":
        for (const s of students) s.socket.close();
        send({ ev: "closed" });
        setTimeout(() => process.exit(0), 50);
        break;
    }
  } catch (err) {
    send({ ev: "error", message: (err as Error).stack ?? String(err) });
  }
});

// The driver going away takes this worker with it.
process.on("disconnect", () => process.exit(0));
send({ ev: "ready" });
