import { createHash } from "node:crypto";
import type { ConsoleKey, NewSessionRecord } from "./types";

/**
 * The public name of a console key: derived from the key's hash, so a store
 * (or an upgrade that finds the keys of earlier sessions) needs no second
 * random value, and so the name says nothing of the key or its hash.
 */
export function consoleIdOf(keyHash: string): string {
  return createHash("sha256").update("console\n").update(keyHash).digest("hex").slice(0, 32);
}

/** The console a session is created with: the key in `hostKeyHash`, opened by nobody's account. */
export function firstConsole(record: NewSessionRecord): ConsoleKey {
  return { id: consoleIdOf(record.hostKeyHash), keyHash: record.hostKeyHash, accountId: null, createdAt: record.createdAt };
}
