import { expect, test, type Locator } from "@playwright/test";
import { ConsolePage, ProjectorPage, StudentPage, createSession, expectMoment, jumpTo, setMode, closeContextsAfterEach } from "./fixtures";
import { cutOff, settle, smallestText } from "./layout";
import { expectAccessible } from "./axe";

/**
 * Issue 26: in Immediate the steps are numbered in the order they happen
 * (1..12), the card's number shows beside a step only where the mode moved it,
 * and the mode switch tells the class in one sentence what moved and why.
 */

const IMMEDIATE_EXPLANATION =
  "In Immediate, the volume is provisioned and bound as soon as the claim is created, without waiting for a Pod: card steps 6–9 (PROVISION to BIND PVC+PV) now come right after CREATE PVC, as steps 2–5.";
const CONFLICT_EXPLANATION =
  "In Immediate, the volume is provisioned and bound as soon as the claim is created, in a zone chosen without the Pod: card steps 6–9 (PROVISION to BIND PVC+PV) now come right after CREATE PVC, as steps 2–5, and PICK NODE fails (step 8), so card steps 5 and 10–12 do not happen.";
const WFFC_EXPLANATION =
  "In WaitForFirstConsumer, nothing is provisioned until the scheduler has chosen a node for the Pod: the steps follow the card's order, 1 to 12.";
/** Immediate's track: the card's number of each step, in the order it happens. */
const IMMEDIATE_CARD_ORDER = ["1", "6", "7", "8", "9", "2", "3", "4", "5", "10", "11", "12"];
/** The card tag each step carries in Immediate ("" where its number is the card's). */
const IMMEDIATE_TAGS = ["", "6", "7", "8", "9", "2", "3", "4", "5", "", "", ""];
const oneTo = (n: number) => Array.from({ length: n }, (_, i) => String(i + 1));

closeContextsAfterEach();

/** The card number tag inside each of `items`, "" where there is none. */
async function tagsOf(items: Locator): Promise<string[]> {
  return items.evaluateAll((els) => els.map((el) => el.querySelector("[data-testid=card-step]")?.getAttribute("data-card-step") ?? ""));
}

/**
 * The console's mode switch, whichever form it has: a <select> (what fixtures.setMode drives), or the
 * radio group with a "Switch every screen" button that is replacing it.
 */
async function switchMode(host: ConsolePage, value: string) {
  const control = host.page.getByTestId("mode-switch");
  if ((await control.evaluate((el) => el.tagName)) === "SELECT") return setMode(host, value);
  await control.locator(`[data-testid=mode-option][data-value="${value}"]`).check();
  await host.page.getByTestId("mode-apply").click();
}

test("Immediate is numbered in the order it happens, with the card's number beside each moved step", async ({ browser, baseURL }) => {
  test.setTimeout(120_000);
  const session = await createSession(baseURL!, "Immediate numbering");
  const teacher = await ConsolePage.open(browser, session);
  const projector = await ProjectorPage.open(browser, session.code);
  const phone = await StudentPage.join(browser, session.code, "Ana");
  await teacher.expectParticipants(1);

  // WaitForFirstConsumer at NODE CHOSEN: the card's own order, no card tags anywhere.
  await jumpTo(teacher, 5);
  await expect(teacher.page.getByTestId("step-jump-number")).toHaveText(oneTo(12));
  await expect(teacher.page.getByTestId("card-step")).toHaveCount(0);

  // The switch keeps the moment: NODE CHOSEN is step 9 of 12 in Immediate, card step 5.
  await switchMode(teacher, "Immediate/standard");
  for (const view of [teacher, projector, phone]) {
    await expectMoment(view, 9, 5);
    await expect(view.step()).toContainText("Step 9 of 12");
    await expect(view.step().getByTestId("card-step")).toHaveAttribute("data-card-step", "5");
    await expect(view.step().getByTestId("card-step")).toBeVisible();
    await expect(view.step().locator("h2")).toHaveText("9 NODE CHOSEN");
    // Read aloud, the tag says which order the card follows.
    // Seen as "card step 5"; heard as which order the card follows.
    await expect(view.step().getByTestId("card-step").locator("[aria-hidden=true]")).toHaveText("card step 5");
    await expect(view.step().getByTestId("card-step").locator(".sr-only")).toHaveText("(card step 5, the WaitForFirstConsumer order)");
    await expect(view.page.getByTestId("mode-switch-moment")).toHaveText(
      "Switched from WaitForFirstConsumer to Immediate, at the same moment: step 9, NODE CHOSEN (card step 5).",
    );
    await expect(view.page.getByTestId("mode-order-explanation")).toHaveText(IMMEDIATE_EXPLANATION);
  }
  // One live region carries the whole notice.
  await expect(phone.page.getByTestId("mode-switch-notice")).toHaveAttribute("role", "status");

  // The console's step list reads 1..12 in order, the card's number beside the eight steps that moved.
  const jumps = teacher.page.getByTestId("step-jump");
  await expect(teacher.page.getByTestId("step-jump-number")).toHaveText(oneTo(12));
  expect(await tagsOf(jumps)).toEqual(IMMEDIATE_TAGS);
  await expect(
    jumps.nth(1).locator(":scope > [data-testid=step-jump-number], :scope > [data-testid=card-step] > [aria-hidden=true]"),
  ).toHaveText(["2", "card step 6"]);
  await expect(jumps.nth(1)).toHaveAccessibleName("2 PROVISION (card step 6, the WaitForFirstConsumer order)");
  await expect(jumps.nth(9)).toHaveText("10 BIND POD");

  // The projector's diagram: the step column counts 1..9 down the rows drawn, the rows keep their card identity.
  const drawing = projector.page.getByTestId("projector-diagram");
  await expect(drawing.getByTestId("step-number-text")).toHaveText(oneTo(9));
  expect(await drawing.locator("[data-step-label]").evaluateAll((els) => els.map((el) => el.getAttribute("data-step-label")))).toEqual(
    IMMEDIATE_CARD_ORDER.slice(0, 9),
  );
  expect(
    await drawing.getByTestId("step-number-text").evaluateAll((els) => els.map((el) => el.getAttribute("data-card-step") ?? "")),
  ).toEqual(IMMEDIATE_TAGS.slice(0, 9));

  // The phone's trail: 1..9, tagged where moved.
  const trail = phone.page.getByTestId("step-trail");
  await expect(trail.getByTestId("trail-number")).toHaveText(oneTo(9));
  expect(await tagsOf(trail.locator("li"))).toEqual(IMMEDIATE_TAGS.slice(0, 9));

  // The longer notice still leaves a projector that fits the screen, legible from the back row.
  await projector.page.emulateMedia({ reducedMotion: "reduce" });
  await settle(projector.page);
  expect(await cutOff(projector.page), "projector with the notice: cut off or spilling").toEqual([]);
  const smallest = await smallestText(projector.page);
  expect(smallest.px, `smallest text "${smallest.text}"`).toBeGreaterThanOrEqual(20 - 0.05);
  await expectAccessible(teacher.page, "console in Immediate, card tags shown");
  await expectAccessible(phone.page, "phone in Immediate, card tags shown");

  // To the end: every row of the diagram numbered 1..12 in Immediate's order; step 12 is the card's 12, so no tag.
  await teacher.page.locator("body").press("End");
  await expectMoment(projector, 12, 12);
  await expect(drawing.getByTestId("step-number-text")).toHaveText(oneTo(12));
  expect(await drawing.locator("[data-step-label]").evaluateAll((els) => els.map((el) => el.getAttribute("data-step-label")))).toEqual(
    IMMEDIATE_CARD_ORDER,
  );
  await expect(projector.step().getByTestId("card-step")).toHaveCount(0);
  // A step change clears the notice.
  await expect(projector.page.getByTestId("mode-switch-notice")).toHaveCount(0);

  // CREATE DISK is step 3 here: the header, the phone (after a reload too) and the console agree.
  await jumpTo(teacher, 3);
  for (const view of [teacher, projector, phone]) {
    await expectMoment(view, 3, 7);
    await expect(view.step().locator("h2")).toHaveText("3 CREATE DISK");
    await expect(view.step().getByTestId("card-step")).toHaveAttribute("data-card-step", "7");
  }
  await phone.page.reload();
  await phone.expectConnected();
  await expectMoment(phone, 3, 7);
  await expect(phone.page.getByTestId("step-trail").getByTestId("trail-number")).toHaveText(oneTo(3));
  expect(await tagsOf(phone.page.getByTestId("step-trail").locator("li"))).toEqual(["", "6", "7"]);

  // While the class predicts the next step, later steps show their place only: their card number would give the answer away.
  await teacher.page.getByTestId("poll-open").click();
  await expect(jumps.nth(3)).toHaveText("4");
  await expect(jumps.nth(3)).toHaveAccessibleName("Step 4 (name hidden while the class votes)");
  expect(await tagsOf(jumps)).toEqual(["", "6", "7", "", "", "", "", "", "", "", "", ""]);
  await teacher.page.getByTestId("poll-close").click();

  // Back to WaitForFirstConsumer: the class hears that the card's order is back, and the tags go.
  await switchMode(teacher, "WaitForFirstConsumer/standard");
  for (const view of [projector, phone]) {
    await expectMoment(view, 7, 7);
    await expect(view.page.getByTestId("mode-order-explanation")).toHaveText(WFFC_EXPLANATION);
    await expect(view.page.getByTestId("card-step")).toHaveCount(0);
  }
  await expect(teacher.page.getByTestId("card-step")).toHaveCount(0);
  await expect(projector.page.getByTestId("projector-diagram").getByTestId("step-number-text")).toHaveText(oneTo(7));

  // The longest sentence (the zone conflict, with the Events beside the diagram) still fits the projector at both resolutions.
  await jumpTo(teacher, 4);
  await switchMode(teacher, "Immediate/zone-conflict");
  await expectMoment(projector, 8, 4);
  await expect(projector.page.getByTestId("mode-order-explanation")).toHaveText(CONFLICT_EXPLANATION);
  await expect(phone.page.getByTestId("mode-order-explanation")).toHaveText(CONFLICT_EXPLANATION);
  await teacher.page.getByTestId("projector-panel-objects").click();
  await teacher.page.locator("[data-testid=projector-object][data-object=events]").click();
  await expect(projector.page.getByTestId("projector-panel")).toHaveAttribute("data-panel", "events");
  for (const screen of [
    { width: 1920, height: 1080 },
    { width: 1280, height: 720 },
  ]) {
    await projector.page.setViewportSize(screen);
    await settle(projector.page);
    const state = `zone conflict notice and events, ${screen.width}x${screen.height}`;
    const scroll = await projector.page.evaluate(() => ({
      width: document.documentElement.scrollWidth,
      height: document.documentElement.scrollHeight,
    }));
    expect(scroll, `${state}: the page scrolls`).toEqual(screen);
    expect(await cutOff(projector.page), `${state}: cut off or spilling`).toEqual([]);
    const small = await smallestText(projector.page);
    expect(small.px, `${state}: smallest text "${small.text}"`).toBeGreaterThanOrEqual((18 * screen.height) / 1080 - 0.05);
  }

  // The replay numbers the same way.
  await switchMode(teacher, "Immediate/standard");
  await expectMoment(teacher, 8, 4);
  await teacher.page.getByTestId("end-session").click();
  await teacher.page.getByTestId("end-session-confirm").click();
  await expect(teacher.page.getByTestId("replay-link")).toBeVisible();
  await teacher.page.goto(`/replay/${session.id}`);
  await expect(teacher.page.getByTestId("replay-timeline")).toBeVisible();
  await teacher.page.getByTestId("replay-timeline").focus();
  await teacher.page.keyboard.press("End");
  await expectMoment(teacher, 8, 4);
  await expect(teacher.step().getByTestId("card-step")).toHaveAttribute("data-card-step", "4");
  await expect(teacher.page.getByTestId("mode-switch-moment")).toHaveText(
    "Switched from Immediate: zone conflict to Immediate, at the same moment: step 8, PICK NODE (card step 4).",
  );
  await expect(teacher.page.getByTestId("mode-order-explanation")).toHaveText(IMMEDIATE_EXPLANATION);
  await expect(teacher.page.getByTestId("sequence-diagram").getByTestId("step-number-text")).toHaveText(oneTo(8));
});
