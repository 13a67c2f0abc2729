import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";

/**
 * Passwords, hashed with scrypt (memory-hard, in Node's own crypto: OpenSSL's
 * implementation, nothing to compile or download). Parameters follow OWASP's
 * Password Storage Cheat Sheet minimum for scrypt: N = 2^17, r = 8, p = 1,
 * which costs 128 MiB and about 0.3 s per hash on this project's 2-core
 * machine, with a 16-byte random salt and a 32-byte key. The hash records its
 * parameters (`scrypt$17$8$1$salt$key`), so they can be raised later and old
 * hashes still verify (and are re-hashed at the next sign-in).
 *
 * Each hash runs on libuv's thread pool, never on the event loop; at most
 * HASH_CONCURRENCY run at once (2 x 128 MiB) and HASH_QUEUE wait, so a flood
 * of sign-ins cannot take the server's memory or its thread pool: past that,
 * callers are told `busy`.
 */
export const SCRYPT = { log2N: 17, r: 8, p: 1, saltBytes: 16, keyBytes: 32 } as const;
export const HASH_CONCURRENCY = 2;
export const HASH_QUEUE = 32;

export class HashBusyError extends Error {
  constructor() {
    super("too many password checks in progress");
    this.name = "HashBusyError";
  }
}

interface Params {
  log2N: number;
  r: number;
  p: number;
}

let running = 0;
const waiting: (() => void)[] = [];

/** Runs `work` when one of the HASH_CONCURRENCY slots is free; refuses at once when HASH_QUEUE already wait. */
async function inSlot<T>(work: () => Promise<T>): Promise<T> {
  if (running >= HASH_CONCURRENCY) {
    if (waiting.length >= HASH_QUEUE) throw new HashBusyError();
    await new Promise<void>((resolve) => waiting.push(resolve));
  } else running++;
  try {
    return await work();
  } finally {
    // Hand the slot straight to the next caller, or free it.
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

function derive(password: string, salt: Buffer, params: Params, keyBytes: number): Promise<Buffer> {
  const N = 2 ** params.log2N;
  const options: ScryptOptions = { N, r: params.r, p: params.p, maxmem: 128 * N * params.r + 16 * 1024 * 1024 };
  return inSlot(
    () =>
      new Promise<Buffer>((resolve, reject) => {
        scrypt(password.normalize("NFC"), salt, keyBytes, options, (err, key) => (err ? reject(err) : resolve(key)));
      }),
  );
}

/** A new hash of `password`, in the stored form. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SCRYPT.saltBytes);
  const key = await derive(password, salt, SCRYPT, SCRYPT.keyBytes);
  return ["scrypt", SCRYPT.log2N, SCRYPT.r, SCRYPT.p, salt.toString("base64url"), key.toString("base64url")].join("$");
}

interface ParsedHash extends Params {
  salt: Buffer;
  key: Buffer;
}

function parseHash(stored: string): ParsedHash | null {
  const parts = stored.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return null;
  const [log2N, r, p] = parts.slice(1, 4).map(Number);
  // Bounds keep a damaged or planted row from asking for gigabytes.
  if (![log2N, r, p].every(Number.isInteger) || log2N < 10 || log2N > 20 || r < 1 || r > 32 || p < 1 || p > 16) return null;
  return { log2N, r, p, salt: Buffer.from(parts[4], "base64url"), key: Buffer.from(parts[5], "base64url") };
}

/** A fixed hash to check against when the account does not exist: the answer then takes as long as a real one. */
let decoy: Promise<string> | null = null;

/**
 * Whether `password` matches `stored`. With `stored` null (no such account, or
 * one without a password) a decoy hash is checked anyway and the answer is
 * false, so the time taken does not tell whether the email has an account.
 */
export async function verifyPassword(password: string, stored: string | null): Promise<{ ok: boolean; stale: boolean }> {
  decoy ??= hashPassword(randomBytes(18).toString("base64url"));
  const parsed = parseHash(stored ?? (await decoy));
  if (!parsed) return { ok: false, stale: false };
  const key = await derive(password, parsed.salt, parsed, parsed.key.length);
  const ok = stored !== null && key.length === parsed.key.length && timingSafeEqual(key, parsed.key);
  const stale = parsed.log2N !== SCRYPT.log2N || parsed.r !== SCRYPT.r || parsed.p !== SCRYPT.p;
  return { ok, stale };
}
