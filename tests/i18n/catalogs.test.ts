import fs from "node:fs";
import path from "node:path";
import { parse, TYPE, type MessageFormatElement } from "@formatjs/icu-messageformat-parser";
import { describe, expect, it } from "vitest";
import { LOCALES } from "@/i18n/locales";
import { pseudoCatalog, type Catalog } from "@/i18n/pseudo";
import { ERROR_CODES } from "@/lib/errorCodes";
import { LESSON_COMPLETE_LOCALES } from "@/lib/lesson/proseKey";

/**
 * The catalogs kept honest: every language has exactly English's keys (the
 * built-in lesson's content may be partial, tests/i18n/lessonProse.test.ts), every
 * message is valid ICU and asks for the same placeholders, tags and select
 * cases as English (plural cases follow each language's own rules), and the
 * pseudo-locale made from English is as well formed as English.
 */

const DIR = path.resolve(__dirname, "../../messages");
/** A language's catalog is one file per area (i18n/request.ts): the phones' and shared words, then each screen group's. */
const AREAS = ["", "console", "projector", "teacher", "lesson"] as const;
const readPart = (area: string, locale: string): Catalog =>
  JSON.parse(fs.readFileSync(path.join(DIR, area, `${locale}.json`), "utf8")) as Catalog;
const load = (locale: string): Catalog => Object.assign({}, ...AREAS.map((area) => readPart(area, locale))) as Catalog;

function flatten(catalog: Catalog, prefix = ""): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(catalog)) {
    const full = prefix ? `${prefix}.${key}` : key;
    if (typeof value === "string") out.set(full, value);
    else for (const [k, v] of flatten(value, full)) out.set(k, v);
  }
  return out;
}

/** What a message needs from the code: its arguments, its tags, and each select's cases. */
function shape(message: string): string[] {
  const found = new Set<string>();
  const walk = (elements: MessageFormatElement[]) => {
    for (const el of elements) {
      if (el.type === TYPE.literal || el.type === TYPE.pound) continue;
      if (el.type === TYPE.tag) {
        found.add(`<${el.value}>`);
        walk(el.children);
        continue;
      }
      found.add(`{${el.value}}`);
      if (el.type === TYPE.select) found.add(`{${el.value}: ${Object.keys(el.options).sort().join("|")}}`);
      if (el.type === TYPE.plural) {
        if (!("other" in el.options)) found.add(`{${el.value}: no other case}`);
      }
      if (el.type === TYPE.plural || el.type === TYPE.select) for (const o of Object.values(el.options)) walk(o.value);
    }
  };
  walk(parse(message));
  return [...found].sort();
}

const english = flatten(load("en"));
const lessonNamespaces = new Set(Object.keys(readPart("lesson", "en")));
const inLessonArea = (key: string) => lessonNamespaces.has(key.split(".")[0]);

describe("message catalogs", () => {
  it.each(AREAS)("ships a catalog for every locale, and none for a locale it does not offer (area '%s')", (area) => {
    const files = fs.readdirSync(path.join(DIR, area)).filter((f) => f.endsWith(".json"));
    expect(files.map((f) => f.replace(/\.json$/, "")).sort()).toEqual([...LOCALES].sort());
  });

  it("gives each top-level namespace to one area only, so a language's parts merge without overwriting", () => {
    const owner = new Map<string, string>();
    const clashes: string[] = [];
    for (const area of AREAS)
      for (const namespace of Object.keys(readPart(area, "en"))) {
        if (owner.has(namespace)) clashes.push(`${namespace}: ${owner.get(namespace)} and ${area || "messages/"}`);
        owner.set(namespace, area || "messages/");
      }
    expect(clashes).toEqual([]);
  });

  it.each(LOCALES.filter((l) => l !== "en"))("%s has exactly English's keys outside the lesson's content", (locale) => {
    const keys = [...flatten(load(locale)).keys()].filter((k) => !inLessonArea(k));
    const want = [...english.keys()].filter((k) => !inLessonArea(k));
    const missing = want.filter((k) => !keys.includes(k));
    const extra = keys.filter((k) => !english.has(k));
    expect({ missing, extra }).toEqual({ missing: [], extra: [] });
  });

  // The built-in lesson's content may be translated in part: i18n/request.ts fills the rest from
  // English, marked lang="en" on screen. Languages claimed complete must have all of it.
  it.each(LOCALES.filter((l) => l !== "en"))("%s's lesson content has English's keys (all of them where claimed complete)", (locale) => {
    const keys = [...flatten(readPart("lesson", locale)).keys()];
    const want = [...flatten(readPart("lesson", "en")).keys()];
    const extra = keys.filter((k) => !want.includes(k));
    const missing = LESSON_COMPLETE_LOCALES.includes(locale) ? want.filter((k) => !keys.includes(k)) : [];
    expect({ missing, extra }).toEqual({ missing: [], extra: [] });
  });

  it.each(LOCALES)("every %s message parses and needs what English's does", (locale) => {
    const messages = flatten(load(locale));
    const wrong: string[] = [];
    for (const [key, message] of messages) {
      const want = english.get(key);
      if (want === undefined) continue;
      let got: string[];
      try {
        got = shape(message);
      } catch (err) {
        wrong.push(`${key}: does not parse (${String(err)})`);
        continue;
      }
      if (got.join(" ") !== shape(want).join(" ")) wrong.push(`${key}: ${got.join(" ")} ≠ English ${shape(want).join(" ")}`);
    }
    expect(wrong).toEqual([]);
  });

  it("has a sentence for every refusal code, in English the server's own", () => {
    const errors = [...english].filter(([k]) => k.startsWith("errors.")).map(([k, v]) => [k.slice("errors.".length), v]);
    expect(Object.fromEntries(errors)).toEqual(ERROR_CODES);
  });

  it("builds the pseudo-locale from English: same keys and needs, every message marked and padded", () => {
    const pseudo = flatten(pseudoCatalog(load("en")));
    expect([...pseudo.keys()]).toEqual([...english.keys()]);
    for (const [key, message] of pseudo) {
      expect(shape(message), key).toEqual(shape(english.get(key)!));
      // Bracketed, and padded before the closing bracket (the padding is the 40% a translation tends to add).
      expect(message, key).toMatch(/^\[[^]*·\]$/);
    }
  });
});
