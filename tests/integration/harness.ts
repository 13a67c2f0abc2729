import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { io as connect, type Socket } from "socket.io-client";
import { afterEach, beforeEach } from "vitest";
import {
  PROTOCOL_VERSION,
  type Ack,
  type AnySnapshot,
  type ClientToServerEvents,
  type MyVote,
  type ServerToClientEvents,
  type TallyUpdate,
  type Welcome,
} from "../../lib/protocol";
import { createClassroomServer, type ClassroomServer } from "../../server/app";
import { setLogLevel } from "../../server/logger";
import { SqliteSessionStore } from "../../server/store/sqlite";

export type ClientSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

setLogLevel("silent");

export interface TestServer {
  server: ClassroomServer;
  url: string;
  dataDir: string;
  store: SqliteSessionStore;
  createSession(title?: string): Promise<{ id: string; code: string; hostKey: string }>;
  close(): Promise<void>;
}

/** A real server on a free port with a real SQLite file in a temp folder. */
export async function startServer(options: { dataDir?: string; idleTimeoutMs?: number; adminToken?: string } = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), "classroom-test-"));
  const store = new SqliteSessionStore(path.join(dataDir, "sessions.sqlite"));
  const server = createClassroomServer({
    config: { port: 0, host: "127.0.0.1", publicUrl: null, idleTimeoutMs: options.idleTimeoutMs ?? 0, dev: false, adminToken: options.adminToken ?? null },
    store,
  });
  const port = await server.listen();
  const url = `http://127.0.0.1:${port}`;
  return {
    server,
    url,
    dataDir,
    store,
    async createSession(title = "Test class") {
      const res = await fetch(`${url}/api/sessions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ title }),
      });
      if (res.status !== 201) throw new Error(`create failed: ${res.status} ${await res.text()}`);
      return (await res.json()) as { id: string; code: string; hostKey: string };
    },
    close: () => server.close(),
  };
}

/** A connected client that records everything it receives. */
export interface TestClient {
  socket: ClientSocket;
  welcome: Welcome | null;
  snapshots: AnySnapshot[];
  tallies: TallyUpdate[];
  myVotes: (MyVote | null)[];
  kicked: { code: string; message: string }[];
  latest(): AnySnapshot;
  emit<E extends keyof ClientToServerEvents>(event: E, payload: Parameters<ClientToServerEvents[E]>[0]): Promise<Ack<unknown>>;
  waitFor(predicate: (c: TestClient) => boolean, timeoutMs?: number): Promise<void>;
  close(): void;
}

export async function connectClient(
  url: string,
  auth: Record<string, unknown>,
  options: { expectError?: boolean } = {},
): Promise<TestClient> {
  const socket: ClientSocket = connect(url, {
    auth: { v: PROTOCOL_VERSION, ...auth },
    transports: ["websocket"],
    reconnection: false,
    forceNew: true,
  });
  const client: TestClient = {
    socket,
    welcome: null,
    snapshots: [],
    tallies: [],
    myVotes: [],
    kicked: [],
    latest() {
      const s = client.snapshots[client.snapshots.length - 1];
      if (!s) throw new Error("no snapshot yet");
      return s;
    },
    emit(event, payload) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ack for ${event}`)), 5000);
        (socket.emit as (e: string, p: unknown, cb: (r: Ack<unknown>) => void) => void)(event, payload, (r) => {
          clearTimeout(timer);
          resolve(r);
        });
      });
    },
    waitFor(predicate, timeoutMs = 5000) {
      return waitUntil(() => predicate(client), timeoutMs);
    },
    close() {
      socket.disconnect();
    },
  };
  socket.on("session:welcome", (w) => (client.welcome = w));
  socket.on("session:snapshot", (s) => client.snapshots.push(s));
  socket.on("poll:tally", (t) => client.tallies.push(t));
  socket.on("poll:myVote", (v) => client.myVotes.push(v));
  socket.on("session:kicked", (e) => client.kicked.push(e));
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", () => resolve());
    socket.once("connect_error", (err) => {
      if (options.expectError) {
        (client as TestClient & { error: unknown }).error = (err as Error & { data?: unknown }).data ?? err.message;
        resolve();
      } else reject(err);
    });
  });
  if (!options.expectError) await client.waitFor((c) => c.snapshots.length > 0 && c.welcome !== null);
  return client;
}

/** The error a refused connection got: `{ code, message }`. */
export async function connectError(url: string, auth: Record<string, unknown>): Promise<{ code: string; message: string }> {
  const client = await connectClient(url, auth, { expectError: true });
  client.close();
  return (client as TestClient & { error: { code: string; message: string } }).error;
}

export async function waitUntil(predicate: () => boolean, timeoutMs = 5000): Promise<void> {
  const start = Date.now();
  while (!predicate()) {
    if (Date.now() - start > timeoutMs) throw new Error("timed out waiting for condition");
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * A fresh server for each test, and the clients it opened closed after it:
 * `const t = serverPerTest(); ... t.srv.url ... t.track(await connectClient(...))`.
 */
export function serverPerTest(options: Parameters<typeof startServer>[0] = {}) {
  const clients: TestClient[] = [];
  const t = {
    srv: undefined as unknown as TestServer,
    track: (c: TestClient) => (clients.push(c), c),
  };
  beforeEach(async () => {
    t.srv = await startServer(options);
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    await t.srv.close();
  });
  return t;
}
