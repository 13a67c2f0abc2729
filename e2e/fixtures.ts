import { expect, test, type Browser, type BrowserContext, type Page } from "@playwright/test";

/** Page objects: one per screen, one browser context per role. */

/**
 * Call at the top of a spec: every browser context a test opened is closed after it, passed or failed. The browser
 * lives as long as the worker, so a context left open keeps its room's sockets, timers and renders going through
 * every later test in that worker.
 */
export function closeContextsAfterEach() {
  test.afterEach(async ({ browser }) => {
    for (const context of browser.contexts()) await context.close();
  });
}

export interface CreatedSession {
  id: string;
  code: string;
  hostKey: string;
}

export async function createSession(baseURL: string, title = "E2E class"): Promise<CreatedSession> {
  const res = await fetch(`${baseURL}/api/sessions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ title }),
  });
  expect(res.status).toBe(201);
  return (await res.json()) as CreatedSession;
}

export class ConsolePage {
  constructor(
    readonly page: Page,
    readonly context: BrowserContext,
  ) {}

  static async open(browser: Browser, session: CreatedSession): Promise<ConsolePage> {
    const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
    const page = await context.newPage();
    await page.goto(`/host/${session.code}#key=${session.hostKey}`);
    await expect(page.getByTestId("room-code")).toHaveText(session.code);
    return new ConsolePage(page, context);
  }

  step() {
    return this.page.getByTestId("step-indicator");
  }
  async next() {
    await this.page.getByTestId("next-step").click();
  }
  async prev() {
    await this.page.getByTestId("prev-step").click();
  }
  async expectStep(step: number) {
    await expect(this.step()).toHaveAttribute("data-step", String(step));
  }
  async expectParticipants(n: number) {
    await expect(this.page.getByTestId("participant-count")).toHaveText(String(n));
  }
}

export class ProjectorPage {
  constructor(
    readonly page: Page,
    readonly context: BrowserContext,
  ) {}

  static async open(browser: Browser, code: string): Promise<ProjectorPage> {
    const context = await browser.newContext({ viewport: { width: 1920, height: 1080 } });
    const page = await context.newPage();
    await page.goto(`/present/${code}`);
    await expect(page.getByTestId("room-code")).toHaveText(code);
    return new ProjectorPage(page, context);
  }

  step() {
    return this.page.getByTestId("step-indicator");
  }
  async expectStep(step: number) {
    await expect(this.step()).toHaveAttribute("data-step", String(step));
  }
}

export class StudentPage {
  constructor(
    readonly page: Page,
    readonly context: BrowserContext,
  ) {}

  /** A phone-sized context; `?name=` joins straight away. */
  static async join(browser: Browser, code: string, name: string): Promise<StudentPage> {
    const context = await browser.newContext({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });
    const page = await context.newPage();
    await page.goto(`/join/${code}?name=${encodeURIComponent(name)}`);
    const student = new StudentPage(page, context);
    await student.expectConnected();
    return student;
  }

  step() {
    return this.page.getByTestId("step-indicator");
  }
  async expectStep(step: number) {
    await expect(this.step()).toHaveAttribute("data-step", String(step));
  }
  async expectConnected() {
    await expect(this.page.getByTestId("connection-status")).toHaveAttribute("data-state", "connected");
  }
}

/* ---- Added for modes.spec.ts and polls.spec.ts ---- */

/** Any of the three views: each shows the step indicator and the binding-mode badge. */
export type AnyView = ConsolePage | ProjectorPage | StudentPage;

export function bindingMode(view: AnyView) {
  return view.page.getByTestId("binding-mode");
}

export async function expectMode(view: AnyView, mode: "WaitForFirstConsumer" | "Immediate" | "Local") {
  await expect(bindingMode(view)).toHaveAttribute("data-mode", mode);
}

/** Step number (1-based) and card label of the step the view shows. */
export async function expectMoment(view: AnyView, step: number, label: number) {
  await expect(view.page.getByTestId("step-indicator")).toHaveAttribute("data-step", String(step));
  await expect(view.page.getByTestId("step-indicator")).toHaveAttribute("data-label", String(label));
}

/** Console: the mode switch, the step list, the lesson panels and the poll controls. */
export async function setMode(host: ConsolePage, value: string) {
  // A deliberate switch: choose the mode, then apply it to every screen.
  await host.page.locator(`[data-testid=mode-option][data-value="${value}"]`).check();
  await host.page.getByTestId("mode-apply").click();
  await expect(host.page.getByTestId("mode-switch")).toHaveAttribute("data-value", value);
}

export async function jumpTo(host: ConsolePage, step: number) {
  await host.page
    .getByTestId("step-jump")
    .nth(step - 1)
    .click();
  await host.expectStep(step);
}

export function pollControls(host: ConsolePage) {
  return host.page.getByTestId("poll-controls");
}

/**
 * The object inspector of a view with lesson panels (console or student):
 * on a phone the panels are folded in a <details>, so open it first.
 */
export async function openInspector(view: ConsolePage | StudentPage, kind = "PersistentVolumeClaim") {
  const panels = view.page.getByTestId("lesson-panels");
  if ((await panels.evaluate((el) => el.tagName)) === "DETAILS") {
    if (!(await panels.evaluate((el) => (el as HTMLDetailsElement).open))) {
      // The summary, in whatever language the page reads.
      await panels.locator(":scope > summary").click();
    }
    await expect(panels).toHaveAttribute("open", "");
  }
  await panels.getByTestId("panel-objects").click();
  await panels.locator(`[data-testid=inspector-tab][data-kind=${kind}]`).click();
  const yaml = panels.getByTestId("inspector-yaml");
  await expect(yaml).toHaveAttribute("data-kind", kind);
  return yaml;
}

/** A student's poll buttons, and one of them by its option id. */
export function pollOptions(student: StudentPage) {
  return student.page.getByTestId("poll-option");
}
export function pollOption(student: StudentPage, optionId: string) {
  return student.page.locator(`[data-testid=poll-option][data-option-id="${optionId}"]`);
}
