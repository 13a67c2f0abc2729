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
}

/** A session as created: not shared yet. */
export type NewSessionRecord = Omit<SessionRecord, "shareKeyHash" | "shareGeneration">;

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
  /** Ids of the sessions whose host key hashes to one of these. */
  sessionIdsByHostKeyHash(hashes: readonly string[]): Promise<string[]>;
  /** Peak concurrent participants is presence, not an event; the room reports it (best effort). */
  notePeakParticipants(sessionId: string, peak: number): void;
  /** Starts (a hash) or stops (null) sharing the replay; durable when it resolves. */
  setReplaySharing(id: string, shareKeyHash: string | null, generation: number): Promise<void>;
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
