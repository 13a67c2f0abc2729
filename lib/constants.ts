/**
 * Timing and size constants shared by the server and the browser. Units are in
 * the names.
 */

/** Poll tallies are coalesced: at most one update per room per interval (4 a second). */
export const TALLY_BROADCAST_INTERVAL_MS = 250;
/**
 * A large class waits longer between tallies: sending one to every socket
 * costs about 25 µs a socket on a 2-core machine (about 290 ms for 10,000), so
 * at 4 a second a 10,000-student tally would take more than the whole core
 * the votes need. Past 2,500 students the interval grows with the class, 0.1 ms
 * a socket (1 s at 10,000), which keeps tallies to about a quarter of a core.
 */
export const TALLY_MS_PER_RECIPIENT = 0.1;

/** The tally interval for a room with `recipients` connected sockets (students, teachers and projectors). */
export function tallyIntervalMs(recipients: number): number {
  return Math.max(TALLY_BROADCAST_INTERVAL_MS, Math.round(recipients * TALLY_MS_PER_RECIPIENT));
}

/** Presence changes (joins, leaves) reach the teacher's console at most this often. */
export const PRESENCE_BROADCAST_INTERVAL_MS = 500;

/**
 * Question changes (a new question, an upvote storm on one) reach each audience at most this often, as one
 * batch: a thousand upvotes in a second are four messages per student, not a thousand.
 */
export const QUESTION_BROADCAST_INTERVAL_MS = 250;

/** Questions one participant may ask in a session (each is logged). */
export const MAX_QUESTIONS_PER_PARTICIPANT = 20;
/**
 * Questions a session takes in all: every joining phone receives the visible ones in one message, so the
 * list must stay small (300 questions of 280 characters is about 100 KB).
 */
export const MAX_QUESTIONS_PER_SESSION = 300;
/** Upvote changes one participant may log on one question (the first upvote included); later ones get QUESTION_LIMIT. */
export const MAX_UPVOTE_CHANGES_PER_QUESTION = 10;

/**
 * A command payload larger than this gets PAYLOAD_TOO_LARGE. Engine.io closes
 * the connection on anything over MAX_SOCKET_MESSAGE_BYTES before parsing it.
 */
export const MAX_COMMAND_PAYLOAD_BYTES = 16 * 1024;
export const MAX_SOCKET_MESSAGE_BYTES = 20 * 1024;

/** A session stops admitting new participants past this (a script cannot fill the disk through one code). */
export const MAX_PARTICIPANTS_PER_SESSION = 10_000;

/**
 * What one participant can make the server write is bounded per poll round:
 * at most this many logged votes, the first one included (a student who
 * changes their mind a few times is far from it); later changes get
 * VOTE_LIMIT and the last logged vote counts. 300 scripted identities toggling within the vote rate
 * used to write 1 GiB an hour.
 */
export const MAX_VOTES_PER_ROUND = 10;

/**
 * A session's log holds at most this many events (about 50 MB). Past it,
 * everything but closing and revealing the poll and ending the session gets
 * LOG_FULL: the teacher ends it and starts a new one. A real class writes a
 * few thousand.
 */
export const MAX_EVENTS_PER_SESSION = 250_000;

/** Request bodies on the HTTP API larger than this get 413. */
export const MAX_HTTP_BODY_BYTES = 16 * 1024;

/** A live session with no events and nobody connected for this long is ended. */
export const DEFAULT_IDLE_SESSION_TIMEOUT_MS = 6 * 60 * 60 * 1000;

/** How often the server looks for idle sessions. */
export const IDLE_SWEEP_INTERVAL_MS = 60 * 1000;

/**
 * Token buckets: `capacity` requests at once, refilled at `refillPerSecond`.
 * Per address unless the name says otherwise. docs/security.md explains each.
 */
export const RATE_LIMITS = {
  /** Failed joins (unknown code, wrong host key, ended session, malformed handshake); only failures are slowed. */
  failedJoins: { capacity: 60, refillPerSecond: 1 },
  /** New student identities: a lecture hall behind one NAT address joins in seconds. */
  newParticipants: { capacity: 1000, refillPerSecond: 50 },
  /** Per participant (survives reconnects). */
  votes: { capacity: 10, refillPerSecond: 4 },
  /** Per participant: asking a question (three at once, then one every 20 s). */
  questions: { capacity: 3, refillPerSecond: 1 / 20 },
  /** Per participant: upvoting and taking an upvote back. */
  upvotes: { capacity: 20, refillPerSecond: 4 },
  /** Per socket: teacher commands and resyncs. */
  commands: { capacity: 30, refillPerSecond: 10 },
  /** Per socket, on top of `commands`: a resync answers with a whole snapshot (the teacher's is large), so it is rare. */
  resyncs: { capacity: 10, refillPerSecond: 2 },
  /** Per session, every teacher socket together: each step is a broadcast to the whole class. */
  sessionCommands: { capacity: 90, refillPerSecond: 30 },
  /** GET /api/sessions… and /api/join-info. */
  reads: { capacity: 60, refillPerSecond: 20 },
} as const;

/**
 * Every inbound socket.io frame spends these budgets before it is parsed
 * (server/edge/frameGuard.ts). A student votes at most 4 times a second and a
 * teacher sends 10 commands a second, so a connection's 20 frames a second
 * is never reached by the app; an address's budgets are sized for a lecture
 * hall of 1,000 phones behind one NAT address voting at once (a vote is
 * about 80 bytes).
 */
export const FRAME_LIMITS = {
  perConnection: { capacity: 60, refillPerSecond: 20 },
  perAddressFrames: { capacity: 5_000, refillPerSecond: 2_000 },
  perAddressBytes: { capacity: 2 * 1024 * 1024, refillPerSecond: 512 * 1024 },
  /** A frame longer than this (in UTF-16 units, so at most ~3x as many bytes) is refused unread. */
  maxFrameChars: MAX_COMMAND_PAYLOAD_BYTES,
  /** Arrays and objects nested deeper than this are refused unread; real commands nest 3 deep. */
  maxDepth: 8,
  /** Refused frames in a row after which the connection is closed (a client that ignores RATE_LIMITED). */
  refusalsBeforeClose: 20,
  /** Pauses in a row (still over budget each time it is read again) after which the connection is closed. */
  pausesBeforeClose: 3,
  /**
   * Connections closed for abuse per address: past this burst (refilled one every 2 s), the address's
   * new WebSockets are refused; its pages and existing sockets are not.
   */
  abusiveClosesPerAddress: { capacity: 10, refillPerSecond: 0.5 },
  /**
   * An over-budget connection stops being read for this long: the flood backs
   * up in the sender's TCP buffers instead of costing the server the reading,
   * unmasking and framing of every byte (which is most of a flood's cost).
   */
  pauseMs: 1_000,
} as const;

/**
 * Connections per client address (server/edge/connectionGuard.ts). Defaults let a
 * 1,000-phone lecture hall behind one NAT address in (its WebSockets plus the
 * page loads of latecomers); one address can no longer hold the server's file
 * descriptors. Both are configurable (MAX_CONNECTIONS_PER_ADDRESS,
 * MAX_PENDING_PER_ADDRESS).
 */
export const DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 4_000;
/** Connections that have not finished a handshake: no complete HTTP request yet, or a WebSocket not yet in a session. */
export const DEFAULT_MAX_PENDING_PER_ADDRESS = 500;
/** Slow clients: complete request headers within this, or the connection is closed (slowloris). */
export const HTTP_HEADERS_TIMEOUT_MS = 10_000;
/** A whole request (headers and body) within this. */
export const HTTP_REQUEST_TIMEOUT_MS = 20_000;
/** A WebSocket must join a session (send its CONNECT) within this after opening. */
export const SOCKET_CONNECT_TIMEOUT_MS = 10_000;

/** Saved-session reads waiting for the export thread; past this, a read answers 429 (try again). */
export const MAX_QUEUED_EXPORTS = 16;

/**
 * A socket that does not read what it is sent is closed once this much waits
 * in its send buffer (it reconnects and resyncs with one fresh snapshot). A
 * phone on poor Wi-Fi lags by a few snapshots, far below it; a script that
 * never reads would otherwise grow the server's memory without bound.
 */
export const SLOW_READER_MAX_BUFFERED_BYTES = 1024 * 1024;
/** How often sockets are checked for it. */
export const SLOW_READER_SWEEP_MS = 1_000;

/** Projector views one session admits at once (a room has one or two; the console shows the count). */
export const MAX_PROJECTORS_PER_SESSION = 10;

/** Nickname changes a student may make by rejoining with a new name (each one is logged). */
export const MAX_SELF_RENAMES = 5;

/**
 * socket.io heartbeat: a dead phone is noticed within ping interval + timeout
 * (35 s). The interval is socket.io's own default: at 10 s the per-socket ping
 * timers and pong reads were most of an idle school's CPU (2.2x bare socket.io
 * for 6,000 idle students, against 1.2x at 25 s; README, Benchmarks).
 */
export const SOCKET_PING_INTERVAL_MS = 25_000;
export const SOCKET_PING_TIMEOUT_MS = 10_000;

/** Browser side: how long a command waits for its acknowledgement. */
export const COMMAND_ACK_TIMEOUT_MS = 8_000;
/**
 * Server side, in scale-out mode: every command, join and resync is answered
 * within this (UNAVAILABLE or UNCONFIRMED when the owner node or Redis cannot
 * be reached in time), well inside the browser's COMMAND_ACK_TIMEOUT_MS so an
 * answer is never dropped as late. CLUSTER_ACK_BUDGET_MS overrides it.
 */
export const DEFAULT_CLUSTER_ACK_BUDGET_MS = 5_000;
/** Scale-out: a node whose heartbeat key is this old is taken for dead and its sessions taken over. CLUSTER_NODE_TTL_MS overrides it. */
export const DEFAULT_CLUSTER_NODE_TTL_MS = 3_000;
/**
 * Scale-out: a node that stops reporting its sockets (frozen, cut off, or
 * dead) keeps counting with its last figure this long, so the teacher's count
 * does not drop while its students are still connected or reconnecting
 * elsewhere. A little over the socket heartbeat (SOCKET_PING_INTERVAL_MS +
 * SOCKET_PING_TIMEOUT_MS): by then a dead node's students have noticed and
 * come back through another node. CLUSTER_PRESENCE_STALE_MS overrides it.
 */
export const DEFAULT_CLUSTER_PRESENCE_STALE_MS = 40_000;
/** Browser side: reconnect backoff after a network drop, and the retry after a passing refusal. */
export const RECONNECT_DELAY_MS = 500;
export const RECONNECT_DELAY_MAX_MS = 4_000;
export const REFUSAL_RETRY_MS = 1_000;

/** Readiness (`/api/ready`) waits this long for the store to take a write before answering 503. */
export const READINESS_TIMEOUT_MS = 2_000;
/** A readiness answer is reused for this long: probes, and a flood of requests, cost at most one store write per interval. */
export const READINESS_CACHE_MS = 1_000;
/** How often ended sessions past RETENTION_DAYS are looked for (the first time just after start). */
export const RETENTION_SWEEP_INTERVAL_MS = 60 * 60 * 1000;
/** How often a scale-out node times a PING to Redis, for /metrics. */
export const REDIS_PING_INTERVAL_MS = 5_000;

/**
 * How Node runs the server: `npm run serve` and `start`, the image's CMD, and
 * the servers the tests, the screenshots and the benchmark start (which gives
 * bare socket.io the same flags). Each of the young generation's two halves
 * may grow to 32 MiB (Node 20 stops at 16 here). A vote burst allocates per
 * vote (its event, its queued write, its ack) and each scavenge copied what
 * still waited for its batch: at 10,000 students, 3 runs each, server CPU per
 * vote fell from 109–115 µs to 102, vote → ack from 108–163 ms to 46 and the
 * step fan-out from 227–248 ms to 196; memory per student rose from 15.3 to
 * 17.6 KiB (bare with the same flag: 16.3).
 */
export const SERVER_NODE_FLAGS: readonly string[] = ["--max-semi-space-size=32"];

// Text limits, in UTF-16 units after cleaning (lib/text.ts): what the schemas cut to and the forms allow.
export const NICKNAME_MAX = 32;
export const TITLE_MAX = 120;
export const POLL_QUESTION_MAX = 200;
export const POLL_OPTION_MAX = 120;
export const QUESTION_TEXT_MAX = 280;

/** Poll timer choices, in seconds (0: no timer). */
export const POLL_DURATIONS_S = [0, 15, 30, 45, 60, 90, 120] as const;
