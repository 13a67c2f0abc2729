import type { Socket } from "socket.io-client";
import { PROTOCOL_VERSION, type Patch } from "../lib/protocol";
import { connectSocket } from "./client";
import { classSession, firstClassSession } from "./patch";
import { CLASS_SIZE, LIFETIME_MS } from "./soakOptions";
import { bump, fail, recordAck } from "./soakTally";
import { sleep, withTimeout } from "./wait";

/**
 * The soak's classes (bench/soak.ts): each a teacher stepping and polling and
 * its students joining, leaving for good, dropping and reconnecting with their
 * token, and voting, all in this process. Every wait is bounded; anything
 * refused, unanswered or wrong is counted as a failure (bench/soakTally.ts).
 */

/** The browser client's ack timeout: an answer later than this is a lost ack. */
const ACK_TIMEOUT_MS = 8_000;
const CONNECT_TIMEOUT_MS = 10_000;
/** A teacher acts every 2–5 s; every fourth action is a poll. */
const TEACHER_GAP_MS: [number, number] = [2_000, 5_000];
const POLL_EVERY = 4;
/** Each student, each second: leaves for good (replaced by a new student) / drops and reconnects with its token. */
const LEAVE_PER_S = 1 / 90;
const RECONNECT_PER_S = 1 / 45;
const ADDRESSES = Array.from({ length: 30 }, (_, i) => `127.0.0.${i + 2}`);

const random = (lo: number, hi: number) => lo + Math.random() * (hi - lo);
type Ack = { ok?: boolean; data?: unknown; error?: { code?: string; message?: string } };

// ---------------------------------------------------------------------------
// Classes and students

interface Student {
  socket: Socket;
  nickname: string;
  participantId: string;
  token: string;
  address: string;
  /** voting or reconnecting: the churn leaves it alone */
  busy: boolean;
  /** the newest poll its snapshots (the session record of its class's patches) showed: id, status, option ids and the results' total */
  poll: { id: string; status: string; options: string[]; total: number } | null;
}

export interface ClassRoom {
  code: string;
  teacher: Socket;
  students: Set<Student>;
  endsAt: number;
  ending: boolean;
  polling: boolean;
  stepIndex: number;
  /** everything in flight for this class: ending waits for it */
  tasks: Set<Promise<void>>;
  next: number;
}

let url = "";
let studentSeq = 0;
/** The classes live now (ending ones too, until they have ended). */
export const classes = new Set<ClassRoom>();

/** The server every class is opened on. */
export function setServerUrl(serverUrl: string): void {
  url = serverUrl;
}

function track(cls: ClassRoom, task: Promise<void>): void {
  const t = task.catch((err: Error) => fail("soak", err.message)).finally(() => cls.tasks.delete(t));
  cls.tasks.add(t);
}

function connect(auth: Record<string, unknown>, address: string): Socket {
  return connectSocket(url, { v: PROTOCOL_VERSION, ...auth }, address, CONNECT_TIMEOUT_MS);
}

/** Resolves with the event's payload, or rejects with the connect_error's code or a timeout. */
function first<T>(socket: Socket, event: string, what: string): Promise<T> {
  return withTimeout(
    new Promise<T>((resolve, reject) => {
      socket.once(event, (payload: T) => resolve(payload));
      socket.once("connect_error", (err: Error & { data?: { code?: string } }) => reject(new Error(err.data?.code ?? err.message)));
    }),
    CONNECT_TIMEOUT_MS,
    what,
  );
}

async function command(cls: ClassRoom, event: string, payload: unknown): Promise<Ack> {
  const at = Date.now();
  const res: Ack = await cls.teacher
    .timeout(ACK_TIMEOUT_MS)
    .emitWithAck(event, payload)
    .catch(() => ({ ok: false, error: { code: "NO_ACK" } }));
  if (res.ok) recordAck(Date.now() - at);
  else fail(`teacher ${event}: ${res.error?.code}`, `class ${cls.code}: ${res.error?.message ?? ""}`);
  return res;
}

export async function openClass(): Promise<ClassRoom> {
  const res = await fetch(`${url}/api/sessions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ title: "Soak" }),
    signal: AbortSignal.timeout(CONNECT_TIMEOUT_MS),
  });
  if (res.status !== 201) throw new Error(`POST /api/sessions: ${res.status} ${await res.text()}`);
  const { code, hostKey } = (await res.json()) as { code: string; hostKey: string };
  const teacher = connect({ role: "host", code, hostKey }, "127.0.0.1");
  // The teacher's records, whole, after its welcome.
  await first(teacher, "session:patch", `teacher of ${code}`);
  const cls: ClassRoom = {
    code,
    teacher,
    students: new Set(),
    endsAt: Date.now() + random(...LIFETIME_MS),
    ending: false,
    polling: false,
    stepIndex: 0,
    tasks: new Set(),
    next: Date.now() + random(...TEACHER_GAP_MS),
  };
  teacher.on("disconnect", (reason: string) => {
    if (reason !== "io client disconnect") fail("teacher dropped by the server", `${code}: ${reason}`);
  });
  classes.add(cls);
  bump("sessionsStarted");
  for (let i = 0; i < CLASS_SIZE; i++) track(cls, joinStudent(cls, null));
  return cls;
}

/** A new student (no token), or a returning one with its token, which must come back as the same participant. */
async function joinStudent(cls: ClassRoom, returning: Student | null): Promise<void> {
  const nickname = returning?.nickname ?? `soak ${++studentSeq}`;
  const address = returning?.address ?? ADDRESSES[studentSeq % ADDRESSES.length];
  const socket = connect({ role: "student", code: cls.code, nickname, ...(returning ? { token: returning.token } : {}) }, address);
  const student: Student = returning ?? {
    socket,
    nickname,
    participantId: "",
    token: "",
    address,
    busy: false,
    poll: null,
  };
  student.socket = socket;
  socket.on("session:patch", (patch: Patch) => {
    // The class's session record (the whole one on join, steps, the poll); the student's own stream is not read.
    const snap = classSession(patch);
    if (!snap) return;
    const p = snap.poll;
    student.poll = p ? { id: p.id, status: p.status, options: p.options.map((o) => o.id), total: p.results?.total ?? -1 } : null;
  });
  socket.on("disconnect", (reason: string) => {
    // Only this process closes sockets (after session:end too, the server keeps them open).
    if (reason !== "io client disconnect") fail("student dropped by the server", `${cls.code}: ${reason}`);
  });
  try {
    const [welcome] = await Promise.all([
      first<{ participantId: string; token: string }>(socket, "session:welcome", `student of ${cls.code}`),
      withTimeout(firstClassSession(socket), CONNECT_TIMEOUT_MS, `student of ${cls.code}`),
    ]);
    if (returning && welcome.participantId !== returning.participantId)
      fail("reconnect came back as someone else", `${cls.code}: ${returning.participantId} → ${welcome.participantId}`);
    student.participantId = welcome.participantId;
    student.token = welcome.token || student.token;
    cls.students.add(student);
    bump(returning ? "reconnects" : "joins");
  } catch (err) {
    socket.close();
    fail(`student could not ${returning ? "reconnect" : "join"}: ${(err as Error).message}`, cls.code);
  }
}

function leave(student: Student, cls: ClassRoom): void {
  student.socket.close();
  cls.students.delete(student);
}

/** One second of student churn in a class: some leave for good (a new student takes the seat), some drop and come back. */
function churn(cls: ClassRoom): void {
  if (cls.ending || cls.polling) return;
  for (const s of [...cls.students]) {
    if (s.busy) continue;
    const dice = Math.random();
    if (dice < LEAVE_PER_S) {
      leave(s, cls);
      bump("leaves");
      track(cls, joinStudent(cls, null));
    } else if (dice < LEAVE_PER_S + RECONNECT_PER_S) {
      s.busy = true;
      leave(s, cls);
      track(
        cls,
        sleep(random(200, 2_000))
          .then(() => (cls.ending ? undefined : joinStudent(cls, s)))
          .finally(() => (s.busy = false)),
      );
    }
  }
}

async function step(cls: ClassRoom): Promise<void> {
  cls.stepIndex = (cls.stepIndex % 5) + 1; // 1..5, every command a change
  await command(cls, "step:go", { stepIndex: cls.stepIndex });
  bump("steps");
}

/** Open a poll with live results, every idle student votes (some change their mind), close, and check the total. */
async function poll(cls: ClassRoom): Promise<void> {
  cls.polling = true;
  try {
    const opened = await command(cls, "poll:open", { kind: "next-step" });
    const pollId = (opened.data as { pollId?: string } | undefined)?.pollId;
    if (!opened.ok || !pollId) return;
    bump("polls");
    await command(cls, "results:show", { visible: true });
    const voters = [...cls.students].filter((s) => !s.busy);
    // The class needs the poll (and its option ids) before it can vote.
    const deadline = Date.now() + 5_000;
    while (voters.some((s) => s.poll?.id !== pollId || s.poll.status !== "open") && Date.now() < deadline) await sleep(20);
    const acked = new Set<string>();
    await Promise.all(
      voters.map(async (s) => {
        if (s.poll?.id !== pollId) return fail("poll never reached a student", cls.code);
        s.busy = true;
        try {
          const rounds = Math.random() < 0.2 ? 2 : 1;
          for (let r = 0; r < rounds; r++) {
            await sleep(random(0, 1_500));
            const options = s.poll!.options;
            const optionId = options[Math.floor(Math.random() * options.length)];
            const res: Ack = await s.socket
              .timeout(ACK_TIMEOUT_MS)
              .emitWithAck("poll:vote", { pollId, optionId })
              .catch(() => ({ ok: false, error: { code: "NO_ACK" } }));
            if (!res.ok) fail(`vote: ${res.error?.code}`, `${cls.code}: ${res.error?.message ?? ""}`);
            else {
              acked.add(s.participantId);
              bump("votes");
            }
          }
        } finally {
          s.busy = false;
        }
      }),
    );
    await sleep(random(200, 1_000));
    const closed = await command(cls, "poll:close", { pollId });
    if (!closed.ok) return;
    const watchers = [...cls.students];
    const until = Date.now() + 5_000;
    while (watchers.some((s) => s.poll?.id !== pollId || s.poll.status !== "closed") && Date.now() < until) await sleep(20);
    for (const s of watchers) {
      if (s.poll?.id !== pollId || s.poll.status !== "closed") fail("closed poll never reached a student", cls.code);
      else if (s.poll.total !== acked.size) fail("closed poll's total is wrong", `${cls.code}: ${s.poll.total}, ${acked.size} voted`);
    }
  } finally {
    cls.polling = false;
  }
}

let action = 0;
async function teach(cls: ClassRoom): Promise<void> {
  action += 1;
  if (action % POLL_EVERY === 0) await poll(cls);
  else await step(cls);
}

/** Ends a class: no new work, what is in flight finishes, session:end, then every socket closes. */
export async function endClass(cls: ClassRoom): Promise<void> {
  cls.ending = true;
  while (cls.tasks.size) await Promise.all([...cls.tasks]);
  await command(cls, "session:end", {});
  for (const s of [...cls.students]) leave(s, cls);
  cls.teacher.close();
  classes.delete(cls);
  bump("sessionsEnded");
}

/** One second of the churn: a class past its lifetime ends, the others' students churn, and their due teachers act. */
export function churnSecond(now: number): void {
  for (const cls of [...classes]) {
    if (cls.ending) continue;
    if (now >= cls.endsAt) {
      void endClass(cls).catch((err: Error) => fail("soak", err.message));
      continue;
    }
    churn(cls);
    if (now >= cls.next && !cls.polling) {
      cls.next = now + random(...TEACHER_GAP_MS);
      track(cls, teach(cls));
    }
  }
}

/** One short class through every code path the churn uses, so the baseline holds the compiled code. */
export async function warmUp(): Promise<void> {
  const warm = await openClass();
  while (warm.tasks.size) await Promise.all([...warm.tasks]);
  await step(warm);
  for (const [i, s] of [...warm.students].slice(0, 2).entries()) {
    leave(s, warm);
    await joinStudent(warm, i === 0 ? null : s); // one leaves for good (a new student comes), one comes back
  }
  await poll(warm);
  await endClass(warm);
}
