import type { Socket } from "socket.io-client";
import { PROTOCOL_VERSION, type Patch } from "../lib/protocol";
import { connectSocket } from "./client";
import { now, type SchoolCommand, type SchoolEvent, type ServerKind } from "./messages";
import { classSession, firstClassSession } from "./patch";
import { lesson } from "./schoolLesson";
import { emptyStats, command, onSnapshot, type Room, type Student } from "./schoolRoom";
import { count } from "./stats";

/**
 * A school worker: forked by bench/school.ts with an IPC channel. It holds
 * whole rooms, each a teacher socket and its class (socket.io-client over
 * WebSocket), and runs every room's lesson on its own schedule: steps, and
 * now and then a poll that every student answers. A room's teacher and
 * students share this process, so a step's fan-out is timed with one clock
 * from the teacher's emit to the room's last student. Every wait is bounded.
 * This file is the process: its IPC, and connecting the rooms' teachers and
 * students; a room's state is bench/schoolRoom.ts, its lesson
 * bench/schoolLesson.ts.
 */

if (!process.send) {
  console.error("bench/schoolWorker.ts is started by bench/school.ts (it needs an IPC channel)");
  process.exit(2);
}

function send(event: SchoolEvent): void {
  process.send!(event);
}

let kind: ServerKind = "product";
let url = "";
const rooms: Room[] = [];
const disconnects: Record<string, number> = {};

function connect(auth: Record<string, unknown>, address: string): Socket {
  return connectSocket(url, auth, address, 30_000);
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

/** Resolves null once the socket is connected (a teacher) or has its class's session record (a student's join), else an error code. */
function settleOn(socket: Socket, ready: "connect" | "class", timeoutMs: number): Promise<string | null> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve("timeout"), timeoutMs);
    const done = (err: string | null) => {
      clearTimeout(timer);
      resolve(err);
    };
    if (ready === "class") {
      firstClassSession(socket).then(
        () => done(null),
        (err: Error) => done(err.message),
      );
      return;
    }
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
      kind,
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
    // The class's stream only: its session record (steps, the poll); the student's own stream ("me") is not read.
    socket.on("session:patch", (patch: Patch) => {
      const snap = classSession(patch);
      if (snap && student.joined) onSnapshot(room, student, snap);
    });
    const err = await settleOn(socket, "class", c.timeoutMs);
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
