import { io as connect, type Socket } from "socket.io-client";
import {
  PROTOCOL_VERSION,
  type Ack,
  type AnySnapshot,
  type ClientToServerEvents,
  type MyVote,
  type Patch,
  type ServerToClientEvents,
  type TallyUpdate,
  type Welcome,
} from "../../lib/protocol";
import {
  PatchFollower,
  Replica,
  myVoteOf,
  nicknameOf,
  questionsOf,
  rosterOf,
  snapshotOf,
  tallyOf,
  type QuestionsState,
} from "../../lib/protocol/replica";
import type { HostSnapshot, PublicSnapshot } from "../../lib/session";
import { splitRoster, type ListedStudent, type RosterRow } from "../../lib/session/roster";

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

/** A patch to the teacher that carried roster rows, as received. */
export interface RosterMessage {
  whole: boolean;
  rows: RosterRow[];
  patch: Patch;
}

/** A socket's patches kept in `replica` as the browser keeps them: a gap asks once for what changed since what it holds. */
export function followPatches(socket: ClientSocket, replica: Replica): PatchFollower {
  return new PatchFollower(replica, (request, answered) =>
    socket.emit("session:sync", request, (ack) => answered(ack.ok ? { ok: true } : { ok: false, retryAfterMs: ack.error.retryAfterMs })),
  );
}

/** A connected client that records everything it receives. */
export interface TestClient {
  socket: ClientSocket;
  welcome: Welcome | null;
  /** Every patch received, in order. */
  patches: Patch[];
  /** The session as this socket saw it each time its session record changed (presence folded into the newest). */
  snapshots: AnySnapshot[];
  /** Each running count this socket could see (the teacher's always, the class's while results are shown). */
  tallies: TallyUpdate[];
  /** This student's vote, each time it changed (receipts included, as the browser keeps them). */
  myVotes: (MyVote | null)[];
  kicked: { code: string; message: string }[];
  /** The records this socket holds, kept by the one rule every client follows. */
  readonly replica: Replica;
  /** The teacher's roster as the console keeps it. */
  readonly roster: { rows: ReadonlyMap<string, RosterRow> } | null;
  /** Patches that carried roster rows, in order. */
  readonly rosterMessages: RosterMessage[];
  /** Gaps found (each one asked for the whole projection again, as the browser does). */
  readonly gaps: number;
  /** The questions this socket may see, as the page shows them. */
  questions(): QuestionsState | null;
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
  /** Drops the next patch unread, as if the network had lost it (the next one is a gap). */
  loseNextPatch(): void;
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
    /** The loopback source address to connect from (127.0.0.2 stands for another machine); socket.io-client hands it to `ws`. */
    localAddress?: string;
  } = {},
): Promise<TestClient> {
  const socket: ClientSocket = connect(url, {
    auth: { v: PROTOCOL_VERSION, ...auth },
    transports: ["websocket"],
    reconnection: false,
    forceNew: true,
    ...(options.localAddress ? { localAddress: options.localAddress } : {}),
  });
  options.listen?.(socket);
  const replica = new Replica();
  const rosterMessages: RosterMessage[] = [];
  const follower = followPatches(socket, replica);
  let lose = 0;
  /** Records what changed, as the browser's store re-reads it. */
  const observe = () => {
    const changed = replica.takeChanges();
    const stream = replica.has("host") ? "host" : "public";
    if (changed.has(`${stream}/session`)) client.snapshots.push(snapshotOf(replica)!);
    else if (changed.has(`${stream}/presence`) || changed.has(`${stream}/tally`)) {
      // Presence and running counts update the snapshot held, as the browser shows them.
      const now = snapshotOf(replica);
      if (now && client.snapshots.length > 0) client.snapshots[client.snapshots.length - 1] = now;
    }
    if (changed.has(`${stream}/tally`)) {
      const tally = tallyOf(replica);
      if (tally) client.tallies.push(tally);
    }
    if (changed.has("me/vote")) client.myVotes.push(myVoteOf(replica));
    if (changed.has("me/name") && client.welcome) client.welcome = { ...client.welcome, nickname: nicknameOf(replica) };
  };
  const client: TestClient = {
    socket,
    welcome: null,
    patches: [],
    snapshots: [],
    tallies: [],
    myVotes: [],
    kicked: [],
    replica,
    get roster() {
      const rows = rosterOf(replica);
      return rows ? { rows } : null;
    },
    rosterMessages,
    get gaps() {
      return follower.gaps;
    },
    questions: () => questionsOf(replica),
    students() {
      return splitRoster(rosterOf(replica)?.values() ?? []).listed;
    },
    removedStudents() {
      return splitRoster(rosterOf(replica)?.values() ?? []).removed;
    },
    latest() {
      const s = snapshotOf(replica);
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
    loseNextPatch() {
      lose += 1;
    },
    emit(event, payload) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ack for ${event}`)), 5000);
        (socket.emit as (e: string, p: unknown, cb: (r: Ack<unknown>) => void) => void)(event, payload, (r) => {
          clearTimeout(timer);
          // As the bundled client does: the vote's receipt is this tab's vote (other tabs get it as a patch).
          if (event === "poll:vote" && r.ok) {
            replica.putOwn("me", "vote", r.data);
            observe();
          }
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
  socket.on("session:patch", (patch) => {
    client.patches.push(patch);
    if (lose > 0 && !patch.whole) {
      lose -= 1;
      return;
    }
    if (patch.stream === "host") {
      const rows = Object.entries(patch.put ?? {})
        .filter(([key]) => key.startsWith("r:"))
        .map(([, row]) => row as RosterRow);
      if (rows.length > 0 || patch.whole) rosterMessages.push({ whole: patch.whole === true, rows, patch });
    }
    if (follower.receive(patch) === "applied") observe();
  });
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
