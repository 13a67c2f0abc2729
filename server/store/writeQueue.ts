import type { SessionEvent } from "../../lib/session/types";
import { toError } from "../../lib/errors";
import { observeBatch, type StoreKind } from "../ops/metrics";
import type { BatchOutcome, QueuedWrite } from "./types";

/**
 * What both stores share: the queue of writes, batched per turn, and the
 * listeners told when a batch fails. A store supplies `writeBatch`.
 */
export abstract class BatchedStore {
  private readonly queue: WriteQueue<QueuedWrite>;
  private readonly writeErrorListeners: ((failures: ReadonlyMap<string, Error>) => void)[] = [];
  /** Each session's peak write still waiting for its batch: a join storm raises the peak with every join, and one write per batch says it. */
  private readonly queuedPeaks = new Map<string, Extract<QueuedWrite, { kind: "peak" }>>();
  /**
   * Peaks not yet in the queue: they ride with the next batch written for any other reason (in a join storm,
   * the next joins'), or go on their own PEAK_WRITE_DELAY_MS later. A peak noted as each socket connects,
   * after its join was written, used to start a commit of its own: a fifth of a join storm's commits.
   */
  private readonly heldPeaks = new Map<string, number>();
  private peakTimer: NodeJS.Timeout | null = null;

  constructor(description: string, onLog: (msg: string, err: Error) => void, kind: StoreKind) {
    this.queue = new WriteQueue(
      (batch) => {
        // Every queued write is in this batch (the queue hands over all it holds): later peaks start a new write.
        this.queuedPeaks.clear();
        for (const [sessionId, peak] of this.heldPeaks) batch.push({ kind: "peak", sessionId, peak });
        this.dropHeldPeaks();
        return observeBatch(kind, batch, () => this.writeBatch(batch));
      },
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

  /** Resolves once the session's writes (with no session: every write, the peaks held back included) are written. */
  flush(sessionId?: string): Promise<void> {
    if (sessionId === undefined) this.releasePeaks();
    return this.queue.flush(sessionId);
  }

  onWriteError(listener: (failures: ReadonlyMap<string, Error>) => void): void {
    this.writeErrorListeners.push(listener);
  }

  /** Written with the next batch, or within PEAK_WRITE_DELAY_MS; best effort (a peak is presence, not a teaching event). */
  notePeakParticipants(sessionId: string, peak: number): void {
    const queued = this.queuedPeaks.get(sessionId);
    if (queued) {
      queued.peak = Math.max(queued.peak, peak);
      return;
    }
    this.heldPeaks.set(sessionId, Math.max(this.heldPeaks.get(sessionId) ?? 0, peak));
    if (!this.peakTimer) {
      this.peakTimer = setTimeout(() => this.releasePeaks(), PEAK_WRITE_DELAY_MS);
      // A quiet process may exit before it fires: closing the store releases what is held.
      this.peakTimer.unref();
    }
  }

  /** The held peaks into the queue, as writes of their own (merged with any later peak until their batch is written). */
  private releasePeaks(): void {
    for (const [sessionId, peak] of this.heldPeaks) {
      const write = { kind: "peak" as const, sessionId, peak };
      this.queuedPeaks.set(sessionId, write);
      this.queue.push(write);
    }
    this.dropHeldPeaks();
  }

  private dropHeldPeaks(): void {
    this.heldPeaks.clear();
    if (this.peakTimer) clearTimeout(this.peakTimer);
    this.peakTimer = null;
  }

  /** Queued with the join's event; durable at the same flush (the join waits for it before admitting the socket). */
  async saveParticipantToken(sessionId: string, participantId: string, tokenHash: string): Promise<void> {
    this.queue.push({ kind: "token", sessionId, participantId, tokenHash });
  }

  /** Writes what is still queued, logging (never hiding) a failure. */
  protected async flushBeforeClose(onLog: (msg: string, err: Error) => void): Promise<void> {
    this.releasePeaks();
    await this.queue.flush().catch((err: Error) => onLog("events still queued at close could not be written", err));
  }
}

interface Waiter {
  /** The session this waiter belongs to; undefined waits for everything queued. */
  key?: string;
  done: () => void;
  onFail?: (err: Error) => void;
}

/** A peak of students connected waits at most this long (ms) for a batch to ride with. */
export const PEAK_WRITE_DELAY_MS = 1_000;

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
