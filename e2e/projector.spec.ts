import { expect, test, type Page } from "@playwright/test";
import { ConsolePage, ProjectorPage, StudentPage, createSession, jumpTo, pollOptions, setMode, closeContextsAfterEach } from "./fixtures";
import { cutOff, headsSpill, settle, smallestText } from "./layout";
import { expectAccessible } from "./axe";

/**
 * The projector from the back row, measured on the real page: the diagram's
 * share of the width, the smallest text as rendered (SVG text times the
 * drawing's scale), and nothing cut off or scrolled, at the two common
 * projector resolutions. The projector's rem follows the screen, so at
 * 1280x720 every size is two thirds of the 1920x1080 one: the same size on
 * the wall. The minimums scale the same way.
 */
const SCREENS = [
  { width: 1920, height: 1080 },
  { width: 1280, height: 720 },
] as const;
const scaleOf = (screen: { height: number }) => screen.height / 1080;

closeContextsAfterEach();

async function expectFits(page: Page, state: string, minText: number) {
  await settle(page);
  const viewport = page.viewportSize()!;
  const scroll = await page.evaluate(() => ({ w: document.documentElement.scrollWidth, h: document.documentElement.scrollHeight }));
  expect(scroll, `${state}: the page scrolls`).toEqual({ w: viewport.width, h: viewport.height });
  expect(await cutOff(page), `${state}: cut off or spilling`).toEqual([]);
  expect(await headsSpill(page, "[data-testid=projector-diagram] svg"), `${state}: lifeline heads`).toEqual([]);
  const smallest = await smallestText(page);
  expect(smallest.px, `${state}: smallest text is "${smallest.text}" at ${smallest.px.toFixed(1)} px`).toBeGreaterThanOrEqual(
    minText - 0.05,
  );
  return smallest;
}

test("the projector fills the screen with the diagram, legible from the back, at 1920x1080 and 1280x720", async ({ browser, baseURL }) => {
  test.setTimeout(120_000);
  const session = await createSession(baseURL!, "Back row");
  const teacher = await ConsolePage.open(browser, session);
  const projector = await ProjectorPage.open(browser, session.code);
  await projector.page.emulateMedia({ reducedMotion: "reduce" });
  await jumpTo(teacher, 12);
  await projector.expectStep(12);
  const figures: string[] = [];

  for (const screen of SCREENS) {
    await projector.page.setViewportSize(screen);
    const s = scaleOf(screen);
    const smallest = await expectFits(projector.page, `diagram only, ${screen.width}x${screen.height}`, 20 * s);
    const diagram = (await projector.page.getByTestId("projector-diagram").boundingBox())!;
    expect(diagram.width / screen.width).toBeGreaterThanOrEqual(0.85);
    figures.push(
      `${screen.width}x${screen.height} diagram only: diagram ${Math.round(diagram.width)} px = ${((diagram.width / screen.width) * 100).toFixed(1)}% wide, smallest text ${smallest.px.toFixed(1)} px`,
    );
    // The way in, large, while the room is open.
    await expect(projector.page.getByTestId("projector-qr")).toBeVisible();
    const qr = (await projector.page.getByTestId("projector-qr").boundingBox())!;
    // Large enough to scan from the back row: 300 px at 1920x1080 beside the diagram alone (issue 26).
    expect(qr.width).toBeGreaterThanOrEqual(300 * s);
    await expect(projector.page.getByTestId("projector-join")).toContainText(`/join/${session.code}`);
  }

  // Each side panel, and inside "Objects & events" every object the teacher can point the projector at.
  const panels = ["objects", "topology", "compare", "hood"] as const;
  for (const panel of panels) {
    await teacher.page.getByTestId(`projector-panel-${panel}`).click();
    await expect(projector.page.getByTestId("projector-panel")).toHaveAttribute("data-panel", panel === "hood" ? "under-the-hood" : panel);
    const objects =
      panel === "objects"
        ? ["PersistentVolumeClaim", "PersistentVolume", "Pod", "StorageClass", "VolumeAttachment", "events"]
        : panel === "hood"
          ? await teacher.page.getByTestId("projector-deep-dive").evaluateAll((els) => els.map((e) => e.getAttribute("data-title")!))
          : [null];
    for (const object of objects) {
      if (object && panel === "objects") {
        await teacher.page.locator(`[data-testid=projector-object][data-object=${object}]`).click();
        await expect(projector.page.getByTestId("projector-panel")).toHaveAttribute("data-object", object);
      }
      if (object && panel === "hood") {
        await teacher.page.locator(`[data-testid=projector-deep-dive][data-title="${object}"]`).click();
        await expect(projector.page.getByTestId("deep-dive")).toHaveAttribute("data-title", object);
      }
      for (const screen of SCREENS) {
        await projector.page.setViewportSize(screen);
        const smallest = await expectFits(
          projector.page,
          `${panel}${object ? ` ${object}` : ""}, ${screen.width}x${screen.height}`,
          18 * scaleOf(screen),
        );
        if (screen.width === 1920)
          figures.push(`1920x1080 with ${panel}${object ? `/${object}` : ""}: smallest text ${smallest.px.toFixed(1)} px`);
      }
    }
  }

  // A poll in the side column (open, then revealed), and a failure scenario with its switch notice and events.
  const student = await StudentPage.join(browser, session.code, "Ada");
  await teacher.page.getByTestId("projector-panel-none").click();
  await jumpTo(teacher, 4);
  await teacher.page.getByTestId("poll-open").click();
  await expect(projector.page.getByTestId("projector-poll")).toBeVisible();
  await pollOptions(student).first().click();
  for (const stage of ["open", "revealed"] as const) {
    if (stage === "revealed") {
      await teacher.page.getByTestId("poll-close").click();
      await teacher.page.getByTestId("poll-reveal").click();
      await expect(projector.page.getByTestId("poll-tally")).toBeVisible();
    }
    for (const screen of SCREENS) {
      await projector.page.setViewportSize(screen);
      const smallest = await expectFits(projector.page, `poll ${stage}, ${screen.width}x${screen.height}`, 18 * scaleOf(screen));
      if (screen.width === 1920) figures.push(`1920x1080 with the poll ${stage}: smallest text ${smallest.px.toFixed(1)} px`);
    }
  }
  await setMode(teacher, "Immediate/zone-conflict");
  await teacher.page.locator("body").press("End");
  await projector.expectStep(8);
  await teacher.page.getByTestId("projector-panel-objects").click();
  await teacher.page.locator("[data-testid=projector-object][data-object=events]").click();
  await expect(projector.page.getByTestId("mode-switch-notice")).toBeVisible();
  for (const screen of SCREENS) {
    await projector.page.setViewportSize(screen);
    const smallest = await expectFits(projector.page, `zone conflict events, ${screen.width}x${screen.height}`, 18 * scaleOf(screen));
    if (screen.width === 1920) figures.push(`1920x1080 zone conflict with the Events: smallest text ${smallest.px.toFixed(1)} px`);
  }
  console.log(figures.join("\n"));
});

test("the teacher points the projector at the Events and a deep dive; every event message is whole", async ({ browser, baseURL }) => {
  const session = await createSession(baseURL!, "Events");
  const teacher = await ConsolePage.open(browser, session);
  const projector = await ProjectorPage.open(browser, session.code);
  await setMode(teacher, "Immediate/zone-conflict");
  await teacher.page.locator("body").press("End");
  await projector.expectStep(8);
  await teacher.page.getByTestId("projector-panel-objects").click();
  await teacher.page.locator("[data-testid=projector-object][data-object=events]").click();
  const failed = projector.page.locator("[data-testid=projector-events] li[data-reason=FailedScheduling] [data-testid=event-message]");
  await expect(failed).toHaveText(/^0\/3 nodes are available: .*Preemption is not helpful for scheduling\.$/);
  await expect(failed).toBeVisible();
  expect(await cutOff(projector.page)).toEqual([]);
  await expectAccessible(projector.page, "projector, events of a failure");

  // The deep dive the teacher opens is open on the projector (a reload keeps it: it is durable state).
  await teacher.page.getByTestId("projector-panel-hood").click();
  const dives = teacher.page.getByTestId("projector-deep-dive");
  const title = (await dives.last().getAttribute("data-title"))!;
  await dives.last().click();
  await expect(projector.page.getByTestId("deep-dive")).toHaveAttribute("data-title", title);
  await expectAccessible(projector.page, "projector, a deep dive");
  await expectAccessible(teacher.page, "console, choosing the projector's deep dive");
  await projector.page.reload();
  await expect(projector.page.getByTestId("deep-dive")).toHaveAttribute("data-title", title);
});

test("the projector says when the room is locked, shows vote progress without the distribution, and looks ended at the end", async ({
  browser,
  baseURL,
}) => {
  const session = await createSession(baseURL!, "Progress");
  const teacher = await ConsolePage.open(browser, session);
  const projector = await ProjectorPage.open(browser, session.code);
  const ada = await StudentPage.join(browser, session.code, "Ada");
  await StudentPage.join(browser, session.code, "Lin");
  await teacher.expectParticipants(2);

  await teacher.page.getByTestId("room-lock").click();
  await expect(projector.page.getByTestId("room-locked")).toBeVisible();
  await expect(projector.page.getByTestId("projector-qr")).toHaveCount(0);
  await expectAccessible(projector.page, "projector, room locked");
  await teacher.page.getByTestId("room-lock").click();
  await expect(projector.page.getByTestId("projector-qr")).toBeVisible();
  await expect(projector.page.getByTestId("room-locked")).toHaveCount(0);

  await jumpTo(teacher, 4);
  await teacher.page.getByTestId("poll-open").click();
  for (const page of [projector.page, teacher.page]) {
    await expect(page.getByTestId("vote-progress")).toHaveAttribute("data-voted", "0");
    await expect(page.getByTestId("vote-progress")).toHaveAttribute("data-total", "2");
    await expect(page.getByTestId("vote-progress")).toHaveText("0 of 2 voted");
  }
  await pollOptions(ada).first().click();
  for (const page of [projector.page, teacher.page]) await expect(page.getByTestId("vote-progress")).toHaveAttribute("data-voted", "1");
  await expect(projector.page.getByTestId("vote-progress")).toHaveText("1 of 2 voted");
  // How many, never for what: no counts on the projector before the teacher shows them.
  await expect(projector.page.getByTestId("poll-tally")).toHaveCount(0);
  await expect(projector.page.getByTestId("projector-poll")).not.toContainText("%");
  await expectAccessible(projector.page, "projector, poll open with vote progress");

  // The storage arrows are orange, the current step yellow: only one thing looks current.
  await jumpTo(teacher, 4);
  await teacher.page.getByTestId("end-session").click();
  await teacher.page.getByTestId("end-session-confirm").click();
  await expect(projector.page.getByTestId("session-ended")).toBeVisible();
  await expect(projector.page.getByTestId("projector-poll")).toHaveCount(0);
  await expectAccessible(projector.page, "projector, ended");
});

test("storage arrows do not look like the current step", async ({ browser, baseURL }) => {
  const session = await createSession(baseURL!, "Colours");
  const teacher = await ConsolePage.open(browser, session);
  const projector = await ProjectorPage.open(browser, session.code);
  await jumpTo(teacher, 8);
  await projector.expectStep(8);
  const stroke = async (label: number) =>
    projector.page.locator(`[data-testid=projector-diagram] g[data-step-label="${label}"] path`).first().getAttribute("stroke");
  const hue = (hex: string) => {
    const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255);
    const max = Math.max(r, g, b);
    const min = Math.min(r, g, b);
    const d = max - min;
    const h = max === r ? ((g - b) / d) % 6 : max === g ? (b - r) / d + 2 : (r - g) / d + 4;
    return (h * 60 + 360) % 360;
  };
  const storage = (await stroke(7))!;
  const current = (await stroke(8))!;
  expect(Math.abs(hue(storage) - hue(current)), `storage ${storage} vs current ${current}`).toBeGreaterThanOrEqual(20);
});
