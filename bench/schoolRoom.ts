import type { Socket } from "socket.io-client";
import { now, type SchoolRoomStats, type ServerKind } from "./messages";
import type { PublicSession } from "./patch";
import { count } from "./stats";
import type { Arrivals } from "./wait";

/**
 * One room as a school worker (bench/schoolWorker.ts) holds it: its teacher
 * and students, what the room waits for (a step, a poll, a final tally), what
 * its students' snapshots (the session record their `session:patch`es put,
 * bench/patch.ts) say, and the teacher's commands in the product's or the
 * baseline's names.
 */

export type Ack = { ok?: boolean; data?: unknown; error?: { code?: string } };

export interface Student {
  socket: Socket;
  joined: boolean;
  /** receipt of the armed step's snapshot, 0 until then */
  stepAt: number;
  /** the newest poll this student's snapshots showed open with results visible */
  pollSeen: string;
  /** the poll this student was last counted for while the room waited for the class to have it */
  pollCounted: string;
  finalAt: number;
  finalTotal: number;
}

export interface Room {
  index: number;
  code: string;
  hostKey: string;
  /** the server the room is on: the product, or the bare baseline (other command names) */
  kind: ServerKind;
  teacher: Socket | null;
  students: Student[];
  stepIndex: number;
  step: { stepIndex: number; arrivals: Arrivals } | null;
  pollWait: { pollId: string; arrivals: Arrivals } | null;
  final: { pollId: string; arrivals: Arrivals } | null;
  /** options of the newest poll, read from a student's snapshot */
  options: Map<string, string[]>;
  stats: SchoolRoomStats;
}

export function emptyStats(index: number): SchoolRoomStats {
  return {
    index,
    stepLastMs: [],
    stepMedianMs: [],
    steps: 0,
    stepMissing: 0,
    stepsIncomplete: 0,
    polls: 0,
    votesSent: 0,
    votesAcked: 0,
    voteAckMs: [],
    finalLastMs: [],
    finalMissing: 0,
    finalWrong: 0,
    votesLost: 0,
    errors: {},
    notes: [],
  };
}

export function note(room: Room, what: string, code: string): void {
  count(room.stats.errors, code);
  if (room.stats.notes.length < 3) room.stats.notes.push(`${what}: ${code}`);
}

/** A teacher command with the product's or the baseline's names, resolved with its ack (never rejects). */
export function command(room: Room, what: "step" | "open" | "show" | "close", arg: number | string, timeoutMs: number): Promise<Ack> {
  const t = room.teacher!;
  const emit = (event: string, payload: unknown): Promise<Ack> =>
    t
      .timeout(timeoutMs)
      .emitWithAck(event, payload)
      .catch(() => ({ ok: false, error: { code: "timeout" } }));
  if (room.kind === "product") {
    if (what === "step") return emit("step:go", { stepIndex: arg });
    if (what === "open") return emit("poll:open", { kind: "next-step" });
    if (what === "show") return emit("results:show", { visible: true });
    return emit("poll:close", { pollId: arg });
  }
  if (what === "step") return emit("step", { stepIndex: arg });
  if (what === "open") return emit("open", {});
  if (what === "show") return Promise.resolve({ ok: true }); // the baseline's open does both
  return emit("close", { pollId: arg });
}

/** A session record from a student's class stream (a step, the poll opened, shown or closed). */
export function onSnapshot(room: Room, student: Student, snap: PublicSession): void {
  const t = now();
  if (room.step && snap.stepIndex === room.step.stepIndex && student.stepAt === 0) {
    student.stepAt = t;
    room.step.arrivals.arrive();
  }
  const poll = snap.poll;
  if (!poll?.id) return;
  if (poll.status === "open" && poll.results) {
    // Open with live results: what the class needs to vote. It can come before the teacher's ack names the poll.
    student.pollSeen = poll.id;
    if (poll.options && !room.options.has(poll.id))
      room.options.set(
        poll.id,
        poll.options.map((o) => o.id),
      );
    countPollSeen(room, student);
  }
  if (room.final && poll.id === room.final.pollId && poll.status === "closed" && student.finalAt === 0) {
    student.finalAt = t;
    student.finalTotal = poll.results?.total ?? -1;
    room.final.arrivals.arrive();
  }
}

/** A student has the poll the room waits for: counted once. */
export function countPollSeen(room: Room, student: Student): void {
  const wait = room.pollWait;
  if (!wait || !wait.pollId || student.pollSeen !== wait.pollId || student.pollCounted === wait.pollId) return;
  student.pollCounted = wait.pollId;
  wait.arrivals.arrive();
}
