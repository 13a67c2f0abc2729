import { expect, test, type Browser, type BrowserContext, type Page } from "@playwright/test";
import { closeContextsAfterEach } from "./fixtures";
import { expectAccessible } from "./axe";
import { settle } from "./layout";
import { expectAllFromCatalogs, unmarkedText } from "./pseudo";
import { onlyLesson } from "./consoleCatalogCheck";
import { PHONE, contextIn, expectNoSideways, setAsideFromCheck } from "./languageHelpers";
import { POLL_STEPS, assignWffc, signUpTeacher } from "./selfPacedPages";

/**
 * The teacher's pages in the reader's language (issue 32): the account, the
 * lessons and the lesson editor, saved sessions, assignments, an
 * assignment's progress, the course results and a lab sheet. In the
 * pseudo-locale every word on them comes from a catalog (what stays as
 * written is marked translate="no": names, emails, titles, Kubernetes) and
 * nothing spills sideways on a 360 px phone; in Arabic (right to left) and
 * German axe finds nothing serious; in Spanish they read Spanish.
 */

closeContextsAfterEach();

type Ready = (page: Page) => Promise<void>;

/** Each page, and what shows it has loaded what it asks the server for. */
function teacherPages(assignmentId: string): [string, Ready][] {
  return [
    ["/account", async (page) => await expect(page.getByTestId("sign-in-list")).toBeVisible()],
    ["/lessons", async (page) => await expect(page.getByTestId("my-lessons-empty")).toBeVisible()],
    ["/lessons/edit", async (page) => await expect(page.getByTestId("lesson-preview")).not.toHaveAttribute("data-steps", "0")],
    ["/sessions", async (page) => await expect(page.getByTestId("my-sessions-empty")).toBeVisible()],
    ["/assignments", async (page) => await expect(page.getByTestId("assignment-item")).toHaveCount(1)],
    [`/assignments/${assignmentId}`, async (page) => await expect(page.getByTestId("assignment-poll")).toHaveCount(POLL_STEPS)],
    ["/results/builtin", async (page) => await expect(page.getByTestId("results-sources")).toBeVisible()],
    ["/lab/wait-for-first-consumer", async (page) => await expect(page.getByTestId("lab-contents")).toBeVisible()],
  ];
}

/** A teacher with one assignment of the built-in lesson, signed up in English; the sign-in (a cookie) for other contexts. */
async function teacherWithAssignment(browser: Browser, name: string) {
  const { context, page } = await signUpTeacher(browser, name, "/assignments");
  const assignmentId = await assignWffc(page, `${name}'s storage homework`);
  const state = await context.storageState();
  await context.close();
  return { state, assignmentId };
}

type State = Awaited<ReturnType<BrowserContext["storageState"]>>;

/** The signed-in teacher on a phone, in `locale` or the pseudo-locale. */
function phone(browser: Browser, state: State, { locale, pseudo }: { locale?: string; pseudo?: boolean } = {}): Promise<BrowserContext> {
  return contextIn(browser, { ...PHONE, storageState: state, locale, pseudo });
}

function desktop(browser: Browser, state: State, locale: string): Promise<BrowserContext> {
  return contextIn(browser, { storageState: state, viewport: { width: 1280, height: 900 }, locale });
}

test("every teacher's page takes its words from the catalogs and fits a 360 px phone in the pseudo-locale", async ({ browser }) => {
  test.setTimeout(240_000);
  const { state, assignmentId } = await teacherWithAssignment(browser, "Ms Okafor");
  const context = await phone(browser, state, { pseudo: true });
  const page = await context.newPage();

  for (const [path, ready] of teacherPages(assignmentId)) {
    await page.goto(path);
    await expect(page.locator("html")).toHaveAttribute("lang", "en-XA");
    await ready(page);
    await settle(page);
    // The lesson's own words are not the interface's: the built-in lesson's and the lab sheet's English sentences that no
    // catalog has yet are marked lang="en" (docs/i18n.md), and a poll's words come from the lesson catalog (whose own tests
    // check them) with the diagram's step names as drawn (data-lesson-words). Everything else must be pseudo text or
    // marked translate="no".
    await setAsideFromCheck(page, 'body [lang="en"], body [data-lesson-words]');
    await expectAllFromCatalogs(page, `${path} in the pseudo-locale`);
    await expectNoSideways(page, `${path} in the pseudo-locale at 360 px`);
  }

  // The lesson editor's refusal (the parser's English, lang="en") sits in a sentence from the catalog, and still fits.
  await page.goto("/lessons/edit");
  await page.getByTestId("lesson-source").fill("sequenceDiagram\n  participnt A\n  A->>B: hello\n");
  await expect(page.getByTestId("lesson-error")).toBeVisible();
  await expect(page.getByTestId("lesson-error").getByRole("button").first()).toContainText("Ļîñé");
  await settle(page);
  await expectNoSideways(page, "/lessons/edit with an error in the pseudo-locale at 360 px");
});

test("the teacher's pages in Arabic read right to left and in German left to right, with nothing serious for axe; Kubernetes stays as it prints", async ({
  browser,
}) => {
  test.setTimeout(300_000);
  const { state, assignmentId } = await teacherWithAssignment(browser, "Mr Haddad");
  const english = await (await desktop(browser, state, "en-US")).newPage();
  await english.goto("/lab/wait-for-first-consumer");
  const watchInEnglish = await english.getByTestId("lab-watch").innerText();
  const manifestsInEnglish = await english.getByTestId("lab-manifest").allInnerTexts();

  for (const [locale, lang, dir] of [
    ["ar", "ar", "rtl"],
    ["de-DE", "de", "ltr"],
  ] as const) {
    const page = await (await desktop(browser, state, locale)).newPage();
    for (const [path, ready] of teacherPages(assignmentId)) {
      await page.goto(path);
      await expect(page.locator("html")).toHaveAttribute("lang", lang);
      await expect(page.locator("html")).toHaveAttribute("dir", dir);
      await ready(page);
      await settle(page);
      await expectAccessible(page, `${path} in ${lang}`);
    }
    // The lab sheet's commands and manifests are the same bytes as in English, and read left to right in Arabic too.
    await expect(page.getByTestId("lab-watch")).toHaveText(watchInEnglish);
    expect(await page.getByTestId("lab-manifest").allInnerTexts()).toEqual(manifestsInEnglish);
    await expect(page.getByTestId("lab-watch")).toHaveAttribute("dir", "ltr");
    await expect(page.getByTestId("lab-watch")).toHaveAttribute("translate", "no");
  }
});

test("a Spanish teacher reads the assignments page in Spanish, and the account page's switch changes the language in place", async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const { state, assignmentId } = await teacherWithAssignment(browser, "Sra Prieto");
  const page = await (await desktop(browser, state, "es-ES")).newPage();

  await page.goto("/assignments");
  await expect(page.locator("html")).toHaveAttribute("lang", "es");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Tareas");
  await expect(page.getByRole("heading", { level: 2, name: "Nueva tarea" })).toBeVisible();
  await expect(page.getByRole("heading", { level: 2, name: "Tus tareas" })).toBeVisible();
  await expect(page.getByText("Los estudiantes deben dar un apodo (para distinguir sus respuestas)")).toBeVisible();
  await expect(page.getByTestId("assign-lesson")).toHaveText("Crear la tarea");
  const item = page.locator(`[data-testid=assignment-item][data-assignment-id="${assignmentId}"]`);
  await expect(item).toContainText(`Creada`);
  await expect(item).toContainText(`${POLL_STEPS} preguntas`);
  // The teacher's own title is shown as written, and no translation tool may change it.
  await expect(item.getByRole("link").first().locator('[translate="no"]')).toHaveText("Sra Prieto's storage homework");
  await expect(item.getByRole("link", { name: "Resultados de la lección incorporada" })).toBeVisible();

  await page.goto(`/assignments/${assignmentId}`);
  await expect(page.getByTestId("assignment-progress")).toHaveText("0 empezaron · 0 terminaron");
  await expect(page.getByRole("heading", { level: 2, name: "Respuestas por pregunta" })).toBeVisible();
  await expect(page.getByTestId("assignment-export")).toHaveText("Descargar las respuestas (CSV)");

  // The account page carries the switch: German, at once and remembered on the next page.
  await page.goto("/account");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Tu cuenta");
  await expect(page.getByTestId("sign-out-everywhere")).toHaveText("Cerrar sesión en todas partes");
  await page.getByTestId("language-switch").selectOption("de");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Dein Konto");
  await expect(page.getByTestId("sign-out-everywhere")).toHaveText("Überall abmelden");
  await page.goto("/sessions");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Gespeicherte Sitzungen");
});

test("a student's self-paced pages: the due date is a <time> inside the sentence, in German as the browser writes it, and in the pseudo-locale every word comes from a catalog at 360 px", async ({
  browser,
}) => {
  test.setTimeout(150_000);
  const { context, page } = await signUpTeacher(browser, "Frau Weber", "/assignments");
  // Due in thirty days at 17:00, as the teacher types it into the form (in the browser's own time zone).
  const due = new Date(Date.now() + 30 * 24 * 60 * 60 * 1000);
  due.setHours(17, 0, 0, 0);
  const pad = (n: number) => String(n).padStart(2, "0");
  await page.getByTestId("assign-due").fill(`${due.getFullYear()}-${pad(due.getMonth() + 1)}-${pad(due.getDate())}T17:00`);
  const id = await assignWffc(page, "Hausaufgabe: Speicher");
  await context.close();
  const iso = due.toISOString();

  const german = await (await contextIn(browser, { ...PHONE, locale: "de-DE" })).newPage();
  await german.goto(`/a/${id}`);
  await expect(german.locator("html")).toHaveAttribute("lang", "de");
  // The date as Intl writes it in German on this browser: the same words the page must show inside its German sentence.
  const when = await german.evaluate(
    (at) =>
      new Intl.DateTimeFormat("de", { weekday: "long", day: "numeric", month: "long", hour: "2-digit", minute: "2-digit" }).format(
        new Date(at),
      ),
    iso,
  );
  const line = german.getByTestId("selfpaced-due");
  await expect(line).toHaveText(`Fällig am ${when}.`);
  await expect(line.locator("time")).toHaveText(when);
  await expect(line.locator("time")).toHaveAttribute("datetime", iso);
  await expect(line.locator("time")).toHaveAttribute("translate", "no");
  await german.getByTestId("selfpaced-nickname").fill("Jonas");
  await german.getByTestId("selfpaced-start").tap();
  await expect(german.getByTestId("selfpaced-step")).toHaveAttribute("data-step", "1");
  // The walk's header says it too, beside the student's own name (shown as written).
  await expect(line).toHaveText(`Jonas · Fällig am ${when}.`);
  await expect(line.locator("time")).toHaveAttribute("datetime", iso);
  await expect(line.locator('[translate="no"]').first()).toHaveText("Jonas");

  const pseudo = await (await contextIn(browser, { ...PHONE, pseudo: true })).newPage();
  await pseudo.goto(`/a/${id}`);
  await expect(pseudo.locator("html")).toHaveAttribute("lang", "en-XA");
  await expect(pseudo.getByTestId("selfpaced-due").locator("time")).toHaveAttribute("datetime", iso);
  for (const state of ["the start form", "the walk at step 1"]) {
    if (state === "the walk at step 1") {
      await pseudo.getByTestId("selfpaced-nickname").fill("Ada");
      await pseudo.getByTestId("selfpaced-start").tap();
      await expect(pseudo.getByTestId("selfpaced-step")).toHaveAttribute("data-step", "1");
      await expect(pseudo.getByTestId("selfpaced-due").locator("time")).toHaveAttribute("datetime", iso);
    }
    await settle(pseudo);
    // As on the teacher's pages: the lesson's own words not yet translated are marked lang="en" (docs/i18n.md), the
    // step trail's card labels too; the whole page, the walk's step, trail and poll as well as its header. The poll
    // quotes the card's step titles inside the lesson catalog's sentences as plain text (components/poll), as on the
    // phones in class (e2e/phonePseudo.spec.ts): those alone are let through.
    await setAsideFromCheck(pseudo, 'body [lang="en"], body [data-lesson-words]');
    const found = (await unmarkedText(pseudo)).filter((entry) => !onlyLesson(entry));
    expect(found, `text not from a catalog on a self-paced assignment, ${state}, in the pseudo-locale`).toEqual([]);
    await expectNoSideways(pseudo, `a self-paced assignment, ${state}, in the pseudo-locale at 360 px`);
  }
});
