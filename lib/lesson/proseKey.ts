/**
 * The built-in lesson's prose in other languages (issue 32) is looked up by a
 * key made from its English text, not by where it sits: the same sentence
 * shared by several scenarios, modes or releases is translated once, and an
 * English sentence that changes gets a new key, so a translation of the old
 * wording can never be shown for the new one (the reader gets the new English,
 * marked lang="en", until a translator catches up).
 *
 * Client-safe: no scenario is built here.
 */

/** The catalog namespace that holds every prose string of the built-in lesson, by `proseKey`. */
export const PROSE_NAMESPACE = "lessonProse";

/** The catalog namespace that holds the templates the poll notes and questions are built from. */
export const POLL_NAMESPACE = "lessonPoll";

/**
 * The namespace i18n/request.ts adds at run time, per lesson namespace: the keys a
 * partial language took from English ({ lessonProse: { key: "en" } }).
 */
export const FALLBACK_NAMESPACE = "lessonFallback";

/**
 * Languages whose lesson catalog must hold every key English has (tests/i18n/catalogs.test.ts).
 * Any other language may hold a subset; the rest reads in English, marked as English.
 */
export const LESSON_COMPLETE_LOCALES: readonly string[] = ["en", "de", "es"];

/**
 * cyrb53: a 53-bit string hash, plenty for a few hundred sentences (a test checks
 * there is no collision). Catalog keys cannot contain dots, so the key is base 36
 * behind a letter.
 */
export function proseKey(english: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < english.length; i++) {
    const ch = english.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return `p${(4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36)}`;
}
