import { expect, test, type Page } from "@playwright/test";
import WebSocket from "ws";
import {
  ConsolePage,
  StudentPage,
  createSession,
  jumpTo,
  openInspector,
  pollControls,
  pollOptions,
  setMode,
  closeContextsAfterEach,
} from "./fixtures";
import { settle, sidewaysOverflow } from "./layout";
import { expectAccessible } from "./axe";

/** Phones: nothing cut off, nothing wider than the screen, and no poll missed. */

closeContextsAfterEach();

async function expectNoSideways(page: Page, state: string) {
  await settle(page);
  const over = await sidewaysOverflow(page);
  const culprits =
    over > 0
      ? await page.evaluate(() =>
          [...document.querySelectorAll("body *")]
            .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1 && (el as HTMLElement).checkVisibility?.())
            .slice(0, 5)
            .map(
              (el) =>
                `${el.tagName.toLowerCase()}.${(el.getAttribute("class") ?? "").slice(0, 60)} right=${Math.round(el.getBoundingClientRect().right)}`,
            ),
        )
      : [];
  expect(over, `${state} (${page.url()}) is ${over} px wider than the screen: ${culprits.join(" | ")}`).toBeLessThanOrEqual(0);
}

async function phone(browser: import("@playwright/test").Browser) {
  const context = await browser.newContext({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });
  return context.newPage();
}

test("no page, in any state, is wider than a 360 px screen", async ({ browser, baseURL }) => {
  test.setTimeout(120_000);
  const visitor = await phone(browser);
  for (const path of ["/", "/join", "/sessions", "/join/ZZZZZZ?name=Sam", "/lab/WaitForFirstConsumer"]) {
    await visitor.goto(path);
    await visitor.waitForLoadState("networkidle");
    await expectNoSideways(visitor, path);
  }

  const session = await createSession(baseURL!, "A rather long session title that a teacher might well type, to see how it wraps");
  await visitor.goto(`/join/${session.code}`);
  await expect(visitor.getByTestId("nickname")).toBeVisible();
  await expectNoSideways(visitor, "nickname form");

  const teacher = await ConsolePage.open(browser, session);
  const student = await StudentPage.join(browser, session.code, "Maximiliana-Theodora Wolkenstein");
  await expectNoSideways(student.page, "student, no poll");
  await setMode(teacher, "Immediate/zone-conflict");
  await teacher.page.locator("body").press("End");
  await student.expectStep(8);
  await openInspector(student);
  await student.page.getByTestId("panel-objects").click();
  await expectNoSideways(student.page, "student, inspector with FailedScheduling");
  await student.page.getByText("Show the full diagram").click();
  await expectNoSideways(student.page, "student, full diagram open");
  for (const tab of ["topology", "compare", "hood"]) {
    await student.page.getByTestId(`panel-${tab}`).click();
    await expectNoSideways(student.page, `student, ${tab}`);
  }
  await setMode(teacher, "WaitForFirstConsumer/standard");
  await jumpTo(teacher, 4);
  await teacher.page.getByTestId("poll-open").click();
  await expect(pollOptions(student)).toHaveCount(4);
  await expectNoSideways(student.page, "student, poll open");
  await teacher.page.getByTestId("poll-show-live").click();
  await pollOptions(student).first().click();
  await expectNoSideways(student.page, "student, live results");
  await teacher.page.getByTestId("poll-close").click();
  await teacher.page.getByTestId("poll-reveal").click();
  await expect(student.page.getByTestId("poll-feedback")).toBeVisible();
  await expectNoSideways(student.page, "student, revealed");

  // The console and the projector on a phone-sized window too.
  await teacher.page.setViewportSize({ width: 360, height: 740 });
  await expectNoSideways(teacher.page, "console at 360");
  const projector = await phone(browser);
  await projector.goto(`/present/${session.code}`);
  await expect(projector.getByTestId("room-code")).toBeVisible();
  await expectNoSideways(projector, "projector at 360");

  await teacher.page.getByTestId("end-session").click();
  await teacher.page.getByTestId("end-session-confirm").click();
  await expect(student.page.getByTestId("connection-status")).toHaveText("session ended");
  await expectNoSideways(student.page, "student, ended");
  await student.page.reload();
  await expect(student.page.getByTestId("session-error")).toBeVisible();
  await expectNoSideways(student.page, "student, reloaded after the end");

  // The replay, on the teacher's browser, at phone width.
  await teacher.page.goto(`/replay/${session.id}`);
  await expect(teacher.page.getByTestId("replay-timeline")).toBeVisible();
  await expectNoSideways(teacher.page, "replay at 360");
  await teacher.page.getByTestId("replay-next-poll").click();
  await expectNoSideways(teacher.page, "replay at 360, at the poll");
  await teacher.page.goto("/sessions");
  await expectNoSideways(teacher.page, "/sessions with a session");
});

test("on a phone: events as cards with the whole message, and the full diagram opens on the current step", async ({ browser, baseURL }) => {
  const session = await createSession(baseURL!, "Cards");
  const teacher = await ConsolePage.open(browser, session);
  const student = await StudentPage.join(browser, session.code, "Pat");
  await student.page.setViewportSize({ width: 390, height: 844 });
  await setMode(teacher, "Immediate/zone-conflict");
  await teacher.page.locator("body").press("End");
  await student.expectStep(8);
  await openInspector(student);
  await expect(student.page.locator("[data-testid=events-table]")).toBeHidden();
  const card = student.page.locator("[data-testid=event-cards] li[data-reason=FailedScheduling]");
  await expect(card).toBeVisible();
  const message = card.getByTestId("event-message");
  await expect(message).toHaveText(/^0\/3 nodes are available: .*Preemption is not helpful for scheduling\.$/);
  await expectAccessible(student.page, "student, event cards");
  // Whole: the message's box is as tall as its text, nothing clipped.
  expect(await message.evaluate((el) => el.scrollHeight <= el.clientHeight + 1 && el.scrollWidth <= el.clientWidth + 1)).toBe(true);

  await setMode(teacher, "WaitForFirstConsumer/standard");
  await jumpTo(teacher, 12);
  await student.expectStep(12);
  await student.page.getByText("Show the full diagram").click();
  const region = student.page.getByRole("region", { name: /Full sequence diagram/ });
  const current = region.locator("[data-current]");
  await expect(current).toHaveCount(1);
  await settle(student.page);
  const [box, arrow] = await Promise.all([region.boundingBox(), current.boundingBox()]);
  const middle = arrow!.x + arrow!.width / 2;
  expect(middle, "the current arrow is in view").toBeGreaterThan(box!.x);
  expect(middle).toBeLessThan(box!.x + box!.width);
});

test("a poll opening while the student has scrolled away shows a banner that brings it into view", async ({ browser, baseURL }) => {
  const session = await createSession(baseURL!, "Banner");
  const teacher = await ConsolePage.open(browser, session);
  const student = await StudentPage.join(browser, session.code, "Lou");
  // Record vibrations (a headless browser has no motor to ask).
  await student.page.evaluate(() => {
    const w = window as unknown as { vibrations: unknown[] };
    w.vibrations = [];
    (navigator as unknown as { vibrate: (p: unknown) => boolean }).vibrate = (p) => (w.vibrations.push(p), true);
  });
  await openInspector(student);
  await student.page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
  await teacher.page.getByTestId("poll-open").click();
  const banner = student.page.getByTestId("poll-banner");
  await expect(banner).toBeVisible();
  await expectAccessible(student.page, "student, poll banner");
  expect(await student.page.evaluate(() => (window as unknown as { vibrations: unknown[] }).vibrations.length)).toBe(1);
  await banner.click();
  await expect(student.page.getByTestId("poll-card")).toBeInViewport();
  await expect(banner).toHaveCount(0);
});

test("a closed poll's options cannot be tapped; live results are one list; a stale error clears on reconnect", async ({
  browser,
  baseURL,
}) => {
  const session = await createSession(baseURL!, "Taps");
  const teacher = await ConsolePage.open(browser, session);
  const student = await StudentPage.join(browser, session.code, "Ty");
  await teacher.page.getByTestId("poll-open").click();
  await expect(pollOptions(student)).toHaveCount(4);

  // Offline: the vote fails with "Not connected"; back online, that error goes.
  await student.context.setOffline(true);
  await expect(student.page.getByTestId("connection-status")).toHaveAttribute("data-state", "reconnecting", { timeout: 20_000 });
  await pollOptions(student).first().click();
  await expect(student.page.getByTestId("vote-receipt")).toHaveAttribute("data-kind", "error");
  await student.context.setOffline(false);
  await student.expectConnected();
  await expect(student.page.getByTestId("vote-receipt")).toHaveCount(0);

  // Live results: the bars are inside the options, not a second list.
  await teacher.page.getByTestId("poll-show-live").click();
  await pollOptions(student).first().click();
  const results = student.page.getByTestId("poll-results");
  await expect(results).toHaveAttribute("data-total", "1");
  await expect(results.getByTestId("poll-option")).toHaveCount(4);
  await expect(student.page.locator("[data-testid=poll-card] ul")).toHaveCount(1);
  await expectAccessible(student.page, "student, live results in the options");

  await pollControls(teacher).getByTestId("poll-close").click();
  await expect(student.page.getByTestId("poll-card")).toHaveAttribute("data-poll-status", "closed");
  for (const option of await pollOptions(student).all()) await expect(option).toBeDisabled();
  await expect(student.page.getByText("This poll is closed")).toHaveCount(1);
  await expectAccessible(student.page, "student, poll closed");
});

test("after the end, a reload says the session has ended once, with no saved-sessions link", async ({ browser, baseURL }) => {
  const session = await createSession(baseURL!, "Gone");
  const teacher = await ConsolePage.open(browser, session);
  const student = await StudentPage.join(browser, session.code, "Flo");
  await teacher.page.getByTestId("end-session").click();
  await teacher.page.getByTestId("end-session-confirm").click();
  await expect(student.page.getByTestId("connection-status")).toHaveText("session ended");
  await student.page.reload();
  await expect(student.page.getByTestId("session-error")).toHaveAttribute("data-code", "SESSION_ENDED");
  await expect(student.page.getByText(/session has ended/i)).toHaveCount(1);
  await expect(student.page.getByRole("link", { name: /saved sessions/i })).toHaveCount(0);
  await expectAccessible(student.page, "student, reloaded after the end");
});

/** One WebSocket that breaks the protocol before it joins (a binary frame): the server closes it for abuse. */
function abusiveConnection(baseURL: string): Promise<void> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${baseURL.replace(/^http/, "ws")}/socket.io/?EIO=4&transport=websocket`);
    const done = () => resolve();
    ws.on("open", () => ws.send(Buffer.from([1, 2, 3])));
    ws.on("close", done);
    ws.on("error", done);
  });
}

// @alone: it quarantines 127.0.0.1, so it runs after every other test (playwright.config.ts).
test(
  "a phone behind a network the server has quarantined is told why, and gets in once it calms down",
  { tag: "@alone" },
  async ({ browser, baseURL }) => {
    test.setTimeout(60_000);
    const session = await createSession(baseURL!, "Quarantine");
    const teacher = await ConsolePage.open(browser, session);
    // A classmate's script on the same network keeps breaking the protocol: the address is quarantined.
    let abusing = true;
    const abuse = (async () => {
      while (abusing) await abusiveConnection(baseURL!);
    })();
    try {
      const context = await browser.newContext({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });
      const page = await context.newPage();
      await page.goto(`/join/${session.code}?name=Ada`);
      const status = page.getByTestId("connection-status");
      // It says what the server said, not that the server cannot be reached.
      await expect(status).toContainText("Too many broken connections came from this network", { timeout: 20_000 });
      await expect(status).not.toContainText("Can't reach the server");
      abusing = false;
      await abuse;
      // Once the script stops, the phone gets in by itself, and the teacher sees Ada.
      await expect(status).toHaveAttribute("data-state", "connected", { timeout: 20_000 });
      await expect(teacher.page.getByText("Ada").first()).toBeVisible();
    } finally {
      abusing = false;
      await abuse;
    }
  },
);
