import { MAX_LESSON_KEYS_PER_REQUEST } from "@/lib/protocol/rest";

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

/** Every lesson key this browser holds. */
export function allLessonKeys(): string[] {
  const keys: string[] = [];
  try {
    for (let i = 0; i < localStorage.length; i++) {
      const name = localStorage.key(i);
      if (name?.startsWith(PREFIX)) keys.push(localStorage.getItem(name) ?? "");
    }
  } catch {
    // no storage
  }
  return keys.filter(Boolean);
}

/**
 * Headers for lesson requests: this browser's keys (or one lesson's). A
 * signed-in teacher's cookie goes along by itself and opens the account's
 * lessons on any browser.
 */
export function lessonHeaders(id?: string): Record<string, string> {
  const headers: Record<string, string> = {};
  const keys = id ? [lessonKey(id) ?? ""].filter(Boolean) : allLessonKeys();
  const present = keys.slice(0, MAX_LESSON_KEYS_PER_REQUEST);
  if (present.length) headers[id ? "X-Lesson-Key" : "X-Lesson-Keys"] = present.join(",");
  return headers;
}
