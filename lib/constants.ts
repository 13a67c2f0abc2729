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
