import { expect, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from "@playwright/test";
import { ConsolePage, StudentPage, openInspector, type CreatedSession } from "./fixtures";
import { settle, sidewaysOverflow } from "./layout";
import { usePseudoLocale as choosePseudoLocale } from "./pseudo";

/**
 * What the language specs (e2e/*Languages.spec.ts, e2e/languages.spec.ts)
 * share: a phone or a browser in a language, the page's language as the
 * reader gets it, nothing spilling sideways, and what Kubernetes prints on a
 * screen (which must be the same bytes in every language).
 */

/** A phone: 360 px wide, by touch. */
export const PHONE = { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true } as const;

/**
 * A browser context whose browser speaks `locale` (Playwright's `locale` sets Accept-Language), or that chose the
 * pseudo-locale (only the switch's cookie chooses it: it is never offered, never negotiated); `options` give the
 * rest (a viewport, PHONE, a signed-in teacher's storage state).
 */
export async function contextIn(
  browser: Browser,
  { locale, pseudo = false, ...options }: { locale?: string; pseudo?: boolean } & BrowserContextOptions = {},
): Promise<BrowserContext> {
  const context = await browser.newContext({ ...options, ...(locale ? { locale } : {}) });
  // (Renamed on import: it is a Playwright helper, not a React hook, whatever its name says to the linter.)
  if (pseudo) await choosePseudoLocale(context);
  return context;
}

/** A phone whose browser speaks `locale` (or the pseudo-locale), joined to the class (the join link carries the nickname). */
export async function phoneIn(browser: Browser, code: string, name: string, locale?: string, pseudo = false): Promise<StudentPage> {
  const context = await contextIn(browser, { ...PHONE, locale, pseudo });
  const page = await context.newPage();
  await page.goto(`/join/${code}?name=${encodeURIComponent(name)}`);
  const student = new StudentPage(page, context);
  await student.expectConnected();
  return student;
}

/** The console's normal desktop size (as ConsolePage opens it). */
export const DESKTOP = { width: 1440, height: 1000 };

/** A console whose browser speaks `locale`, or the pseudo-locale. */
export async function consoleIn(browser: Browser, session: CreatedSession, locale?: string, pseudo = false): Promise<ConsolePage> {
  const context = await contextIn(browser, { locale, pseudo, viewport: DESKTOP });
  const page = await context.newPage();
  await page.goto(`/host/${session.code}#key=${session.hostKey}`);
  await expect(page.getByTestId("room-code")).toHaveText(session.code);
  await expect(page.getByTestId("console-status")).toHaveAttribute("role", "status");
  return new ConsolePage(page, context);
}

/** The page reads `lang` (its `<html lang dir>`), and its language switch says so. */
export async function expectLanguage(page: Page, lang: string, dir: "ltr" | "rtl" = "ltr") {
  await expect(page.locator("html")).toHaveAttribute("lang", lang);
  await expect(page.locator("html")).toHaveAttribute("dir", dir);
  await expect(page.getByTestId("language-switch")).toHaveAttribute("data-lang", lang);
}

/** Once the page holds still, it is no wider than its screen and nothing in it spills sideways (`state` names the moment). */
export async function expectNoSideways(page: Page, state: string) {
  await settle(page);
  const width = page.viewportSize()!.width;
  const scrollWidth = await page.evaluate(() => document.scrollingElement!.scrollWidth);
  expect(scrollWidth, `${state}: the page is ${scrollWidth} px wide on a ${width} px screen`).toBeLessThanOrEqual(width);
  expect(await sidewaysOverflow(page), `sideways overflow on ${state}`).toBeLessThanOrEqual(0);
}

/** What Kubernetes prints on a phone or a console: the binding-mode badge, the PVC's YAML, the events' reasons and messages. */
export async function kubernetesStrings(view: StudentPage | ConsolePage) {
  const yaml = await openInspector(view);
  const text = (await yaml.innerText()).trim();
  const cards = view.page.locator("[data-testid=event-cards] li[data-reason]");
  const events = await cards.evaluateAll((items) =>
    items.map((li) => `${li.getAttribute("data-reason")}: ${li.querySelector("[data-testid=event-message]")?.textContent ?? ""}`),
  );
  return { mode: await view.page.getByTestId("binding-mode").innerText(), yaml: text, events };
}

/**
 * Marks what `selectors` name as translate="no", for `unmarkedText` (./pseudo.ts) to leave out: what is on the page
 * but not its interface's to translate (the lesson's own words still in English, marked lang="en"; another area's).
 */
export async function setAsideFromCheck(page: Page, selectors: string) {
  await page.evaluate((sel) => {
    for (const el of document.querySelectorAll(sel)) el.setAttribute("translate", "no");
  }, selectors);
}
