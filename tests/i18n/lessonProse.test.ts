import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { LOCALES } from "@/i18n/locales";
import { localizeScenario, proseCatalog } from "@/lib/lesson/localize";
import { FALLBACK_NAMESPACE, LESSON_COMPLETE_LOCALES, POLL_NAMESPACE, PROSE_NAMESPACE, proseKey } from "@/lib/lesson/proseKey";
import { lessonProseSources, scenarioProse, sharedProse } from "@/lib/polls/proseSources";
import { escapeIcu, k8sContents, messageText, tagKube } from "@/lib/lesson/proseTagger";
import { getScenario, scenariosFor } from "@/lib/lesson/scenarios";
import { KUBE_VERSIONS } from "@/lib/lesson/versions";
import { englishPollText, everyPollText, pollNoteParts, pollOptionParts, pollQuestionParts, pollTextCatalog } from "@/lib/polls/pollProse";
import { generateNextStepPoll } from "@/lib/polls/nextStep";

/**
 * The built-in lesson's prose catalogs (issue 32): English is made from the lesson
 * itself and cannot drift from it, every translation keeps each Kubernetes string
 * byte for byte, and a language without a sentence shows the English, marked.
 */

type Area = Record<string, Record<string, string>>;
const DIR = path.resolve(__dirname, "../../messages/lesson");
const area = (locale: string): Area => JSON.parse(fs.readFileSync(path.join(DIR, `${locale}.json`), "utf8")) as Area;
const english = area("en");
const multiset = (items: string[]) => [...items].sort();

describe("the English lesson catalog", () => {
  const sources = lessonProseSources();

  it("holds exactly the lesson's prose, each under the key of its English, reading as that English", () => {
    const catalog = english[PROSE_NAMESPACE];
    const missing = [...sources.keys()].filter((k) => !(k in catalog)).map((k) => sources.get(k));
    const extra = Object.keys(catalog).filter((k) => !sources.has(k));
    const changed = [...sources].filter(([k, text]) => k in catalog && messageText(catalog[k]) !== text).map(([k]) => k);
    // Fix with: node --import tsx scripts/lessonCatalog.ts
    expect({ missing, extra, changed }).toEqual({ missing: [], extra: [], changed: [] });
  });

  it("covers every string a scenario, its notes and its polls show, in every release", () => {
    for (const version of KUBE_VERSIONS)
      for (const scenario of Object.values(scenariosFor(version)))
        for (const text of scenarioProse(scenario)) expect(sources.get(proseKey(text)), text).toBe(text);
    for (const text of sharedProse()) expect(sources.get(proseKey(text))).toBe(text);
    expect(sources.size).toBeGreaterThan(200);
  });

  it("tags the Kubernetes strings a reader must meet unchanged", () => {
    const tagged = Object.values(english[PROSE_NAMESPACE]).flatMap(k8sContents);
    for (const must of [
      "WaitForFirstConsumer",
      "StorageClass",
      "volume.kubernetes.io/selected-node",
      "external-provisioner",
      "FailedScheduling",
      "spec.nodeName",
      "PICK NODE",
    ])
      expect(tagged, must).toContain(must);
    expect(tagKube('PreBind PUTs the PV: "no new claims to deallocate".')).toBe(
      '<k8s>PreBind</k8s> PUTs the PV: "<k8s>no new claims to deallocate</k8s>".',
    );
  });

  it("quotes ICU's special characters and reads them back", () => {
    for (const text of ["spec.containers{app}: Container created", "csi-<sha256(volumeHandle+driver+node)>", "the PV's '{'", "it's fine"])
      expect(messageText(escapeIcu(text))).toBe(text);
    for (const text of sources.values()) expect(messageText(tagKube(text))).toBe(text);
  });

  it("reads every poll's question, options and notes back into a shape and a lesson sentence, in every release", () => {
    const { notes, questions, options } = everyPollText();
    for (const n of notes) {
      const parts = pollNoteParts(n);
      if (parts) expect(englishPollText(parts)).toBe(n);
      expect(sources.has(proseKey(parts?.body ?? n)), n).toBe(true);
    }
    for (const q of questions) expect(englishPollText(pollQuestionParts(q)!)).toBe(q);
    for (const o of options) expect(englishPollText(pollOptionParts(o)!)).toBe(o);
    expect(notes.length).toBeGreaterThan(60);
  });

  it("makes the server's English again from the English templates", () => {
    const prose = proseCatalog("en", english);
    const polls = pollTextCatalog(prose, english);
    const { notes, questions } = everyPollText();
    for (const n of notes) expect(polls.note(n)).toEqual({ text: n, lang: "en" });
    for (const q of questions) expect(polls.question(q).text).toBe(q);
    // English templates are the ones the phones would otherwise rebuild: format them as German would.
    const asIfGerman = proseCatalog("de", { ...english });
    const rebuilt = pollTextCatalog(asIfGerman, english);
    for (const n of notes) expect(rebuilt.note(n).text).toBe(n);
    for (const q of questions) expect(rebuilt.question(q).text).toBe(q);
  });
});

describe.each(LOCALES.filter((l) => l !== "en"))("the %s lesson catalog", (locale) => {
  const own = area(locale);

  it("keeps every Kubernetes string of each message byte for byte as English has it", () => {
    const wrong: string[] = [];
    for (const ns of [PROSE_NAMESPACE, POLL_NAMESPACE])
      for (const [key, message] of Object.entries(own[ns] ?? {})) {
        const want = english[ns]?.[key];
        if (want === undefined) continue;
        const got = multiset(k8sContents(message));
        if (got.join("\u0000") !== multiset(k8sContents(want)).join("\u0000"))
          wrong.push(`${ns}.${key}: ${JSON.stringify(got)} ≠ English ${JSON.stringify(multiset(k8sContents(want)))}`);
      }
    expect(wrong).toEqual([]);
  });

  it(LESSON_COMPLETE_LOCALES.includes(locale) ? "translates all of the lesson" : "may translate part of the lesson", () => {
    const missing = Object.keys(english[PROSE_NAMESPACE]).filter((k) => !(k in (own[PROSE_NAMESPACE] ?? {})));
    if (LESSON_COMPLETE_LOCALES.includes(locale)) expect(missing).toEqual([]);
    else expect(missing.length).toBeLessThanOrEqual(Object.keys(english[PROSE_NAMESPACE]).length);
  });
});

describe("a language without a translation", () => {
  const scenario = getScenario("WaitForFirstConsumer", "standard", "1.35");
  const step1 = scenario.steps[0].narration;

  it("shows the English, marked English, key by key", () => {
    const key = proseKey(step1);
    const messages = {
      [PROSE_NAMESPACE]: { ...english[PROSE_NAMESPACE], [key]: "Vous créez le PVC. Il reste en <k8s>Pending</k8s>." },
      [FALLBACK_NAMESPACE]: {
        [PROSE_NAMESPACE]: Object.fromEntries(
          Object.keys(english[PROSE_NAMESPACE])
            .filter((k) => k !== key)
            .map((k) => [k, "en"]),
        ),
      },
    };
    const localized = localizeScenario(scenario, proseCatalog("fr", messages));
    expect(localized.scenario.steps[0].narration).toBe("Vous créez le PVC. Il reste en Pending.");
    expect(localized.langOf(localized.scenario.steps[0].narration)).toBe("fr");
    expect(localized.scenario.steps[1].narration).toBe(scenario.steps[1].narration);
    expect(localized.langOf(localized.scenario.steps[1].narration)).toBe("en");
    expect(localized.lang).toBeNull();
    // Kubernetes data is untouched, and the same object comes back for the same catalog.
    expect(localized.scenario.steps.map((s) => [s.label, s.title, s.from, s.to])).toEqual(
      scenario.steps.map((s) => [s.label, s.title, s.from, s.to]),
    );
  });

  it("is one catalog per page's messages, which knows the language of every string it gave out", () => {
    const messages = { ...area("de"), [FALLBACK_NAMESPACE]: {} };
    const catalog = proseCatalog("de", messages);
    expect(proseCatalog("de", messages)).toBe(catalog);
    const localized = localizeScenario(scenario, catalog);
    expect(localizeScenario(scenario, proseCatalog("de", messages))).toBe(localized);
    // A panel that gets the localized scenario can mark its strings without knowing their English.
    expect(catalog.langOf(localized.scenario.steps[0].narration)).toBe("de");
    // The English it replaced is still known as the lesson's English.
    expect(catalog.langOf(step1)).toBe("en");
    expect(catalog.langOf("A teacher's own sentence.")).toBeUndefined();
  });

  it("keeps Kubernetes strings left to right inside a right-to-left page", () => {
    const key = proseKey(step1);
    const localized = localizeScenario(scenario, proseCatalog("ar", { [PROSE_NAMESPACE]: { [key]: "أنت تنشئ <k8s>PVC</k8s>." } }));
    expect(localized.scenario.steps[0].narration).toBe("أنت تنشئ \u2066PVC\u2069.");
  });

  it("leaves a teacher's own poll words as written, language unknown", () => {
    const polls = pollTextCatalog(proseCatalog("de", area("de")), area("de"));
    expect(polls.note("Right: because I said so.")).toEqual({ text: "Right: because I said so.", lang: undefined });
    expect(polls.question("What happens next, after Login?")).toEqual({ text: "What happens next, after Login?", lang: undefined });
  });

  it("gives the server's note in English when only part of it is translated", () => {
    const scenarioPoll = generateNextStepPoll(scenario, 0)!;
    const wrong = scenarioPoll.options.find((o) => !o.correct)!;
    // What i18n/request.ts hands a language with no lesson translation: English, every key listed as fallback.
    const all = (ns: string) => Object.fromEntries(Object.keys(english[ns]).map((k) => [k, "en"]));
    const fallback = { [FALLBACK_NAMESPACE]: { [PROSE_NAMESPACE]: all(PROSE_NAMESPACE), [POLL_NAMESPACE]: all(POLL_NAMESPACE) } };
    const merged = { ...english, ...fallback };
    const polls = pollTextCatalog(proseCatalog("fr", merged), merged);
    expect(polls.note(wrong.note)).toEqual({ text: wrong.note, lang: "en" });
    expect(polls.question(scenarioPoll.question)).toEqual({ text: scenarioPoll.question, lang: "en" });
  });
});
