import { hostKeyKey } from "@/components/live/storageKeys";

/**
 * How many keys one request carries: they travel in a header, and HTTP
 * servers cap header size (Node: 16 KiB); 200 keys of 43 characters fit.
 * The same number as MAX_HOST_KEYS on the server.
 */
export const HOST_KEYS_PER_REQUEST = 200;

/** Every host key this browser holds (one per session it started), newest first. */
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

/** The keys one request can carry: the most recent sessions. */
export function hostKeys(): string[] {
  return allHostKeys().slice(0, HOST_KEYS_PER_REQUEST);
}

/** When this browser started the session with this code (orders /sessions by recency). */
export const startedAtKey = (code: string) => `classroom:started:${code}`;

export const ADMIN_TOKEN_KEY = "classroom:admin";

/** Headers that prove which sessions this browser may read in full. Keys go in headers, never URLs. */
export function hostKeyHeaders(): Record<string, string> {
  const headers: Record<string, string> = {};
  const keys = hostKeys();
  if (keys.length) headers["X-Host-Keys"] = keys.join(",");
  try {
    const admin = sessionStorage.getItem(ADMIN_TOKEN_KEY);
    if (admin) headers.Authorization = `Bearer ${admin}`;
  } catch {
    // no session storage
  }
  return headers;
}
