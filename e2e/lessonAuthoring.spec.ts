import { expect, test, type Locator, type Page } from "@playwright/test";
import { expectAccessible } from "./axe";
import { ConsolePage, ProjectorPage, StudentPage, pollOptions, closeContextsAfterEach } from "./fixtures";

closeContextsAfterEach();

// An OAuth lesson as a teacher writes it: the messages are the real requests, with their URLs and codes
// (long words that never break on their own), and each has a short `%% title:` for the screens.
const LESSON = `---
title: OAuth authorization code
---
sequenceDiagram
  participant B as Browser
  participant A as Auth server
  participant C as Client app
  B->>A: GET /authorize?response_type=code&client_id=s6BhdRkqt3&redirect_uri=https%3A%2F%2Fclient.example.com%2Fcb
  %% title: Ask for a code
  A-->>B: 302 to redirect_uri?code=SplxlOBeZQQYbYS6WxSbIA, state
  %% title: Redirect with the code
  B->>C: GET /cb?code=SplxlOBeZQQYbYS6WxSbIA&state=af0ifjsldkjxyzzy
  %% title: Deliver the code
  C->>A: POST /token grant_type=authorization_code&code=SplxlOBeZQQYbYS6WxSbIA
  %% title: Trade it for a token
  A-->>C: 200 access_token=2YotnFZFEjr1zCsicMWpAA&token_type=Bearer&expires_in=3600
  %% title: Access token
`;
/** Each step's short title and its message, in order. */
const STEPS = [...LESSON.matchAll(/^ {2}\S+?-{1,2}>>\S+?: (.*)\n {2}%% title: (.*)$/gm)].map((m) => [m[2], m[1]] as const);
const REDIRECT = STEPS[1][1];

/**
 * Whatever reaches past the right edge of the window, outside any box made to scroll sideways: the tag, test id
 * and classes to fix, with the text in it.
 */
async function wideElements(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const out = new Set<string>();
    /** Inside a box that scrolls sideways on purpose (the phone's full diagram), and that box fits: not an overflow. */
    const inFittingScroller = (el: Element) => {
      let box = el.parentElement;
      while (box && getComputedStyle(box).overflowX === "visible") box = box.parentElement;
      return !!box && box !== document.body && box !== document.documentElement && box.getBoundingClientRect().right <= width + 1;
    };
    const describe = (el: Element, right: number) => {
      const id = el.getAttribute("data-testid");
      return `<${el.tagName.toLowerCase()}${id ? ` data-testid="${id}"` : ""} class="${el.getAttribute("class") ?? ""}"> right ${Math.round(right)} > ${width}: "${(el.textContent ?? "").trim().slice(0, 50)}"`;
    };
    for (const el of document.body.querySelectorAll("*")) {
      if (el.closest("svg") && el.tagName.toLowerCase() !== "svg") continue;
      const rect = el.getBoundingClientRect();
      if (rect.width <= 1 || rect.right <= width + 1) continue;
      if (el instanceof HTMLElement && !el.checkVisibility()) continue;
      if (!inFittingScroller(el)) out.add(describe(el, rect.right));
    }
    // A long word spills out of its box without making the box wider: measure the text itself.
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const el = node.parentElement;
      if (!el || !(node.textContent ?? "").trim() || el.closest("svg, script, style")) continue;
      if (!el.checkVisibility() || inFittingScroller(el)) continue;
      // Screen-reader-only text is clipped to a pixel: never seen, never in the way.
      const box = el.getBoundingClientRect();
      if (box.width <= 1 || box.height <= 1) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      const right = Math.max(...[...range.getClientRects()].map((r) => r.right));
      if (right > width + 1) out.add(describe(el, right));
    }
    if (document.documentElement.scrollWidth > width)
      out.add(`the page scrolls sideways: ${document.documentElement.scrollWidth} > ${width}`);
    return [...out];
  });
}

/** The step's name in the header of any view that shows the diagram. */
const stepName = (page: Page) => page.getByTestId("step-indicator").locator("h2");

/** The caption on step `n`'s arrow, with the line breaks the drawing put in taken out. */
async function arrowCaption(diagram: Locator, n: number): Promise<string> {
  const label = diagram.locator(`[data-step-label="${n}"] [data-testid=diagram-label]`).first();
  return ((await label.textContent()) ?? "").replace(/\s+/g, "");
}

test("a teacher's lesson with long messages: typos explained and fixed, short titles on every screen, nothing wider than a phone", async ({
  browser,
}) => {
  // Three browsers, a build of the lesson in the editor, and a replay: more than the default minute on a shared machine.
  test.setTimeout(120_000);
  expect(STEPS).toHaveLength(5);
  const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
  const page = await context.newPage();
  await page.goto("/lessons/edit");
  // The editor explains the short title where it explains the syntax.
  await expect(page.getByTestId("lesson-syntax")).toContainText("%% title: Short name");

  const source = page.getByTestId("lesson-source");
  const preview = page.getByTestId("lesson-preview");
  const error = page.getByTestId("lesson-error");
  const stale = page.getByTestId("lesson-preview-stale");
  // The editor puts its example in once it has loaded; typing before that would be overwritten.
  await expect(source).not.toHaveValue("");
  await source.fill(LESSON);
  await expect(preview).toHaveAttribute("data-steps", "5");
  await expect(error).toHaveCount(0);
  await expect(stale).toHaveCount(0);

  // A typo in a keyword: said in words, at its line and column, with the corrected line; the preview says it is old.
  await source.fill(LESSON.replace("participant C as Client app", "participnt C as Client app"));
  await expect(error).toHaveAttribute("data-line", "7");
  await expect(error).toHaveAttribute("data-column", "3");
  await expect(error).toContainText("Line 7, column 3");
  await expect(error).toContainText("participnt is not a word Mermaid knows here. Did you mean participant?");
  await expect(error.locator("code").first()).toHaveText("participnt");
  await expect(error).not.toContainText(/Expecting|NEWLINE|SOLID_|TXT/);
  await expect(page.getByTestId("lesson-error-suggestion")).toHaveText("participant C as Client app");
  await expect(source).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByTestId("lesson-save")).toBeDisabled();
  // The preview still shows the last text that read, and says so.
  await expect(preview).toHaveAttribute("data-stale", "true");
  await expect(stale).toContainText("Out of date");
  await expect(stale).toContainText("line 7");
  await expect(page.locator("#preview-heading")).toContainText("last version without errors");
  await expectAccessible(page, "lesson editor, a typo shown and the preview out of date");

  // The fix, from the keyboard: the line is replaced, the caret is back in the text.
  await page.getByTestId("lesson-error-fix").focus();
  await page.keyboard.press("Enter");
  await expect(source).toBeFocused();
  await expect(error).toHaveCount(0);
  await expect(stale).toHaveCount(0);
  await expect(source).toHaveValue(LESSON);

  // An arrow typo, fixed by typing.
  await source.fill(LESSON.replace("B->>C: GET /cb", "B->>>C: GET /cb"));
  await expect(error).toHaveAttribute("data-line", "12");
  await expect(error).toContainText("->>> is not a Mermaid arrow. Did you mean ->>?");
  await expect(page.getByTestId("lesson-error-suggestion")).toHaveText(/^B->>C: GET \/cb\?code=/);
  await expect(preview).toHaveAttribute("data-stale", "true");
  await source.fill(LESSON);
  await expect(error).toHaveCount(0);
  await expect(preview).not.toHaveAttribute("data-stale", "true");

  // A title line that names no message is refused, clearly.
  await source.fill(LESSON.replace("  participant B as Browser", "  %% title: OAuth\n  participant B as Browser"));
  await expect(error).toHaveAttribute("data-line", "5");
  await expect(error).toContainText('"%% title:" names the message just above it');
  await source.fill(LESSON);
  await expect(error).toHaveCount(0);

  await page.getByTestId("lesson-save").click();
  await expect(page.getByTestId("lesson-status")).toContainText("Saved");
  await page.getByTestId("lesson-start").click();
  await expect(page).toHaveURL(/\/host\/[A-Z0-9]{6}/);
  const code = (await page.getByTestId("room-code").innerText()).trim();
  const teacher = new ConsolePage(page, context);
  await expect(teacher.step()).toHaveAttribute("data-total", "5");

  const projector = await ProjectorPage.open(browser, code);
  const student = await StudentPage.join(browser, code, "Ana");
  await teacher.expectParticipants(1);
  await teacher.next();
  await student.expectStep(2);
  await projector.expectStep(2);

  // The short title names the step on the console (header and step list), the projector and the phone.
  for (const view of [teacher.page, projector.page, student.page]) await expect(stepName(view)).toHaveText("2 Redirect with the code");
  await expect(page.getByTestId("step-list")).toContainText("Redirect with the code");
  await expect(page.getByTestId("step-list")).not.toContainText("redirect_uri");
  await expect(student.page.getByTestId("step-trail")).toContainText("Ask for a code");
  await expect(student.page.getByTestId("step-trail")).not.toContainText("response_type");
  // The whole message is still there for the class to read, under the title: wrapped inside a 360 px phone.
  await expect(student.page.getByTestId("step-indicator")).toContainText(REDIRECT);
  expect(await wideElements(student.page)).toEqual([]);

  // The poll asks after the short title and offers short titles.
  await page.getByTestId("poll-open").click();
  const question = "What happens next, after Redirect with the code?";
  await expect(student.page.locator("#poll-question")).toHaveText(question);
  await expect(page.getByTestId("poll-controls")).toContainText(question);
  await expect(projector.page.locator("#projector-poll")).toHaveText(question);
  await expect(pollOptions(student).filter({ hasText: "Browser → Client app: Deliver the code" })).toHaveCount(1);
  await expect(pollOptions(student).filter({ hasText: "SplxlOBeZQQYbYS6WxSbIA" })).toHaveCount(0);
  expect(await wideElements(student.page)).toEqual([]);
  await page.getByTestId("poll-close").click();

  // The arrow keeps the whole message, on the console's diagram and the phone's. (Soft: the rest still runs.)
  const whole = REDIRECT.replace(/\s+/g, "");
  expect.soft(await arrowCaption(page.getByTestId("sequence-diagram").first(), 2)).toBe(whole);
  expect.soft(await arrowCaption(student.page.getByTestId("sequence-diagram").first(), 2)).toBe(whole);

  // The last step's message is one 70-character word: it wraps on the phone too.
  await page.getByTestId("step-jump").nth(4).click();
  await student.expectStep(5);
  await expect(stepName(student.page)).toHaveText("5 Access token");
  await expect(student.page.getByTestId("step-indicator")).toContainText("access_token=2YotnFZFEjr1zCsicMWpAA&token_type=Bearer");
  expect.soft(await wideElements(student.page)).toEqual([]);

  // And the replay names the step the same way, with the message on its arrow.
  await page.getByTestId("end-session").click();
  await page.getByTestId("end-session-confirm").click();
  await page.getByTestId("replay-link").click();
  await expect(page).toHaveURL(/\/replay\//);
  await expect(page.getByTestId("sequence-diagram").first()).toBeVisible();
  const replayStep = Number(await page.getByTestId("step-indicator").getAttribute("data-step"));
  const [title, message] = STEPS[replayStep - 1];
  await expect(stepName(page)).toHaveText(`${replayStep} ${title}`);
  expect.soft(await arrowCaption(page.getByTestId("sequence-diagram").first(), replayStep)).toBe(message.replace(/\s+/g, ""));

  await Promise.all([context.close(), projector.context.close(), student.context.close()]);
});
