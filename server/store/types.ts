import type { SessionSummary } from "../../lib/protocol/rest";
import type { SessionEvent } from "../../lib/session/types";

/**
 * Where sessions and their event logs are kept. The room logic sees only this
 * interface, so SQLite (one machine) and Redis (several) are interchangeable.
 *
 * Writes are queued in order and made durable in batches: `append` returns at
 * once, and `afterDurable` / `flush` say when everything appended so far is
 * safe. Nothing is acknowledged or broadcast before that (the socket layer
 * waits on it), so a crash loses nothing a client was told about, and a vote
 * storm costs one transaction per batch instead of one per vote.
 */

/** A store that cannot be opened or read safely, with a message an operator can act on. */
export class StoreError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StoreError";
  }
}

/** The store could not be reached, and nothing was sent to it: the write was not made. */
export class StoreUnavailableError extends StoreError {
  constructor(message: string) {
    super(message);
    this.name = "StoreUnavailableError";
  }
}

/** The connection failed while the store was answering: the write may or may not have been made. */
export class StoreInDoubtError extends StoreError {
  constructor(message: string) {
    super(message);
    this.name = "StoreInDoubtError";
  }
}

/**
 * Scale-out: this node's write of a session was refused and nothing was
 * written. `certain`: Redis refused it, another node owns the session now;
 * otherwise this node refused it itself, unsure it still does (its lease ran
 * out, or its claim is not confirmed since), and may find it still does.
 */
export class LostOwnershipError extends StoreError {
  constructor(readonly certain: boolean) {
    super(certain ? "this node no longer owns the session" : "this node cannot confirm it still owns the session");
    this.name = "LostOwnershipError";
  }
}

export interface SessionRecord {
  id: string;
  code: string;
  title: string;
  /** sha256 of the host key, hex; the key itself is never stored. */
  hostKeyHash: string;
  createdAt: number;
  endedAt: number | null;
  /** sha256 of the replay share key while the teacher shares the replay; null when not shared. */
  shareKeyHash: string | null;
  /** Bumped when the teacher stops sharing, so the next share link is a new secret. */
  shareGeneration: number;
  /**
   * The replay share key itself while shared, so every teacher of the session (on any browser) is handed the same
   * link; null when not shared, or shared by an earlier server that kept only the hash. It opens only the redacted
   * view of a log that sits beside it in the same store, so keeping it adds nothing a reader of the store lacks.
   */
  shareKey: string | null;
  /** The teacher's account the session belongs to (server/auth/ownership.ts); null: only its host keys open it. */
  ownerAccountId: string | null;
}

/** A session as created: not shared yet, and owned by nobody unless it says so. */
export type NewSessionRecord = Omit<SessionRecord, "shareKeyHash" | "shareGeneration" | "shareKey" | "ownerAccountId"> & {
  ownerAccountId?: string | null;
};

/**
 * One console of a session: a host key (its hash) that opens the teacher's
 * console. The session is created with one; a teacher signed in on another
 * browser opens another (server/auth/ownership.ts), each revocable on its own.
 */
export interface ConsoleKey {
  /** Names the console in lists and revocation: derived from the key's hash (consoleIdOf), never the key. */
  id: string;
  keyHash: string;
  /** The account that opened it from another browser; null for the key the session was created with. */
  accountId: string | null;
  createdAt: number;
}

/** The sessions an account has: those it owns, and those it was invited to teach. */
export interface AccountSessions {
  owned: string[];
  coteaching: string[];
}

export type { SessionSummary } from "../../lib/protocol/rest";

export interface SessionStore {
  /** Creates the session with its first event (`session:created`, seq 1); durable when it resolves. */
  createSession(record: NewSessionRecord, created: SessionEvent): Promise<void>;
  /** Queues one event. Events of a session must be appended in seq order. */
  append(sessionId: string, event: SessionEvent): void;
  /** Runs `fn` once everything appended so far is durable (at once if nothing is pending); never if that session's writes failed. */
  afterDurable(fn: () => void, sessionId?: string): void;
  /** Resolves once everything appended so far is durable; rejects if writing (that session's part) failed. */
  flush(sessionId?: string): Promise<void>;
  /**
   * Called when writes could not be made durable (whoever appended them may not be waiting: a poll timer, the
   * idle sweep), with each affected session and its error. Only the sessions whose writes were in the failed
   * batch are named: a failure never concerns every session of the process.
   */
  onWriteError(listener: (failures: ReadonlyMap<string, Error>) => void): void;
  loadEvents(sessionId: string): Promise<SessionEvent[]>;
  getSession(id: string): Promise<SessionRecord | null>;
  findByCode(code: string): Promise<SessionRecord | null>;
  codeExists(code: string): Promise<boolean>;
  /** Ids of sessions that have not ended, for recovery after a restart. */
  liveSessionIds(): Promise<string[]>;
  listSessions(ids?: readonly string[]): Promise<SessionSummary[]>;
  /** Ids of the sessions one of whose consoles' keys hashes to one of these. */
  sessionIdsByHostKeyHash(hashes: readonly string[]): Promise<string[]>;
  /** The hashes of every key that opens the session's console (the handshake accepts any of them). */
  hostKeyHashes(sessionId: string): Promise<string[]>;
  /** The session's consoles, oldest first. */
  consoles(sessionId: string): Promise<ConsoleKey[]>;
  /** One more key that opens the console; durable when it resolves. */
  addConsole(sessionId: string, console: ConsoleKey): Promise<void>;
  /** Removes one console's key; false when the session has no such console. */
  revokeConsole(sessionId: string, consoleId: string): Promise<boolean>;
  /** Gives an unowned session to the account; true when the account owns it afterwards (it did, or it took it). */
  claimSession(sessionId: string, accountId: string): Promise<boolean>;
  /** Sets (or, with null, clears) the owner, whoever it was: handing a session over. */
  setSessionOwner(sessionId: string, accountId: string | null): Promise<void>;
  /** Invites the account to drive the session (again: nothing changes); `at` orders the list. */
  addSessionCoteacher(sessionId: string, accountId: string, at: number): Promise<void>;
  /** False when the account was not a co-teacher of the session. */
  removeSessionCoteacher(sessionId: string, accountId: string): Promise<boolean>;
  /** The accounts invited to drive the session, in the order they were invited. */
  sessionCoteachers(sessionId: string): Promise<string[]>;
  /** The sessions the account owns and those it co-teaches (newest first). */
  sessionsOfAccount(accountId: string): Promise<AccountSessions>;
  /** Deletes one ended session with everything of it, as retention does; false when it is live or unknown. */
  deleteEndedSession(sessionId: string): Promise<boolean>;
  /** Peak concurrent participants is presence, not an event; the room reports it (best effort). */
  notePeakParticipants(sessionId: string, peak: number): void;
  /** Starts (a hash, and the key when it is kept) or stops (null) sharing the replay; durable when it resolves. */
  setReplaySharing(id: string, shareKeyHash: string | null, generation: number, shareKey?: string | null): Promise<void>;
  saveParticipantToken(sessionId: string, participantId: string, tokenHash: string): Promise<void>;
  findParticipantByToken(sessionId: string, tokenHash: string): Promise<string | null>;
  /** Commits one small write that holds no data (readiness): rejects when the store cannot take writes. */
  checkWritable(): Promise<void>;
  /**
   * Retention: deletes the sessions that ended before `cutoff` (ms), with their events, tokens and share keys,
   * one at a time; stops between two sessions once `signal` is aborted (shutdown).
   */
  deleteEndedBefore(cutoff: number, signal?: AbortSignal): Promise<RetentionSweep>;
  /** The SQLite file, when the log is one that another thread can read (exports run off the event loop). */
  sqliteFile?(): string;
  close(): Promise<void>;
}

/** What one retention pass deleted. */
export interface RetentionSweep {
  sessions: number;
  events: number;
}

/** One queued write: an event, a student's token, or a new peak of connected students. */
export type QueuedWrite =
  | { kind: "event"; sessionId: string; event: SessionEvent }
  | { kind: "token"; sessionId: string; participantId: string; tokenHash: string }
  | { kind: "peak"; sessionId: string; peak: number };

/**
 * What a batch write reports: nothing when all of it is durable, or the
 * sessions (keys) whose writes were refused, each with its error. Throwing
 * means none of the batch was written.
 */
export type BatchOutcome = void | ReadonlyMap<string, Error>;
