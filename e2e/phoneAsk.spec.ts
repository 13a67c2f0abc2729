import { expect, test, type Locator } from "@playwright/test";
import { expectAccessible } from "./axe";
import { ConsolePage, StudentPage, createSession, jumpTo, closeContextsAfterEach } from "./fixtures";

closeContextsAfterEach();

/** Pixels between two boxes stacked vertically; negative when they overlap. */
async function verticalGap(a: Locator, b: Locator) {
  const [x, y] = [(await a.boundingBox())!, (await b.boundingBox())!];
  return Math.max(y.y - (x.y + x.height), x.y - (y.y + y.height));
}

test("a phone asks about the arrow it tapped in a box beside the arrow; the console pins the question to that arrow", async ({
  browser,
  baseURL,
}) => {
  const session = await createSession(baseURL!, "Ask in place");
  const teacher = await ConsolePage.open(browser, session);
  const ana = await StudentPage.join(browser, session.code, "Ana");
  await teacher.expectParticipants(1);
  await jumpTo(teacher, 9);
  await ana.expectStep(9);
  const page = ana.page;

  await page.getByText("Show the full diagram").click();
  const arrow = page.locator('[data-testid=full-diagram] [data-testid=diagram-element][data-element="arrow:4"]');
  await arrow.scrollIntoViewIfNeeded();
  const scrolled = await page.evaluate(() => window.scrollY);
  await arrow.tap();

  // The box opens by the arrow, on screen, without the page moving, with the cursor in it.
  const box = page.getByTestId("ask-here");
  await expect(box).toBeVisible();
  await expect(box).toHaveAttribute("data-element", "arrow:4");
  await expect(box).toHaveAccessibleName("Ask about Step 5 · NODE CHOSEN, arrow");
  expect(await page.evaluate(() => window.scrollY)).toBe(scrolled);
  await expect(box).toBeInViewport({ ratio: 1 });
  const at = (await box.boundingBox())!;
  expect(at.x).toBeGreaterThanOrEqual(0);
  expect(at.y).toBeGreaterThanOrEqual(0);
  expect(at.x + at.width).toBeLessThanOrEqual(360);
  expect(at.y + at.height).toBeLessThanOrEqual(740);
  const gap = await verticalGap(arrow, box);
  expect(gap, "the box sits beside the arrow, not over it").toBeGreaterThanOrEqual(0);
  expect(gap, "the box is within 200 px of the arrow").toBeLessThanOrEqual(200);
  await expect(box.getByTestId("question-text")).toBeFocused();
  // One form at a time: the Questions section below steps aside.
  await expect(page.getByTestId("question-text")).toHaveCount(1);
  // Nothing asked yet: no "Show all 0 questions".
  await expect(page.getByTestId("student-questions")).toContainText("No questions about this yet.");
  await expect(page.getByTestId("questions-show-all")).toHaveCount(0);
  await expectAccessible(page, "a phone with the ask box open beside an arrow");

  // Escape closes it and puts focus back on the arrow; Enter on the arrow opens it again, from the keyboard alone.
  await page.keyboard.press("Escape");
  await expect(box).toHaveCount(0);
  await expect(arrow).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(box).toBeVisible();
  await expect(box.getByTestId("question-text")).toBeFocused();
  await page.keyboard.type("Why does the scheduler write to the PVC here?");
  await box.getByTestId("question-submit").click();
  await expect(box.getByTestId("question-receipt")).toHaveAttribute("data-kind", "ok");
  await expect(box.getByTestId("question-receipt")).toHaveText("Asked. The class can see it and upvote it.");
  await expect(box.getByTestId("ask-here-done")).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(box).toHaveCount(0);
  await expect(arrow).toBeFocused();

  // The student's list has it, about that arrow; the console groups it under step 5's arrow.
  const mine = page.getByTestId("question-item");
  await expect(mine).toHaveCount(1);
  await expect(mine).toContainText("Step 5 · NODE CHOSEN, arrow");
  const asked = teacher.page.getByTestId("question-item").filter({ hasText: "Why does the scheduler write to the PVC here?" });
  await expect(asked).toHaveCount(1);
  await expect(teacher.page.getByTestId("question-group").filter({ has: asked })).toContainText("Step 5 · NODE CHOSEN, arrow");
  await expect(teacher.page.getByTestId("question-group").filter({ has: asked })).toContainText("Ana");

  // All of the class's questions are about the arrow in focus: "Show all" would change nothing, so it is not offered.
  await expect(page.getByTestId("questions-show-all")).toHaveCount(0);
  // Another arrow in focus: now there is one question it hides.
  const other = page.locator('[data-testid=full-diagram] [data-testid=diagram-element][data-element="arrow:2"]');
  await other.tap();
  await expect(box).toHaveAttribute("data-element", "arrow:2");
  expect(await verticalGap(other, box)).toBeLessThanOrEqual(200);
  await page.keyboard.press("Escape");
  await expect(other).toBeFocused();
  await expect(page.getByTestId("questions-show-all")).toHaveText("Show all 1 question");
  // An empty box goes away with a tap elsewhere.
  await other.tap();
  await expect(box).toBeVisible();
  await page.locator("header").first().tap();
  await expect(box).toHaveCount(0);

  // A refusal shows in the box, with the reason, and the text stays for later.
  await teacher.page.getByTestId("pause-class").click();
  await expect(page.getByTestId("class-paused")).toBeVisible();
  await other.tap();
  await box.getByTestId("question-text").fill("Who creates the PV here?");
  await box.getByTestId("question-submit").click();
  await expect(box.getByTestId("question-receipt")).toHaveAttribute("data-kind", "error");
  await expect(box).toContainText("The teacher has paused the class");
  await expect(box.getByTestId("question-text")).toHaveValue("Who creates the PV here?");
  await expect(box).toBeInViewport({ ratio: 1 });
  // A tap elsewhere does not throw a typed question away.
  await page.locator("header").first().tap();
  await expect(box).toBeVisible();
  await box.getByRole("button", { name: "Cancel" }).click();
  await expect(box).toHaveCount(0);
  await expect(other).toBeFocused();
  await expect(teacher.page.getByTestId("question-item")).toHaveCount(1);

  // The Questions section's own button still asks about the element in focus, and its form replaces the box: one form at a time.
  await other.tap();
  await expect(box).toBeVisible();
  await page.getByTestId("ask-question").click();
  await expect(box).toHaveCount(0);
  await expect(page.getByTestId("question-text")).toHaveCount(1);
  await expect(page.getByTestId("student-questions").getByTestId("question-text")).toBeFocused();
  await expect(page.getByTestId("student-questions")).toContainText("Your question about Step 3");
});
