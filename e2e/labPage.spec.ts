import { expect, test } from "@playwright/test";
import { expectAccessible } from "./axe";

test("on a phone, the lab sheet's top links straight to Check my cluster and to each section", async ({ browser }) => {
  const context = await browser.newContext({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  await page.goto("/lab/wait-for-first-consumer");
  const length = await page.evaluate(() => document.documentElement.scrollHeight);
  expect(length, "the sheet is many screens long (why it needs the links)").toBeGreaterThan(740 * 4);

  // In the first screen, without scrolling: the jump link.
  const jump = page.getByTestId("lab-jump-check");
  await expect(jump).toBeInViewport({ ratio: 1 });
  await expect(jump).toHaveAccessibleName(/Check my cluster/);
  await jump.tap();
  const heading = page.getByRole("heading", { level: 2, name: "Check my cluster" });
  await expect(heading).toBeInViewport();
  await expect(heading).toBeFocused();
  expect(new URL(page.url()).hash).toBe("#check-my-cluster");
  // The keyboard carries on from there: the next stop is the check's first control.
  await page.keyboard.press("Tab");
  await expect(page.getByLabel("Check against")).toBeFocused();

  // From the keyboard too, from the top of a fresh page.
  await page.goto("/lab/wait-for-first-consumer");
  await jump.focus();
  await page.keyboard.press("Enter");
  await expect(heading).toBeFocused();
  await expect(heading).toBeInViewport();

  // Every link in the contents lands on a visible heading that takes focus.
  const contents = page.getByRole("navigation", { name: "On this sheet" });
  const hrefs = await contents.getByRole("link").evaluateAll((links) => links.map((a) => a.getAttribute("href")!));
  expect(hrefs).toContain("#check-my-cluster");
  expect(hrefs.length).toBeGreaterThanOrEqual(7);
  for (const href of new Set(hrefs)) {
    await page.goto("/lab/wait-for-first-consumer");
    await contents.locator(`a[href="${href}"]`).last().click();
    const target = page.locator(href);
    await expect(target).toHaveRole("heading");
    await expect(target).toBeVisible();
    await expect(target).toBeFocused();
    await expect(target).toBeInViewport();
  }
  await expectAccessible(page, "a lab sheet after a jump");
  await context.close();
});
