import { hostKeyKey } from "@/components/live/storageKeys";

/** Every host key this browser holds (one per session it started). */
export function hostKeys(): string[] {
  const keys: string[] = [];
  try {
    const prefix = hostKeyKey("");
    for (let i = 0; i < localStorage.length; i++) {
      const name = localStorage.key(i);
      if (name?.startsWith(prefix)) {
        const value = localStorage.getItem(name);
        if (value) keys.push(value);
      }
    }
  } catch {
    // Storage unavailable: this browser holds no keys.
  }
  return keys.slice(0, 200);
}

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
