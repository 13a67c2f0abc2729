import { describe, expect, it } from "vitest";
import { KeyedLimiter, TokenBucket, addressOf } from "./rateLimit";

describe("rate limits", () => {
  it("refills a bucket over time", () => {
    let now = 0;
    const bucket = new TokenBucket({ capacity: 2, refillPerSecond: 1 }, () => now);
    expect([bucket.take(), bucket.take(), bucket.take()]).toEqual([true, true, false]);
    now += 1000;
    expect(bucket.take()).toBe(true);
    expect(bucket.take()).toBe(false);
  });

  it("spends a cost known only after the work into debt, and says when a token is back", () => {
    let now = 0;
    const bucket = new TokenBucket({ capacity: 100, refillPerSecond: 100 }, () => now);
    bucket.spend(350);
    expect(bucket.available()).toBe(false);
    expect(bucket.msUntilAvailable()).toBe(2_510);
    now += 2_500;
    expect(bucket.available()).toBe(false);
    now += 10;
    expect(bucket.available()).toBe(true);
    expect(bucket.msUntilAvailable()).toBe(0);
  });

  it("keys buckets by address and peeks without taking", () => {
    const limiter = new KeyedLimiter({ capacity: 1, refillPerSecond: 0.001 });
    expect(limiter.peek("a")).toBe(true);
    expect(limiter.take("a")).toBe(true);
    expect(limiter.peek("a")).toBe(false);
    expect(limiter.take("b")).toBe(true);
  });

  it("forgets the least recently used address past its limit, never everyone at once", () => {
    const limiter = new KeyedLimiter({ capacity: 1, refillPerSecond: 0.001 }, 2);
    limiter.take("a");
    limiter.take("b");
    limiter.take("a"); // a is now the most recent
    limiter.take("c"); // evicts b
    expect(limiter.peek("a")).toBe(false);
    expect(limiter.peek("b")).toBe(true);
  });

  it("never forgets a key in use while a flood of new keys passes through", () => {
    const limiter = new KeyedLimiter({ capacity: 1, refillPerSecond: 0.001 }, 100);
    for (let i = 0; i < 100; i++) limiter.take(`old${i}`);
    limiter.take("student");
    // 10,000 new addresses, the student voting again after every 50 of them (half the map).
    for (let i = 0; i < 10_000; i++) {
      limiter.take(`flood${i}`);
      if (i % 50 === 49) expect(limiter.take("student"), `after ${i + 1} new keys`).toBe(false);
    }
    // Keys nobody used again were forgotten, one at a time, oldest first.
    expect(limiter.peek("old0")).toBe(true);
    expect(limiter.peek("flood9999")).toBe(false);
    expect(limiter.peek("flood9000")).toBe(true);
  });

  it("trusts X-Forwarded-For only when told to", () => {
    expect(addressOf("10.0.0.1", "203.0.113.7, 10.0.0.1", false)).toBe("10.0.0.1");
    // The proxy appends the address it saw; what the client wrote before it is not trusted.
    expect(addressOf("10.0.0.1", "6.6.6.6, 203.0.113.7", true)).toBe("203.0.113.7");
    expect(addressOf("10.0.0.1", undefined, true)).toBe("10.0.0.1");
  });
});
