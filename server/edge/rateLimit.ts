/**
 * A token bucket: `capacity` requests at once, refilled at `refillPerSecond`.
 * Over the limit a caller gets an error code and must pause; nothing is
 * dropped silently and nothing crashes.
 */
export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    private readonly options: { capacity: number; refillPerSecond: number },
    private readonly now: () => number = Date.now,
  ) {
    this.tokens = options.capacity;
    this.last = now();
  }

  available(): boolean {
    this.refill();
    return this.tokens >= 1;
  }

  /** Whole tokens left now. */
  count(): number {
    this.refill();
    return Math.floor(this.tokens);
  }

  private refill(): void {
    const t = this.now();
    this.tokens = Math.min(this.options.capacity, this.tokens + ((t - this.last) / 1000) * this.options.refillPerSecond);
    this.last = t;
  }

  /** Takes `cost` tokens if there are that many (a frame's bytes, or one request). */
  take(cost = 1): boolean {
    this.refill();
    if (this.tokens < cost) return false;
    this.tokens -= cost;
    return true;
  }

  /**
   * Takes `cost` tokens whatever is left, running into debt: for a cost known only once the work is done
   * (the bytes a resync sent). `available()` says no until the debt is paid back.
   */
  spend(cost: number): void {
    this.refill();
    this.tokens -= cost;
  }

  /** Milliseconds until a whole token is back (0 when there is one now). */
  msUntilAvailable(): number {
    this.refill();
    return this.tokens >= 1 ? 0 : Math.ceil(((1 - this.tokens) / this.options.refillPerSecond) * 1000);
  }
}

/**
 * Token buckets keyed by a string (a client address, a student); past
 * `maxKeys` the least recently used are forgotten, one at a time.
 *
 * Recency is kept by insertion order, but a key is moved to the back only
 * once it has fallen behind half the map: a busy key costs one lookup, not a
 * delete and an insert per request (a vote storm takes 10,000 students'
 * buckets a second). A key used within the last `maxKeys / 2` moves or new
 * keys is therefore never the oldest, and so never evicted.
 */
export class KeyedLimiter {
  private readonly buckets = new Map<string, { bucket: TokenBucket; moved: number }>();
  /** Counts insertions (new keys and moves); a key's `moved` is the count at its last one. */
  private clock = 0;

  constructor(
    private readonly options: { capacity: number; refillPerSecond: number },
    private readonly maxKeys = 10_000,
  ) {}

  /** Whether `key` has a token left, without taking it. */
  peek(key: string): boolean {
    return this.buckets.get(key)?.bucket.available() ?? true;
  }

  /** Whole tokens `key` has left, without taking any (a key never seen has a full bucket). */
  available(key: string): number {
    return this.buckets.get(key)?.bucket.count() ?? Math.floor(this.options.capacity);
  }

  take(key: string, cost = 1): boolean {
    return this.bucket(key).take(cost);
  }

  /** Spends `cost` from `key`'s bucket even past what is left (see TokenBucket.spend). */
  spend(key: string, cost: number): void {
    this.bucket(key).spend(cost);
  }

  /** Milliseconds until `key` has a whole token again (0 now, or for a key never seen). */
  msUntilAvailable(key: string): number {
    return this.buckets.get(key)?.bucket.msUntilAvailable() ?? 0;
  }

  private bucket(key: string): TokenBucket {
    let entry = this.buckets.get(key);
    if (!entry) {
      // Bounded memory without amnesty: evict the least recently used key, never every bucket at once
      // (clearing would let a flood of addresses reset everyone's limits).
      if (this.buckets.size >= this.maxKeys) this.buckets.delete(this.buckets.keys().next().value!);
      entry = { bucket: new TokenBucket(this.options), moved: ++this.clock };
      this.buckets.set(key, entry);
    } else if (this.clock - entry.moved >= this.maxKeys / 2) {
      // Map order is insertion order: re-inserting marks the key as recently used.
      this.buckets.delete(key);
      entry.moved = ++this.clock;
      this.buckets.set(key, entry);
    }
    return entry.bucket;
  }
}

/**
 * The client's address for per-address limits: the TCP peer, or behind a
 * trusted proxy the last X-Forwarded-For entry, the one that proxy appended
 * (earlier entries come from the client and can say anything).
 */
export function addressOf(peer: string | undefined, forwarded: string | string[] | undefined, trustProxy: boolean): string {
  if (trustProxy && forwarded) {
    const entries = (Array.isArray(forwarded) ? forwarded.join(",") : forwarded).split(",");
    const last = entries[entries.length - 1]?.trim();
    if (last) return last;
  }
  return peer ?? "unknown";
}
