/**
 * Timing and size constants shared by the server and the browser. Units are in
 * the names.
 */

/** Poll tallies are coalesced: at most one update per room per interval (4 a second). */
export const TALLY_BROADCAST_INTERVAL_MS = 250;

/** Presence changes (joins, leaves) reach the teacher's console at most this often. */
export const PRESENCE_BROADCAST_INTERVAL_MS = 500;

/**
 * A command payload larger than this gets PAYLOAD_TOO_LARGE. Engine.io closes
 * the connection on anything over MAX_SOCKET_MESSAGE_BYTES before parsing it.
 */
export const MAX_COMMAND_PAYLOAD_BYTES = 16 * 1024;
export const MAX_SOCKET_MESSAGE_BYTES = 64 * 1024;

/** A session stops admitting new participants past this (a script cannot fill the disk through one code). */
export const MAX_PARTICIPANTS_PER_SESSION = 10_000;

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
  /** Per socket: teacher commands and resyncs. */
  commands: { capacity: 30, refillPerSecond: 10 },
  /** GET /api/sessions… and /api/join-info. */
  reads: { capacity: 60, refillPerSecond: 20 },
  /** /api/join-info answers for codes that do not exist: guessing. */
  unknownCodeLookups: { capacity: 60, refillPerSecond: 1 },
} as const;

/** socket.io heartbeat: a dead phone is noticed within ping interval + timeout. */
export const SOCKET_PING_INTERVAL_MS = 10_000;
export const SOCKET_PING_TIMEOUT_MS = 10_000;

/** Browser side: how long a command waits for its acknowledgement. */
export const COMMAND_ACK_TIMEOUT_MS = 8_000;
/** Browser side: reconnect backoff after a network drop, and the retry after a passing refusal. */
export const RECONNECT_DELAY_MS = 500;
export const RECONNECT_DELAY_MAX_MS = 4_000;
export const REFUSAL_RETRY_MS = 1_000;
