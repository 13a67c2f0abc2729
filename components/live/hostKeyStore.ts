import { MAX_HOST_KEYS_PER_REQUEST } from "@/lib/protocol/rest";
import { hostKeyKey } from "./storageKeys";

/**
 * Where this browser keeps the host keys of the sessions it started, and the
 * only code that reads or writes them. localStorage may be unavailable
 * (private modes, storage disabled): then nothing is kept, and every read
 * answers "none" instead of throwing.
 */

/** When this browser started the session with this code (orders /sessions by recency). */
export const startedAtKey = (code: string) => `classroom:started:${code}`;

/** The host key this browser holds for a room code, if any. */
export function readHostKey(code: string): string | undefined {
  try {
    return localStorage.getItem(hostKeyKey(code)) ?? undefined;
  } catch {
    return undefined;
  }
}

/** Keeps a session's host key (and when it started) for this browser's consoles, projectors and saved list. */
export function saveHostKey(code: string, hostKey: string, startedAt?: number): void {
  try {
    localStorage.setItem(hostKeyKey(code), hostKey);
    if (startedAt !== undefined) localStorage.setItem(startedAtKey(code), String(startedAt));
  } catch {
    // Storage unavailable: the key lives in this tab only.
  }
}

/** Forgets a console's key (the teacher revoked it, or it opens nothing any more). */
export function forgetHostKey(code: string): void {
  try {
    localStorage.removeItem(hostKeyKey(code));
    localStorage.removeItem(startedAtKey(code));
  } catch {
    // nothing to forget
  }
}

/** Every host key this browser holds (one per session it started or opened a console of), newest first. */
export function allHostKeys(): string[] {
  const found: { key: string; at: number }[] = [];
  try {
    const prefix = hostKeyKey("");
    for (let i = 0; i < localStorage.length; i++) {
      const name = localStorage.key(i);
      if (name?.startsWith(prefix)) {
        const value = localStorage.getItem(name);
        if (value) found.push({ key: value, at: Number(localStorage.getItem(startedAtKey(name.slice(prefix.length)))) || 0 });
      }
    }
  } catch {
    // Storage unavailable: this browser holds no keys.
  }
  return found.sort((a, b) => b.at - a.at).map((f) => f.key);
}

/**
 * Headers that prove which sessions this browser may read in full. Keys go in
 * headers, never URLs. (A signed-in teacher's cookie goes with every request
 * by itself; the administrator signs in rather than pasting ADMIN_TOKEN, which
 * is for scripts.)
 */
export function hostKeyHeaders(): Record<string, string> {
  const headers: Record<string, string> = {};
  // The most recent sessions: one request carries at most this many keys.
  const keys = allHostKeys().slice(0, MAX_HOST_KEYS_PER_REQUEST);
  if (keys.length) headers["X-Host-Keys"] = keys.join(",");
  return headers;
}
