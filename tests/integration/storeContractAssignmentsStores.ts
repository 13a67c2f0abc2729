import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, afterEach } from "vitest";
import type { Assignment, AssignmentStudent } from "../../lib/course/types";
import { setLogLevel } from "../../server/logger";
import { hashSecret, newId } from "../../server/secrets";
import type { AssignmentStore } from "../../server/store/assignments";
import { openAssignmentStore } from "../../server/store/openAssignments";
import { RedisSessionStore } from "../../server/store/redis";
import { asStrings, connectRedis } from "../../server/store/redisClient";
import { SqliteSessionStore } from "../../server/store/sqlite";
import type { SessionStore } from "../../server/store/types";
import { startRedis, type RedisServer } from "../support/loopback";
import { T0 } from "./storeContractStores";

/**
 * The two assignment stores the contract runs against
 * (tests/integration/storeContractAssignments.test.ts), opened as the server
 * opens them: openAssignmentStore beside a session store, on a SQLite file in
 * a temporary folder, or on a real redis-server on a free port in 6800-6899
 * (started once per test file, flushed before each test, stopped after the file).
 */
export interface Opened {
  store: AssignmentStore;
  /** Closes the store and opens the same data again, as a restarted server does. */
  reopen: () => Promise<Opened>;
  /** The same data through a second connection, this one left open: what another process would read now. */
  alongside: () => Promise<Opened>;
  /** Rows or keys that still name the assignment anywhere, read under the store (what a removal must leave none of). */
  leftovers: (assignmentId: string) => Promise<number>;
}

const closers: { close(): Promise<void> }[] = [];

async function openSqlite(file: string): Promise<Opened> {
  const sessions = new SqliteSessionStore(file);
  return track(
    sessions,
    openAssignmentStore(sessions, undefined),
    () => openSqlite(file),
    async (id) => {
      const db = new Database(file, { readonly: true });
      try {
        return ["assignments WHERE id = ?", "assignment_students WHERE assignment_id = ?", "assignment_answers WHERE assignment_id = ?"]
          .map((from) => db.prepare<[string], { n: number }>(`SELECT COUNT(*) AS n FROM ${from}`).get(id)!.n)
          .reduce((a, b) => a + b, 0);
      } finally {
        db.close();
      }
    },
  );
}

function track(
  sessions: SessionStore,
  store: AssignmentStore | undefined,
  again: () => Promise<Opened>,
  leftovers: Opened["leftovers"],
): Opened {
  if (!store) throw new Error("the session store keeps no assignments");
  closers.push(sessions, store);
  return {
    store,
    reopen: async () => {
      await store.close();
      await sessions.close();
      return again();
    },
    alongside: again,
    leftovers,
  };
}

/** Ports 6800-6899 are this file's (the machine runs other agents' servers); the first free one. */
async function portInRange(): Promise<number> {
  for (let port = 6800 + Math.floor(Math.random() * 100), tries = 0; tries < 100; tries++, port = 6800 + ((port - 6800 + 1) % 100)) {
    const free = await new Promise<boolean>((resolve) => {
      const probe = net.createServer();
      probe.once("error", () => resolve(false));
      probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error("no free port in 6800-6899");
}

let redis: RedisServer | null = null;

async function openRedis(url: string): Promise<Opened> {
  const client = await connectRedis(url, { failFast: true });
  const sessions = await RedisSessionStore.open(client);
  return track(
    sessions,
    openAssignmentStore(sessions, client),
    () => openRedis(url),
    async (id) => {
      const keys = asStrings(await client.sendCommand(["KEYS", `*${id}*`]));
      // The owner's list names it as a member, not in a key.
      const listed = asStrings(await client.sendCommand(["KEYS", "cls:asg-owner:*"]));
      const members = await Promise.all(listed.map((k) => client.sendCommand(["ZSCORE", k, id])));
      return keys.length + members.filter((m) => m !== null).length;
    },
  );
}

/** The stores, for `describe.each`; closes what a test opened after it, and the redis-server after the file. */
export function assignmentStoresUnderTest() {
  setLogLevel("silent");
  afterEach(async () => {
    for (const c of closers.splice(0).reverse()) await c.close();
  });
  afterAll(async () => {
    await redis?.stop();
    redis = null;
  });
  return stores;
}

const stores = [
  { name: "SQLite", open: () => openSqlite(path.join(fs.mkdtempSync(path.join(os.tmpdir(), "classroom-assign-")), "sessions.sqlite")) },
  {
    name: "Redis",
    open: async () => {
      redis ??= await startRedis({ port: await portInRange() });
      const flusher = await connectRedis(redis.url);
      await flusher.sendCommand(["FLUSHALL"]);
      await flusher.quit();
      return openRedis(redis.url);
    },
  },
];

/** An assignment of the built-in scenario with two polls, made by `owner` at `createdAt`. */
export function assignment(owner: string, createdAt = T0, extra: Partial<Assignment> = {}): Assignment {
  const options = [
    { id: "a", text: "The scheduler picks a node", note: "Right: binding waits for the pod." },
    { id: "b", text: "The provisioner creates the disk", note: "Immediate binding does that; this class waits." },
  ];
  return {
    id: newId(),
    title: "Dynamic provisioning",
    ownerAccountId: owner,
    source: { kind: "builtin", mode: "WaitForFirstConsumer", variant: "standard" },
    lessonKey: "builtin",
    mode: "WaitForFirstConsumer",
    variant: "standard",
    kubeVersion: "1.35",
    lesson: null,
    stepCount: 12,
    polls: [
      { id: "p1", key: "k1", kind: "next-step", stepIndex: 2, question: "What happens next?", options, correctOptionId: "a" },
      { id: "p2", key: "k2", kind: "custom", stepIndex: 5, question: "Which do you use?", options, correctOptionId: null },
    ],
    dueAt: null,
    requireNickname: false,
    createdAt,
    closedAt: null,
    ...extra,
  };
}

export function student(assignmentId: string, extra: Partial<AssignmentStudent> = {}): AssignmentStudent {
  const id = newId();
  return {
    id,
    assignmentId,
    tokenHash: hashSecret(`token-${id}`),
    nickname: "Ana",
    address: "10.0.0.1",
    startedAt: T0 + 1_000,
    stepIndex: 0,
    furthestStep: 0,
    finishedAt: null,
    updatedAt: T0 + 1_000,
    ...extra,
  };
}
