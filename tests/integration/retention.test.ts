import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { SessionEvent } from "../../lib/session";
import { DAY_MS } from "../../server/ops/retention";
import { hashSecret, newId } from "../../server/secrets";
import { RedisSessionStore, connectRedis, type RedisClient } from "../../server/store/redis";
import { SqliteSessionStore } from "../../server/store/sqlite";
import type { SessionStore } from "../../server/store/types";
import { setLogLevel } from "../../server/logger";
import { freePort, startRedis, type RedisServer } from "../support/loopback";
import { spawnServer, type ServerProcess } from "./process";

setLogLevel("silent");

const NOW = Date.now();
const daysAgo = (d: number) => NOW - d * DAY_MS;

interface Planted {
  id: string;
  code: string;
  hostKeyHash: string;
  tokenHash: string;
  events: number;
}

/** A session as a class leaves it: created, one student (with a token), a shared replay, and ended (or not). */
async function plant(store: SessionStore, opts: { code: string; createdDaysAgo: number; endedDaysAgo: number | null }): Promise<Planted> {
  const id = newId();
  const createdAt = daysAgo(opts.createdDaysAgo);
  const hostKeyHash = hashSecret(`host-${id}`);
  const tokenHash = hashSecret(`token-${id}`);
  const created: SessionEvent = { type: "session:created", id, code: opts.code, title: "Class", seq: 1, at: createdAt };
  await store.createSession({ id, code: opts.code, title: "Class", hostKeyHash, createdAt, endedAt: null }, created);
  const participantId = newId();
  await store.saveParticipantToken(id, participantId, tokenHash);
  store.append(id, { type: "participant:joined", participantId, nickname: "Ana", seq: 2, at: createdAt + 1000 });
  let events = 2;
  if (opts.endedDaysAgo !== null) {
    store.append(id, { type: "session:ended", seq: 3, at: daysAgo(opts.endedDaysAgo) });
    events = 3;
  }
  await store.flush();
  await store.setReplaySharing(id, hashSecret(`share-${id}`), 0);
  return { id, code: opts.code, hostKeyHash, tokenHash, events };
}

async function expectKept(store: SessionStore, s: Planted) {
  expect(await store.getSession(s.id)).not.toBeNull();
  expect(await store.loadEvents(s.id)).toHaveLength(s.events);
  expect(await store.findParticipantByToken(s.id, s.tokenHash)).not.toBeNull();
  expect(await store.sessionIdsByHostKeyHash([s.hostKeyHash])).toEqual([s.id]);
}

let redis: RedisServer | null = null;
const clients: RedisClient[] = [];
afterAll(async () => {
  for (const c of clients) await c.quit().catch(() => undefined);
  await redis?.stop();
});

const stores: { name: string; open: () => Promise<{ store: SessionStore; leftovers: (id: string) => Promise<number> }> }[] = [
  {
    name: "SQLite",
    open: async () => {
      const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "classroom-retention-")), "sessions.sqlite");
      const store = new SqliteSessionStore(file);
      const leftovers = async (id: string) => {
        const db = new Database(file, { readonly: true });
        try {
          return ["sessions WHERE id = ?", "events WHERE session_id = ?", "participant_tokens WHERE session_id = ?"]
            .map((from) => db.prepare<[string], { n: number }>(`SELECT COUNT(*) AS n FROM ${from}`).get(id)!.n)
            .reduce((a, b) => a + b, 0);
        } finally {
          db.close();
        }
      };
      return { store, leftovers };
    },
  },
  {
    name: "Redis",
    open: async () => {
      redis ??= await startRedis();
      const client = await connectRedis(redis.url);
      clients.push(client);
      await client.sendCommand(["FLUSHALL"]);
      const store = await RedisSessionStore.open(client);
      // Every key that names the session, or lists it.
      const leftovers = async (id: string) => {
        const keys = (await client.sendCommand(["KEYS", `*${id}*`])) as string[];
        const listed = await client.sendCommand(["ZSCORE", "cls:sessions", id]);
        const live = await client.sendCommand(["SISMEMBER", "cls:live", id]);
        return keys.length + (listed === null ? 0 : 1) + Number(live);
      };
      return { store, leftovers };
    },
  },
];

describe.each(stores)("retention on $name", ({ open }) => {
  it("deletes sessions that ended before the cutoff with their events, tokens and share keys, and nothing else", async () => {
    const { store, leftovers } = await open();
    const old = await plant(store, { code: "OLDAAA", createdDaysAgo: 45, endedDaysAgo: 40 });
    const older = await plant(store, { code: "OLDBBB", createdDaysAgo: 400, endedDaysAgo: 399 });
    // Created long ago but ended recently: what counts is when it ended.
    const recent = await plant(store, { code: "RECENT", createdDaysAgo: 45, endedDaysAgo: 10 });
    // Never ended (the idle timeout ends a forgotten one first): never deleted here.
    const live = await plant(store, { code: "LIVEAA", createdDaysAgo: 100, endedDaysAgo: null });
    // A newer live session reusing an old one's room code keeps it.
    const reused = await plant(store, { code: "OLDAAA", createdDaysAgo: 1, endedDaysAgo: null });

    // Shutdown: an aborted pass deletes nothing more.
    expect(await store.deleteEndedBefore(daysAgo(30), AbortSignal.abort())).toEqual({ sessions: 0, events: 0 });
    await expectKept(store, old);
    expect(await store.deleteEndedBefore(daysAgo(30))).toEqual({ sessions: 2, events: old.events + older.events });

    for (const gone of [old, older]) {
      expect(await store.getSession(gone.id)).toBeNull();
      expect(await store.loadEvents(gone.id)).toEqual([]);
      expect(await store.findParticipantByToken(gone.id, gone.tokenHash)).toBeNull();
      expect(await store.sessionIdsByHostKeyHash([gone.hostKeyHash])).toEqual([]);
      expect(await leftovers(gone.id)).toBe(0);
    }
    for (const kept of [recent, live, reused]) await expectKept(store, kept);
    expect((await store.getSession(recent.id))?.shareKeyHash).toBe(hashSecret(`share-${recent.id}`));
    expect((await store.findByCode("OLDAAA"))?.id).toBe(reused.id);
    expect((await store.listSessions()).map((s) => s.id).sort()).toEqual([recent.id, live.id, reused.id].sort());

    // Nothing is left to delete; later, the recent one's turn comes.
    expect(await store.deleteEndedBefore(daysAgo(30))).toEqual({ sessions: 0, events: 0 });
    expect(await store.deleteEndedBefore(daysAgo(5))).toEqual({ sessions: 1, events: recent.events });
    await expectKept(store, live);
    await store.close();
  });
});

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
