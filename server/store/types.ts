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
export interface SessionRecord {
  id: string;
  code: string;
  title: string;
  /** sha256 of the host key, hex; the key itself is never stored. */
  hostKeyHash: string;
  createdAt: number;
  endedAt: number | null;
}

export interface SessionSummary {
  id: string;
  code: string;
  title: string;
  createdAt: number;
  endedAt: number | null;
  status: "live" | "ended";
  lastEventAt: number;
  eventCount: number;
  participantCount: number;
  peakParticipants: number;
  pollCount: number;
}

export interface SessionStore {
  /** Creates the session with its first event (`session:created`, seq 1); durable when it resolves. */
  createSession(record: SessionRecord, created: SessionEvent): Promise<void>;
  /** Queues one event. Events of a session must be appended in seq order. */
  append(sessionId: string, event: SessionEvent): void;
  /** Runs `fn` once everything appended so far is durable (at once if nothing is pending). */
  afterDurable(fn: () => void): void;
  /** Resolves once everything appended so far is durable; rejects if writing failed. */
  flush(): Promise<void>;
  /** Called when a batch could not be written (whoever appended it may not be waiting: a poll timer, the idle sweep). */
  onWriteError(listener: (err: Error) => void): void;
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
  saveParticipantToken(sessionId: string, participantId: string, tokenHash: string): Promise<void>;
  findParticipantByToken(sessionId: string, tokenHash: string): Promise<string | null>;
  close(): Promise<void>;
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
  private readonly writeErrorListeners: ((err: Error) => void)[] = [];

  constructor(description: string, onLog: (msg: string, err: Error) => void) {
    this.queue = new WriteQueue(
      (batch) => this.writeBatch(batch),
      (err) => {
        onLog(`writing ${description} failed`, err);
        for (const listener of this.writeErrorListeners) listener(err);
      },
    );
  }

  /** Writes one batch durably, or throws (nothing of it is then acknowledged or broadcast). */
  protected abstract writeBatch(batch: QueuedWrite[]): Promise<void> | void;

  append(sessionId: string, event: SessionEvent): void {
    this.queue.push({ kind: "event", sessionId, event });
  }

  afterDurable(fn: () => void): void {
    this.queue.afterDurable(fn);
  }

  flush(): Promise<void> {
    return this.queue.flush();
  }

  onWriteError(listener: (err: Error) => void): void {
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
 * The write queue both stores share: appends collect into a batch that is
 * written on the next turn of the event loop; callbacks waiting for
 * durability run, in order, when their batch is written.
 */
export class WriteQueue<T> {
  private pending: T[] = [];
  /** What waits for the batch in flight or the next one: run on success; `onFail` (if any) on failure. */
  private waiting: { done: () => void; onFail?: (err: Error) => void }[] = [];
  private scheduled = false;
  private inFlight = false;
  private writing: Promise<void> = Promise.resolve();
  private failure: Error | null = null;

  constructor(
    private readonly write: (batch: T[]) => Promise<void> | void,
    private readonly onError: (err: Error) => void,
  ) {}

  push(item: T): void {
    this.pending.push(item);
    this.schedule();
  }

  get idle(): boolean {
    return this.pending.length === 0 && !this.scheduled && !this.inFlight;
  }

  /** Runs `fn` once everything queued so far is written; never if writing it failed (nothing unsaved is broadcast). */
  afterDurable(fn: () => void): void {
    if (this.idle) fn();
    else this.waiting.push({ done: fn });
  }

  flush(): Promise<void> {
    // Nothing pending: nothing of the caller's can have failed.
    if (this.idle) return Promise.resolve();
    return new Promise((resolve, reject) => this.waiting.push({ done: resolve, onFail: reject }));
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // setImmediate: every command handled in this turn joins one batch.
    setImmediate(() => {
      this.writing = this.writing.then(() => this.drain());
    });
  }

  private async drain(): Promise<void> {
    this.scheduled = false;
    const batch = this.pending;
    const waiting = this.waiting;
    this.pending = [];
    this.waiting = [];
    this.inFlight = true;
    try {
      if (batch.length) await this.write(batch);
      this.failure = null;
    } catch (err) {
      this.failure = err as Error;
      this.onError(err as Error);
    }
    this.inFlight = false;
    const failure = this.failure;
    const settle = (w: { done: () => void; onFail?: (err: Error) => void }) => (failure ? w.onFail?.(failure) : w.done());
    for (const w of waiting) settle(w);
    // Callbacks that arrived while this batch was being written, with nothing new queued after them.
    if (!this.scheduled && this.waiting.length) {
      const late = this.waiting;
      this.waiting = [];
      for (const w of late) settle(w);
    }
  }
}
