import { createHash, hash, randomBytes, randomInt, randomUUID, timingSafeEqual } from "node:crypto";
import { ROOM_CODE_ALPHABET, ROOM_CODE_LENGTH } from "../lib/protocol";

const SECRET_BYTES = 32;
/**
 * Secrets are cut from a pool of random bytes drawn 128 at a time: one
 * randomBytes call per secret was a measurable part of a join storm's CPU
 * (each is a trip into OpenSSL's generator; node's randomUUID pools the same
 * way). Bytes handed out are zeroed in the pool, so the pool never holds a
 * secret already given to someone.
 */
const pool = { bytes: Buffer.alloc(0), at: 0 };

/** 256-bit secret, URL-safe: host keys and student tokens. */
export function newSecret(): string {
  if (pool.at + SECRET_BYTES > pool.bytes.length) {
    pool.bytes = randomBytes(SECRET_BYTES * 128);
    pool.at = 0;
  }
  const secret = pool.bytes.toString("base64url", pool.at, pool.at + SECRET_BYTES);
  pool.bytes.fill(0, pool.at, pool.at + SECRET_BYTES);
  pool.at += SECRET_BYTES;
  return secret;
}

export function newId(): string {
  return randomUUID();
}

/**
 * One-shot hashing makes no Hash object: a third of createHash's cost, once per new student and per returning
 * token in a join storm. It came in Node 20.12 (whatever the types say); older Node (the engines floor is
 * 20.9) takes the long way.
 */
const oneShot = typeof hash === "function";

export function hashSecret(secret: string): string {
  return oneShot ? hash("sha256", secret, "hex") : createHash("sha256").update(secret, "utf8").digest("hex");
}

/** Compares a presented secret with a stored hash in constant time. */
export function secretMatches(presented: string | undefined, storedHash: string): boolean {
  if (!presented) return false;
  const a = Buffer.from(hashSecret(presented), "hex");
  const b = Buffer.from(storedHash, "hex");
  return a.length === b.length && timingSafeEqual(a, b);
}

export function newRoomCode(): string {
  let code = "";
  for (let i = 0; i < ROOM_CODE_LENGTH; i++) code += ROOM_CODE_ALPHABET[randomInt(ROOM_CODE_ALPHABET.length)];
  return code;
}

export function shuffle<T>(items: T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}
