import { expect, test, type Locator, type Page } from "@playwright/test";
import { ConsolePage, ProjectorPage, StudentPage, createSession, jumpTo, pollOptions, setMode, closeContextsAfterEach } from "./fixtures";

closeContextsAfterEach();

/**
 * The teacher's console as a teacher meets it on a laptop: one screen, a
 * projector that shows what the console says it shows, and a keyboard that
 * never steps the class by surprise.
 */

const SHOTS = process.env.SHOTS_DIR ?? "/tmp/shots";

/** The whole box inside the viewport: reachable without scrolling anything. */
async function expectInView(page: Page, locator: Locator, what: string) {
  await expect(locator, what).toBeVisible();
  const box = (await locator.boundingBox())!;
  const viewport = page.viewportSize()!;
  expect(box.y, `${what}: top inside the screen`).toBeGreaterThanOrEqual(0);
  expect(box.x, `${what}: left inside the screen`).toBeGreaterThanOrEqual(0);
  expect(box.y + box.height, `${what}: bottom inside the ${viewport.width}x${viewport.height} screen`).toBeLessThanOrEqual(viewport.height);
  expect(box.x + box.width, `${what}: right inside the screen`).toBeLessThanOrEqual(viewport.width);
}

async function expectConsoleInView(teacher: ConsolePage, state: string) {
  const page = teacher.page;
  await expectInView(page, page.getByTestId("next-step"), `${state}: Next`);
  await expectInView(page, page.getByTestId("prev-step"), `${state}: Previous`);
  await expectInView(page, page.getByTestId("new-questions"), `${state}: questions waiting`);
  await expectInView(page, page.getByTestId("room-lock"), `${state}: Lock room`);
  await expectInView(page, page.getByTestId("projector-choice"), `${state}: what the projector shows`);
  await expectInView(page, page.getByTestId("end-session"), `${state}: End session`);
}

for (const screen of [
  { width: 1440, height: 900 },
  { width: 1280, height: 800 },
]) {
  test(`at ${screen.width}x${screen.height} the console is one screen, and a growing poll card moves nothing`, async ({
    browser,
    baseURL,
  }) => {
    const session = await createSession(baseURL!, "One screen");
    const teacher = await ConsolePage.open(browser, session);
    await teacher.page.setViewportSize(screen);
    const [ada, bo] = [await StudentPage.join(browser, session.code, "Ada"), await StudentPage.join(browser, session.code, "Bo")];
    await teacher.expectParticipants(2);
    await jumpTo(teacher, 4);

    await expectConsoleInView(teacher, "before a poll");
    await expectInView(teacher.page, teacher.page.getByTestId("poll-open"), "Ask what happens next");
    const diagram = teacher.page.getByTestId("console-lesson").locator("svg").first();
    const before = (await diagram.boundingBox())!;
    const choiceBefore = (await teacher.page.getByTestId("projector-choice").boundingBox())!;

    await teacher.page.getByTestId("poll-open").click();
    await pollOptions(ada).first().click();
    await pollOptions(bo).last().click();
    await expect(teacher.page.getByTestId("poll-voted")).toContainText("2");
    await expectConsoleInView(teacher, "poll open");
    await expectInView(teacher.page, teacher.page.getByTestId("poll-close"), "Close poll");
    await teacher.page.getByTestId("poll-close").click();
    await expectInView(teacher.page, teacher.page.getByTestId("poll-reveal"), "Reveal");
    await teacher.page.getByTestId("poll-reveal").click();
    await expect(teacher.page.locator("[data-poll-status=revealed]")).toBeVisible();
    await expectConsoleInView(teacher, "poll revealed");
    // Nothing the teacher looks at moved while the card grew.
    expect((await diagram.boundingBox())!.y).toBe(before.y);
    expect((await teacher.page.getByTestId("projector-choice").boundingBox())!.y).toBe(choiceBefore.y);
    await teacher.page.screenshot({ path: `${SHOTS}/console-${screen.width}x${screen.height}-revealed.png` });

    // A question arrives: the count in the header changes, without scrolling to the list.
    const count = teacher.page.getByTestId("new-questions");
    await expect(count).toHaveAttribute("data-count", "0");
    await ada.page.getByTestId("ask-question").click();
    await ada.page.getByTestId("question-text").fill("Why does the scheduler pick the node first?");
    await ada.page.getByTestId("question-submit").click();
    await expect(count).toHaveAttribute("data-count", "1");
    await expect(count).toContainText("1 question waiting");
    await expectInView(teacher.page, count, "the new question's count");
    // It takes the teacher to the list.
    await count.click();
    await expect(teacher.page.locator("#host-questions-heading")).toBeFocused();
    await expect(teacher.page.getByTestId("host-questions")).toContainText("Why does the scheduler pick the node first?");
    for (const c of [teacher, ada, bo]) await c.context.close();
  });
}

test("the projector shows what the console says it shows: a closed poll leaves when the class moves on or the teacher picks a panel", async ({
  browser,
  baseURL,
}) => {
  const session = await createSession(baseURL!, "Projector panel");
  const teacher = await ConsolePage.open(browser, session);
  const projector = await ProjectorPage.open(browser, session.code);
  const ada = await StudentPage.join(browser, session.code, "Ada");
  await teacher.expectParticipants(1);
  const onProjector = projector.page.getByTestId("projector-panel");
  const chosen = teacher.page.getByTestId("projector-choice");
  const expectBoth = async (panel: string) => {
    await expect(onProjector).toHaveAttribute("data-panel", panel === "none" ? "" : panel);
    await expect(chosen).toHaveAttribute("data-panel", panel);
    await expect(teacher.page.getByTestId(`projector-panel-${panel}`)).toHaveAttribute("aria-pressed", "true");
  };

  await expectBoth("none");
  await teacher.page.getByTestId("projector-panel-objects").click();
  await expectBoth("objects");

  // A poll goes up over the panel while it is open, with a countdown the back row can read (drawn, not an emoji).
  await jumpTo(teacher, 3);
  await teacher.page.getByTestId("poll-duration").selectOption("60");
  await teacher.page.getByTestId("poll-open").click();
  await expectBoth("poll");
  const countdown = projector.page.getByTestId("poll-countdown");
  await expect(countdown).toHaveAttribute("role", "timer");
  const ring = (await countdown.boundingBox())!;
  expect(ring.height, "countdown at least 120 px tall at 1080p").toBeGreaterThanOrEqual(120);
  await expect(countdown.locator("svg")).toHaveCount(1);
  expect(await countdown.textContent()).toMatch(/^\d+$/);
  await pollOptions(ada).first().click();
  await teacher.page.getByTestId("poll-close").click();
  await expect(projector.page.getByTestId("projector-poll")).toContainText("Poll closed");

  // Closed, never revealed: the teacher moves on, and the poll leaves every screen; the panel comes back.
  await teacher.next();
  await expectBoth("objects");
  await expect(projector.page.getByTestId("projector-poll")).toHaveCount(0);
  await expect(ada.page.getByTestId("poll-option")).toHaveCount(0);
  await expect(teacher.page.getByTestId("poll-close")).toHaveCount(0);
  await expect(teacher.page.getByTestId("projector-panel-poll")).toHaveCount(0);

  // The teacher picks another panel while a closed poll is up: the projector follows the console, and back.
  await teacher.page.getByTestId("poll-open").click();
  await expectBoth("poll");
  await teacher.page.getByTestId("poll-close").click();
  await teacher.page.getByTestId("projector-panel-objects").click();
  await expectBoth("objects");
  await teacher.page.locator("[data-testid=projector-object][data-object=events]").click();
  await expect(onProjector).toHaveAttribute("data-object", "events");
  await expect(onProjector).toHaveAttribute("data-panel", "events");
  await expect(projector.page.getByTestId("projector-events")).toBeVisible();
  await teacher.page.getByTestId("projector-panel-poll").click();
  await expectBoth("poll");
  // Diagram only dismisses it.
  await teacher.page.getByTestId("projector-panel-none").click();
  await expectBoth("none");
  await expect(projector.page.getByTestId("projector-poll")).toHaveCount(0);

  // A reveal is for the class to see: it goes up again, and leaves at the next step (not two steps later).
  await teacher.page.getByTestId("poll-reveal").click();
  await expectBoth("poll");
  await expect(projector.page.getByTestId("projector-poll")).toContainText("The answer");
  await teacher.next();
  await expectBoth("none");
  await expect(teacher.page.locator("[data-poll-status]")).toHaveCount(0);

  // A mode switch and the room lock: a closed poll does not survive the switch, an open one survives both.
  await teacher.page.getByTestId("poll-open").click();
  await teacher.page.getByTestId("room-lock").click();
  await expect(projector.page.getByTestId("room-locked")).toBeVisible();
  await expectBoth("poll");
  await setMode(teacher, "Immediate/standard");
  await expectBoth("poll");
  await teacher.page.getByTestId("poll-close").click();
  await setMode(teacher, "WaitForFirstConsumer/standard");
  await expectBoth("none");
  await projector.page.screenshot({ path: `${SHOTS}/projector-after-mode-switch.png` });
  for (const c of [teacher, projector, ada]) await c.context.close();
});

test("keys stay with the control that has focus, and focus lands on a control after every console action", async ({ browser, baseURL }) => {
  const session = await createSession(baseURL!, "Keyboard");
  const teacher = await ConsolePage.open(browser, session);
  const page = teacher.page;
  const sam = await StudentPage.join(browser, session.code, "Sam");
  await teacher.expectParticipants(1);
  await jumpTo(teacher, 3);

  // Arrows in the lesson panel tabs move between the tabs; the class stays on step 3.
  await page.getByTestId("panel-objects").focus();
  await page.keyboard.press("ArrowRight");
  await expect(page.getByTestId("panel-topology")).toBeFocused();
  await page.keyboard.press("ArrowLeft");
  await page.keyboard.press("ArrowLeft");
  await teacher.expectStep(3);
  await sam.expectStep(3);

  // The binding mode: arrows choose, nothing switches until Enter; Escape puts the choice back.
  const current = page.locator("[data-testid=mode-option][data-value='WaitForFirstConsumer/standard']");
  await current.focus();
  await page.keyboard.press("ArrowDown");
  await expect(page.locator("[data-testid=mode-option][data-value='Immediate/standard']")).toBeChecked();
  await expect(page.getByTestId("mode-apply")).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(current).toBeChecked();
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("ArrowDown");
  await expect(sam.page.getByTestId("binding-mode")).toHaveAttribute("data-mode", "WaitForFirstConsumer");
  await expect(page.getByTestId("mode-switch")).toHaveAttribute("data-value", "WaitForFirstConsumer/standard");
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("mode-switch")).toHaveAttribute("data-value", "Immediate/zone-conflict");
  await expect(sam.page.getByTestId("binding-mode")).toHaveAttribute("data-mode", "Immediate");
  const stepAfterSwitch = await page.getByTestId("step-indicator").getAttribute("data-step");

  // The question settings too: arrows browse, Enter applies, leaving puts the room's value back.
  const questionsMode = page.getByTestId("questions-mode");
  await questionsMode.focus();
  await page.keyboard.press("ArrowDown");
  await expect(questionsMode).toHaveValue("moderated");
  await expect(page.getByTestId("questions-mode-pending")).toHaveText("Enter to apply");
  await expect(page.getByTestId("new-questions")).toBeVisible();
  await expect(sam.page.getByTestId("ask-question")).toBeVisible();
  await page.keyboard.press("ArrowDown");
  await expect(questionsMode).toHaveValue("off");
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("questions-mode-pending")).toHaveCount(0);
  await expect(sam.page.getByTestId("ask-question")).toHaveCount(0);
  await questionsMode.selectOption("open");
  await expect(sam.page.getByTestId("ask-question")).toBeVisible();

  // Rename in place: arrows and Space in the field are the field's, Enter saves, focus returns to Rename.
  await page.getByTestId("participant-rename").focus();
  await page.keyboard.press("Enter");
  const input = page.getByTestId("rename-input");
  await expect(input).toBeFocused();
  await page.keyboard.press("End");
  await page.keyboard.press("ArrowLeft");
  await page.keyboard.press("ArrowRight");
  await page.keyboard.type(" Lee");
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("participant-list")).toContainText("Sam Lee");
  await expect(page.getByTestId("participant-rename")).toBeFocused();
  await expect(page.getByTestId("step-indicator")).toHaveAttribute("data-step", stepAfterSwitch!);
  // Escape leaves the name as it was.
  await page.keyboard.press("Enter");
  await page.keyboard.type("X");
  await page.keyboard.press("Escape");
  await expect(page.getByTestId("participant-rename")).toBeFocused();
  await expect(page.getByTestId("participant-list")).toContainText("Sam Lee");

  // Remove asks in place; Escape goes back to Remove; confirmed, focus lands on "Let back in", then back on Rename.
  await page.getByTestId("participant-remove").focus();
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("participant-remove-confirm")).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(page.getByTestId("participant-remove")).toBeFocused();
  await page.keyboard.press("Enter");
  await page.keyboard.press("Enter");
  await expect(sam.page.getByTestId("session-error")).toHaveAttribute("data-code", "REMOVED");
  await expect(page.getByTestId("participant-readmit")).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("participant-rename")).toBeFocused();
  // Space on a focused control is the control's: it never steps the class.
  await expect(page.getByTestId("step-indicator")).toHaveAttribute("data-step", stepAfterSwitch!);

  // End session asks in place; Cancel returns focus to it.
  await page.getByTestId("end-session").click();
  await expect(page.getByTestId("end-session-confirm")).toBeFocused();
  await page.getByTestId("end-session-cancel").click();
  await expect(page.getByTestId("end-session")).toBeFocused();
  await expect(page.getByTestId("console-status")).toHaveText("Live");
  for (const c of [teacher, sam]) await c.context.close();
});
