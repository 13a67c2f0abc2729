import { expect, type Browser, type BrowserContext, type Locator, type Page } from "@playwright/test";

/**
 * Page objects and hand counts for the self-paced assignment specs
 * (selfPaced.spec.ts, courseResults.spec.ts): a teacher signed up in the
 * browser, phones walking an assignment of the WaitForFirstConsumer
 * scenario, and the counts the teacher's pages must show, worked out by
 * hand from the choices each phone made (options are chosen by their text:
 * the server shuffles and numbers them anew for each assignment).
 */

/** The WaitForFirstConsumer steps in order (LESSON.md): the poll at step s asks what follows STEPS[s - 1]. */
export const WFFC_STEPS = [
  "CREATE PVC",
  "CREATE POD",
  "NEW POD",
  "PICK NODE",
  "NODE CHOSEN",
  "PROVISION",
  "CREATE DISK",
  "CREATE PV",
  "BIND PVC+PV",
  "BIND POD",
  "RUN POD",
  "MOUNT",
] as const;
export const STEP_COUNT = WFFC_STEPS.length;
/** Every step but the last asks "what happens next?". */
export const POLL_STEPS = STEP_COUNT - 1;
/** The right answer at step s (1-based): the step that follows. */
export const rightAt = (step: number) => WFFC_STEPS[step];
export const questionAt = (step: number) => `What happens next, after ${WFFC_STEPS[step - 1]}?`;

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** An option's text starts with its step's name and a colon ("PROVISION: the CSI provisioner…"). */
export const optionText = (name: string) => new RegExp(`^${escape(name)}:`);

const PASSWORD = "harbour lantern copper field";

/** A teacher signs up in a fresh desktop context and lands on `next`. */
export async function signUpTeacher(browser: Browser, name: string, next: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
  const page = await context.newPage();
  const email = `${name.toLowerCase().replace(/\W+/g, ".")}.${Date.now().toString(36)}@school.example`;
  await page.goto(`/account/sign-up?next=${encodeURIComponent(next)}`);
  await page.getByLabel("Your name", { exact: true }).fill(name);
  await page.getByLabel("Email", { exact: true }).fill(email);
  await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await page.getByTestId("sign-up-submit").click();
  await expect(page).toHaveURL(new RegExp(`${escape(next)}$`));
  await expect(page.getByTestId("account-menu")).toHaveAttribute("data-account", name);
  return { context, page };
}

/** On /assignments: a WaitForFirstConsumer assignment that asks for a nickname. Returns its id. */
export async function assignWffc(page: Page, title: string): Promise<string> {
  await page.getByTestId("assign-scenario").selectOption("WaitForFirstConsumer/standard");
  await page.getByTestId("assign-title").fill(title);
  await page.getByTestId("assign-nickname").check();
  await page.getByTestId("assign-lesson").click();
  const link = page.getByTestId("assignment-link");
  await expect(link).toBeVisible();
  const id = (await link.getAttribute("data-assignment-id"))!;
  expect(id).toBeTruthy();
  await expect(link).toHaveAttribute("href", `/a/${id}`);
  await expect(page.getByRole("status").filter({ hasText: `${title} is ready: ${POLL_STEPS} questions.` })).toBeVisible();
  return id;
}

/** A phone: 360x740 with touch, as in class. */
export async function phoneContext(browser: Browser): Promise<BrowserContext> {
  return browser.newContext({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });
}

/** A student's self-paced walk on a phone (`/a/{id}`). */
export class SelfPacedPhone {
  /** The note shown after each answer, by step: the results page must show the same words. */
  readonly notes = new Map<number, { choice: string; note: string }>();

  constructor(
    public page: Page,
    readonly context: BrowserContext,
    readonly name: string,
    readonly id: string,
  ) {}

  /** Opens the link and starts with a nickname (tapped, as on a phone). */
  static async start(browser: Browser, id: string, name: string): Promise<SelfPacedPhone> {
    const context = await phoneContext(browser);
    const page = await context.newPage();
    await page.goto(`/a/${id}`);
    await page.getByTestId("selfpaced-nickname").fill(name);
    await page.getByTestId("selfpaced-start").tap();
    const phone = new SelfPacedPhone(page, context, name, id);
    await phone.expectStep(1);
    return phone;
  }

  step() {
    return this.page.getByTestId("selfpaced-step");
  }
  nextButton() {
    return this.page.getByTestId("selfpaced-next");
  }
  answers() {
    return this.page.getByTestId("selfpaced-answer");
  }
  answer(name: string) {
    return this.answers().filter({ hasText: optionText(name) });
  }
  feedback() {
    return this.page.getByTestId("selfpaced-feedback");
  }

  async expectStep(step: number) {
    await expect(this.step()).toHaveAttribute("data-step", String(step));
    await expect(this.step()).toHaveAttribute("data-total", String(STEP_COUNT));
    // The same narration as in class: the step's title under its number.
    await expect(this.step().locator("h2")).toHaveText(`${step} ${WFFC_STEPS[step - 1]}`);
  }

  /** Answers the poll at `step` with the option named `choice`, by `press` (a tap, or Enter on the focused button). */
  async answerAt(step: number, choice: string, press: (button: Locator) => Promise<void> = (b) => b.tap()) {
    await this.expectStep(step);
    await expect(this.page.getByTestId("selfpaced-poll").locator("h2")).toHaveText(questionAt(step));
    await expect(this.answers()).toHaveCount(4);
    // Not past an unanswered question.
    await expect(this.nextButton()).toBeDisabled();
    await press(this.answer(choice));
    await this.expectFeedback(choice, rightAt(step));
    const note = (await this.feedback().locator("p").nth(1).textContent())!.trim();
    this.notes.set(step, { choice, note });
    await expect(this.nextButton()).toBeEnabled();
  }

  /** The feedback for `choice` when `right` is the answer: right or not, the option's note, and why the right one is right. */
  async expectFeedback(choice: string, right: string) {
    const correct = choice === right;
    const feedback = this.feedback();
    await expect(feedback).toHaveAttribute("data-correct", String(correct));
    await expect(feedback.locator("p").first()).toHaveText(correct ? "Right!" : "Not quite.");
    const paragraphs = feedback.locator("p");
    // The chosen option's note; after a wrong answer, the right answer's note too.
    await expect(paragraphs).toHaveCount(correct ? 2 : 3);
    await expect(paragraphs.nth(1)).not.toHaveText("");
    if (correct) await expect(paragraphs.nth(1)).toHaveText(/^Right: /);
    else {
      await expect(paragraphs.nth(1)).not.toHaveText(/^Right: /);
      await expect(paragraphs.nth(2)).toHaveText(/^Right: /);
    }
    await expect(this.answer(choice)).toHaveAttribute("aria-pressed", "true");
    await expect(this.answer(right)).toContainText("(right answer)");
    if (!correct) await expect(this.answer(choice)).toContainText("(your answer)");
    for (const b of await this.answers().all()) await expect(b).toBeDisabled();
  }

  async next(to: number) {
    await this.nextButton().tap();
    await this.expectStep(to);
  }

  /** From the step it is on, answers each poll as `plan` says and moves on, up to step `to`. */
  async walk(plan: Plan, to: number) {
    let step = Number(await this.step().getAttribute("data-step"));
    while (step < to) {
      if (step <= POLL_STEPS) await this.answerAt(step, plan[step - 1]);
      await this.next(step + 1);
      step++;
    }
  }
}

/** A student's choice at each poll step, in order (index 0 is step 1). */
export type Plan = readonly string[];

/** One first answer in the course: who chose which option at which step, self-paced or in the first round in class. */
export interface FirstAnswer {
  who: string;
  step: number;
  choice: string;
}

export function answersOf(who: string, plan: Plan, upToStep: number): FirstAnswer[] {
  return plan.slice(0, upToStep).map((choice, i) => ({ who, step: i + 1, choice }));
}

/** Per step: how many answered, how many right, and how often each option was chosen. */
export function countAt(all: readonly FirstAnswer[], step: number) {
  const here = all.filter((a) => a.step === step);
  const chosen = new Map<string, number>();
  for (const a of here) chosen.set(a.choice, (chosen.get(a.choice) ?? 0) + 1);
  return { answered: here.length, right: here.filter((a) => a.choice === rightAt(a.step)).length, chosen };
}

/** Per learner: answered, right, and how many wrong (one misconception each). */
export function learnerCount(all: readonly FirstAnswer[], who: string) {
  const own = all.filter((a) => a.who === who);
  const right = own.filter((a) => a.choice === rightAt(a.step)).length;
  return { answered: own.length, right, wrong: own.length - right };
}

/** The option a row names ("PROVISION" from "PROVISION: the CSI provisioner…"). */
export const optionName = (text: string) => text.slice(0, text.indexOf(":"));

/** RFC 4180 CSV as the server writes it (lib/session/export.ts toCsv), into rows of cells. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      row.push(cell);
      cell = "";
    } else if (c === "\r" && text[i + 1] === "\n") {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = "";
      i++;
    } else cell += c;
  }
  if (cell !== "" || row.length > 0) rows.push([...row, cell]);
  return rows;
}

/** Clicks a CSV link and reads the file the browser saved. */
export async function downloadCsv(page: Page, link: Locator): Promise<{ filename: string; rows: string[][]; text: string }> {
  const { readFile } = await import("node:fs/promises");
  const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
  const text = await readFile((await download.path())!, "utf8");
  return { filename: download.suggestedFilename(), rows: parseCsv(text), text };
}

/** One `main` landmark and one h1 on the page, as every page of the product has (e2e/landmarks.spec.ts). */
export async function expectOneMainAndH1(page: Page, what: string) {
  await expect(page.locator("main"), `${what}: one main`).toHaveCount(1);
  await expect(page.locator("h1"), `${what}: one h1`).toHaveCount(1);
  await expect(page.locator("main h1"), `${what}: the h1 is in main`).toHaveCount(1);
}

/** Presses Tab (then Shift+Tab) until `target` has focus: a keyboard user reaches it. Returns how many presses it took. */
export async function tabTo(page: Page, target: Locator, most = 80): Promise<number> {
  const focused = () => target.evaluate((el) => el === document.activeElement).catch(() => false);
  for (const key of ["Tab", "Shift+Tab"]) {
    for (let i = 1; i <= most; i++) {
      if (await focused()) return i - 1;
      await page.keyboard.press(key);
    }
  }
  expect(await focused(), "the keyboard reaches the control").toBe(true);
  return most * 2;
}
