import { io as connect, type Socket } from "socket.io-client";
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

/**
 * The client side of the integration harness: a socket.io client that
 * records everything it receives and keeps what a browser tab would show.
 */

export type ClientSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

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
