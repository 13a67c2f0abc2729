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

  private refill(): void {
    const t = this.now();
    this.tokens = Math.min(this.options.capacity, this.tokens + ((t - this.last) / 1000) * this.options.refillPerSecond);
    this.last = t;
  }

  take(): boolean {
    const t = this.now();
    this.tokens = Math.min(this.options.capacity, this.tokens + ((t - this.last) / 1000) * this.options.refillPerSecond);
    this.last = t;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

/** Token buckets keyed by a string (a client address), forgotten when full again. */
export class KeyedLimiter {
  private readonly buckets = new Map<string, TokenBucket>();

  constructor(
    private readonly options: { capacity: number; refillPerSecond: number },
    private readonly maxKeys = 10_000,
  ) {}

  /** Whether `key` has a token left, without taking it. */
  peek(key: string): boolean {
    return this.buckets.get(key)?.available() ?? true;
  }

  take(key: string): boolean {
    let bucket = this.buckets.get(key);
    if (!bucket) {
      // Bounded memory: a flood of addresses cannot grow this map without limit.
      if (this.buckets.size >= this.maxKeys) this.buckets.clear();
      bucket = new TokenBucket(this.options);
      this.buckets.set(key, bucket);
    }
    return bucket.take();
  }
}

/** The client's address for per-address limits: the TCP peer, or the first X-Forwarded-For entry behind a trusted proxy. */
export function addressOf(peer: string | undefined, forwarded: string | string[] | undefined, trustProxy: boolean): string {
  if (trustProxy && forwarded) {
    const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded).split(",")[0]?.trim();
    if (first) return first;
  }
  return peer ?? "unknown";
}
