import { expect, test, type Page } from "@playwright/test";
import { ConsolePage, createSession, jumpTo, setMode, closeContextsAfterEach } from "./fixtures";
import { expectAccessible } from "./axe";
import { consoleIn, expectLanguage, expectNoSideways, kubernetesStrings, phoneIn } from "./languageHelpers";

/**
 * Every student in their language: each phone follows its browser's
 * languages (Playwright's `locale` sets Accept-Language), a visible switch
 * changes it and the phone remembers it, Arabic lays out right to left with
 * the diagram still left to right, and Kubernetes stays as Kubernetes prints it.
 */

closeContextsAfterEach();

/** The lifelines' ids from left to right as drawn in the phone's full diagram. */
async function lifelinesLeftToRight(page: Page): Promise<string[]> {
  const full = page.getByTestId("full-diagram");
  if (!(await full.evaluate((el) => (el as HTMLDetailsElement).open))) await full.locator("summary").click();
  await expect(full.locator("[data-lifeline]").first()).toBeVisible();
  return full.evaluate((el) =>
    [...el.querySelectorAll("[data-lifeline]")]
      .map((head) => ({ id: head.getAttribute("data-lifeline") ?? "", x: head.getBoundingClientRect().left }))
      .sort((a, b) => a.x - b.x)
      .map((h) => h.id),
  );
}

test("phones in German and Japanese read their language, and Kubernetes exactly as in English", async ({ browser, baseURL }) => {
  test.setTimeout(120_000);
  const session = await createSession(baseURL!, "Sprachen");
  const teacher = await ConsolePage.open(browser, session);
  const english = await phoneIn(browser, session.code, "Ann");
  const german = await phoneIn(browser, session.code, "Jonas", "de-DE");
  const japanese = await phoneIn(browser, session.code, "Yui", "ja-JP");
  await teacher.expectParticipants(3);

  await expectLanguage(english.page, "en");
  await expectLanguage(german.page, "de");
  await expectLanguage(japanese.page, "ja");
  await expect(english.step()).toContainText("Step 1 of 12");
  await expect(german.step()).toContainText("Schritt 1 von 12");
  await expect(japanese.step()).toContainText("ステップ 1/12");
  await expect(german.page.getByTestId("connection-status")).toHaveText("● verbunden");
  await expect(japanese.page.getByTestId("connection-status")).toHaveText("● 接続中");
  await expect(german.page.getByRole("heading", { name: "Fragen" })).toBeVisible();

  // A poll's chrome follows the phone; the question is the lesson's own words.
  await jumpTo(teacher, 4);
  await teacher.page.getByTestId("poll-open").click();
  await expect(german.page.getByTestId("poll-card")).toContainText("Umfrage offen");
  await expect(japanese.page.getByTestId("poll-card")).toContainText("投票受付中");
  await german.page.getByTestId("poll-option").first().click();
  await expect(german.page.getByTestId("vote-receipt")).toHaveText("Stimme gezählt. Du kannst sie ändern, bis die Umfrage schließt.");
  await expectAccessible(german.page, "German phone, poll open");
  await teacher.page.getByTestId("poll-close").click();

  // Kubernetes is never translated: the same reasons, messages and YAML on every phone.
  await setMode(teacher, "Immediate/zone-conflict");
  await teacher.page.locator("body").press("End");
  for (const s of [english, german, japanese]) await s.expectStep(8);
  const want = await kubernetesStrings(english);
  expect(want.events.some((e) => e.startsWith("FailedScheduling: 0/3 nodes are available"))).toBe(true);
  expect(await kubernetesStrings(german)).toEqual(want);
  expect(await kubernetesStrings(japanese)).toEqual(want);
});

test("an Arabic phone lays out right to left, the diagram's lifelines stay left to right, and nothing spills past 360 px", async ({
  browser,
  baseURL,
}) => {
  test.setTimeout(120_000);
  const session = await createSession(baseURL!, "RTL");
  const teacher = await ConsolePage.open(browser, session);
  const english = await phoneIn(browser, session.code, "Ann");
  const arabic = await phoneIn(browser, session.code, "Layla", "ar");
  await expectLanguage(arabic.page, "ar", "rtl");
  await expect(arabic.step()).toContainText("الخطوة 1 من 12");

  await jumpTo(teacher, 12);
  await arabic.expectStep(12);
  await english.expectStep(12);
  const order = await lifelinesLeftToRight(english.page);
  expect(order.length).toBeGreaterThanOrEqual(5);
  expect(await lifelinesLeftToRight(arabic.page)).toEqual(order);
  // The StorageClass field and its value read left to right inside the Arabic line.
  await expect(arabic.page.getByTestId("binding-mode")).toHaveAttribute("dir", "ltr");
  await expect(arabic.page.getByTestId("binding-mode")).toHaveText("WaitForFirstConsumer");
  await expectNoSideways(arabic.page, "Arabic phone, step 12, full diagram open");
  await expectAccessible(arabic.page, "Arabic phone, step 12");

  // "What happens next?" needs a next step: ask it one step back.
  await jumpTo(teacher, 11);
  await teacher.page.getByTestId("poll-open").click();
  await expect(arabic.page.getByTestId("poll-card")).toContainText("الاستطلاع مفتوح");
  await expectNoSideways(arabic.page, "Arabic phone, poll open");
  await expectAccessible(arabic.page, "Arabic phone, poll open");
});

test("the language switch changes a phone's language at once, in the live class, and the phone remembers it", async ({
  browser,
  baseURL,
}) => {
  const session = await createSession(baseURL!, "Switch");
  const teacher = await ConsolePage.open(browser, session);
  const phone = await phoneIn(browser, session.code, "Sam");
  await expectLanguage(phone.page, "en");
  await jumpTo(teacher, 3);
  await phone.expectStep(3);

  const languageSwitch = phone.page.getByTestId("language-switch");
  await expect(languageSwitch).toHaveAccessibleName("Language");
  await languageSwitch.selectOption("de");
  await expectLanguage(phone.page, "de");
  await expect(phone.step()).toContainText("Schritt 3 von 12");
  // Still in the class: the same socket, the same place.
  await phone.expectConnected();
  await teacher.expectParticipants(1);

  const [cookie] = (await phone.context.cookies()).filter((c) => c.name === "NEXT_LOCALE");
  expect(cookie).toMatchObject({ value: "de", path: "/", sameSite: "Lax" });
  // About a year, so it is still German at next week's class.
  expect(cookie.expires * 1000 - Date.now()).toBeGreaterThan(360 * 24 * 60 * 60 * 1000);

  await phone.page.reload();
  await phone.expectConnected();
  await expectLanguage(phone.page, "de");
  await expect(phone.step()).toContainText("Schritt 3 von 12");
  await teacher.expectParticipants(1);

  // The join page on the same phone: German too, and the switch works there with the keyboard.
  await phone.page.goto("/join");
  await expectLanguage(phone.page, "de");
  await expect(phone.page.getByRole("heading", { name: "Einer Sitzung beitreten" })).toBeVisible();
  await phone.page.getByTestId("language-switch").focus();
  await phone.page.getByTestId("language-switch").selectOption("fr");
  await expectLanguage(phone.page, "fr");
  await expect(phone.page.getByRole("heading", { name: "Rejoindre une session" })).toBeVisible();
});

test("nothing spills past a 360 px phone in German, Arabic or the pseudo-locale", async ({ browser, baseURL }) => {
  test.setTimeout(180_000);
  const session = await createSession(baseURL!, "A rather long session title that a teacher might well type, to see how it wraps");
  const teacher = await ConsolePage.open(browser, session);
  const phones = [
    ["de-DE", false],
    ["ar", false],
    [undefined, true],
  ] as const;
  for (const [i, [locale, pseudo]] of phones.entries()) {
    const phone = await phoneIn(browser, session.code, "Maximiliane-Alexandra", locale, pseudo);
    const label = pseudo ? "en-XA" : locale;
    if (pseudo) {
      await expectLanguage(phone.page, "en-XA");
      // Every string from the catalog is marked: the step indicator reads [Šţéþ …].
      await expect(phone.step()).toContainText(/\[Šţéþ \d+ öƒ 12·+\]/);
    }
    for (const path of ["/", "/join", "/join/ZZZZZZ?name=Sam"]) {
      await phone.page.goto(path);
      await phone.page.waitForLoadState("networkidle");
      await expectNoSideways(phone.page, `${label} ${path}`);
    }
    await phone.page.goto(`/join/${session.code}?name=Maximiliane-Alexandra`);
    await phone.expectConnected();
    // A new step each round, so each phone gets a fresh poll.
    await jumpTo(teacher, 4 + i);
    await phone.expectStep(4 + i);
    await expectNoSideways(phone.page, `${label} live`);
    await phone.page.getByTestId("look-back").click();
    await expect(phone.page.getByTestId("back-to-live")).toBeVisible();
    await expectNoSideways(phone.page, `${label} looking back`);
    await phone.page.getByTestId("back-to-live").click();
    await phone.page.getByTestId("ask-question").click();
    await expect(phone.page.getByTestId("question-text")).toBeVisible();
    await expectNoSideways(phone.page, `${label} asking a question`);
    await teacher.page.getByTestId("poll-open").click();
    await expect(phone.page.getByTestId("poll-card")).toHaveAttribute("data-poll-status", "open");
    await expectNoSideways(phone.page, `${label} poll open`);
    await teacher.page.getByTestId("poll-close").click();
    await teacher.page.getByTestId("poll-reveal").click();
    await expect(phone.page.getByTestId("poll-feedback")).toBeVisible();
    await expectNoSideways(phone.page, `${label} answer revealed`);
    await phone.context.close();
  }
});

test("the issue's class: phones in German, Japanese and Arabic and a console in Spanish each read their language, Kubernetes as in English, nothing spills at 360 px", async ({
  browser,
  baseURL,
}) => {
  test.setTimeout(180_000);
  const session = await createSession(baseURL!, "Almacenamiento");
  const teacher = await consoleIn(browser, session, "es-ES");
  const english = await phoneIn(browser, session.code, "Ann");
  const phones = [
    {
      phone: await phoneIn(browser, session.code, "Jonas", "de-DE"),
      lang: "de",
      dir: "ltr",
      step: "Schritt 1 von 12",
      open: "Umfrage offen",
    },
    { phone: await phoneIn(browser, session.code, "Yui", "ja-JP"), lang: "ja", dir: "ltr", step: "ステップ 1/12", open: "投票受付中" },
    { phone: await phoneIn(browser, session.code, "Layla", "ar"), lang: "ar", dir: "rtl", step: "الخطوة 1 من 12", open: "الاستطلاع مفتوح" },
  ] as const;
  await teacher.expectParticipants(4);

  // The console reads Spanish, its join note too (its addresses as they are).
  await expectLanguage(teacher.page, "es");
  await expect(teacher.page.getByTestId("next-step")).toHaveText("Siguiente →");
  await expect(teacher.page.getByTestId("console-header")).toContainText("4 estudiantes conectados");
  await expect(teacher.page.getByTestId("join-note")).toContainText(/^(Esta consola está abierta en|Este equipo no tiene)/);
  for (const { phone, lang, dir, step } of phones) {
    await expectLanguage(phone.page, lang, dir);
    await expect(phone.step()).toContainText(step);
    await expectNoSideways(phone.page, `${lang} phone, step 1`);
  }

  // A poll from the Spanish console: each phone asks in its language, counts its vote, and fits after the reveal.
  await jumpTo(teacher, 4);
  await teacher.page.getByTestId("poll-open").click();
  await expect(teacher.page.getByTestId("poll-close")).toHaveText("Cerrar encuesta");
  for (const { phone, lang, open } of phones) {
    await expect(phone.page.getByTestId("poll-card")).toContainText(open);
    await phone.page.getByTestId("poll-option").first().click();
    await expect(phone.page.getByTestId("vote-receipt")).toHaveAttribute("data-kind", "ok");
    await expectNoSideways(phone.page, `${lang} phone, poll open`);
  }
  await teacher.page.getByTestId("poll-close").click();
  await expect(teacher.page.getByTestId("poll-voted")).toHaveText("Cerrada con 3 votos. La clase aún no ha visto los resultados.");
  await teacher.page.getByTestId("poll-reveal").click();
  for (const { phone, lang } of phones) {
    await expect(phone.page.getByTestId("poll-feedback")).toBeVisible();
    await expectNoSideways(phone.page, `${lang} phone, answer revealed`);
  }

  // Kubernetes is never translated: the same reasons, messages and YAML on every phone as on the English one.
  await setMode(teacher, "Immediate/zone-conflict");
  await teacher.page.locator("body").press("End");
  await english.expectStep(8);
  const want = await kubernetesStrings(english);
  expect(want.events.some((e) => e.startsWith("FailedScheduling: 0/3 nodes are available"))).toBe(true);
  for (const { phone, lang } of phones) {
    await phone.expectStep(8);
    expect(await kubernetesStrings(phone), `${lang} phone`).toEqual(want);
    await expectNoSideways(phone.page, `${lang} phone, the PVC's YAML open at the failure`);
  }
});
