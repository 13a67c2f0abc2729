/** IPC between bench/run.ts (the driver) and bench/worker.ts (simulated students). */

/** Wall-clock milliseconds with sub-millisecond resolution, comparable across processes on one machine. */
export function now(): number {
  return performance.timeOrigin + performance.now();
}

/** product: one server process; bare: the socket.io baseline; cluster: K product processes on one Redis (--cluster=K). */
export type ServerKind = "product" | "bare" | "cluster";

export type DriverCommand =
  | {
      cmd: "join";
      kind: ServerKind;
      /** the server's address(es): student with global index i connects to urls[i % urls.length] */
      urls: string[];
      /** product only: the room code */
      code: string;
      /** this worker's students are global indexes offset .. offset+count-1 of total */
      offset: number;
      count: number;
      total: number;
      /** local (source) addresses, used round-robin by global index */
      addresses: string[];
      /** connections in flight at once per worker */
      window: number;
      timeoutMs: number;
    }
  | { cmd: "armStep"; seq: number; stepIndex: number; timeoutMs: number }
  | { cmd: "vote"; pollId: string; options: string[]; startAt: number; spreadMs: number; total: number; ackTimeoutMs: number }
  /** The final total is right when it counts every acknowledged vote and no more than were sent (`upTo`): a vote answered UNCONFIRMED may have been counted. */
  | { cmd: "armFinal"; pollId: string; expected: number; upTo: number; timeoutMs: number }
  | { cmd: "close" };

export type WorkerEvent =
  | { ev: "ready" }
  | {
      ev: "joined";
      ok: number;
      failed: number;
      errors: Record<string, number>;
      /** absolute receipt time of each joined student's first snapshot (the session record in its whole `session:patch`) */
      firstSnapshotAt: number[];
    }
  | { ev: "armed"; what: "step" | "final"; seq: number }
  | { ev: "step"; seq: number; times: number[]; missing: number }
  | {
      ev: "voted";
      sent: number;
      ok: number;
      errors: Record<string, number>;
      timeouts: number;
      /** vote → ack, ms, per acknowledged vote */
      ackMs: number[];
      /** socket disconnects since the join (should be none), by reason */
      disconnects: Record<string, number>;
    }
  | {
      ev: "final";
      /** receipt time of the closed-poll snapshot (a `session:patch` putting the session with the poll closed), per student that got one */
      times: number[];
      /** students whose closed snapshot had the expected total */
      matched: number;
      mismatched: number;
      missing: number;
      /** distinct totals seen in closed snapshots */
      totals: number[];
      /** running counts (volatile `session:patch` putting `tally`) received by this worker's students since the vote command */
      tallies: number;
      talliesMaxPerStudent: number;
    }
  | { ev: "closed" }
  | { ev: "error"; message: string };

// ---------------------------------------------------------------------------
// bench/noisy.ts (the driver side of --noisy) and bench/flood.ts (the flooder)

/** The frames the flooder sends, in turn; each asks for an acknowledgement. */
export const FLOOD_KINDS = ["unknown", "reserved", "deep", "vote", "sync", "notHost"] as const;
export type FloodKind = (typeof FLOOD_KINDS)[number];

export type FloodCommand =
  | {
      cmd: "start";
      url: string;
      /** room B's code: the flood's student sockets join it */
      code: string;
      /** the one source address every flood connection uses */
      address: string;
      /** student sockets that flood events and reconnect (with their token) when the server closes them */
      sockets: number;
      /** connections that only send an oversized, deeply nested CONNECT frame, and reconnect when closed */
      fresh: number;
      /** how long to wait for the student sockets' first join before flooding anyway */
      joinTimeoutMs: number;
    }
  | { cmd: "stop" }
  | { cmd: "close" };

export interface FloodStats {
  /** from the start command to the stop command */
  durationMs: number;
  /** frames handed to the kernel (ws.send callback without error), by kind */
  framesSent: number;
  bytesSent: number;
  framesByKind: Record<string, number>;
  /** acknowledgements received, by the error code they carried ("ok" for a success) */
  replies: number;
  repliesByCode: Record<string, number>;
  /** replies by kind of the frame they answered, then by code */
  repliesByKind: Record<string, Record<string, number>>;
  /** other server messages received (patches, welcome, …) */
  otherMessages: number;
  /** WebSockets opened: student sockets (first join and every reconnect) and fresh CONNECT-only ones */
  opened: { student: number; fresh: number };
  /** socket.io handshakes accepted (student sockets) */
  joined: number;
  /** socket.io handshakes refused, by error code */
  handshakeRefusals: Record<string, number>;
  /** connections the server closed (not by the stop command) */
  closedByServer: number;
  /** client-side socket errors, by code */
  socketErrors: Record<string, number>;
}

export type FloodEvent =
  | { ev: "ready"; frameChars: number; kinds: string[] }
  | { ev: "flooding"; studentsJoined: number; joinMs: number }
  | { ev: "stopped"; stats: FloodStats }
  | { ev: "closed" }
  | { ev: "error"; message: string };

/** A flooder's counters before anything was sent (the flooder resets to it; the driver sums from it). */
export function emptyFloodStats(): FloodStats {
  return {
    durationMs: 0,
    framesSent: 0,
    bytesSent: 0,
    framesByKind: {},
    replies: 0,
    repliesByCode: {},
    repliesByKind: {},
    otherMessages: 0,
    opened: { student: 0, fresh: 0 },
    joined: 0,
    handshakeRefusals: {},
    closedByServer: 0,
    socketErrors: {},
  };
}

// ---------------------------------------------------------------------------
// bench/school.ts (the driver side of --school) and bench/schoolWorker.ts (rooms: a teacher and its class each)

/** One room of the school as a worker holds it. */
export interface SchoolRoom {
  /** 0-based room number; its students are global indexes index × classSize … + classSize − 1 */
  index: number;
  /** the product's room code, or the bare server's room name (6 characters either way) */
  code: string;
  /** product only: the teacher's host key from POST /api/sessions */
  hostKey: string;
}

export type SchoolCommand =
  | {
      cmd: "teachers";
      kind: ServerKind;
      url: string;
      rooms: SchoolRoom[];
      /** the teachers' source address */
      address: string;
      timeoutMs: number;
    }
  | {
      cmd: "join";
      classSize: number;
      /** students' source addresses, round-robin by global index */
      addresses: string[];
      /** connections in flight at once in this worker */
      window: number;
      timeoutMs: number;
    }
  | {
      cmd: "run";
      /** every room's first action falls in [startAt, startAt + intervalMs) (staggered); none starts at or after endAt */
      startAt: number;
      endAt: number;
      /** mean time between a room's actions; each gap is uniform in [0.5, 1.5] × this */
      intervalMs: number;
      /** every pollEvery-th action of a room is a poll (open, every student votes, close) instead of a step */
      pollEvery: number;
      voteSpreadMs: number;
      /** a step or a final tally some student has not seen after this counts as missing */
      receiptTimeoutMs: number;
      /** the client's own ack timeout (the browser's 8 s) */
      ackTimeoutMs: number;
      /** the rooms' schedules come from a PRNG seeded with this and the room's index: the same for product and bare */
      seed: number;
    }
  | { cmd: "close" };

/** What one room saw during the run. */
export interface SchoolRoomStats {
  index: number;
  /** per step: teacher's command → the room's last student's snapshot (ms); steps with a missing receipt are left out and counted below */
  stepLastMs: number[];
  /** per step: the room's median student (ms) */
  stepMedianMs: number[];
  steps: number;
  /** snapshot receipts that never came (students × steps) */
  stepMissing: number;
  stepsIncomplete: number;
  polls: number;
  votesSent: number;
  votesAcked: number;
  voteAckMs: number[];
  /** close → the room's last student's closed-poll snapshot (ms), per poll where every student got it */
  finalLastMs: number[];
  /** closed-poll snapshots that never came (students × polls) */
  finalMissing: number;
  /** closed-poll snapshots whose total was not the number of acked votes */
  finalWrong: number;
  /** votes acked − the closed poll's total, summed over polls (must be 0) */
  votesLost: number;
  /** command and vote failures, by code ("timeout" for an ack that never came) */
  errors: Record<string, number>;
  /** the first few failures in words, for the Anomalies list */
  notes: string[];
}

export type SchoolEvent =
  | { ev: "ready" }
  | { ev: "teachers"; ok: number; failed: number; errors: Record<string, number> }
  | { ev: "joined"; ok: number; failed: number; errors: Record<string, number>; allMs: number }
  | { ev: "ran"; rooms: SchoolRoomStats[]; disconnects: Record<string, number> }
  | { ev: "closed" }
  | { ev: "error"; message: string };
