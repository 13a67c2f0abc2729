import { io, type ManagerOptions, type Socket, type SocketOptions } from "socket.io-client";
import { PROTOCOL_VERSION } from "../lib/protocol";
import { mulberry32 } from "../tests/support/random";
import { now, type SchoolCommand, type SchoolEvent, type SchoolRoomStats, type ServerKind } from "./messages";

/**
 * A school worker: forked by bench/school.ts with an IPC channel. It holds
 * whole rooms, each a teacher socket and its class (socket.io-client over
 * WebSocket), and runs every room's lesson on its own schedule: steps, and
 * now and then a poll that every student answers. A room's teacher and
 * students share this process, so a step's fan-out is timed with one clock
 * from the teacher's emit to the room's last student. Every wait is bounded.
 */

if (!process.send) {
  console.error("bench/schoolWorker.ts is started by bench/school.ts (it needs an IPC channel)");
  process.exit(2);
}

function send(event: SchoolEvent): void {
  process.send!(event);
}

interface SnapshotLike {
  stepIndex?: number;
  poll?: { id?: string; status?: string; options?: { id: string }[]; results?: { total?: number } | null } | null;
}

type Ack = { ok?: boolean; data?: unknown; error?: { code?: string } };

interface Student {
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

/** Resolves when `expected` arrivals have come or after `timeoutMs`, whichever is first. */
class Arrivals {
  count = 0;
  readonly done: Promise<void>;
  private resolve!: () => void;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly expected: number,
    timeoutMs: number,
  ) {
    this.done = new Promise((resolve) => (this.resolve = resolve));
    this.timer = setTimeout(() => this.resolve(), timeoutMs);
    if (expected <= 0) this.finish();
  }

  arrive(): void {
    this.count += 1;
    if (this.count >= this.expected) this.finish();
  }

  private finish(): void {
    clearTimeout(this.timer);
    this.resolve();
  }
}

interface Room {
  index: number;
  code: string;
  hostKey: string;
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

let kind: ServerKind = "product";
let url = "";
const rooms: Room[] = [];
const disconnects: Record<string, number> = {};

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)));
const count = (map: Record<string, number>, key: string, by = 1) => {
  map[key] = (map[key] ?? 0) + by;
};
function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.ceil(0.5 * s.length) - 1] : NaN;
}

function emptyStats(index: number): SchoolRoomStats {
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

function note(room: Room, what: string, code: string): void {
  count(room.stats.errors, code);
  if (room.stats.notes.length < 3) room.stats.notes.push(`${what}: ${code}`);
}

function connect(auth: Record<string, unknown>, address: string): Socket {
  return io(url, {
    transports: ["websocket"],
    reconnection: false,
    forceNew: true,
    timeout: 30_000,
    auth,
    // engine.io-client passes this through to ws (and so to net.connect) in Node.
    localAddress: address,
  } as Partial<ManagerOptions & SocketOptions>);
}

/** Opens connections with at most `window` in flight; each `open` resolves null on success or an error code. */
async function inWindow(total: number, window: number, open: (i: number) => Promise<string | null>): Promise<Record<string, number>> {
  const errors: Record<string, number> = {};
  let next = 0;
  const lane = async () => {
    while (next < total) {
      const err = await open(next++);
      if (err) count(errors, err);
    }
  };
  await Promise.all(Array.from({ length: Math.min(window, total) }, lane));
  return errors;
}

function settleOn(socket: Socket, ready: string, timeoutMs: number): Promise<string | null> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve("timeout"), timeoutMs);
    const done = (err: string | null) => {
      clearTimeout(timer);
      resolve(err);
    };
    socket.once(ready, () => done(null));
    socket.once("connect_error", (err: Error & { data?: { code?: string } }) => done(err.data?.code ?? err.message));
  });
}

function teachers(c: Extract<SchoolCommand, { cmd: "teachers" }>): Promise<void> {
  kind = c.kind;
  url = c.url;
  for (const r of c.rooms) {
    rooms.push({
      ...r,
      teacher: null,
      students: [],
      stepIndex: 0,
      step: null,
      pollWait: null,
      final: null,
      options: new Map(),
      stats: emptyStats(r.index),
    });
  }
  return inWindow(rooms.length, 50, async (i) => {
    const room = rooms[i];
    const auth =
      kind === "product"
        ? { v: PROTOCOL_VERSION, role: "host", code: room.code, hostKey: room.hostKey }
        : { role: "host", room: room.code };
    const socket = connect(auth, c.address);
    const err = await settleOn(socket, "connect", c.timeoutMs);
    if (err) {
      socket.close();
      return err;
    }
    room.teacher = socket;
    socket.on("disconnect", (reason: string) => {
      if (reason !== "io client disconnect") count(disconnects, `teacher: ${reason}`);
    });
    // Warm-up: the code paths the lesson uses, before the memory reading the driver takes next.
    for (const stepIndex of [1, 0]) await command(room, "step", stepIndex, c.timeoutMs);
    return null;
  }).then((errors) => {
    const ok = rooms.filter((r) => r.teacher).length;
    send({ ev: "teachers", ok, failed: rooms.length - ok, errors });
  });
}

/** A teacher command with the product's or the baseline's names, resolved with its ack (never rejects). */
function command(room: Room, what: "step" | "open" | "show" | "close", arg: number | string, timeoutMs: number): Promise<Ack> {
  const t = room.teacher!;
  const emit = (event: string, payload: unknown): Promise<Ack> =>
    t
      .timeout(timeoutMs)
      .emitWithAck(event, payload)
      .catch(() => ({ ok: false, error: { code: "timeout" } }));
  if (kind === "product") {
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

function onSnapshot(room: Room, student: Student, snap: SnapshotLike): void {
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
function countPollSeen(room: Room, student: Student): void {
  const wait = room.pollWait;
  if (!wait || !wait.pollId || student.pollSeen !== wait.pollId || student.pollCounted === wait.pollId) return;
  student.pollCounted = wait.pollId;
  wait.arrivals.arrive();
}

async function join(c: Extract<SchoolCommand, { cmd: "join" }>): Promise<void> {
  const start = now();
  let lastAt = start;
  const total = rooms.length * c.classSize;
  const errors = await inWindow(total, c.window, async (i) => {
    const room = rooms[Math.floor(i / c.classSize)];
    const globalIndex = room.index * c.classSize + (i % c.classSize);
    const auth =
      kind === "product"
        ? { v: PROTOCOL_VERSION, role: "student", code: room.code, nickname: `school ${globalIndex}` }
        : { role: "student", room: room.code };
    const socket = connect(auth, c.addresses[globalIndex % c.addresses.length]);
    const student: Student = { socket, joined: false, stepAt: 0, pollSeen: "", pollCounted: "", finalAt: 0, finalTotal: -1 };
    socket.on("session:snapshot", (snap: SnapshotLike) => {
      if (student.joined) onSnapshot(room, student, snap);
    });
    const err = await settleOn(socket, "session:snapshot", c.timeoutMs);
    if (err) {
      socket.close();
      return err;
    }
    student.joined = true;
    lastAt = Math.max(lastAt, now());
    room.students.push(student);
    socket.on("disconnect", (reason: string) => {
      if (reason !== "io client disconnect") count(disconnects, reason);
    });
    return null;
  });
  const ok = rooms.reduce((s, r) => s + r.students.length, 0);
  send({ ev: "joined", ok, failed: total - ok, errors, allMs: lastAt - start });
}

async function step(room: Room, c: Extract<SchoolCommand, { cmd: "run" }>): Promise<void> {
  const stepIndex = room.stepIndex === 1 ? 2 : 1; // every command changes the step
  const students = room.students.filter((s) => s.socket.connected);
  for (const s of students) s.stepAt = 0;
  room.step = { stepIndex, arrivals: new Arrivals(students.length, c.receiptTimeoutMs) };
  const sentAt = now();
  const ack = command(room, "step", stepIndex, c.ackTimeoutMs);
  await room.step.arrivals.done;
  room.step = null;
  room.stepIndex = stepIndex;
  const res = await ack;
  if (!res.ok) note(room, `step ${stepIndex}`, res.error?.code ?? "refused");
  const got = students.filter((s) => s.stepAt > 0).map((s) => s.stepAt - sentAt);
  const missing = students.length - got.length;
  room.stats.steps += 1;
  room.stats.stepMissing += missing;
  if (missing > 0) room.stats.stepsIncomplete += 1;
  else if (got.length > 0) room.stats.stepLastMs.push(Math.max(...got));
  if (got.length > 0) room.stats.stepMedianMs.push(median(got));
}

async function poll(room: Room, c: Extract<SchoolCommand, { cmd: "run" }>, random: () => number): Promise<void> {
  room.stats.polls += 1;
  const students = room.students.filter((s) => s.socket.connected);
  // Open, with live results shown (so the closed poll's snapshot carries the total), and wait until the class has it.
  room.pollWait = { pollId: "", arrivals: new Arrivals(students.length, c.receiptTimeoutMs) };
  const opened = await command(room, "open", 0, c.ackTimeoutMs);
  const data = opened.data as { pollId?: string; options?: string[] } | undefined;
  if (!opened.ok || !data?.pollId) {
    room.pollWait = null;
    return note(room, "poll open", opened.error?.code ?? "refused");
  }
  const pollId = data.pollId;
  if (data.options) room.options.set(pollId, data.options);
  room.pollWait.pollId = pollId;
  const shown = await command(room, "show", 0, c.ackTimeoutMs);
  if (!shown.ok) note(room, "results show", shown.error?.code ?? "refused");
  // Snapshots that came before the open's ack named the poll are counted now.
  for (const s of students) countPollSeen(room, s);
  await room.pollWait.arrivals.done;
  room.pollWait = null;
  const options = room.options.get(pollId);
  if (!options?.length) return note(room, "poll open", "no options reached the class");

  // Every student votes once, at a random moment of the spread, and waits for its ack.
  const votes = students.map(async (s, k) => {
    await sleep(random() * c.voteSpreadMs);
    room.stats.votesSent += 1;
    const sentAt = now();
    const res: Ack = await s.socket
      .timeout(c.ackTimeoutMs)
      .emitWithAck("poll:vote", { pollId, optionId: options[k % options.length] })
      .catch(() => ({ ok: false, error: { code: "timeout" } }));
    if (res.ok) {
      room.stats.votesAcked += 1;
      room.stats.voteAckMs.push(now() - sentAt);
      return 1;
    }
    note(room, "vote", res.error?.code ?? "refused");
    return 0;
  });
  const acked = (await Promise.all(votes)).reduce<number>((a, b) => a + b, 0);

  // Close, and time the closed poll's snapshot to the room's last student.
  for (const s of students) {
    s.finalAt = 0;
    s.finalTotal = -1;
  }
  room.final = { pollId, arrivals: new Arrivals(students.length, c.receiptTimeoutMs) };
  const closedAt = now();
  const closeAck = command(room, "close", pollId, c.ackTimeoutMs);
  await room.final.arrivals.done;
  room.final = null;
  const closed = await closeAck;
  if (!closed.ok) note(room, "poll close", closed.error?.code ?? "refused");
  const got = students.filter((s) => s.finalAt > 0);
  room.stats.finalMissing += students.length - got.length;
  room.stats.finalWrong += got.filter((s) => s.finalTotal !== acked).length;
  if (got.length === students.length && got.length > 0) room.stats.finalLastMs.push(Math.max(...got.map((s) => s.finalAt - closedAt)));
  const totals = got.map((s) => s.finalTotal).filter((t) => t >= 0);
  if (totals.length) room.stats.votesLost += acked - Math.max(...totals);
}

async function lesson(room: Room, c: Extract<SchoolCommand, { cmd: "run" }>): Promise<void> {
  // Seeded, so a room's schedule is the same in the product's run and the baseline's.
  const random = mulberry32(c.seed * 100_003 + room.index);
  let at = c.startAt + random() * c.intervalMs; // staggered: the rooms' first actions spread over one interval
  for (let action = 1; at < c.endAt; action++) {
    await sleep(at - now());
    if (action % c.pollEvery === 0) await poll(room, c, random);
    else await step(room, c);
    // The next action is scheduled from this one's start, as a teacher clicks on: a slow action delays only its own room.
    at = Math.max(now(), at + c.intervalMs * (0.5 + random()));
  }
}

async function run(c: Extract<SchoolCommand, { cmd: "run" }>): Promise<void> {
  await Promise.all(rooms.filter((r) => r.teacher).map((r) => lesson(r, c)));
  send({ ev: "ran", rooms: rooms.map((r) => r.stats), disconnects });
}

process.on("message", (msg: SchoolCommand) => {
  const fail = (err: unknown) => send({ ev: "error", message: (err as Error).stack ?? String(err) });
  try {
    switch (msg.cmd) {
      case "teachers":
        teachers(msg).catch(fail);
        break;
      case "join":
        join(msg).catch(fail);
        break;
      case "run":
        run(msg).catch(fail);
        break;
      case "close":
        for (const r of rooms) {
          r.teacher?.close();
          for (const s of r.students) s.socket.close();
        }
        send({ ev: "closed" });
        setTimeout(() => process.exit(0), 50);
        break;
      default: {
        const unknown: never = msg;
        fail(new Error(`unknown command ${JSON.stringify(unknown)}`));
      }
    }
  } catch (err) {
    fail(err);
  }
});

// The driver going away takes this worker with it.
process.on("disconnect", () => process.exit(0));
send({ ev: "ready" });
