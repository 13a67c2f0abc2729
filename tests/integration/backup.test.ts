import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { replay, type SessionEvent } from "../../lib/session";
import { connectClient, waitUntil, type TestClient } from "./harness";
import { freePort } from "../support/loopback";
import { spawnServer, type ServerProcess } from "./process";
import { SqliteSessionStore } from "../../server/store/sqlite";

const ROOT = path.resolve(__dirname, "../..");
const ADMIN_TOKEN = "admin-token-for-the-backup-test";

const procs: ServerProcess[] = [];
const clients: TestClient[] = [];
const track = (c: TestClient) => (clients.push(c), c);
afterEach(() => {
  for (const c of clients.splice(0)) c.close();
  for (const p of procs.splice(0)) p.proc.kill("SIGKILL");
});

/** `npm run backup -- <args>` as an operator types it (`direct`: the script npm runs, without npm's start-up). */
function backup(
  args: string[],
  env: Record<string, string>,
  direct = false,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const [command, argv] = direct
      ? [process.execPath, ["--import", "tsx", "scripts/backup.ts", ...args]]
      : ["npm", ["run", "-s", "backup", "--", ...args]];
    const child = spawn(command, argv, { cwd: ROOT, env: { ...process.env, ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.once("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

async function createSession(url: string, title: string): Promise<{ id: string; code: string; hostKey: string }> {
  const res = await fetch(`${url}/api/sessions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ title }),
  });
  return (await res.json()) as { id: string; code: string; hostKey: string };
}

async function adminGet<T>(url: string, apiPath: string): Promise<T> {
  const res = await fetch(`${url}${apiPath}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  expect(res.status, apiPath).toBe(200);
  return (await res.json()) as T;
}

const eventsOf = async (url: string, id: string) => (await adminGet<{ events: SessionEvent[] }>(url, `/api/sessions/${id}/events`)).events;

describe("backup and restore", () => {
  it("a backup taken while a class runs restores into a fresh data folder, where a server replays every session", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "classroom-live-"));
    const live = await spawnServer({ dataDir, port: await freePort(), env: { ADMIN_TOKEN } });
    procs.push(live);

    // One class that already ended.
    const earlier = await createSession(live.url, "Monday");
    const teacher1 = track(await connectClient(live.url, { role: "host", code: earlier.code, hostKey: earlier.hostKey }));
    const ana = track(await connectClient(live.url, { role: "student", code: earlier.code, nickname: "Ana" }));
    await teacher1.emit("step:go", { stepIndex: 3 });
    const poll1 = await teacher1.emit("poll:open", { kind: "custom", question: "Ready?", options: ["yes", "no"] });
    if (!poll1.ok) throw new Error(poll1.error.message);
    const poll1Id = (poll1.data as { pollId: string }).pollId;
    await ana.waitFor((c) => c.public().poll?.id === poll1Id);
    expect((await ana.emit("poll:vote", { pollId: poll1Id, optionId: ana.public().poll!.options[1].id })).ok).toBe(true);
    expect((await teacher1.emit("session:end", {})).ok).toBe(true);

    // One class live during the backup, with an open poll and votes.
    const now = await createSession(live.url, "Tuesday");
    const teacher = track(await connectClient(live.url, { role: "host", code: now.code, hostKey: now.hostKey }));
    const students: TestClient[] = [];
    for (const nickname of ["Bo", "Cy", "Di", "Ed", "Flo"]) {
      students.push(track(await connectClient(live.url, { role: "student", code: now.code, nickname })));
    }
    await teacher.emit("step:go", { stepIndex: 4 });
    const poll2 = await teacher.emit("poll:open", { kind: "next-step" });
    if (!poll2.ok) throw new Error(poll2.error.message);
    const poll2Id = (poll2.data as { pollId: string }).pollId;
    for (const [i, s] of students.entries()) {
      await s.waitFor((c) => c.public().poll?.id === poll2Id);
      expect((await s.emit("poll:vote", { pollId: poll2Id, optionId: s.public().poll!.options[i % 2].id })).ok).toBe(true);
    }
    const acknowledgedBefore = (await eventsOf(live.url, now.id)).length;

    // The class keeps writing while the backup runs: the projector panel changes ten times a second.
    let busy = true;
    let written = 0;
    const panels = ["objects", "topology"] as const;
    const writing = (async () => {
      while (busy) {
        if ((await teacher.emit("projector:show", { panel: panels[written % 2] })).ok) written++;
        // A teacher's pace: ten changes a second, for as long as the backup takes.
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    // The class is writing: its first change is acknowledged (so on disk) before the backup starts.
    await waitUntil(() => written > 0);
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "classroom-backups-")), "nightly", "sessions-copy.sqlite");
    const result = await backup([file], { DATA_DIR: dataDir });
    const writtenDuringBackup = written;
    busy = false;
    await writing;
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/2 sessions \(1 live\)/);
    expect(writtenDuringBackup).toBeGreaterThan(0);
    // One self-contained file: nothing beside it to forget.
    expect(fs.readdirSync(path.dirname(file))).toEqual(["sessions-copy.sqlite"]);

    // Restore, as README "Operations" says: a fresh data folder holding the copy as sessions.sqlite, a server on it.
    const restoredDir = fs.mkdtempSync(path.join(os.tmpdir(), "classroom-restored-"));
    fs.copyFileSync(file, path.join(restoredDir, "sessions.sqlite"));
    const restored = await spawnServer({ dataDir: restoredDir, port: await freePort(), env: { ADMIN_TOKEN } });
    procs.push(restored);

    const list = await adminGet<{ sessions: { id: string; status: string }[] }>(restored.url, "/api/sessions");
    expect(list.sessions.map((s) => [s.id, s.status]).sort()).toEqual(
      [
        [earlier.id, "ended"],
        [now.id, "live"],
      ].sort(),
    );
    for (const { id } of list.sessions) {
      const copied = await eventsOf(restored.url, id);
      const original = await eventsOf(live.url, id);
      // Every session replays from the copy: a gapless log, one consistent moment of the original.
      expect(copied.map((e) => e.seq)).toEqual(copied.map((_, i) => i + 1));
      expect(copied).toEqual(original.slice(0, copied.length));
      const state = replay(copied);
      expect(state.id).toBe(id);
      if (id === earlier.id) {
        expect(copied).toEqual(original);
        expect(state.status).toBe("ended");
      } else {
        // Everything acknowledged before the backup started is in it.
        expect(copied.length).toBeGreaterThanOrEqual(acknowledgedBefore);
        expect(state.status).toBe("live");
      }
    }

    // The live class is live again on the restored server, where the copy left it, and carries on.
    const copiedNow = replay(await eventsOf(restored.url, now.id));
    const back = track(await connectClient(restored.url, { role: "host", code: now.code, hostKey: now.hostKey }));
    expect(back.host()).toMatchObject({ rev: copiedNow.seq, stepIndex: 4, status: "live" });
    expect(back.host().poll).toMatchObject({ id: poll2Id, status: "open", results: { total: 5 } });
    expect((await back.emit("step:go", { stepIndex: 5 })).ok).toBe(true);
  }, 60_000);

  it("refuses to write over the live database, and says what to do with Redis", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "classroom-refuse-"));
    new SqliteSessionStore(path.join(dataDir, "sessions.sqlite")).closeSync();
    const before = fs.readFileSync(path.join(dataDir, "sessions.sqlite"));
    const [over, redis, usage] = await Promise.all([
      backup([path.join(dataDir, "sessions.sqlite")], { DATA_DIR: dataDir }, true),
      backup([path.join(dataDir, "copy.sqlite")], { DATA_DIR: dataDir, REDIS_URL: "redis://127.0.0.1:1" }, true),
      backup([], { DATA_DIR: dataDir }, true),
    ]);
    expect(over).toMatchObject({ code: 2, stderr: expect.stringMatching(/over the live database/) });
    expect(redis).toMatchObject({ code: 2, stderr: expect.stringMatching(/REDIS_URL is set/) });
    expect(usage).toMatchObject({ code: 2, stderr: expect.stringMatching(/usage: npm run backup -- <file>/) });
    expect(fs.readdirSync(dataDir)).toEqual(["sessions.sqlite"]);
    expect(fs.readFileSync(path.join(dataDir, "sessions.sqlite")).equals(before)).toBe(true);
  }, 30_000);
});
