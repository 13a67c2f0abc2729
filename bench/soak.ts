import os from "node:os";
import { io, type ManagerOptions, type Socket, type SocketOptions } from "socket.io-client";
import { PROTOCOL_VERSION } from "../lib/protocol";
import { log } from "./log";
import { killAll } from "./processes";
import { startServer } from "./servers";
import { METRICS_ENV, readingAfterGc, serverCpuMs } from "./serverUsage";
import { fmt, maxOf, p99 } from "./stats";
import { sleep, withTimeout } from "./wait";

/**
 * The soak (`npm run soak`): one real product server process and, for an hour
 * (`--minutes=N`), classes that come and go: sessions created and ended,
 * students joining, leaving for good, dropping and reconnecting with their
 * token, and voting, while teachers step and poll. Every sample interval it
 * forces a GC in the server and prints a row: RSS and V8 heap after the GC,
 * the event loop's delay since the previous row (from the server's own GET
 * /metrics, server/ops/metrics.ts, on with METRICS_TOKEN), and what the
 * classes did. At the end every session is ended and every socket closed, and the server's memory must come back to
 * the baseline taken before the churn, within the stated tolerance. Exit code
 * 1 if it does not, or if any command or vote was refused or never answered,
 * a reconnect came back as someone else, a closed poll's total was wrong, or
 * a socket was dropped by the server. The students and teachers live in this
 * process: a few hundred sockets with light traffic. See bench/README.md.
 *
 *   npm run soak                      # 60 minutes
 *   npm run soak -- --minutes=2       # what CI runs (scripts/test.sh)
 *   npm run soak -- --sessions=20 --class=40 --sample-seconds=30
 */

function arg(name: string): string | undefined {
  const hit = process.argv.slice(2).find((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  return hit?.includes("=") ? hit.slice(hit.indexOf("=") + 1) : undefined;
}
function intArg(name: string, fallback: number, lo: number, hi: number, what: string): number {
  const raw = arg(name);
  const value = raw === undefined ? fallback : Number(raw);
  if (!(Number.isInteger(value) && value >= lo && value <= hi)) {
    console.error(`--${name} takes ${what}, ${lo}..${hi} (default ${fallback}).`);
    process.exit(2);
  }
  return value;
}

const MINUTES = intArg("minutes", 60, 1, 24 * 60, "the churn's length in minutes");
/** Classes live at once. */
const SESSIONS = intArg("sessions", 12, 1, 200, "the number of classes live at once");
/** Students per class (kept there: a student who leaves is replaced by a new one). */
const CLASS_SIZE = intArg("class", 25, 1, 500, "students per class");
const CHURN_MS = MINUTES * 60_000;
/** A row every this often: 30 rows over the run, at least every 10 s and at most every 2 minutes. */
const SAMPLE_MS =
  intArg("sample-seconds", Math.min(120, Math.max(10, Math.round(CHURN_MS / 30 / 1000))), 5, 3_600, "seconds between rows") * 1000;
/** A class lives a random time in [CHURN/4, CHURN/2], within 2–6 minutes when the churn is long enough. */
const LIFETIME_MS: [number, number] = [Math.min(120_000, CHURN_MS / 4), Math.min(360_000, CHURN_MS / 2)];

/**
 * After every session ended and every socket closed, the server's memory after a forced GC may exceed the
 * baseline by at most this. What legitimately stays: bounded caches (per-participant vote buckets, per-session
 * command buckets, both LRU at 10,000 keys; per-address limiters), the ids of ended sessions, SQLite's page
 * cache, and code compiled during the churn. RSS also keeps pages the allocators did not give back.
 */
const HEAP_TOLERANCE_BYTES = 8 * 2 ** 20;
const RSS_TOLERANCE_BYTES = 48 * 2 ** 20;

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

// ---------------------------------------------------------------------------
// What happened, counted per row and in total

interface Counts {
  sessionsStarted: number;
  sessionsEnded: number;
  joins: number;
  leaves: number;
  reconnects: number;
  votes: number;
  steps: number;
  polls: number;
  /** teacher command → ack (ms) */
  ackMs: number[];
}
const emptyCounts = (): Counts => ({
  sessionsStarted: 0,
  sessionsEnded: 0,
  joins: 0,
  leaves: 0,
  reconnects: 0,
  votes: 0,
  steps: 0,
  polls: 0,
  ackMs: [],
});
let counts = emptyCounts();
const totals = emptyCounts();
function bump(key: Exclude<keyof Counts, "ackMs">): void {
  counts[key] += 1;
  totals[key] += 1;
}
/** Failures by kind; any at all fails the soak. */
const failures: Record<string, number> = {};
const failureNotes: string[] = [];
function fail(kind: string, detail: string): void {
  failures[kind] = (failures[kind] ?? 0) + 1;
  if (failureNotes.length < 20) failureNotes.push(`${kind}: ${detail}`);
}

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
  /** the newest poll its snapshots showed: id, status, option ids and the results' total */
  poll: { id: string; status: string; options: string[]; total: number } | null;
}

interface ClassRoom {
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
const classes = new Set<ClassRoom>();

function track(cls: ClassRoom, task: Promise<void>): void {
  const t = task.catch((err: Error) => fail("soak", err.message)).finally(() => cls.tasks.delete(t));
  cls.tasks.add(t);
}

function connect(auth: Record<string, unknown>, address: string): Socket {
  return io(url, {
    transports: ["websocket"],
    reconnection: false,
    forceNew: true,
    timeout: CONNECT_TIMEOUT_MS,
    auth: { v: PROTOCOL_VERSION, ...auth },
    localAddress: address,
  } as Partial<ManagerOptions & SocketOptions>);
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
  if (res.ok) {
    counts.ackMs.push(Date.now() - at);
    totals.ackMs.push(Date.now() - at);
  } else fail(`teacher ${event}: ${res.error?.code}`, `class ${cls.code}: ${res.error?.message ?? ""}`);
  return res;
}

async function openClass(): Promise<ClassRoom> {
  const res = await fetch(`${url}/api/sessions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ title: "Soak" }),
    signal: AbortSignal.timeout(CONNECT_TIMEOUT_MS),
  });
  if (res.status !== 201) throw new Error(`POST /api/sessions: ${res.status} ${await res.text()}`);
  const { code, hostKey } = (await res.json()) as { code: string; hostKey: string };
  const teacher = connect({ role: "host", code, hostKey }, "127.0.0.1");
  await first(teacher, "session:snapshot", `teacher of ${code}`);
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
  type PollLike = { id: string; status: string; options: { id: string }[]; results?: { total: number } | null };
  socket.on("session:snapshot", (snap: { poll?: PollLike | null }) => {
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
      first(socket, "session:snapshot", `student of ${cls.code}`),
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
async function endClass(cls: ClassRoom): Promise<void> {
  cls.ending = true;
  while (cls.tasks.size) await Promise.all([...cls.tasks]);
  await command(cls, "session:end", {});
  for (const s of [...cls.students]) leave(s, cls);
  cls.teacher.close();
  classes.delete(cls);
  bump("sessionsEnded");
}

// ---------------------------------------------------------------------------
// Readings

interface Row {
  atS: number;
  liveSessions: number;
  students: number;
  rssBytes: number;
  heapUsedBytes: number;
  externalBytes: number;
  loopDelay: { p50: number; p99: number; max: number };
  serverCpuMsPerS: number;
  counts: Counts;
  failures: number;
}

const mib = (b: number) => fmt(b / 2 ** 20, 1);
const HEADER =
  "| min | live sessions | students | RSS after GC (MiB) | heap used after GC (MiB) | external (MiB) | loop delay p50 / p99 / max (ms) | server CPU (ms/s) | sessions +/− | joins / leaves / reconnects | votes / steps / polls | teacher ack p99 (ms) | failures |\n" +
  "|---|---|---|---|---|---|---|---|---|---|---|---|---|";
function formatRow(r: Row): string {
  const c = r.counts;
  return `| ${fmt(r.atS / 60, 1)} | ${r.liveSessions} | ${r.students} | ${mib(r.rssBytes)} | ${mib(r.heapUsedBytes)} | ${mib(r.externalBytes)} | ${fmt(r.loopDelay.p50, 1)} / ${fmt(r.loopDelay.p99, 1)} / ${fmt(r.loopDelay.max, 0)} | ${fmt(r.serverCpuMsPerS, 0)} | ${c.sessionsStarted} / ${c.sessionsEnded} | ${c.joins} / ${c.leaves} / ${c.reconnects} | ${c.votes} / ${c.steps} / ${c.polls} | ${c.ackMs.length ? fmt(p99(c.ackMs), 0) : "–"} | ${r.failures} |`;
}

// ---------------------------------------------------------------------------

async function main(): Promise<void> {
  const started = Date.now();
  const load = os.loadavg();
  log(
    `soak: ${MINUTES} min of churn, ${SESSIONS} classes of ${CLASS_SIZE} at once, each living ${fmt(LIFETIME_MS[0] / 1000, 0)}–${fmt(LIFETIME_MS[1] / 1000, 0)} s; a row every ${SAMPLE_MS / 1000} s; load average ${load.map((l) => l.toFixed(1)).join(" ")}`,
  );
  // METRICS_ENV: the event-loop delay and the heap come from its GET /metrics. Sessions come and go faster than the
  // default creation limit allows.
  const server = await startServer("product", { ...METRICS_ENV, SESSION_CREATE_LIMIT: "100000" });
  url = server.url;
  const rows: Row[] = [];
  let lastCpu = serverCpuMs(server);
  let lastAt = Date.now();
  const sample = async (): Promise<Row> => {
    const r = await readingAfterGc(server);
    const now = Date.now();
    const cpu = serverCpuMs(server);
    const row: Row = {
      atS: (now - churnStart) / 1000,
      liveSessions: r.after.liveSessions,
      students: [...classes].reduce((s, c) => s + c.students.size, 0),
      rssBytes: r.bytes,
      heapUsedBytes: r.after.heapUsedBytes,
      externalBytes: r.after.externalBytes,
      loopDelay: { p50: r.loopDelay.p50Ms, p99: r.loopDelay.p99Ms, max: r.loopDelay.maxMs },
      serverCpuMsPerS: (cpu - lastCpu) / ((now - lastAt) / 1000),
      counts,
      failures: Object.values(failures).reduce((a, b) => a + b, 0),
    };
    counts = emptyCounts();
    lastCpu = cpu;
    lastAt = now;
    rows.push(row);
    console.log(formatRow(row));
    return row;
  };
  let churnStart = Date.now();
  try {
    // Warm-up: one short class through every code path the churn uses, so the baseline holds the compiled code.
    log("warm-up class");
    const warm = await openClass();
    while (warm.tasks.size) await Promise.all([...warm.tasks]);
    await step(warm);
    for (const [i, s] of [...warm.students].slice(0, 2).entries()) {
      leave(s, warm);
      await joinStudent(warm, i === 0 ? null : s); // one leaves for good (a new student comes), one comes back
    }
    await poll(warm);
    await endClass(warm);
    await sleep(2_000);
    Object.assign(totals, emptyCounts());
    churnStart = Date.now();
    console.log(`\n# Soak: ${MINUTES} min of churn on one product server (${new Date().toISOString()})\n`);
    console.log(HEADER);
    counts = emptyCounts();
    const baseline = await sample();

    // The churn: keep SESSIONS classes live; each second the students churn and due teachers act.
    const churnEnd = churnStart + CHURN_MS;
    let nextSample = Date.now() + SAMPLE_MS;
    const opening = new Set<Promise<void>>();
    while (Date.now() < churnEnd) {
      if (server.procs[0].exitCode !== null) throw new Error(`the server exited (${server.procs[0].exitCode})\n${server.output()}`);
      const now = Date.now();
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
      const live = [...classes].filter((c) => !c.ending).length + opening.size;
      for (let i = live; i < SESSIONS; i++) {
        const p: Promise<void> = openClass()
          .then(() => undefined)
          .catch((err: Error) => fail("session could not start", err.message))
          .finally(() => opening.delete(p));
        opening.add(p);
      }
      if (Date.now() >= nextSample) {
        await sample();
        nextSample = Date.now() + SAMPLE_MS;
      }
      await sleep(1_000 - ((Date.now() - churnStart) % 1_000));
    }

    // The end: every class ends and every socket closes; the server's memory must come back to the baseline.
    log("churn over: ending every class");
    while (opening.size) await Promise.all([...opening]);
    await Promise.all([...classes].map((c) => (c.ending ? Promise.resolve() : endClass(c))));
    while (classes.size) await sleep(100);
    await sleep(3_000); // presence broadcasts (500 ms) and socket clean-up
    await sample();
    await sleep(2_000);
    const end = await sample();

    const heapGrowth = end.heapUsedBytes - baseline.heapUsedBytes;
    const rssGrowth = end.rssBytes - baseline.rssBytes;
    const heapOk = heapGrowth <= HEAP_TOLERANCE_BYTES;
    const rssOk = rssGrowth <= RSS_TOLERANCE_BYTES;
    const sessionsOk = end.liveSessions === 0;
    const failed = Object.keys(failures).length > 0;
    const delays = rows.slice(1, -2).map((r) => r.loopDelay);
    console.log(
      `\nTotals: ${totals.sessionsStarted} sessions started and ${totals.sessionsEnded} ended; ${totals.joins} joins, ${totals.leaves} leaves, ` +
        `${totals.reconnects} reconnects; ${totals.votes} votes, ${totals.steps} steps, ${totals.polls} polls; teacher ack p99 ${fmt(p99(totals.ackMs), 0)} ms.`,
    );
    if (delays.length)
      console.log(
        `Event-loop delay over the churn (per row): p99 up to ${fmt(maxOf(delays.map((d) => d.p99)), 1)} ms, max up to ${fmt(maxOf(delays.map((d) => d.max)), 0)} ms.`,
      );
    console.log(
      `Memory after every session ended, after a forced GC, against the baseline before the churn:\n` +
        `- heap used ${mib(baseline.heapUsedBytes)} → ${mib(end.heapUsedBytes)} MiB (${heapGrowth >= 0 ? "+" : ""}${mib(heapGrowth)}; tolerance +${mib(HEAP_TOLERANCE_BYTES)}): ${heapOk ? "ok" : "NOT BACK"}\n` +
        `- RSS ${mib(baseline.rssBytes)} → ${mib(end.rssBytes)} MiB (${rssGrowth >= 0 ? "+" : ""}${mib(rssGrowth)}; tolerance +${mib(RSS_TOLERANCE_BYTES)}): ${rssOk ? "ok" : "NOT BACK"}\n` +
        `- live sessions in the server: ${end.liveSessions}${sessionsOk ? "" : " (should be 0)"}`,
    );
    if (failed) console.log(`\nFailures: ${JSON.stringify(failures)}\n${failureNotes.map((n) => `- ${n}`).join("\n")}`);
    else console.log("\nNo command or vote was refused or went unanswered; no reconnect came back as someone else; no socket was dropped.");
    console.log(
      `\nNode ${process.version}, ${os.cpus().length} CPUs, load average at start ${load.map((l) => l.toFixed(1)).join(" ")}, at end ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(" ")}; ${fmt((Date.now() - started) / 1000, 0)} s.`,
    );
    await server.stop();
    // SIGTERM: the server flushes its writes and exits 0 (server/index.ts); anything else is a failure too.
    const exitedCleanly = server.procs[0].exitCode === 0;
    if (!exitedCleanly)
      console.log(`The server did not shut down cleanly: exit code ${server.procs[0].exitCode}, signal ${server.procs[0].signalCode}.`);
    const ok = heapOk && rssOk && sessionsOk && !failed && exitedCleanly;
    console.log(ok ? "SOAK PASSED" : "SOAK FAILED");
    process.exit(ok ? 0 : 1);
  } catch (err) {
    console.error(`soak: ${(err as Error).message}\n--- server output (tail) ---\n${server.output().slice(-4_000)}`);
    killAll();
    process.exit(1);
  }
}

main().catch((err) => {
  console.error(err);
  killAll();
  process.exit(1);
});
