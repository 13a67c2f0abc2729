import { parse, TYPE, type MessageFormatElement } from "@formatjs/icu-messageformat-parser";
import { directionOf } from "../direction";
import { FALLBACK_NAMESPACE, PROSE_NAMESPACE, proseKey } from "./proseKey";
import type { Scenario, ScenarioStep, UnderTheHood } from "./types";

/**
 * The built-in lesson in the reader's language: each prose string looked up by
 * its English (proseKey), and the language it ended up in, so a screen can mark
 * an English fallback lang="en". Pure: the catalog is passed in.
 */

/** A prose string as the reader gets it. */
export interface Localized {
  text: string;
  /**
   * The language of `text`: the page's, or "en" where the catalog has no translation;
   * undefined for words that are not the built-in lesson's (a teacher's own), whose language is theirs.
   */
  lang: string | undefined;
}

export interface ProseCatalog {
  readonly locale: string;
  /** The reader's text for an English prose string; the English itself, marked "en", when it has none. */
  localize(english: string): Localized;
  /** Whether the catalog knows this English sentence (in any language). */
  knows(english: string): boolean;
  /**
   * The language of a lesson string as a screen shows it: of one this catalog localized (a scenario
   * from useScenario or useLessonDiagram, a note), its language; of an English sentence of the lesson
   * it was not asked for, "en"; of anything else (a teacher's words), undefined.
   */
  langOf(text: string | undefined): string | undefined;
}

const record = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null ? Object.fromEntries(Object.entries(value)) : {};

// Left-to-right isolate … pop: a Kubernetes string keeps its order inside right-to-left plain text.
const LRI = "\u2066";
const PDI = "\u2069";

function plain(elements: MessageFormatElement[], isolate: boolean, values: Record<string, string>): string {
  return elements
    .map((el) => {
      if (el.type === TYPE.literal) return el.value;
      if (el.type === TYPE.argument) return values[el.value] ?? `{${el.value}}`;
      if (el.type === TYPE.tag) {
        const inner = plain(el.children, isolate, values);
        return isolate && el.value === "k8s" ? `${LRI}${inner}${PDI}` : inner;
      }
      return "";
    })
    .join("");
}

/** A lesson catalog message as plain text: tags dropped (Kubernetes strings isolated left to right in an RTL page), values filled in. */
export function plainMessage(message: string, locale: string, values: Record<string, string> = {}): string {
  return plain(parse(message), directionOf(locale) === "rtl", values);
}

const catalogs = new WeakMap<object, Map<string, ProseCatalog>>();

/**
 * The lesson's prose catalog for a page, from the messages next-intl gives it. One object per
 * messages object and locale, shared by every component of the page: what is localized through it
 * (scenarios included) is made once, and `langOf` knows every string any of them was given.
 */
export function proseCatalog(locale: string, messages: unknown): ProseCatalog {
  if (typeof messages !== "object" || messages === null) return makeCatalog(locale, messages);
  let perLocale = catalogs.get(messages);
  if (!perLocale) {
    perLocale = new Map();
    catalogs.set(messages, perLocale);
  }
  let catalog = perLocale.get(locale);
  if (!catalog) {
    catalog = makeCatalog(locale, messages);
    perLocale.set(locale, catalog);
  }
  return catalog;
}

function makeCatalog(locale: string, messages: unknown): ProseCatalog {
  const all = record(messages);
  const prose = record(all[PROSE_NAMESPACE]);
  const fallback = record(record(all[FALLBACK_NAMESPACE])[PROSE_NAMESPACE]);
  const cache = new Map<string, Localized>();
  // What each text this catalog handed out is written in (a screen showing it marks it so).
  const given = new Map<string, string | undefined>();
  const english = (text: string): Localized => ({ text, lang: "en" });
  return {
    locale,
    knows: (text) => typeof prose[proseKey(text)] === "string",
    langOf: (text) =>
      text === undefined ? undefined : given.has(text) ? given.get(text) : typeof prose[proseKey(text)] === "string" ? "en" : undefined,
    localize(text) {
      const hit = cache.get(text);
      if (hit) return hit;
      const key = proseKey(text);
      const message = prose[key];
      let out: Localized;
      if (typeof message !== "string" || locale === "en") out = english(text);
      else if (key in fallback) out = english(text);
      else {
        try {
          out = { text: plainMessage(message, locale), lang: locale };
        } catch {
          // A broken translation must not blank the lesson: the English is always right.
          out = english(text);
        }
      }
      cache.set(text, out);
      given.set(out.text, out.lang);
      return out;
    },
  };
}

/** A scenario with its prose in the reader's language, and which language each string is in. */
export interface LocalizedScenario<S extends Scenario = Scenario> {
  scenario: S;
  /** The one language of all its prose, or null when some of it fell back to English. */
  lang: string | null;
  /** The language of one of its (localized) strings; "en" for one it does not know. */
  langOf: (text: string | undefined) => string;
}

const built = new WeakMap<Scenario, WeakMap<ProseCatalog, LocalizedScenario>>();

/**
 * The scenario in the catalog's language. Memoised per scenario and catalog, so the same
 * object comes back on every render (worldAt caches by scenario identity).
 */
export function localizeScenario<S extends Scenario>(scenario: S, catalog: ProseCatalog): LocalizedScenario<S> {
  let perCatalog = built.get(scenario);
  if (!perCatalog) {
    perCatalog = new WeakMap();
    built.set(scenario, perCatalog);
  }
  const hit = perCatalog.get(catalog);
  // The cache holds what this function made for this very scenario, so its type is S's.
  // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion
  if (hit) return hit as LocalizedScenario<S>;

  const langs = new Map<string, string>();
  const tr = (text: string): string => {
    if (text === "") return text;
    const { text: out, lang } = catalog.localize(text);
    langs.set(out, lang ?? "en");
    return out;
  };
  const uth = (u: UnderTheHood): UnderTheHood => ({ ...u, title: tr(u.title), body: tr(u.body) });
  const steps = scenario.steps.map((s): ScenarioStep => ({
    ...s,
    narration: tr(s.narration),
    speakerNotes: tr(s.speakerNotes),
    ...(s.note !== undefined ? { note: tr(s.note) } : {}),
    ...(s.underTheHood ? { underTheHood: s.underTheHood.map(uth) } : {}),
  }));
  const fidelity: { fidelityNotes?: readonly string[] } =
    "fidelityNotes" in scenario && Array.isArray(scenario.fidelityNotes)
      ? { fidelityNotes: scenario.fidelityNotes.map((n: unknown) => (typeof n === "string" ? tr(n) : String(n))) }
      : {};
  // The title is a name, spelled one way everywhere (lib/lesson/proseSources.ts); the summary is prose.
  const localized: S = { ...scenario, summary: tr(scenario.summary), steps, ...fidelity };
  const distinct = new Set(langs.values());
  const result: LocalizedScenario<S> = {
    scenario: localized,
    lang: distinct.size <= 1 ? ([...distinct][0] ?? catalog.locale) : null,
    langOf: (text) => (text === undefined ? "en" : (langs.get(text) ?? "en")),
  };
  perCatalog.set(catalog, result);
  return result;
}
