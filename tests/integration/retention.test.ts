import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SqliteSessionStore } from "../../server/store/sqlite";
import { setLogLevel } from "../../server/logger";
import { freePort } from "../support/loopback";
import { spawnServer, type ServerProcess } from "./process";
import { plant } from "./storeContractStores";

setLogLevel("silent");

// What a store's retention pass deletes, on SQLite and Redis alike, is the store contract's
// (storeContractRetention.test.ts); this is the server running it on its schedule.
describe("retention on schedule, through the server", () => {
  const procs: ServerProcess[] = [];
  afterEach(() => {
    for (const p of procs.splice(0)) p.proc.kill("SIGKILL");
  });

  it("RETENTION_DAYS deletes the ended sessions past it soon after start, logs it, and /api/sessions states the policy", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "classroom-retention-server-"));
    const store = new SqliteSessionStore(path.join(dataDir, "sessions.sqlite"));
    const old = await plant(store, { code: "OLDAAA", createdDaysAgo: 45, endedDaysAgo: 31 });
    const recent = await plant(store, { code: "RECENT", createdDaysAgo: 45, endedDaysAgo: 29 });
    await store.close();

    const admin = "admin-token-for-the-retention-test";
    const server = await spawnServer({
      dataDir,
      port: await freePort(),
      env: { RETENTION_DAYS: "30", ADMIN_TOKEN: admin, LOG_LEVEL: "info" },
    });
    procs.push(server);
    const deadline = Date.now() + 15_000;
    while (!server.output().includes("retention: deleted ended sessions") && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const line = server
      .output()
      .split("\n")
      .find((l) => l.includes("retention: deleted ended sessions"));
    expect(line, server.output()).toBeDefined();
    expect(JSON.parse(line!)).toMatchObject({ level: "info", sessions: 1, events: old.events, retentionDays: 30 });

    const res = await fetch(`${server.url}/api/sessions`, { headers: { authorization: `Bearer ${admin}` } });
    const list = (await res.json()) as { sessions: { id: string }[]; retention: unknown };
    expect(list.sessions.map((s) => s.id)).toEqual([recent.id]);
    expect(list.retention).toEqual({ endedSessionDays: 30, idleEndMinutes: 360 });
    // A teacher's own list states the same policy.
    const mine = await fetch(`${server.url}/api/sessions`);
    expect(((await mine.json()) as { retention: unknown }).retention).toEqual({ endedSessionDays: 30, idleEndMinutes: 360 });
  }, 30_000);
});
