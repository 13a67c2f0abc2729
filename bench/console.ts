import { existsSync } from "node:fs";
import path from "node:path";
import { chromium } from "@playwright/test";
import { io, type ManagerOptions, type Socket, type SocketOptions } from "socket.io-client";
import { PROTOCOL_VERSION, type Patch } from "../lib/protocol/wire";
import { ADDRESSES } from "./cli";
import { log } from "./log";
import { ROOT, killAll } from "./processes";
import { startProductNode } from "./servers";
import { fmt, maxOf } from "./stats";
import { freePort, stopProcess } from "../tests/support/loopback";
import { sleep, withTimeout } from "./wait";
import { firstClassSession } from "./patch";

/**
 * The teacher's console while a lecture hall joins and votes
 * (`npm run bench:console -- --n=5000`): the real console in Chromium
 * (Debian's, as the e2e tests use it), N students joining from 30 loopback
 * addresses, then one more joining and leaving, then everyone voting within
 * a second. It prints what the console's WebSocket received (bytes per
 * message, by event; the teacher's `session:patch`es, the host stream, by
 * what they carry: whole, or the records they put and delete, a roster row
 * `r:*`) and the longest task on the page's main thread
 * (PerformanceObserver `longtask`, which reports tasks over 50 ms).
 *
 * Targets (issue 14): a presence or vote update to the console under 5 KB at
 * 5,000 students; no long task over 200 ms while they join. The students'
 * sockets, the browser and the server share this machine's cores, so the
 * long-task figure is an upper bound on what a teacher's laptop would see.
 */

function arg(name: string, fallback: string): string {
  const hit = process.argv.slice(2).find((a) => a.startsWith(`--${name}=`));
  return hit ? hit.slice(name.length + 3) : fallback;
}

const N = Number(arg("n", "5000"));
const IN_FLIGHT = 200;
const UPDATE_TARGET_BYTES = 5_000;
const LONG_TASK_TARGET_MS = 200;

interface Frame {
  at: number;
  event: string;
  bytes: number;
}

interface LongTask {
  start: number;
  duration: number;
}

/** `localAddress` is passed through to Node's ws (socket.io-client's types do not list it). */
const studentOptions = (code: string, k: number) => ({
  transports: ["websocket"],
  reconnection: false,
  forceNew: true,
  auth: { v: PROTOCOL_VERSION, role: "student", code, nickname: `Student ${k + 1}` },
  localAddress: ADDRESSES[k % ADDRESSES.length],
});

/** What a patch carries, for the frames table: its stream, and whole or the kinds of record it puts and deletes. */
function patchKind(patch: Patch): string {
  if (patch.whole) return `${patch.stream} whole`;
  const kind = (key: string) => (key.includes(":") ? `${key.slice(0, key.indexOf(":") + 1)}*` : key);
  const kinds = new Set([...Object.keys(patch.put ?? {}).map(kind), ...(patch.del ?? []).map((k: string) => `-${kind(k)}`)]);
  return `${patch.stream}${patch.volatile ? " volatile" : ""} {${[...kinds].join(", ")}}`;
}

/** A frame's label: the socket.io event (a patch with what it carries), an ack, or engine.io's own. */
function frameEvent(text: string): string {
  const event = /^42\["([^"]+)"/.exec(text)?.[1];
  if (!event) return text.startsWith("43") ? "(ack)" : "(engine.io)";
  if (event !== "session:patch") return event;
  try {
    return `${event} ${patchKind((JSON.parse(text.slice(2)) as [string, Patch])[1])}`;
  } catch {
    return event;
  }
}

function joinOne(url: string, code: string, k: number): Promise<Socket> {
  const socket = io(url, studentOptions(code, k) as Partial<ManagerOptions & SocketOptions>);
  // Joined once the class's records arrive (the whole patch after the welcome).
  return withTimeout(
    firstClassSession(socket).then(() => socket),
    30_000,
    `student ${k + 1} join`,
  );
}

async function main(): Promise<void> {
  if (!Number.isInteger(N) || N < 1 || N > 10_000) throw new Error("--n takes a class size, 1..10000");
  if (!existsSync(path.join(ROOT, ".next", "BUILD_ID"))) throw new Error("the console needs a production build: run `npm run build` first");
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const server = await startProductNode(port, { SERVE_PAGES: "1" });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      "--disable-quic",
    ],
  });
  const students: Socket[] = [];
  try {
    const res = await fetch(`${url}/api/sessions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ title: "Console benchmark" }),
    });
    if (res.status !== 201) throw new Error(`POST /api/sessions: ${res.status}`);
    const session = (await res.json()) as { code: string; hostKey: string };

    const page = await (await browser.newContext({ viewport: { width: 1440, height: 1000 } })).newPage();
    await page.addInitScript(() => {
      const tasks: { start: number; duration: number }[] = [];
      Reflect.set(window, "__longTasks", tasks);
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) tasks.push({ start: e.startTime, duration: e.duration });
      }).observe({ type: "longtask", buffered: true });
    });
    let frames: Frame[] = [];
    page.on("websocket", (ws) =>
      ws.on("framereceived", ({ payload }) => {
        const text = typeof payload === "string" ? payload : payload.toString("utf8");
        frames.push({ at: Date.now(), event: frameEvent(text), bytes: Buffer.byteLength(text) });
      }),
    );
    await page.goto(`${url}/host/${session.code}#key=${session.hostKey}`);
    await page.getByTestId("room-code").waitFor();
    const longTasks = async (): Promise<LongTask[]> => page.evaluate(() => Reflect.get(window, "__longTasks") as LongTask[]);
    const clearLongTasks = () => page.evaluate(() => void (Reflect.get(window, "__longTasks") as LongTask[]).splice(0));
    const shown = async () => Number((await page.getByTestId("participant-count").textContent()) ?? "-1");
    const waitShown = async (n: number, what: string) => {
      const start = Date.now();
      while ((await shown()) !== n) {
        if (Date.now() - start > 120_000) throw new Error(`${what}: the console shows ${await shown()} connected, expected ${n}`);
        await sleep(100);
      }
    };
    const take = () => {
      const out = frames;
      frames = [];
      return out;
    };
    await sleep(1_000);
    take();
    await clearLongTasks();

    // 1. The join storm.
    log(`joining ${N} students (${IN_FLIGHT} in flight, ${ADDRESSES.length} addresses)…`);
    const stormStart = Date.now();
    let next = 0;
    const failures = new Map<string, number>();
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < N) {
          const k = next++;
          try {
            students.push(await joinOne(url, session.code, k));
          } catch (err) {
            const key = (err as Error).message;
            failures.set(key, (failures.get(key) ?? 0) + 1);
          }
        }
      }),
    );
    const joinedAt = Date.now();
    await waitShown(students.length, "after the join storm");
    const shownAt = Date.now();
    await sleep(1_000);
    const storm = take();
    const stormTasks = await longTasks();
    await clearLongTasks();

    // 2. One more student joins, then leaves.
    const late = await joinOne(url, session.code, N);
    await waitShown(students.length + 1, "after one join");
    await sleep(700);
    const oneJoin = take();
    late.close();
    await waitShown(students.length, "after one leave");
    await sleep(700);
    const oneLeave = take();

    // 3. Everyone votes within a second (a teacher tab opens the poll and shows live results).
    const host = io(url, {
      transports: ["websocket"],
      reconnection: false,
      forceNew: true,
      auth: { v: PROTOCOL_VERSION, role: "host", code: session.code, hostKey: session.hostKey },
    });
    await withTimeout(new Promise<void>((resolve) => host.once("session:patch", () => resolve())), 10_000, "bench teacher connect");
    const open = (await host.timeout(10_000).emitWithAck("poll:open", { kind: "next-step" })) as { ok: boolean; data?: { pollId: string } };
    if (!open.ok || !open.data) throw new Error(`poll:open refused: ${JSON.stringify(open)}`);
    const pollId = open.data.pollId;
    await sleep(1_000);
    take();
    await clearLongTasks();
    // The poll's options from a student's records, sent whole again on a resync.
    const synced = firstClassSession(students[0]);
    students[0].emit("session:sync", {}, () => undefined);
    const optionIds = (await withTimeout(synced, 10_000, "a student's resync")).poll?.options.map((o) => o.id) ?? [];
    if (optionIds.length === 0) throw new Error("the poll did not reach the students");
    let acked = 0;
    await Promise.all(
      students.map(
        (s, i) =>
          new Promise<void>((resolve) =>
            setTimeout(
              () =>
                void s
                  .timeout(30_000)
                  .emitWithAck("poll:vote", { pollId, optionId: optionIds[i % optionIds.length] })
                  .then((r: { ok?: boolean }) => void (r.ok && acked++))
                  .catch(() => undefined)
                  .finally(resolve),
              (1_000 * i) / students.length,
            ),
          ),
      ),
    );
    await sleep(1_000);
    const burst = take();
    const burstTasks = await longTasks();
    host.close();

    // What the whole roster costs once (what every presence update cost when the roster rode in each host snapshot).
    take();
    await page.reload();
    await waitShown(students.length, "after a reload");
    await sleep(500);
    const reload = take();
    const report = (name: string, fs: Frame[]) => {
      const byEvent = new Map<string, { n: number; bytes: number; max: number }>();
      for (const f of fs) {
        const e = byEvent.get(f.event) ?? { n: 0, bytes: 0, max: 0 };
        e.n += 1;
        e.bytes += f.bytes;
        e.max = Math.max(e.max, f.bytes);
        byEvent.set(f.event, e);
      }
      const updates = fs.filter((f) => f.event !== "(engine.io)" && f.event !== "(ack)");
      return { name, byEvent, total: fs.reduce((s, f) => s + f.bytes, 0), maxUpdate: maxOf(updates.map((f) => f.bytes)) };
    };
    const phases = [
      report(`join storm (${students.length} students)`, storm),
      report("one join", oneJoin),
      report("one leave", oneLeave),
      report(`vote burst (${acked} acked)`, burst),
      report("console reload: the whole roster once", reload),
    ];

    console.log(`\n### The teacher's console at N = ${N}\n`);
    console.log(
      `Joined ${students.length} of ${N} in ${fmt((joinedAt - stormStart) / 1000, 1)} s` +
        (failures.size ? ` (refused: ${[...failures].map(([k, v]) => `${k} ×${v}`).join(", ")})` : "") +
        `; the console showed all of them ${fmt((shownAt - joinedAt) / 1000, 2)} s after the last join.\n`,
    );
    console.log("| phase | messages to the console | bytes in all | largest update (bytes) | target |");
    console.log("|---|---|---|---|---|");
    for (const p of phases) {
      const events = [...p.byEvent]
        .filter(([e]) => e !== "(engine.io)")
        .map(([e, v]) => `${e} ×${v.n} (max ${v.max} B)`)
        .join(", ");
      const target =
        p.name.startsWith("join storm") || p.name.startsWith("console reload")
          ? ""
          : `< ${UPDATE_TARGET_BYTES} B ${p.maxUpdate < UPDATE_TARGET_BYTES ? "✓" : "✗"}`;
      console.log(`| ${p.name} | ${events || "none"} | ${p.total} | ${p.maxUpdate === -Infinity ? 0 : p.maxUpdate} | ${target} |`);
    }
    const longest = (ts: LongTask[]) => (ts.length ? maxOf(ts.map((t) => t.duration)) : 0);
    console.log("\n| phase | long tasks (> 50 ms) | longest (ms) | target |");
    console.log("|---|---|---|---|");
    for (const [name, ts] of [
      ["join storm", stormTasks],
      ["vote burst", burstTasks],
    ] as const) {
      const l = longest(ts);
      console.log(`| ${name} | ${ts.length} | ${fmt(l, 0)} | ≤ ${LONG_TASK_TARGET_MS} ms ${l <= LONG_TASK_TARGET_MS ? "✓" : "✗"} |`);
    }
  } finally {
    for (const s of students) s.close();
    await browser.close();
    await stopProcess(server.proc, 5_000);
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    killAll();
    process.exit(1);
  },
);
