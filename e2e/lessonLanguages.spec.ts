import fs from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { localizeScenario, proseCatalog } from "../lib/lesson/localize";
import { proseKey, PROSE_NAMESPACE } from "../lib/lesson/proseKey";
import { k8sContents } from "../lib/lesson/proseTagger";
import { getScenario } from "../lib/lesson/scenarios";
import { compareTimeline } from "../lib/lesson/compare";
import { generateNextStepPoll } from "../lib/polls/nextStep";
import { pollNoteParts, pollTextCatalog } from "../lib/polls/pollProse";
import { ConsolePage, createSession, jumpTo, type StudentPage, closeContextsAfterEach } from "./fixtures";
import { phoneIn } from "./languageHelpers";

/**
 * The built-in lesson's own words in the phone's language (issue 32): a German
 * and a Spanish phone read the narration, the poll's question and, after the
 * reveal, the misconception note of the option they chose in their language,
 * with every Kubernetes string exactly as English has it; a French phone,
 * whose lesson catalog has no translation, reads the English, marked
 * lang="en" so a screen reader speaks it as English.
 */

closeContextsAfterEach();

type Area = Record<string, Record<string, string>>;
const catalog = (locale: string): Area =>
  JSON.parse(fs.readFileSync(path.join(__dirname, "../messages/lesson", `${locale}.json`), "utf8")) as Area;
const english = catalog("en");

/** What the server makes the page from: a partial language gets English underneath, listed as fallback (i18n/request.ts). */
function merged(locale: string): Area {
  const own = catalog(locale);
  if (locale === "en") return own;
  const fallback: Area = {};
  const out: Area = {};
  for (const ns of Object.keys(english)) {
    out[ns] = { ...english[ns], ...own[ns] };
    fallback[ns] = Object.fromEntries(
      Object.keys(english[ns])
        .filter((k) => !(k in (own[ns] ?? {})))
        .map((k) => [k, "en"]),
    );
  }
  return { ...out, lessonFallback: fallback as unknown as Record<string, string> };
}

/** The Kubernetes strings the English catalog tags in a lesson sentence. */
const kubeIn = (englishSentence: string) => k8sContents(english[PROSE_NAMESPACE][proseKey(englishSentence)]);

test("German and Spanish phones read the lesson and its misconception notes in their language, Kubernetes unchanged; a French phone reads English marked English", async ({
  browser,
  baseURL,
}) => {
  test.setTimeout(150_000);
  const session = await createSession(baseURL!, "Lektion");
  const teacher = await ConsolePage.open(browser, session);
  const german = await phoneIn(browser, session.code, "Jonas", "de-DE");
  const spanish = await phoneIn(browser, session.code, "Lucía", "es-ES");
  const french = await phoneIn(browser, session.code, "Chloé", "fr-FR");
  const phones = [
    { phone: german, locale: "de" },
    { phone: spanish, locale: "es" },
    { phone: french, locale: "fr" },
  ];
  await teacher.expectParticipants(3);

  // Step 5, NODE CHOSEN: the scheduler records volume.kubernetes.io/selected-node on the PVC.
  await jumpTo(teacher, 5);
  const scenario = getScenario("WaitForFirstConsumer", "standard", "1.35");
  const narration = scenario.steps[4].narration;
  const kube = kubeIn(narration);
  expect(kube).toContain("volume.kubernetes.io/selected-node");
  for (const { phone, locale } of phones) {
    await phone.expectStep(5);
    const shown = phone.page.getByTestId("step-narration");
    const want = localizeScenario(scenario, proseCatalog(locale, merged(locale))).scenario.steps[4].narration;
    await expect(shown).toHaveText(want);
    // The card's caption stays as the card prints it, marked English, in every language.
    await expect(phone.page.locator("[data-testid=step-indicator] h2")).toHaveAttribute("lang", "en");
    await expect(phone.page.locator("[data-testid=step-indicator] h2")).toContainText("NODE CHOSEN");
    if (locale === "fr") {
      await expect(shown).toHaveText(narration);
      await expect(shown).toHaveAttribute("lang", "en");
    } else {
      expect(want).not.toBe(narration);
      await expect(shown).toHaveAttribute("lang", locale);
      for (const k of kube) await expect(shown).toContainText(k);
    }
  }
  await expect(german.page.getByTestId("step-narration")).toContainText("Der Scheduler hält seine Wahl am PVC fest");
  await expect(spanish.page.getByTestId("step-narration")).toContainText("El scheduler registra su elección en el PVC");

  // "What happens next, after NODE CHOSEN?": the server asks in English; each phone reads its language.
  const poll = generateNextStepPoll(scenario, 4)!;
  await teacher.page.getByTestId("poll-open").click();
  const chosen = new Map<StudentPage, { text: string; note: string }>();
  for (const { phone, locale } of phones) {
    const polls = pollTextCatalog(proseCatalog(locale, merged(locale)), merged(locale));
    const question = phone.page.locator("#poll-question");
    await expect(question).toHaveText(polls.question(poll.question).text);
    await expect(question).toHaveAttribute("lang", locale === "fr" ? "en" : locale);
    await expect(question).toContainText("NODE CHOSEN");
    // Each phone picks a different wrong answer: the card caption before the colon is the same in every language.
    const wrong = poll.options.filter((o) => !o.correct)[phones.findIndex((p) => p.phone === phone) % 3];
    const title = wrong.text.split(":")[0];
    const button = phone.page.getByTestId("poll-option").filter({ hasText: `${title}:` });
    await expect(button).toHaveCount(1);
    await expect(button).toHaveText(polls.option(wrong.text).text);
    await button.click();
    await expect(phone.page.getByTestId("vote-receipt")).toHaveAttribute("data-kind", "ok");
    chosen.set(phone, wrong);
  }
  await teacher.page.getByTestId("poll-close").click();
  await teacher.page.getByTestId("poll-reveal").click();

  // After the reveal: the note on the option each chose, the misconception it stands for.
  for (const { phone, locale } of phones) {
    const wrong = chosen.get(phone)!;
    const note = phone.page.getByTestId("poll-note");
    await expect(phone.page.getByTestId("poll-feedback")).toHaveAttribute("data-correct", "false");
    if (locale === "fr") {
      await expect(note).toHaveText(wrong.note);
      await expect(note).toHaveAttribute("lang", "en");
      continue;
    }
    const want = pollTextCatalog(proseCatalog(locale, merged(locale)), merged(locale)).note(wrong.note);
    expect(want.lang).toBe(locale);
    expect(want.text).not.toBe(wrong.note);
    await expect(note).toHaveText(want.text);
    await expect(note).toHaveAttribute("lang", locale);
    // Every Kubernetes string of the English note, byte for byte, and the caption it names.
    const body = pollNoteParts(wrong.note)?.body ?? wrong.note;
    for (const k of kubeIn(body)) await expect(note).toContainText(k);
    const parts = pollNoteParts(wrong.note);
    if (parts?.title) await expect(note).toContainText(parts.title);
  }

  // The same phone after a reload still reads its language (the catalog comes with the page, not the socket).
  await german.page.reload();
  await german.expectConnected();
  await expect(german.page.getByTestId("step-narration")).toHaveAttribute("lang", "de");
  await expect(german.page.getByTestId("poll-note")).toHaveAttribute("lang", "de");

  // The comparison with the partner mode says why the tracks part in the lesson's words: German and Spanish phones in
  // their language (their lesson catalogs are complete), the French phone in English, marked English.
  const partAt = compareTimeline(scenario, getScenario("Immediate", "standard", "1.35")).divergenceExplanation;
  for (const { phone, locale } of phones) {
    const panels = phone.page.getByTestId("lesson-panels");
    // Folded away on a phone: opened by its summary, in whatever language the phone reads.
    if (await panels.evaluate((el) => el.tagName === "DETAILS" && !(el as HTMLDetailsElement).open))
      await panels.locator(":scope > summary").click();
    await panels.getByTestId("panel-compare").click();
    const shown = panels.getByTestId("compare-explanation");
    const want = proseCatalog(locale, merged(locale)).localize(partAt);
    expect(want.lang ?? "en").toBe(locale === "fr" ? "en" : locale);
    if (locale !== "fr") expect(want.text).not.toBe(partAt);
    await expect(shown).toHaveText(want.text);
    await expect(shown).toHaveAttribute("lang", want.lang ?? "en");
    if (want.lang !== "en") for (const k of kubeIn(partAt)) await expect(shown).toContainText(k);
  }
});
