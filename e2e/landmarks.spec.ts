import { expect, test, type Page } from "@playwright/test";
import { ConsolePage, ProjectorPage, StudentPage, createSession, closeContextsAfterEach } from "./fixtures";

closeContextsAfterEach();

/**
 * Every page has one `main` landmark and one top-level heading: a screen
 * reader user lands in the page's content with one key, and knows where.
 */

async function expectOneMainAndH1(page: Page, what: string) {
  await expect(page.locator("main"), `${what}: one main`).toHaveCount(1);
  await expect(page.locator("h1"), `${what}: one h1`).toHaveCount(1);
  const h1 = (await page.locator("h1").textContent())!.trim();
  expect(h1.length, `${what}: the h1 says something`).toBeGreaterThan(0);
  // The heading is inside the page's main content or its banner, not lost in a dialog or footer.
  expect(await page.locator("main h1, header h1").count(), `${what}: h1 in main or header`).toBe(1);
}

test("every page has one main landmark and one h1", async ({ browser, baseURL }) => {
  const session = await createSession(baseURL!, "Landmarks");
  const teacher = await ConsolePage.open(browser, session);
  await expectOneMainAndH1(teacher.page, "console");
  const projector = await ProjectorPage.open(browser, session.code);
  await expectOneMainAndH1(projector.page, "projector");
  const student = await StudentPage.join(browser, session.code, "Ada");
  await expectOneMainAndH1(student.page, "phone, in class");

  const page = await teacher.context.newPage();
  for (const [path, what] of [
    ["/", "landing"],
    [`/join/${session.code}`, "join form"],
    ["/sessions", "saved sessions"],
    ["/lessons", "lessons"],
    ["/lessons/edit", "lesson editor"],
    ["/lab/wait-for-first-consumer", "lab sheet"],
  ] as const) {
    await page.goto(path);
    await page.waitForLoadState("networkidle");
    await expectOneMainAndH1(page, what);
  }

  await teacher.page.getByTestId("end-session").click();
  await teacher.page.getByTestId("end-session-confirm").click();
  await expect(teacher.page.getByTestId("replay-link")).toBeVisible();
  await expectOneMainAndH1(teacher.page, "console, ended");
  await page.goto(`/replay/${session.id}`);
  await expect(page.getByTestId("replay-timeline")).toBeVisible();
  await expectOneMainAndH1(page, "replay");
  for (const c of [teacher, projector, student]) await c.context.close();
});
