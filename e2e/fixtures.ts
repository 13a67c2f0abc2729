import { expect, type Browser, type BrowserContext, type Page } from "@playwright/test";

/** Page objects: one per screen, one browser context per role. */

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
