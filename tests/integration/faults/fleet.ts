import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { io as connect } from "socket.io-client";
import { afterAll, beforeAll, expect } from "vitest";
import { PROTOCOL_VERSION, type Ack, type AnySnapshot, type MyVote, type ProtocolError, type Welcome } from "../../../lib/protocol";
import type { SessionEvent } from "../../../lib/session";
import { Replica, myVoteOf, snapshotOf } from "../../../lib/protocol/replica";
import type { ClientSocket } from "../harness";
import { followPatches, waitUntil } from "../harness";
import { freePort, startRedis, type RedisServer } from "../../support/loopback";
import { spawnServer, type ServerProcess } from "../process";

/**
 * The fleet the faults*.test.ts files put through their faults: one redis-server
 * (append-only, fsync on every write) and three app processes on it, and the
 * screens (sockets pinned to one node each) that record what a class sees.
 */

/** What is running; the tests kill, stop and restart its members. */
export const fleet = {
  redis: undefined as unknown as RedisServer,
  redisPort: 0,
  aofDir: "",
  dataDir: "",
  nodes: [] as ServerProcess[],
  ports: [] as number[],
  clients: [] as Client[],
};

export async function startNode(i: number): Promise<void> {
  fleet.nodes[i] = await spawnServer({
    dataDir: path.join(fleet.dataDir, `n${i}`),
    port: fleet.ports[i],
    env: { REDIS_URL: fleet.redis.url },
  });
}

/** Starts the fleet before the file's tests, and stops it (screens, nodes, Redis) after them. */
export function fleetPerFile(): void {
  beforeAll(async () => {
    // Integration files share a worker's modules (isolate: false): start from an empty fleet, not the last file's.
    Object.assign(fleet, { nodes: [], ports: [], clients: [] });
    fleet.aofDir = fs.mkdtempSync(path.join(os.tmpdir(), "classroom-aof-"));
    fleet.dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "classroom-faults-"));
    fleet.redis = await startRedis({ appendOnlyDir: fleet.aofDir });
    fleet.redisPort = Number(new URL(fleet.redis.url).port);
    for (let i = 0; i < 3; i++) fleet.ports.push(await freePort());
    await Promise.all([0, 1, 2].map(startNode));
  }, 60_000);

  afterAll(async () => {
    for (const c of fleet.clients) c.socket.disconnect();
    for (const n of fleet.nodes) {
      n.proc.kill("SIGCONT");
      n.proc.kill("SIGKILL");
    }
    await fleet.redis?.stop();
  });
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Sent {
  event: string;
  payload: Record<string, unknown>;
  /** null: nothing came back within 10 s. */
  ack: Ack<unknown> | null;
  ms: number;
}

/** A socket pinned to one node, as a load balancer would place it, recording what a screen would show. */
export interface Client {
  name: string;
  socket: ClientSocket;
  welcome: Welcome | null;
  /** The session as the screen shows it (the records kept by lib/protocol/replica.ts, presence folded in). */
  readonly snapshot: AnySnapshot | null;
  /** The records this screen holds. */
  replica: Replica;
  /** This student's vote each time a patch changed it (the other tabs' echo, a resync). */
  myVotes: (MyVote | null)[];
  /** Every student count this screen was shown, with when. */
  counts: { at: number; n: number }[];
  /** Patches it could not follow on from (each asked for the whole projection again, as the browser does). */
  gaps: number;
  disconnects: string[];
  kicked: ProtocolError[];
  sent: Sent[];
  emit(event: string, payload: Record<string, unknown>): Promise<Sent>;
  ready(): Promise<void>;
}

export function client(name: string, node: number, auth: Record<string, unknown>): Client {
  const socket: ClientSocket = connect(`http://127.0.0.1:${fleet.ports[node]}`, {
    transports: ["websocket"],
    reconnection: false,
    forceNew: true,
    auth: { v: PROTOCOL_VERSION, ...auth },
  });
  const replica = new Replica();
  const c: Client = {
    name,
    socket,
    welcome: null,
    get snapshot() {
      return snapshotOf(replica);
    },
    replica,
    myVotes: [],
    counts: [],
    gaps: 0,
    disconnects: [],
    kicked: [],
    sent: [],
    emit(event, payload) {
      const start = Date.now();
      return new Promise((resolve) => {
        const done = (ack: Ack<unknown> | null) => {
          const sent = { event, payload, ack, ms: Date.now() - start };
          c.sent.push(sent);
          resolve(sent);
        };
        const timer = setTimeout(() => done(null), 10_000);
        (socket.emit as (e: string, p: unknown, cb: (r: Ack<unknown>) => void) => void)(event, payload, (r) => {
          clearTimeout(timer);
          // As the bundled client does: the vote's receipt is this tab's vote (the server does not echo it here).
          if (event === "poll:vote" && r.ok) replica.putOwn("me", "vote", r.data);
          done(r);
        });
      });
    },
    ready: () => waitUntil(() => c.snapshot !== null && c.welcome !== null, 15_000),
  };
  socket.on("session:welcome", (w) => (c.welcome = w));
  // As the browser does: a gap asks for the whole projection again, once.
  const follower = followPatches(socket, replica);
  socket.on("session:patch", (patch) => {
    if (follower.receive(patch) === "applied") {
      const changed = replica.takeChanges();
      const stream = replica.has("host") ? "host" : "public";
      // The count a screen shows: the session record's, or the newer presence record's (projectors, teachers).
      const shown = snapshotOf(replica);
      if (shown && (changed.has(`${stream}/session`) || changed.has(`${stream}/presence`))) {
        c.counts.push({ at: Date.now(), n: shown.participantCount });
      }
      if (changed.has("me/vote")) c.myVotes.push(myVoteOf(replica));
    }
    c.gaps = follower.gaps;
  });
  socket.on("session:kicked", (e) => c.kicked.push(e));
  socket.on("disconnect", (reason) => c.disconnects.push(reason));
  fleet.clients.push(c);
  return c;
}

export interface Session {
  id: string;
  code: string;
  hostKey: string;
}

/** Created through one node: that node owns the session from the start. */
export async function createSession(node: number, title: string): Promise<Session> {
  // A node that died since (it must not) says why here, not as a refused connection later.
  for (const [i, n] of fleet.nodes.entries()) {
    expect(n.proc.exitCode ?? n.proc.signalCode, `node ${i} is not running:\n${n.output().slice(-4_000)}`).toBeNull();
  }
  const res = await fetch(`http://127.0.0.1:${fleet.ports[node]}/api/sessions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ title }),
  });
  expect(res.status).toBe(201);
  return (await res.json()) as Session;
}

/** The session's durable log, read through the API as its teacher. */
export async function logOf(session: Session, node: number): Promise<SessionEvent[]> {
  const res = await fetch(`http://127.0.0.1:${fleet.ports[node]}/api/sessions/${session.id}/events`, {
    headers: { "x-host-key": session.hostKey },
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { events: SessionEvent[] }).events;
}

/** A class: its teacher, a projector, and students spread over the given nodes. */
export async function classOf(session: Session, where: { teacher: number; projector: number; students: number[] }) {
  const teacher = client("teacher", where.teacher, { role: "host", code: session.code, hostKey: session.hostKey });
  await teacher.ready();
  const projector = client("projector", where.projector, { role: "projector", code: session.code, hostKey: session.hostKey });
  const students = where.students.map((node, i) => client(`student ${i} on node ${node}`, node, { role: "student", code: session.code }));
  await Promise.all([projector.ready(), ...students.map((s) => s.ready())]);
  const everyone = students.length;
  // Every screen shows the whole class before anything breaks.
  await waitUntil(() => teacher.snapshot?.participantCount === everyone && projector.snapshot?.participantCount === everyone, 15_000).catch(
    (err: Error) => {
      throw new Error(
        `${err.message}: the teacher shows ${teacher.snapshot?.participantCount}, the projector ${projector.snapshot?.participantCount} of ${everyone}\n${fleet.nodes.map((n) => n.output().slice(-2_000)).join("\n---\n")}`,
      );
    },
  );
  return { teacher, projector, students, since: Date.now() };
}

export function code(sent: Sent): string {
  return sent.ack === null ? "NO ACK" : sent.ack.ok ? "ok" : sent.ack.error.code;
}

export function pollOf(c: Client): NonNullable<AnySnapshot["poll"]> {
  const poll = c.snapshot?.poll;
  if (!poll) throw new Error(`${c.name} shows no poll`);
  return poll;
}

/** Sends the teacher's steps 1..n, one every `everyMs`, without waiting for answers (a teacher clicking "next"). */
export function clickSteps(teacher: Client, from: number, to: number, everyMs: number): Promise<Sent[]> {
  const sent: Promise<Sent>[] = [];
  return (async () => {
    for (let i = from; i <= to; i++) {
      sent.push(teacher.emit("step:go", { stepIndex: i }));
      await sleep(everyMs);
    }
    return Promise.all(sent);
  })();
}
