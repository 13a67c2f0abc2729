import { MAX_LESSON_KEYS_PER_REQUEST } from "@/lib/protocol/rest";
import { ADMIN_TOKEN_KEY } from "@/components/live/hostKeyStore";

/** The browser's lesson keys (one per lesson it created), like host keys: the server keeps only their hashes. */
const PREFIX = "classroom:lesson:";

export function saveLessonKey(id: string, key: string): void {
  try {
    localStorage.setItem(PREFIX + id, key);
  } catch {
    // Storage unavailable: the lesson works now but will not be listed later.
  }
}

export function lessonKey(id: string): string | undefined {
  try {
    return localStorage.getItem(PREFIX + id) ?? undefined;
  } catch {
    return undefined;
  }
}

export function forgetLessonKey(id: string): void {
  try {
    localStorage.removeItem(PREFIX + id);
  } catch {
    // nothing to forget
  }
}

/** Headers for lesson requests: this browser's keys (or one lesson's), and the admin token if signed in. */
export function lessonHeaders(id?: string): Record<string, string> {
  const headers: Record<string, string> = {};
  const keys: string[] = [];
  try {
    if (id) {
      const k = lessonKey(id);
      if (k) keys.push(k);
    } else {
      for (let i = 0; i < localStorage.length; i++) {
        const name = localStorage.key(i);
        if (name?.startsWith(PREFIX)) keys.push(localStorage.getItem(name) ?? "");
      }
    }
    const admin = sessionStorage.getItem(ADMIN_TOKEN_KEY);
    if (admin) headers.Authorization = `Bearer ${admin}`;
  } catch {
    // no storage
  }
  const present = keys.filter(Boolean).slice(0, MAX_LESSON_KEYS_PER_REQUEST);
  if (present.length) headers[id ? "X-Lesson-Key" : "X-Lesson-Keys"] = present.join(",");
  return headers;
}
