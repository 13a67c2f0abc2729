import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, afterEach } from "vitest";
import type { CustomLesson } from "../../lib/lesson/model";
import type { SessionEvent, SessionEventBody } from "../../lib/session";
import { setLogLevel } from "../../server/logger";
import { DAY_MS } from "../../server/ops/retention";
import { hashSecret, newId } from "../../server/secrets";
import type { LessonStore } from "../../server/store/lessons";
import { openLessonStore } from "../../server/store/openLessons";
import { RedisSessionStore } from "../../server/store/redis";
import { connectRedis, type RedisClient } from "../../server/store/redisClient";
import { SqliteSessionStore } from "../../server/store/sqlite";
import type { NewSessionRecord, SessionStore } from "../../server/store/types";
import { startRedis, type RedisServer } from "../support/loopback";

/**
 * The two stores the store contract runs against, opened the way
 * server/index.ts opens them: SQLite on a real file in a temporary folder,
 * Redis on a real redis-server on a free loopback port (started once per
 * test file, stopped after it). Lessons live where sessions do
 * (openLessonStore). A case is written once and runs on both.
 */

/** One store's data, open: its sessions, and its lessons beside them. */
export interface OpenStores {
  sessions: SessionStore;
  lessons: LessonStore;
  /** Closes both and opens the same data again, as a restarted server does (rejects if the store refuses it). */
  reopen: () => Promise<OpenStores>;
  /** Rows or keys that still name the session anywhere: what retention must leave none of. */
  leftovers: (sessionId: string) => Promise<number>;
  /** Marks the data as written by a newer server, as a downgrade would find it. */
  markNewerSchema: () => Promise<void>;
  /** Takes away what accounts added (owners, co-teachers, consoles), as a server from before them left the data. */
  asBeforeAccounts: () => Promise<void>;
}

export interface StoreUnderTest {
  name: "SQLite" | "Redis";
  /** Empty data, opened. */
  open: () => Promise<OpenStores>;
}

/** The stores, for `describe.each`; closes what a test opened after it, and the redis-server after the file. */
export function storesUnderTest(): StoreUnderTest[] {
  setLogLevel("silent");
  const opened: { close(): Promise<void> }[] = [];
  let redis: RedisServer | null = null;
  afterEach(async () => {
    for (const store of opened.splice(0).reverse()) await store.close();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  const openSqlite = async (file: string): Promise<OpenStores> => {
    const sessions = new SqliteSessionStore(file);
    const lessons = openLessonStore(sessions, undefined)!;
    opened.push(sessions, lessons);
    return {
      sessions,
      lessons,
      reopen: async () => {
        await lessons.close();
        await sessions.close();
        return openSqlite(file);
      },
      leftovers: async (id) => {
        const db = new Database(file, { readonly: true });
        try {
          return ["sessions WHERE id = ?", "events WHERE session_id = ?", "participant_tokens WHERE session_id = ?"]
            .map((from) => db.prepare<[string], { n: number }>(`SELECT COUNT(*) AS n FROM ${from}`).get(id)!.n)
            .reduce((a, b) => a + b, 0);
        } finally {
          db.close();
        }
      },
      markNewerSchema: async () => {
        const db = new Database(file);
        db.pragma("user_version = 99");
        db.close();
      },
      asBeforeAccounts: async () => {
        const db = new Database(file);
        db.exec(`DROP TABLE session_consoles;
                 DROP TABLE session_coteachers;
                 DROP INDEX sessions_owner;
                 ALTER TABLE sessions DROP COLUMN owner_account_id;
                 ALTER TABLE sessions DROP COLUMN share_key;
                 PRAGMA user_version = 3;`);
        db.close();
      },
    };
  };

  const openRedis = async (url: string): Promise<OpenStores> => {
    // As the server connects its store: a command fails at once while Redis is unreachable.
    const client: RedisClient = await connectRedis(url, { failFast: true });
    const sessions = await RedisSessionStore.open(client).catch(async (err: unknown) => {
      await client.quit();
      throw err;
    });
    const lessons = openLessonStore(sessions, client)!;
    opened.push(sessions, lessons);
    return {
      sessions,
      lessons,
      reopen: async () => {
        await lessons.close();
        await sessions.close();
        return openRedis(url);
      },
      leftovers: async (id) => {
        const keys = (await client.sendCommand(["KEYS", `*${id}*`])) as string[];
        const listed = await client.sendCommand(["ZSCORE", "cls:sessions", id]);
        const live = await client.sendCommand(["SISMEMBER", "cls:live", id]);
        return keys.length + (listed === null ? 0 : 1) + Number(live);
      },
      markNewerSchema: async () => {
        await client.sendCommand(["SET", "cls:schema", "99"]);
      },
      asBeforeAccounts: async () => {
        const keys = (await client.sendCommand(["KEYS", "cls:cons:*"])) as string[];
        if (keys.length > 0) await client.sendCommand(["DEL", ...keys]);
        await client.sendCommand(["SET", "cls:schema", "1"]);
      },
    };
  };

  return [
    {
      name: "SQLite",
      open: () => openSqlite(path.join(fs.mkdtempSync(path.join(os.tmpdir(), "classroom-contract-")), "sessions.sqlite")),
    },
    {
      name: "Redis",
      open: async () => {
        redis ??= await startRedis();
        const flusher = await connectRedis(redis.url);
        await flusher.sendCommand(["FLUSHALL"]);
        await flusher.quit();
        return openRedis(redis.url);
      },
    },
  ];
}

const step = (from: string, to: string, title: string) => ({ from, to, line: "solid" as const, head: "filled" as const, title });
/** A small valid lesson, and an edit of it (a new title, one more step). */
export const handshake: CustomLesson = {
  title: "Handshake",
  summary: "Three messages open a connection.",
  lifelines: [
    { id: "C", name: "Client" },
    { id: "S", name: "Server" },
  ],
  steps: [step("C", "S", "SYN"), step("S", "C", "SYN-ACK"), step("C", "S", "ACK")],
};
export const revised: CustomLesson = { ...handshake, title: "Handshake, revised", steps: [...handshake.steps, step("C", "S", "Data")] };

/** The clock the planted sessions start from (ms). */
export const T0 = Date.UTC(2031, 8, 1, 9, 0, 0);

/** A session as the registry creates it, with its host key (the record holds only its hash). */
export interface PlantedSession {
  record: NewSessionRecord;
  hostKey: string;
  /** The log so far: `session:created`, then what `stamp` added. */
  log: SessionEvent[];
}

/** Creates a session (durable when it resolves); a fresh code unless one is given. */
export async function createSession(
  store: SessionStore,
  options: { code?: string; createdAt?: number; hostKey?: string } = {},
): Promise<PlantedSession> {
  const id = newId();
  const code = options.code ?? newId().slice(0, 6).toUpperCase();
  const createdAt = options.createdAt ?? T0;
  const hostKey = options.hostKey ?? `host-key-${id}`;
  const record: NewSessionRecord = { id, code, title: `Class ${code}`, hostKeyHash: hashSecret(hostKey), createdAt, endedAt: null };
  const created: SessionEvent = { type: "session:created", id, code, title: record.title, seq: 1, at: createdAt };
  await store.createSession(record, created);
  return { record, hostKey, log: [created] };
}

/** The session's next event, as the server stamps it: the next seq, a second after the last one unless `at` says. */
export function stamp(session: PlantedSession, body: SessionEventBody, at?: number): SessionEvent {
  const last = session.log[session.log.length - 1];
  const event: SessionEvent = { ...body, seq: last.seq + 1, at: at ?? last.at + 1000 };
  session.log.push(event);
  return event;
}

/** Stamps and appends (queued: durable at the next flush). */
export function append(store: SessionStore, session: PlantedSession, body: SessionEventBody, at?: number): SessionEvent {
  const event = stamp(session, body, at);
  store.append(session.record.id, event);
  return event;
}

/** A short class: two students join, a step, one poll with both votes, closed. Returns the two students' ids. */
export function appendClass(store: SessionStore, session: PlantedSession): [string, string] {
  const ana = newId();
  const bo = newId();
  append(store, session, { type: "participant:joined", participantId: ana, nickname: "Ana" });
  append(store, session, { type: "participant:joined", participantId: bo, nickname: "Bo" });
  append(store, session, { type: "step:changed", stepIndex: 3 });
  const options = [
    { id: "o1", text: "The scheduler picks a node" },
    { id: "o2", text: "The provisioner creates the disk" },
  ];
  append(store, session, {
    type: "poll:opened",
    poll: { id: "p1", kind: "custom", question: "What comes next?", options, correctOptionId: "o1" },
    closesAt: null,
  });
  append(store, session, { type: "poll:voted", pollId: "p1", participantId: ana, optionId: "o1" });
  append(store, session, { type: "poll:voted", pollId: "p1", participantId: bo, optionId: "o2" });
  append(store, session, { type: "poll:closed", pollId: "p1", counts: { o1: 1, o2: 1 }, total: 2 });
  return [ana, bo];
}

const NOW = Date.now();
/** `d` days before this test file started (ms). */
export const daysAgo = (d: number) => NOW - d * DAY_MS;

/** A session as a class leaves it: created, one student (with a token), a shared replay, and ended (or not). */
export async function plant(store: SessionStore, options: { code: string; createdDaysAgo: number; endedDaysAgo: number | null }) {
  const s = await createSession(store, { code: options.code, createdAt: daysAgo(options.createdDaysAgo) });
  const participantId = newId();
  const tokenHash = hashSecret(`token-${s.record.id}`);
  await store.saveParticipantToken(s.record.id, participantId, tokenHash);
  append(store, s, { type: "participant:joined", participantId, nickname: "Ana" });
  if (options.endedDaysAgo !== null) append(store, s, { type: "session:ended" }, daysAgo(options.endedDaysAgo));
  await store.flush();
  await store.setReplaySharing(s.record.id, hashSecret(`share-${s.record.id}`), 0);
  return { id: s.record.id, code: options.code, hostKeyHash: s.record.hostKeyHash, tokenHash, events: s.log.length };
}
export type Planted = Awaited<ReturnType<typeof plant>>;
