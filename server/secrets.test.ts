import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { hashSecret, newSecret, secretMatches } from "./secrets";

describe("secrets", () => {
  it("are 256 random bits each, URL-safe, never repeated across the pool's refills", () => {
    // 1,000 secrets draw the pool (128 per draw) eight times over.
    const secrets = Array.from({ length: 1_000 }, () => newSecret());
    expect(new Set(secrets).size).toBe(secrets.length);
    for (const secret of secrets) {
      expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const bytes = Buffer.from(secret, "base64url");
      expect(bytes.length).toBe(32);
      // A zeroed slice handed out twice would read as 32 zero bytes.
      expect(bytes.some((b) => b !== 0)).toBe(true);
    }
    // Every byte value turns up: the bytes are spread, not a counter or a slice of zeros.
    const seen = new Set(secrets.flatMap((s) => [...Buffer.from(s, "base64url")]));
    expect(seen.size).toBe(256);
  });

  it("match only their own hash", () => {
    const [a, b] = [newSecret(), newSecret()];
    expect(secretMatches(a, hashSecret(a))).toBe(true);
    expect(secretMatches(b, hashSecret(a))).toBe(false);
    expect(secretMatches(undefined, hashSecret(a))).toBe(false);
  });

  it("hash to the SHA-256 hex the stores have always kept", () => {
    // A stored token hash from before the one-shot hashing still opens its session.
    expect(hashSecret("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(hashSecret("ü")).toBe(createHash("sha256").update("ü", "utf8").digest("hex"));
  });
});
