import { DEFAULT_LOCALE, type ShippedLocale } from "./locales";
import { FALLBACK_NAMESPACE } from "../lib/lesson/proseKey";
import type core from "../messages/en.json";
import type consoleArea from "../messages/console/en.json";
import type projectorArea from "../messages/projector/en.json";
import type teacherArea from "../messages/teacher/en.json";
import type lessonArea from "../messages/lesson/en.json";

/**
 * A language's whole catalog, for the server (i18n/request.ts) and for a
 * screen that renders another language than its page's (the projector in the
 * room's language, components/projector/RoomLanguage.tsx). No server-only
 * imports: the bundler splits each language into chunks of its own.
 */

export type Messages = typeof core & typeof consoleArea & typeof projectorArea & typeof teacherArea & typeof lessonArea;
type Part = { default: object };

export async function loadMessages(locale: ShippedLocale): Promise<Messages> {
  const parts = await CATALOGS[locale]();
  // The lesson's content may be translated in part (docs/i18n.md): English fills the rest, key by key.
  if (locale !== DEFAULT_LOCALE)
    parts.push({ default: withEnglishLesson(parts.pop()!.default, (await import("../messages/lesson/en.json")).default) });
  // The parts' namespaces are disjoint (tests/i18n/catalogs.test.ts), so their union is the whole catalog.
  // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion
  return Object.assign({}, ...parts.map((p) => p.default)) as Messages;
}

type Namespaces = Record<string, Record<string, unknown>>;
const namespaces = (area: object): Namespaces =>
  Object.fromEntries(Object.entries(area).map(([ns, v]) => [ns, typeof v === "object" && v !== null ? { ...v } : {}]));

/**
 * A language's lesson area with English under it: every key English has, the
 * language's own where it has one. Which keys came from English is listed under
 * FALLBACK_NAMESPACE, so the page can mark that text lang="en" (lib/lesson/localize.ts).
 */
function withEnglishLesson(own: object, english: object): object {
  const mine = namespaces(own);
  const out: Namespaces = {};
  const fallback: Namespaces = {};
  for (const [ns, messages] of Object.entries(namespaces(english))) {
    out[ns] = { ...messages, ...mine[ns] };
    const missing = Object.keys(messages).filter((key) => !(key in (mine[ns] ?? {})));
    if (missing.length) fallback[ns] = Object.fromEntries(missing.map((key) => [key, DEFAULT_LOCALE]));
  }
  return { ...out, [FALLBACK_NAMESPACE]: fallback };
}

/**
 * One import per catalog file, so the bundler knows each file and a request
 * loads only its own language. A language's catalog is one file per area
 * (messages/{locale}.json for the phones and shared words, then
 * messages/{console,projector,teacher,lesson}/{locale}.json); each area owns
 * its own top-level namespaces, so the parts merge without overlap.
 */
const CATALOGS: Record<ShippedLocale, () => Promise<Part[]>> = {
  en: () =>
    Promise.all([
      import("../messages/en.json"),
      import("../messages/console/en.json"),
      import("../messages/projector/en.json"),
      import("../messages/teacher/en.json"),
      import("../messages/lesson/en.json"),
    ]),
  de: () =>
    Promise.all([
      import("../messages/de.json"),
      import("../messages/console/de.json"),
      import("../messages/projector/de.json"),
      import("../messages/teacher/de.json"),
      import("../messages/lesson/de.json"),
    ]),
  fr: () =>
    Promise.all([
      import("../messages/fr.json"),
      import("../messages/console/fr.json"),
      import("../messages/projector/fr.json"),
      import("../messages/teacher/fr.json"),
      import("../messages/lesson/fr.json"),
    ]),
  es: () =>
    Promise.all([
      import("../messages/es.json"),
      import("../messages/console/es.json"),
      import("../messages/projector/es.json"),
      import("../messages/teacher/es.json"),
      import("../messages/lesson/es.json"),
    ]),
  "pt-BR": () =>
    Promise.all([
      import("../messages/pt-BR.json"),
      import("../messages/console/pt-BR.json"),
      import("../messages/projector/pt-BR.json"),
      import("../messages/teacher/pt-BR.json"),
      import("../messages/lesson/pt-BR.json"),
    ]),
  ja: () =>
    Promise.all([
      import("../messages/ja.json"),
      import("../messages/console/ja.json"),
      import("../messages/projector/ja.json"),
      import("../messages/teacher/ja.json"),
      import("../messages/lesson/ja.json"),
    ]),
  "zh-CN": () =>
    Promise.all([
      import("../messages/zh-CN.json"),
      import("../messages/console/zh-CN.json"),
      import("../messages/projector/zh-CN.json"),
      import("../messages/teacher/zh-CN.json"),
      import("../messages/lesson/zh-CN.json"),
    ]),
  ar: () =>
    Promise.all([
      import("../messages/ar.json"),
      import("../messages/console/ar.json"),
      import("../messages/projector/ar.json"),
      import("../messages/teacher/ar.json"),
      import("../messages/lesson/ar.json"),
    ]),
};
