import { expect, test } from "@playwright/test";
import { createSession, jumpTo, setMode, type ConsolePage, closeContextsAfterEach } from "./fixtures";
import { expectAccessible } from "./axe";
import { expectConsoleFromCatalogs } from "./consoleCatalogCheck";
import { consoleIn, expectLanguage, expectNoSideways, kubernetesStrings, phoneIn } from "./languageHelpers";

/**
 * The teacher's console in the teacher's language: it follows the teacher's
 * browser (or the switch in its header, remembered), whatever language each
 * phone reads; Kubernetes stays as Kubernetes prints it, Arabic lays it out
 * right to left, and in the pseudo-locale every word of the console's own
 * comes from a catalog.
 */

closeContextsAfterEach();

/** What Kubernetes prints on a console: a phone's (the mode, the PVC's YAML, the events) and the objects' kinds. */
async function kubernetesOnConsole(teacher: ConsolePage) {
  const strings = await kubernetesStrings(teacher);
  return { ...strings, kinds: await teacher.page.getByTestId("projector-object").allInnerTexts() };
}

test("a Spanish console drives a class with a German phone: every control reads Spanish, Kubernetes reads as in English", async ({
  browser,
  baseURL,
}) => {
  test.setTimeout(150_000);
  const session = await createSession(baseURL!, "Almacenamiento, martes");
  const spanish = await consoleIn(browser, session, "es-ES");
  const english = await consoleIn(browser, session);
  const phone = await phoneIn(browser, session.code, "Jonas", "de-DE");
  await expectLanguage(spanish.page, "es");
  await expectLanguage(english.page, "en");
  await expectLanguage(phone.page, "de");
  await spanish.expectParticipants(1);

  const page = spanish.page;
  await expect(page).toHaveTitle("Consola del docente · Dynamic provisioning, en vivo");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Consola del docente · Almacenamiento, martes");
  await expect(page.getByTestId("console-header")).toContainText("1 estudiante conectado");
  await expect(page.getByTestId("console-status")).toHaveText("En vivo");
  await expect(page.getByTestId("new-questions")).toHaveText("0 preguntas en espera");
  await expect(page.getByTestId("room-lock")).toHaveText("Cerrar la sala");
  await expect(page.getByTestId("pause-class")).toHaveText("Pausar la clase");
  await expect(page.getByTestId("open-projector")).toHaveText("Abrir vista del proyector");
  await expect(page.getByTestId("end-session")).toHaveText("Terminar sesión");
  await expect(page.getByTestId("next-step")).toHaveText("Siguiente →");
  await expect(page.getByTestId("prev-step")).toHaveText("← Anterior");
  await expect(page.getByTestId("poll-open")).toHaveText("¿Qué pasa después?");
  await expect(page.getByRole("heading", { name: "Encuesta", exact: true })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Modo de enlace" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Versión de Kubernetes" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Los estudiantes se unen aquí" })).toBeVisible();
  // The join note (the console runs on 127.0.0.1) in Spanish, its addresses and the setting's name as they are.
  const note = page.getByTestId("join-note");
  await expect(note).toContainText(/^(Esta consola está abierta en 127\.0\.0\.1|Este equipo no tiene ninguna dirección de red)/);
  await expect(note.locator("bdi[translate=no]").last()).toHaveText("PUBLIC_URL");
  await expect(page.getByRole("heading", { name: "Estudiantes (1 conectado, 1 unido)" })).toBeVisible();
  await expect(page.getByTestId("projector-panel-none")).toHaveText("Solo el diagrama");
  await expect(page.getByRole("button", { name: "Renombrar a Jonas" })).toBeVisible();
  // The Kubernetes name inside a Spanish sentence is Kubernetes's, marked so (and left to right in any language).
  await expect(page.getByRole("radiogroup", { name: "Modo de enlace de la StorageClass" })).toBeVisible();
  // The English console beside it is unchanged.
  await expect(english.page.getByTestId("next-step")).toHaveText("Next →");
  await expect(english.page.getByTestId("console-header")).toContainText("1 student connected");

  // A poll from the Spanish console: the German phone reads German, the console Spanish.
  await jumpTo(spanish, 4);
  await page.getByTestId("poll-open").click();
  await expect(phone.page.getByTestId("poll-card")).toContainText("Umfrage offen");
  await expect(page.getByTestId("poll-close")).toHaveText("Cerrar encuesta");
  await expect(page.getByText("Mostrar resultados en vivo a la clase")).toBeVisible();
  await phone.page.getByTestId("poll-option").first().click();
  await expect(phone.page.getByTestId("vote-receipt")).toHaveText("Stimme gezählt. Du kannst sie ändern, bis die Umfrage schließt.");
  await page.getByTestId("poll-close").click();
  await expect(page.getByTestId("poll-voted")).toHaveText("Cerrada con 1 voto. La clase aún no ha visto los resultados.");
  await expect(page.getByTestId("poll-reveal")).toHaveText("Revelar respuesta y resultados");
  await page.getByTestId("poll-reveal").click();
  await expect(page.getByTestId("poll-voted")).toHaveText("Revelada a la clase.");
  await expect(page.getByTestId("poll-reopen")).toHaveText("Preguntar de nuevo");
  await expect(phone.page.getByTestId("poll-feedback")).toBeVisible();

  // Pausing from Spanish: the German phone says so in German.
  await page.getByTestId("pause-class").click();
  await expect(page.getByTestId("pause-class")).toHaveText("Reanudar la clase");
  await expect(phone.page.getByText("Die Lehrkraft hat die Klasse pausiert.", { exact: false }).first()).toBeVisible();
  await page.getByTestId("pause-class").click();
  await expect(page.getByTestId("pause-class")).toHaveText("Pausar la clase");

  // Kubernetes is never translated: the same mode, YAML, events and object kinds on both consoles.
  await setMode(spanish, "Immediate/zone-conflict");
  await page.getByTestId("projector-panel-objects").click();
  await page.locator("body").press("End");
  await spanish.expectStep(8);
  await english.expectStep(8);
  const want = await kubernetesOnConsole(english);
  expect(want.events.some((e) => e.startsWith("FailedScheduling: 0/3 nodes are available"))).toBe(true);
  expect(want.kinds).toEqual(expect.arrayContaining(["PVC", "PV", "Pod", "StorageClass", "VolumeAttachment"]));
  expect(await kubernetesOnConsole(spanish)).toEqual({ ...want, kinds: want.kinds.map((k) => (k === "Events" ? "Eventos" : k)) });
});

// ---------------------------------------------------------------------------
// The pseudo-locale

test("the console in the pseudo-locale: every word of its own comes from a catalog, in every state, and nothing spills sideways", async ({
  browser,
  baseURL,
}) => {
  test.setTimeout(240_000);
  const session = await createSession(baseURL!, "A rather long session title that a teacher might well type, to see how it wraps");
  const teacher = await consoleIn(browser, session, undefined, true);
  const page = teacher.page;
  await expectLanguage(page, "en-XA");
  // Every catalog message is bracketed and accented: the console's own heading reads [Ţéåçĥéŕ çöñšöļé · …].
  await expect(page.getByRole("heading", { level: 1 })).toContainText("[Ţéåçĥéŕ çöñšöļé · ");
  await expectConsoleFromCatalogs(page, "with nobody in the room");

  const [ada, bo] = [await phoneIn(browser, session.code, "Ada"), await phoneIn(browser, session.code, "Bo")];
  await expect(page.getByTestId("participant-count")).toHaveText("2");
  await jumpTo(teacher, 4);
  await expectConsoleFromCatalogs(page, "idle at step 4, two students");
  await expectNoSideways(page, "en-XA console, idle");

  // Poll open, with a vote; the answer shown to the teacher; closed; revealed; asked again (the shift table).
  await page.getByTestId("poll-open").click();
  await ada.page.getByTestId("poll-option").first().click();
  await expect(page.getByTestId("poll-close")).toBeVisible();
  await page.getByTestId("show-answer").check();
  await expectConsoleFromCatalogs(page, "poll open");
  await expectNoSideways(page, "en-XA console, poll open");
  await page.getByTestId("poll-close").click();
  await expect(page.getByTestId("poll-reveal")).toBeVisible();
  await expectConsoleFromCatalogs(page, "poll closed");
  await page.getByTestId("poll-reveal").click();
  await expect(page.getByTestId("poll-reopen")).toBeVisible();
  await page.getByTestId("poll-reopen").click();
  await bo.page.getByTestId("poll-option").last().click();
  await page.getByTestId("poll-close").click();
  await page.getByTestId("poll-reveal").click();
  await expect(page.getByTestId("poll-shift")).toBeVisible();
  await expectConsoleFromCatalogs(page, "poll revealed after a second round");
  await expectNoSideways(page, "en-XA console, poll revealed");

  // A teacher's own poll: the form, then the poll (its words are the teacher's, marked as theirs).
  await page
    .getByRole("button")
    .filter({ hasText: /Åšķ ýöûŕ öŵñ/ })
    .click();
  await expect(page.getByTestId("custom-poll-form")).toBeVisible();
  await page
    .getByTestId("custom-poll-form")
    .getByRole("button")
    .filter({ hasText: /Öþéñ ţĥîš/ })
    .click();
  await expect(page.getByTestId("custom-poll-form").getByRole("alert")).toBeVisible();
  await expectConsoleFromCatalogs(page, "a teacher's own poll, refused while empty");
  const form = page.getByTestId("custom-poll-form");
  await form.locator("#custom-question").fill("Which one is yours?");
  for (const [i, option] of ["This one", "That one"].entries())
    await form.locator("input:not([type=radio]):not(#custom-question)").nth(i).fill(option);
  await form
    .getByRole("button")
    .filter({ hasText: /Öþéñ ţĥîš/ })
    .click();
  await expect(page.getByTestId("poll-close")).toBeVisible();
  await expectConsoleFromCatalogs(page, "a teacher's own poll, open");
  await page.getByTestId("poll-close").click();

  // Questions: moderated, one waiting, the flood action asking, then an approved one on the projector.
  await page.getByTestId("questions-mode").selectOption("moderated");
  await expect(page.getByTestId("questions-mode")).toHaveValue("moderated");
  for (const [student, text] of [
    [ada, "Who makes the disk?"],
    [bo, "Why wait here?"],
  ] as const) {
    await student.page.getByTestId("ask-question").click();
    await student.page.getByTestId("question-text").fill(text);
    await student.page.getByTestId("question-submit").click();
  }
  await expect(page.getByTestId("question-item")).toHaveCount(2);
  await page.getByTestId("question-approve").first().click();
  await page.getByTestId("question-show").first().click();
  await page.getByTestId("questions-hide-pending").click();
  await expect(page.getByTestId("questions-hide-pending-confirm")).toBeFocused();
  await expectConsoleFromCatalogs(page, "questions: one approved and shown, one waiting, hiding asked");
  await page.getByTestId("questions-hide-pending-block").click();
  await expect(page.getByTestId("questions-hide-pending-status")).not.toBeEmpty();
  await expectConsoleFromCatalogs(page, "questions: the waiting one hidden and its asker stopped");
  await expectNoSideways(page, "en-XA console, questions");

  // Students: rename in place, remove asking first, then removed (let back in).
  await page.getByTestId("participant-rename").first().click();
  await expect(page.getByTestId("rename-input")).toBeFocused();
  await expectConsoleFromCatalogs(page, "renaming a student");
  await page.getByTestId("rename-input").press("Escape");
  await page.getByTestId("participant-remove").last().click();
  await expect(page.getByTestId("participant-remove-confirm")).toBeFocused();
  await expectConsoleFromCatalogs(page, "asking before removing a student");
  await page.getByTestId("participant-remove-confirm").click();
  await expect(page.getByTestId("participant-readmit")).toBeVisible();
  await expectConsoleFromCatalogs(page, "a student removed");

  // The mode switch, chosen but not applied; the deep dives on the projector; the room locked and the class paused.
  await page.locator('[data-testid=mode-option][data-value="Immediate/zone-conflict"]').check();
  await expect(page.getByTestId("mode-apply")).toBeVisible();
  await page.getByTestId("projector-panel-hood").click();
  await expect(page.getByTestId("projector-deep-dive").first()).toBeVisible();
  await page.getByTestId("room-lock").click();
  await page.getByTestId("pause-class").click();
  await expect(page.getByTestId("pause-class")).toHaveAttribute("aria-pressed", "true");
  await expectConsoleFromCatalogs(page, "mode chosen, deep dives, locked and paused");
  await expectNoSideways(page, "en-XA console, mode chosen, locked and paused");
  await page.getByTestId("mode-cancel").click();

  // Ended: the replay link and the end counts.
  await page.getByTestId("end-session").click();
  await expectConsoleFromCatalogs(page, "asking before ending");
  await page.getByTestId("end-session-confirm").click();
  await expect(page.getByTestId("replay-link")).toBeVisible();
  await expectConsoleFromCatalogs(page, "ended");
});

test("an Arabic console is right to left, passes axe, and keeps Kubernetes left to right", async ({ browser, baseURL }) => {
  test.setTimeout(120_000);
  const session = await createSession(baseURL!, "RTL");
  const teacher = await consoleIn(browser, session, "ar");
  const page = teacher.page;
  await expectLanguage(page, "ar", "rtl");
  const phone = await phoneIn(browser, session.code, "Layla", "ar");
  // Arabic digits or Western ones, as the browser's Arabic locale writes them.
  await expect(page.getByTestId("participant-count")).toHaveText(/^(1|١)$/);
  await expect(page.getByTestId("next-step")).toHaveText("التالي");
  await expect(page.getByTestId("room-code")).toHaveAttribute("dir", "ltr");
  // The StorageClass in an Arabic sentence reads left to right, and is Kubernetes's word.
  const kube = page.locator("#mode-heading ~ form legend bdi");
  await expect(kube).toHaveText("StorageClass");
  await expect(kube).toHaveAttribute("dir", "ltr");
  await expect(page.locator("[data-testid=projector-object], [data-testid=projector-choice]").first()).toBeVisible();
  await expectNoSideways(page, "Arabic console, idle");
  await expectAccessible(page, "Arabic console, idle");

  await jumpTo(teacher, 4);
  await page.getByTestId("poll-open").click();
  await phone.page.getByTestId("poll-option").first().click();
  await expect(page.getByTestId("poll-close")).toHaveText("إغلاق الاستطلاع");
  await expectNoSideways(page, "Arabic console, poll open");
  await expectAccessible(page, "Arabic console, poll open");
  await page.getByTestId("poll-close").click();
  await expect(page.getByTestId("poll-voted")).toContainText("أُغلق بـ صوت واحد");
  await page.getByTestId("participant-remove").click();
  await expectAccessible(page, "Arabic console, closed poll, asking before removing a student");
});

test("the console's language switch: in the header, by keyboard, live, and remembered after a reload", async ({ browser, baseURL }) => {
  const session = await createSession(baseURL!, "Switch");
  const teacher = await consoleIn(browser, session);
  const page = teacher.page;
  const phone = await phoneIn(browser, session.code, "Sam", "de-DE");
  await expectLanguage(page, "en");
  await jumpTo(teacher, 3);

  // Drawn inside the header's box, at its end.
  const header = (await page.getByTestId("console-header").boundingBox())!;
  const languageSwitch = page.getByTestId("language-switch");
  const box = (await languageSwitch.boundingBox())!;
  expect(box.y).toBeGreaterThanOrEqual(header.y);
  expect(box.y + box.height).toBeLessThanOrEqual(header.y + header.height);
  expect(box.x + box.width).toBeLessThanOrEqual(header.x + header.width);
  // Nothing in the header sits under it.
  const hidden = await page.getByTestId("console-header").evaluate((el, sw) => {
    const under: string[] = [];
    for (const child of el.querySelectorAll("a, button, [role=status], p, h1")) {
      const r = child.getBoundingClientRect();
      if (r.right > sw.x && r.left < sw.x + sw.width && r.bottom > sw.y && r.top < sw.y + sw.height)
        under.push(child.outerHTML.slice(0, 60));
    }
    return under;
  }, box);
  expect(hidden).toEqual([]);

  // Reached with the keyboard (from a fresh page, Shift+Tab comes to it first: it is the page's last stop), chosen there.
  await page.reload();
  await expect(page.getByTestId("room-code")).toHaveText(session.code);
  await page.keyboard.press("Shift+Tab");
  await expect(languageSwitch).toBeFocused();
  await expect(languageSwitch).toHaveAccessibleName("Language");
  await languageSwitch.selectOption("es");
  await expectLanguage(page, "es");
  await expect(page.getByTestId("next-step")).toHaveText("Siguiente →");
  // Still the same class: the same place, the phone still connected and still German.
  await teacher.expectStep(3);
  await teacher.expectParticipants(1);
  await expect(page.getByTestId("console-status")).toHaveText("En vivo");
  await expect(phone.page.locator("html")).toHaveAttribute("lang", "de");

  const [cookie] = (await teacher.context.cookies()).filter((c) => c.name === "NEXT_LOCALE");
  expect(cookie).toMatchObject({ value: "es", path: "/", sameSite: "Lax" });
  await page.reload();
  await expect(page.getByTestId("room-code")).toHaveText(session.code);
  await expectLanguage(page, "es");
  await teacher.expectStep(3);
  await expect(page.getByTestId("console-status")).toHaveText("En vivo");
  await expect(page.getByTestId("poll-open")).toHaveText("¿Qué pasa después?");
});
