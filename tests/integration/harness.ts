import fs from "node:fs";
import http, { type IncomingHttpHeaders } from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { io as connect, type Socket } from "socket.io-client";
import { afterEach, beforeEach } from "vitest";
import WebSocket from "ws";
import {
  newerVote,
  PROTOCOL_VERSION,
  type Ack,
  type AnySnapshot,
  type ClientToServerEvents,
  type MyVote,
  type ServerToClientEvents,
  type TallyUpdate,
  type Welcome,
} from "../../lib/protocol";
import type { HostSnapshot, PublicSnapshot } from "../../lib/session";
import {
  applyRosterChanges,
  splitRoster,
  type ListedStudent,
  type RosterChanges,
  type RosterFull,
  type RosterRow,
} from "../../lib/session/roster";
import type { Roster } from "../../components/live/store";
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

export interface StartServerOptions {
  dataDir?: string;
  idleTimeoutMs?: number;
  adminToken?: string;
  /** PUBLIC_URL: the address students are sent to; with it, only its host (and this machine's) is answered. */
  publicUrl?: string | null;
  /** TRUST_PROXY: take the client address and scheme from X-Forwarded-For / X-Forwarded-Proto. */
  trustProxy?: boolean;
  /** MAX_CONNECTIONS_PER_ADDRESS (the server's default when absent). */
  maxConnectionsPerAddress?: number;
  /** MAX_PENDING_PER_ADDRESS (the server's default when absent). */
  maxPendingPerAddress?: number;
  /** The class size from which tallies go out a slice at a time (the server's PACED_FANOUT_MIN when absent). */
  pacedFanoutMin?: number;
}

/** A real server on a free port with a real SQLite file in a temp folder. */
export async function startServer(options: StartServerOptions = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), "classroom-test-"));
  const store = new SqliteSessionStore(path.join(dataDir, "sessions.sqlite"));
  const server = createClassroomServer({
    config: {
      port: 0,
      host: "127.0.0.1",
      publicUrl: options.publicUrl ?? null,
      idleTimeoutMs: options.idleTimeoutMs ?? 0,
      dev: false,
      adminToken: options.adminToken ?? null,
      trustProxy: options.trustProxy,
      maxConnectionsPerAddress: options.maxConnectionsPerAddress,
      maxPendingPerAddress: options.maxPendingPerAddress,
      pacedFanoutMin: options.pacedFanoutMin,
    },
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

/** A snapshot the teacher's socket received, narrowed by its audience tag (no cast). */
export function hostSnapshot(s: AnySnapshot | null): HostSnapshot {
  if (s?.audience !== "host") throw new Error(`expected the teacher's snapshot, got ${s ? `the ${s.audience}'s` : "none"}`);
  return s;
}

/**
 * Keeps a teacher socket's roster as the console does: the whole roster, then
 * changes; a gap asks for the whole roster again (`session:sync`).
 */
export function followRoster(socket: ClientSocket): {
  roster: Roster | null;
  messages: (RosterFull | RosterChanges)[];
  gaps: number;
  students(): ListedStudent[];
} {
  const follower = {
    roster: null as Roster | null,
    messages: [] as (RosterFull | RosterChanges)[],
    gaps: 0,
    students: () => splitRoster(follower.roster?.rows.values() ?? []).listed,
  };
  socket.on("roster:full", (full) => {
    follower.messages.push(full);
    const held = follower.roster;
    if (held && held.epoch === full.epoch && held.rev > full.rev) return;
    follower.roster = { epoch: full.epoch, rev: full.rev, rows: new Map(full.rows.map((r) => [r.id, r])) };
  });
  socket.on("roster:changes", (changes) => {
    follower.messages.push(changes);
    const next = follower.roster && applyRosterChanges(follower.roster, changes);
    if (next) follower.roster = next;
    else {
      follower.gaps += 1;
      socket.emit("session:sync", {}, () => undefined);
    }
  });
  return follower;
}

/** A connected client that records everything it receives. */
export interface TestClient {
  socket: ClientSocket;
  welcome: Welcome | null;
  snapshots: AnySnapshot[];
  tallies: TallyUpdate[];
  myVotes: (MyVote | null)[];
  kicked: { code: string; message: string }[];
  /** The teacher's roster as the console keeps it (whole, then changes; a gap resyncs as the browser does). */
  readonly roster: Roster | null;
  /** Roster messages received, in order. */
  readonly rosterMessages: (RosterFull | RosterChanges)[];
  /** Gaps found in the roster changes (each one asked for the whole roster again). */
  readonly rosterGaps: number;
  /** The teacher's listed students (not removed), in join order, look-alike names marked. */
  students(): ListedStudent[];
  /** Students the teacher removed, in join order. */
  removedStudents(): RosterRow[];
  /** The newest snapshot, with presence counts applied as the browser applies them. */
  latest(): AnySnapshot;
  /** The newest snapshot, as the teacher's (throws if this socket got another audience's). */
  host(): HostSnapshot;
  /** The newest snapshot, as the class's (students and projectors). */
  public(): PublicSnapshot;
  emit<E extends keyof ClientToServerEvents>(event: E, payload: Parameters<ClientToServerEvents[E]>[0]): Promise<Ack<unknown>>;
  waitFor(predicate: (c: TestClient) => boolean, timeoutMs?: number): Promise<void>;
  close(): void;
}

export async function connectClient(
  url: string,
  auth: Record<string, unknown>,
  options: {
    expectError?: boolean;
    /** Attach listeners before anything arrives (the join's first messages come at once). */ listen?: (socket: ClientSocket) => void;
  } = {},
): Promise<TestClient> {
  const socket: ClientSocket = connect(url, {
    auth: { v: PROTOCOL_VERSION, ...auth },
    transports: ["websocket"],
    reconnection: false,
    forceNew: true,
  });
  options.listen?.(socket);
  const roster = followRoster(socket);
  /** Kept as the bundled client keeps it: an older echo or receipt of the same round does not replace a newer one. */
  const recordVote = (v: MyVote | null) => {
    if (newerVote(client.myVotes.at(-1) ?? null, v)) client.myVotes.push(v);
  };
  const client: TestClient = {
    socket,
    welcome: null,
    snapshots: [],
    tallies: [],
    myVotes: [],
    kicked: [],
    get roster() {
      return roster.roster;
    },
    get rosterMessages() {
      return roster.messages;
    },
    get rosterGaps() {
      return roster.gaps;
    },
    students() {
      return roster.students();
    },
    removedStudents() {
      return splitRoster(client.roster?.rows.values() ?? []).removed;
    },
    latest() {
      const s = client.snapshots[client.snapshots.length - 1];
      if (!s) throw new Error("no snapshot yet");
      return s;
    },
    host() {
      return hostSnapshot(client.latest());
    },
    public() {
      const s = client.latest();
      if (s.audience !== "public") throw new Error(`expected the class's snapshot, got the ${s.audience}'s`);
      return s;
    },
    emit(event, payload) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ack for ${event}`)), 5000);
        (socket.emit as (e: string, p: unknown, cb: (r: Ack<unknown>) => void) => void)(event, payload, (r) => {
          clearTimeout(timer);
          // As the bundled client does: the vote's receipt is this tab's vote (other tabs get poll:myVote).
          if (event === "poll:vote" && r.ok) recordVote(r.data as MyVote);
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
  socket.on("poll:myVote", (v) => recordVote(v));
  socket.on("session:kicked", (e) => client.kicked.push(e));
  // Presence is not an event: like the browser, it updates the counts of the snapshot held.
  socket.on("session:presence", ({ participantCount, projectorCount }) => {
    const s = client.snapshots.at(-1);
    if (!s) return;
    s.participantCount = participantCount;
    if (s.audience === "host" && projectorCount !== undefined) s.projectorCount = projectorCount;
  });
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

// ---------------------------------------------------------------------------
// Outsider's tools: the wire as a script sees it (raw WebSocket frames, raw
// HTTP with any headers, bare TCP), from any loopback source address (all of
// 127.0.0.0/8 is local on Linux, so 127.0.0.2 is "another address").

/** A socket.io connection spoken by hand: engine.io frames as text (`0{…}`, `40{…}`, `42[…]`, `43<id>[…]`). */
export interface RawSocket {
  ws: WebSocket;
  /** Every text frame received, in order (pings excluded). */
  frames: string[];
  /** Binary frames received. */
  binaryFrames: number;
  isClosed(): boolean;
  /** Resolves when the connection is closed (by either side). */
  closed: Promise<void>;
  send(frame: string | Buffer): void;
  /** The first frame from `from` on that matches. */
  waitForFrame(predicate: (frame: string) => boolean, timeoutMs?: number, from?: number): Promise<string>;
  /** Sends `42<id>[event, payload]` and resolves with the acknowledgement's body. */
  emit(event: string, payload?: unknown, timeoutMs?: number): Promise<Ack<unknown>>;
  /** The acknowledgement `43<id>[…]` of a frame sent by hand with that id. */
  ack(id: number, timeoutMs?: number): Promise<Ack<unknown>>;
  /** The `42[event, payload]` frames received, decoded. */
  events(): { event: string; payload: unknown; index: number }[];
  close(): void;
}

export interface RawOptions {
  localAddress?: string;
  headers?: Record<string, string>;
}

/** Opens a WebSocket to /socket.io/ and waits for engine.io's open packet; rejects with the HTTP status if refused. */
export function openRaw(url: string, options: RawOptions = {}): Promise<RawSocket> {
  const ws = new WebSocket(`${url.replace(/^http/, "ws")}/socket.io/?EIO=4&transport=websocket`, {
    localAddress: options.localAddress,
    headers: options.headers,
  });
  let nextId = 1000;
  let isClosed = false;
  const frames: string[] = [];
  const closed = new Promise<void>((resolve) => ws.once("close", () => ((isClosed = true), resolve())));
  ws.on("error", () => undefined);
  const raw: RawSocket = {
    ws,
    frames,
    binaryFrames: 0,
    isClosed: () => isClosed,
    closed,
    send(frame) {
      if (ws.readyState === WebSocket.OPEN) ws.send(frame);
    },
    waitForFrame(predicate, timeoutMs = 5000, from = 0) {
      return new Promise((resolve, reject) => {
        const start = Date.now();
        const look = () => {
          for (let i = from; i < frames.length; i++) if (predicate(frames[i])) return resolve(frames[i]);
          from = Math.max(from, frames.length);
          if (Date.now() - start > timeoutMs) return reject(new Error(`no matching frame within ${timeoutMs} ms (closed: ${isClosed})`));
          if (isClosed) return reject(new Error("connection closed before a matching frame"));
          setTimeout(look, 5);
        };
        look();
      });
    },
    emit(event, payload, timeoutMs) {
      const id = nextId++;
      raw.send(`42${id}${JSON.stringify(payload === undefined ? [event] : [event, payload])}`);
      return raw.ack(id, timeoutMs);
    },
    async ack(id, timeoutMs = 5000) {
      const frame = await raw.waitForFrame((f) => f.startsWith(`43${id}[`), timeoutMs);
      return (JSON.parse(frame.slice(`43${id}`.length)) as [Ack<unknown>])[0];
    },
    events() {
      return frames.flatMap((f, index) => {
        if (!f.startsWith("42[")) return [];
        const [event, payload] = JSON.parse(f.slice(2)) as [string, unknown];
        return [{ event, payload, index }];
      });
    },
    close() {
      if (!isClosed) ws.terminate();
    },
  };
  ws.on("message", (data, isBinary) => {
    if (isBinary) {
      raw.binaryFrames += 1;
      return;
    }
    const text = Buffer.isBuffer(data)
      ? data.toString("utf8")
      : Buffer.concat(Array.isArray(data) ? data : [Buffer.from(data)]).toString("utf8");
    // engine.io heartbeat: answer pings, keep them out of the record.
    if (text === "2") return void ws.send("3");
    frames.push(text);
  });
  return new Promise((resolve, reject) => {
    ws.once("unexpected-response", (_req, res) => {
      ws.terminate();
      reject(Object.assign(new Error(`refused with HTTP ${res.statusCode}`), { status: res.statusCode }));
    });
    ws.once("close", () => reject(Object.assign(new Error("closed before opening"), { status: 0 })));
    ws.once("error", (err) => reject(Object.assign(err, { status: 0 })));
    raw.waitForFrame((f) => f.startsWith("0{"), 5000).then(() => resolve(raw), reject);
  });
}

/** The answer to a CONNECT: `40{"sid":…}` (joined) or `44{…}` (refused, with `data: { code, message }`). */
export interface RawJoin {
  raw: RawSocket;
  /** The CONNECT reply frame exactly as sent. */
  reply: string;
  ok: boolean;
  /** The refusal's code, or null when joined. */
  code: string | null;
  welcome: Welcome | null;
}

/** Opens a WebSocket and sends one CONNECT with this auth (`v` is added unless given), by hand. */
export async function rawJoin(url: string, auth: Record<string, unknown>, options: RawOptions = {}): Promise<RawJoin> {
  const raw = await openRaw(url, options);
  raw.send(`40${JSON.stringify({ v: PROTOCOL_VERSION, ...auth })}`);
  const reply = await raw.waitForFrame((f) => f.startsWith("40") || f.startsWith("44"));
  if (reply.startsWith("44")) {
    const body = JSON.parse(reply.slice(2)) as { message: string; data?: { code: string } };
    return { raw, reply, ok: false, code: body.data?.code ?? body.message, welcome: null };
  }
  const welcome = await raw.waitForFrame((f) => f.startsWith('42["session:welcome"'));
  await raw.waitForFrame((f) => f.startsWith('42["session:snapshot"'));
  return { raw, reply, ok: true, code: null, welcome: (JSON.parse(welcome.slice(2)) as [string, Welcome])[1] };
}

/** A refused join's code; the WebSocket is closed afterwards. */
export async function rawJoinCode(url: string, auth: Record<string, unknown>, options: RawOptions = {}): Promise<string | null> {
  const joined = await rawJoin(url, auth, options);
  joined.raw.close();
  return joined.code;
}

export interface RawHttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * One HTTP request on its own connection (no keep-alive pool, so nothing is
 * held afterwards), with any headers an attacker likes (Host included).
 */
export function httpRequest(
  url: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; localAddress?: string } = {},
): Promise<RawHttpResponse> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: hostname,
        port,
        path,
        method: options.method ?? "GET",
        headers: options.headers,
        localAddress: options.localAddress,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}

/** A bare TCP connection that says nothing (unless told to), and whether the server has closed it. */
export interface TcpHolder {
  socket: net.Socket;
  connected: Promise<void>;
  closed: Promise<void>;
  isClosed(): boolean;
  destroy(): void;
}

export function holdTcp(url: string, localAddress?: string): TcpHolder {
  const { hostname, port } = new URL(url);
  const socket = net.connect({ host: hostname, port: Number(port), localAddress });
  let isClosed = false;
  socket.on("error", () => undefined);
  socket.on("data", () => undefined);
  const closed = new Promise<void>((resolve) => socket.once("close", () => ((isClosed = true), resolve())));
  const connected = new Promise<void>((resolve, reject) => {
    socket.once("connect", () => resolve());
    socket.once("close", () => reject(new Error("closed before connecting")));
  });
  connected.catch(() => undefined);
  return { socket, connected, closed, isClosed: () => isClosed, destroy: () => socket.destroy() };
}
