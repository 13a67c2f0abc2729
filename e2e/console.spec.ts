import { expect, test, type Page } from "@playwright/test";
import { expectAccessible } from "./axe";
import {
  ConsolePage,
  ProjectorPage,
  StudentPage,
  createSession,
  jumpTo,
  pollControls,
  pollOptions,
  setMode,
  closeContextsAfterEach,
} from "./fixtures";

closeContextsAfterEach();

const focused = (page: Page) =>
  page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.testid ?? document.activeElement?.tagName ?? null);

test("the console by keyboard: a skip link, a few Tabs to the poll, and focus on the next control after every action", async ({
  browser,
  baseURL,
}) => {
  const session = await createSession(baseURL!, "Keys");
  const teacher = await ConsolePage.open(browser, session);
  const student = await StudentPage.join(browser, session.code, "Kay");
  await teacher.expectParticipants(1);
  const page = teacher.page;
  await jumpTo(teacher, 3);

  // From the top of the page: the first Tab is the skip link, which lands on Next.
  const fromTheTop = async () => {
    await page.reload();
    await expect(page.getByTestId("room-code")).toHaveText(session.code);
  };
  await fromTheTop();
  await page.keyboard.press("Tab");
  expect(await focused(page)).toBe("skip-link");
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("next-step")).toBeFocused();

  // Without it, "What happens next?" is a few Tabs from the top: the header's five controls (questions waiting, lock,
  // pause, projector, end), Previous, Next, the step list and the projector's choices (one Tab stop each).
  await fromTheTop();
  let presses = 0;
  for (; presses < 30; presses++) {
    if ((await focused(page)) === "poll-open") break;
    await page.keyboard.press("Tab");
  }
  expect(presses, "Tab presses from the top to the poll button").toBeLessThanOrEqual(12);
  console.log(`Tab presses from the top to "What happens next?": ${presses}`);

  // Arrow keys move within the step list without stepping the class.
  await page.locator("[data-testid=step-jump][aria-current=step]").focus();
  await page.keyboard.press("ArrowRight");
  expect(await page.evaluate(() => (document.activeElement as HTMLElement).dataset.index)).toBe("3");
  await teacher.expectStep(3);

  // Open, close, reveal: each button goes away and focus moves to the next one, never to the page body.
  await page.getByTestId("poll-open").focus();
  await page.keyboard.press("Enter");
  await expect(pollControls(teacher).getByTestId("poll-close")).toBeFocused();
  await pollOptions(student).first().click();
  await expectAccessible(page, "console, poll open");
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("poll-reveal")).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("next-step")).toBeFocused();
  await page.keyboard.press("Enter");
  await teacher.expectStep(4);
  await expect(page.getByTestId("next-step")).toBeFocused();

  // End (the key) disables Next: focus moves to Previous.
  await page.keyboard.press("End");
  await teacher.expectStep(12);
  await expect(page.getByTestId("prev-step")).toBeFocused();

  // Ending the session: focus moves to the replay link.
  await page.getByTestId("end-session").focus();
  await page.keyboard.press("Enter");
  // The console asks in place, with focus on the confirming button; Enter ends the session.
  await expect(page.getByTestId("end-session-confirm")).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("replay-link")).toBeFocused();
});

test("the answer is hidden on the console until the teacher asks, and the choice is remembered", async ({ browser, baseURL }) => {
  const session = await createSession(baseURL!, "Answer");
  const teacher = await ConsolePage.open(browser, session);
  await teacher.page.getByTestId("poll-open").click();
  const tally = pollControls(teacher).getByTestId("poll-tally");
  await expect(tally.locator("li")).toHaveCount(4);
  await expect(tally).not.toContainText("(correct answer)");
  // What comes next is the answer too: the speaker notes' preview and the later steps' names are hidden.
  await expect(teacher.page.getByTestId("next-preview")).not.toContainText("CREATE POD");
  await expect(teacher.page.getByTestId("step-jump").nth(1)).toHaveText("2");
  await teacher.page.getByTestId("show-answer").check();
  await expect(tally.locator("li").filter({ hasText: "(correct answer)" })).toHaveCount(1);
  await expect(teacher.page.getByTestId("next-preview")).toContainText("CREATE POD");
  await expect(teacher.page.getByTestId("step-jump").nth(1)).toHaveText("2 CREATE POD");
  await teacher.page.reload();
  await expect(teacher.page.getByTestId("show-answer")).toBeChecked();
  await expect(pollControls(teacher).getByTestId("poll-tally").locator("li").filter({ hasText: "(correct answer)" })).toHaveCount(1);
  await teacher.page.getByTestId("show-answer").uncheck();
  await expect(pollControls(teacher).getByTestId("poll-tally")).not.toContainText("(correct answer)");
});

test("removed students are listed and can be let back in; an away student is readable; axe passes", async ({ browser, baseURL }) => {
  const session = await createSession(baseURL!, "Roster");
  const teacher = await ConsolePage.open(browser, session);
  const projector = await ProjectorPage.open(browser, session.code);
  const sam = await StudentPage.join(browser, session.code, "Sam");
  const away = await StudentPage.join(browser, session.code, "Away");
  await teacher.expectParticipants(2);
  await expect(teacher.page.getByTestId("projector-count")).toHaveText("1");

  // An away student (their phone closed the page) is still listed, readable.
  await away.context.close();
  await teacher.expectParticipants(1);
  const awayName = teacher.page.locator("[data-testid=participant-list] [data-connected=false]");
  await expect(awayName).toContainText("Away");
  await expectAccessible(teacher.page, "console with an away student");

  await teacher.page.getByRole("button", { name: "Remove Sam" }).click();
  await teacher.page.getByTestId("participant-remove-confirm").click();
  await expect(sam.page.getByTestId("session-error")).toHaveAttribute("data-code", "REMOVED");
  const removed = teacher.page.getByTestId("removed-list");
  await expect(removed).toContainText("Sam");
  await expectAccessible(teacher.page, "console with a removed student");
  await teacher.page.getByRole("button", { name: "Let Sam back in" }).click();
  await expect(removed).toHaveCount(0);
  // Sam comes back with the same browser identity: a reload is enough.
  await sam.page.reload();
  await sam.expectConnected();
  await teacher.expectParticipants(1);
  await expect(teacher.page.locator("[data-testid=participant-list]")).toContainText("Sam");
  void projector;
});

test("ended looks ended everywhere at once, and each scenario has one name", async ({ browser, baseURL }) => {
  const session = await createSession(baseURL!, "The end");
  const teacher = await ConsolePage.open(browser, session);
  const projector = await ProjectorPage.open(browser, session.code);
  const student = await StudentPage.join(browser, session.code, "Eve");
  await teacher.expectParticipants(1);

  // One name per scenario: the mode list never repeats itself, and the notice and badge say the same name.
  const labels = await teacher.page.getByTestId("mode-name").allTextContents();
  expect(labels).toEqual(["WaitForFirstConsumer", "Immediate", "Immediate: zone conflict", "Local PVs", "Local PVs: no matching PV"]);
  await setMode(teacher, "Local/standard");
  await expect(student.page.getByTestId("mode-switch-notice")).toContainText("to Local PVs");
  await expect(student.page.getByTestId("scenario-name")).toHaveText("Local PVs");
  await setMode(teacher, "Immediate/zone-conflict");
  await expect(student.page.getByTestId("mode-switch-notice")).toContainText("Switched from Local PVs to Immediate: zone conflict");

  await teacher.page.getByTestId("end-session").click();
  await teacher.page.getByTestId("end-session-confirm").click();
  await expect(teacher.page.getByTestId("console-status")).toHaveText("Ended");
  await expect(projector.page.getByTestId("session-ended")).toBeVisible();
  await expect(student.page.getByTestId("connection-status")).toHaveText("session ended");
  await expectAccessible(teacher.page, "console, ended");
  await expectAccessible(student.page, "student, ended");
});
