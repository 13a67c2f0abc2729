import { directionOf } from "../lib/direction";
/**
 * The interface languages, and how a request picks one. No i18n routing: the
 * URL stays the same in every language (a room's join link and an assignment's
 * link are shared by the whole class), so the locale comes from the phone
 * itself: the cookie its language switch set, else its browser's
 * Accept-Language, else English. Pure, so the server, the switch and the tests
 * share one rule.
 */

/** Shipped catalogs (messages/{locale}.json). English is the source every other catalog is checked against. */
export const LOCALES = ["en", "de", "fr", "es", "pt-BR", "ja", "zh-CN", "ar"] as const;

/** Generated from English at run time (i18n/pseudo.ts), chosen only through the cookie: for tests, never offered. */
export const PSEUDO_LOCALE = "en-XA";

export type ShippedLocale = (typeof LOCALES)[number];
export type AppLocale = ShippedLocale | typeof PSEUDO_LOCALE;

export const DEFAULT_LOCALE: ShippedLocale = "en";

/** The cookie the language switch sets (next-intl's conventional name). */
export const LOCALE_COOKIE = "NEXT_LOCALE";
/** Remembered on the device for a year: a student's phone keeps its language across classes. */
export const LOCALE_COOKIE_MAX_AGE_S = 365 * 24 * 60 * 60;

/** Each language in its own words, so a student finds theirs whatever the page is in now. */
export const LANGUAGE_NAMES: Record<AppLocale, string> = {
  en: "English",
  de: "Deutsch",
  fr: "Français",
  es: "Español",
  "pt-BR": "Português (Brasil)",
  ja: "日本語",
  "zh-CN": "简体中文",
  ar: "العربية",
  "en-XA": "[Ƥšéûðö]",
};

export function isShippedLocale(value: unknown): value is ShippedLocale {
  return typeof value === "string" && (LOCALES as readonly string[]).includes(value);
}

export function isAppLocale(value: unknown): value is AppLocale {
  return value === PSEUDO_LOCALE || isShippedLocale(value);
}

/** The writing direction of a locale: Arabic lays the page out right to left. */
/** Right to left for Arabic (lib/direction.ts: lib/ code needs it too, and lib/ imports nothing from here). */
export { directionOf };

/**
 * The shipped locale one language tag asks for: the exact tag, else its
 * language ("pt-PT" reads pt-BR, "de-AT" German). Every Chinese tag reads
 * Simplified Chinese: the one Chinese catalog is closer to a Traditional
 * reader than English is.
 */
function match(tag: string): ShippedLocale | null {
  const lower = tag.trim().toLowerCase();
  const exact = LOCALES.find((l) => l.toLowerCase() === lower);
  if (exact) return exact;
  const language = lower.split(/[-_]/)[0];
  return LOCALES.find((l) => l.split("-")[0].toLowerCase() === language) ?? null;
}

/** The best shipped locale for an Accept-Language header (by q weight, then order), or null when none fits. */
export function negotiateLocale(acceptLanguage: string | null | undefined): ShippedLocale | null {
  if (!acceptLanguage) return null;
  const ranked = acceptLanguage
    .split(",")
    .map((part, order) => {
      const [tag, ...params] = part.trim().split(";");
      const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
      const weight = q ? Number(q.slice(2)) : 1;
      return { tag, weight: Number.isFinite(weight) ? weight : 0, order };
    })
    .filter((r) => r.tag && r.tag !== "*" && r.weight > 0)
    .sort((a, b) => b.weight - a.weight || a.order - b.order);
  for (const r of ranked) {
    const found = match(r.tag);
    if (found) return found;
  }
  return null;
}

/** The request's locale: the switch's cookie, else the browser's languages, else English. */
export function resolveLocale(cookie: string | null | undefined, acceptLanguage: string | null | undefined): AppLocale {
  if (isAppLocale(cookie)) return cookie;
  return negotiateLocale(acceptLanguage) ?? DEFAULT_LOCALE;
}
