import type { SessionSummary } from "../../lib/protocol/rest";
import type { SessionEvent } from "../../lib/session/types";
import { toError } from "../../lib/errors";
import { observeBatch, type StoreKind } from "../ops/metrics";

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
 * What both stores share: the queue of writes, batched per turn, and the
 * listeners told when a batch fails. A store supplies `writeBatch`.
 */
export abstract class BatchedStore {
  private readonly queue: WriteQueue<QueuedWrite>;
  private readonly writeErrorListeners: ((failures: ReadonlyMap<string, Error>) => void)[] = [];

  constructor(description: string, onLog: (msg: string, err: Error) => void, kind: StoreKind) {
    this.queue = new WriteQueue(
      (batch) => observeBatch(kind, batch, () => this.writeBatch(batch)),
      (err, failures) => {
        // Every write carries its session, so a failure always names its sessions (never "all of them").
        const bySession = failures ?? new Map<string, Error>();
        onLog(`writing ${description} failed for ${bySession.size} session(s)`, err);
        for (const listener of this.writeErrorListeners) listener(bySession);
      },
      (write) => write.sessionId,
    );
  }

  /**
   * Writes one batch durably. Throws when none of it was written; returns the
   * sessions whose writes were refused when only some were (nothing of theirs
   * is then acknowledged or broadcast).
   */
  protected abstract writeBatch(batch: QueuedWrite[]): Promise<BatchOutcome> | BatchOutcome;

  append(sessionId: string, event: SessionEvent): void {
    this.queue.push({ kind: "event", sessionId, event });
  }

  afterDurable(fn: () => void, sessionId?: string): void {
    this.queue.afterDurable(fn, sessionId);
  }

  flush(sessionId?: string): Promise<void> {
    return this.queue.flush(sessionId);
  }

  onWriteError(listener: (failures: ReadonlyMap<string, Error>) => void): void {
    this.writeErrorListeners.push(listener);
  }

  /** Queued with the events; best effort (a peak is presence, not a teaching event). */
  notePeakParticipants(sessionId: string, peak: number): void {
    this.queue.push({ kind: "peak", sessionId, peak });
  }

  /** Queued with the join's event; durable at the same flush (the join waits for it before admitting the socket). */
  async saveParticipantToken(sessionId: string, participantId: string, tokenHash: string): Promise<void> {
    this.queue.push({ kind: "token", sessionId, participantId, tokenHash });
  }

  /** Writes what is still queued, logging (never hiding) a failure. */
  protected async flushBeforeClose(onLog: (msg: string, err: Error) => void): Promise<void> {
    await this.queue.flush().catch((err: Error) => onLog("events still queued at close could not be written", err));
  }
}

/**
 * What a batch write reports: nothing when all of it is durable, or the
 * sessions (keys) whose writes were refused, each with its error. Throwing
 * means none of the batch was written.
 */
export type BatchOutcome = void | ReadonlyMap<string, Error>;

interface Waiter {
  /** The session this waiter belongs to; undefined waits for everything queued. */
  key?: string;
  done: () => void;
  onFail?: (err: Error) => void;
}

/** A batch is written once it holds this many writes, without waiting for the loop's turn. */
export const WRITE_BATCH_MAX = 256;
/** …or once its first write has waited this long (ms). */
export const WRITE_BATCH_MAX_WAIT_MS = 10;

/**
 * The write queue both stores share: appends collect into a batch that is
 * written on the next turn of the event loop; callbacks waiting for
 * durability run, in order, when their batch is written. A failure reaches
 * only the waiters of the sessions it belongs to: one session's refused write
 * (a stale owner in Redis, a bad row) does not hold back the others.
 *
 * The next turn can be far off: under a burst of 10,000 votes libuv reads
 * socket after socket in one poll phase, and setImmediate waited 600 ms while
 * 8,866 votes piled up, their acks and tallies with them. So a batch that is
 * full (WRITE_BATCH_MAX) or old (WRITE_BATCH_MAX_WAIT_MS) is written right
 * after the callback that filled it.
 */
export class WriteQueue<T> {
  private pending: T[] = [];
  private waiting: Waiter[] = [];
  /** A write of what is pending is due (on the next turn, or sooner). */
  private scheduled = false;
  /** That write has been chained behind the one in flight. */
  private started = false;
  private firstPendingAt = 0;
  private inFlight = false;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly write: (batch: T[]) => Promise<BatchOutcome> | BatchOutcome,
    /** `failures` maps each key that failed to its error; null only when items carry no key and the whole batch failed. */
    private readonly onError: (err: Error, failures: ReadonlyMap<string, Error> | null) => void,
    private readonly keyOf: (item: T) => string | undefined = () => undefined,
  ) {}

  push(item: T): void {
    this.pending.push(item);
    if (!this.scheduled) this.schedule();
    else if (
      !this.started &&
      (this.pending.length >= WRITE_BATCH_MAX || performance.now() - this.firstPendingAt >= WRITE_BATCH_MAX_WAIT_MS)
    ) {
      this.start();
    }
  }

  get idle(): boolean {
    return this.pending.length === 0 && !this.scheduled && !this.inFlight;
  }

  /** Runs `fn` once everything queued so far is written; never if writing (this session's part of) it failed. */
  afterDurable(fn: () => void, key?: string): void {
    if (this.idle) fn();
    else this.waiting.push({ key, done: fn });
  }

  /** Resolves once everything queued so far is written; rejects if (this session's part of) it failed. */
  flush(key?: string): Promise<void> {
    // Nothing pending: nothing of the caller's can have failed.
    if (this.idle) return Promise.resolve();
    return new Promise((resolve, reject) => this.waiting.push({ key, done: resolve, onFail: reject }));
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    this.firstPendingAt = performance.now();
    // setImmediate: every command handled in this turn joins one batch.
    setImmediate(() => this.start());
  }

  /** Chains the due write behind the one in flight (it starts in a microtask when none is). */
  private start(): void {
    if (!this.scheduled || this.started) return;
    this.started = true;
    this.writing = this.writing.then(() => this.drain());
  }

  private async drain(): Promise<void> {
    this.scheduled = false;
    this.started = false;
    const batch = this.pending;
    const waiting = this.waiting;
    this.pending = [];
    this.waiting = [];
    this.inFlight = true;
    /** null: all written; otherwise the failure of one key, or of everything ("*"). */
    let failures: ReadonlyMap<string, Error> | null = null;
    try {
      const outcome = batch.length ? await this.write(batch) : undefined;
      if (outcome && outcome.size > 0) {
        failures = outcome;
        const first = outcome.values().next().value!;
        this.onError(first, outcome);
      }
    } catch (err) {
      // Nothing was written: every session in the batch failed (all of them, when items carry no key).
      const keys = batch.map(this.keyOf);
      const all = keys.some((k) => k === undefined);
      failures = all ? new Map([["*", toError(err)]]) : new Map(keys.map((k) => [k!, toError(err)]));
      this.onError(toError(err), all ? null : failures);
    }
    this.inFlight = false;
    const failureOf = (w: Waiter): Error | undefined => {
      if (!failures) return undefined;
      const all = failures.get("*");
      if (all) return all;
      if (w.key === undefined) return failures.values().next().value;
      return failures.get(w.key);
    };
    const settle = (w: Waiter) => {
      const failure = failureOf(w);
      if (failure) w.onFail?.(failure);
      else w.done();
    };
    for (const w of waiting) settle(w);
    // Callbacks that arrived while this batch was being written, with nothing new queued after them.
    if (!this.scheduled && this.waiting.length) {
      const late = this.waiting;
      this.waiting = [];
      for (const w of late) settle(w);
    }
  }
}
