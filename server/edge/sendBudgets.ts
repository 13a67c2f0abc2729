import { ADDRESS_BUDGETS, MIN_RESYNC_RETRY_MS } from "../../lib/protocol";
import type { AddressBudgets } from "../../lib/protocol/budgets";
import { KeyedLimiter } from "./rateLimit";

/**
 * What one address, and one session, may make the server send again: the
 * whole projections of joins (reconnects included) and the answers to
 * resyncs. Each socket has its own limits too (RATE_LIMITS), but one address
 * holds thousands of sockets: 300 of them resyncing at their own limit in a
 * room of long questions once kept the event loop busy for 800 ms at a time
 * (issue 28). These budgets make what one address costs independent of how
 * many sockets it holds.
 *
 * Counts are taken before the work; bytes are spent after it (a projection's
 * size is known once it is made), so a byte budget may run into debt, and
 * while it is in debt the next request is refused before any work is done.
 */
export class SendBudgets {
  private readonly resyncs: KeyedLimiter;
  private readonly resyncBytes: KeyedLimiter;
  private readonly sessionResyncBytes: KeyedLimiter;
  private readonly joins: KeyedLimiter;
  private readonly joinBytes: KeyedLimiter;

  constructor(budgets: AddressBudgets = ADDRESS_BUDGETS) {
    this.resyncs = new KeyedLimiter(budgets.resyncs);
    this.resyncBytes = new KeyedLimiter(budgets.resyncBytes);
    this.sessionResyncBytes = new KeyedLimiter(budgets.sessionResyncBytes);
    this.joins = new KeyedLimiter(budgets.joins);
    this.joinBytes = new KeyedLimiter(budgets.joinBytes);
  }
  /**
   * Per session, the size of its last resync answer: an admitted resync spends that much at once, before its
   * answer is made (which takes a turn of the event loop), so a burst of resyncs read together cannot all be
   * admitted against the same remaining budget; the difference is settled when the answer's size is known.
   */
  private readonly lastAnswer = new Map<string, number>();

  /**
   * Whether a resync from `address` into `sessionId` is answered now; if not,
   * when the address's and the session's budgets have room again.
   */
  admitResync(address: string, sessionId: string): { ok: true; reserved: number } | { ok: false; retryAfterMs: number } {
    const wait = Math.max(this.resyncBytes.msUntilAvailable(address), this.sessionResyncBytes.msUntilAvailable(sessionId));
    if (wait > 0) return { ok: false, retryAfterMs: Math.max(MIN_RESYNC_RETRY_MS, wait) };
    if (!this.resyncs.take(address))
      return { ok: false, retryAfterMs: Math.max(MIN_RESYNC_RETRY_MS, this.resyncs.msUntilAvailable(address)) };
    const reserved = this.lastAnswer.get(sessionId) ?? 0;
    this.spendResync(address, sessionId, reserved);
    return { ok: true, reserved };
  }

  /** What an admitted resync sent, in characters of its messages (`reserved`: what its admission spent already). */
  resyncSent(address: string, sessionId: string, chars: number, reserved: number): void {
    this.spendResync(address, sessionId, chars - reserved);
    this.lastAnswer.delete(sessionId);
    // Bounded like the limiters: the session answered longest ago is forgotten first.
    if (this.lastAnswer.size >= 10_000) this.lastAnswer.delete(this.lastAnswer.keys().next().value!);
    this.lastAnswer.set(sessionId, chars);
  }

  private spendResync(address: string, sessionId: string, chars: number): void {
    this.resyncBytes.spend(address, chars);
    this.sessionResyncBytes.spend(sessionId, chars);
  }

  /** Whether a handshake from `address` is looked up now (it spends one of the address's joins). */
  admitJoin(address: string): boolean {
    return this.joinBytes.peek(address) && this.joins.take(address);
  }

  /** What a joined socket was sent whole, in characters. */
  joinSent(address: string, chars: number): void {
    this.joinBytes.spend(address, chars);
  }
}
