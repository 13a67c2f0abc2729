import { readFileSync } from "node:fs";
import path from "node:path";
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { ConsolePage, StudentPage, createSession, setMode, closeContextsAfterEach } from "./fixtures";

type AxePage = ConstructorParameters<typeof AxeBuilder>[0]["page"];

// Playwright runs from the repository root (playwright.config.ts lives there).
const fixture = (name: string) => readFileSync(path.join(process.cwd(), "lib/lesson/fixtures", name), "utf8");

closeContextsAfterEach();

async function expectNoSidewaysScroll(page: Page) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow, "the page scrolls sideways").toBeLessThanOrEqual(0);
}

test("a student goes from the live diagram to the lab sheet and checks their cluster, on a phone", async ({ browser, baseURL }) => {
  const session = await createSession(baseURL!, "Lab");
  const teacher = await ConsolePage.open(browser, session);
  const student = await StudentPage.join(browser, session.code, "Ana");

  // The console and the phone both link to the sheet of the scenario on screen, in the session's Kubernetes release.
  await expect(teacher.page.getByTestId("lab-link")).toHaveAttribute("href", "/lab/wait-for-first-consumer?k8s=1.35");
  await setMode(teacher, "Local/no-local-pv");
  await expect(student.page.getByTestId("lab-link")).toHaveAttribute("href", "/lab/local-no-matching-pv?k8s=1.35");
  // The local class's badge shows its real fields, not a "Local PVs" binding mode.
  await expect(student.page.getByTestId("binding-mode")).toHaveText("WaitForFirstConsumer");
  await expect(student.page.getByTestId("provisioner")).toHaveText("kubernetes.io/no-provisioner");

  const page = student.page;
  await page.goto("/lab/local-no-matching-pv?k8s=1.35");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Local PVs: no matching PV");
  await expect(page.getByTestId("k8s-version")).toHaveAttribute("data-version", "1.35");
  await expect(page.getByTestId("lab-limits")).toHaveAttribute("data-reproducible", "yes");
  await expect(page.getByTestId("lab-step")).toHaveCount(4);
  // Each step says its place in the track and the card's number (Local's order skips PROVISION to CREATE PV).
  expect(
    await page
      .getByTestId("lab-step")
      .evaluateAll((steps) => steps.map((s) => `${s.getAttribute("data-step")}:${s.getAttribute("data-label")}`)),
  ).toEqual(["1:1", "2:2", "3:3", "4:4"]);
  // The one-node kind cluster the sheet creates: 0/1 nodes, no hand-made PV.
  await expect(page.locator("[data-testid=lab-step][data-label='4'] [data-testid=lab-step-events]")).toContainText(
    "0/1 nodes are available: 1 node(s) didn't find available persistent volumes to bind.",
  );
  await expect(page.getByTestId("lab-limits")).not.toContainText("hand-made");
  await expectNoSidewaysScroll(page);

  // The download is the same sheet as Markdown.
  const download = await page.request.get("/lab/local-no-matching-pv/download");
  expect(download.headers()["content-type"]).toContain("text/markdown");
  expect(download.headers()["content-disposition"]).toContain('filename="lab-local-no-matching-pv-k8s-1.35.md"');
  expect(await download.text()).toContain("# Lab: Local PVs: no matching PV");

  // Check my cluster: the paste stays in the page; results land in a live region.
  const input = page.getByTestId("cluster-check-input");
  await input.fill("LAST SEEN   TYPE     REASON   OBJECT   MESSAGE");
  await page.getByTestId("cluster-check-run").click();
  await expect(page.getByTestId("cluster-check-status")).toHaveText(
    "This table has a header but no event under it. Copy the lines under LAST SEEN, TYPE, REASON too.",
  );

  await input.fill(fixture("no-local-pv-kubectl-events.json"));
  await page.getByTestId("cluster-check-run").focus();
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("cluster-check-status")).toHaveAttribute("aria-live", "polite");
  await expect(page.getByTestId("cluster-check-status")).toContainText(
    "All 3 events of the lab's PVC and Pod are on their steps, in order",
  );
  await expect(page.locator("[data-testid=cluster-check-step][data-label='4']")).toHaveAttribute("data-count", "2");
  await expectNoSidewaysScroll(page);

  const results = await new AxeBuilder({ page: page as unknown as AxePage }).analyze();
  const bad = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual([]);
});

test("every lab sheet fits a 360 px screen", async ({ browser }) => {
  const context = await browser.newContext({ viewport: { width: 360, height: 740 }, isMobile: true });
  const page = await context.newPage();
  for (const slug of ["wait-for-first-consumer", "immediate", "immediate-zone-conflict", "local", "local-no-matching-pv"]) {
    await page.goto(`/lab/${slug}`);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    await expectNoSidewaysScroll(page);
  }
  expect((await page.goto("/lab/no-such-lab"))?.status()).toBe(404);
});
