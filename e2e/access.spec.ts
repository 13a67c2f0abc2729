import { expect, test, type Browser } from "@playwright/test";
import { PROTOCOL_VERSION } from "../lib/protocol/wire";
import { expectAccessible } from "./axe";
import {
  ConsolePage,
  ProjectorPage,
  StudentPage,
  createSession,
  jumpTo,
  pollControls,
  pollOption,
  pollOptions,
  closeContextsAfterEach,
} from "./fixtures";

closeContextsAfterEach();

async function freshPage(browser: Browser, viewport = { width: 1280, height: 900 }) {
  const context = await browser.newContext({ viewport });
  return context.newPage();
}

/** What a screen reader reads for speed-based scoring: there must be none. */
const SCORING =
  /\b(points?|pts|scor(e|es|ed|ing)|leaderboard|ranking|streak|bonus|faster|fastest|answered in|response time|your time|time taken)\b|\b\d+(\.\d+)?\s*ms\b/i;

test("axe finds no serious or critical violation on any page or state", async ({ browser, baseURL }) => {
  test.setTimeout(90_000); // sixteen axe runs, some on large pages
  // Pages without a session.
  const visitor = await freshPage(browser);
  await visitor.goto("/");
  await expect(visitor.getByTestId("start-session")).toBeVisible();
  await expectAccessible(visitor, "landing");
  await visitor.goto("/join");
  await expect(visitor.getByTestId("join-code")).toBeVisible();
  await expectAccessible(visitor, "/join");
  await visitor.goto("/sessions");
  await expect(visitor.getByTestId("sessions-empty")).toBeVisible();
  await expectAccessible(visitor, "/sessions, empty");
  await visitor.goto("/join/ZZZZZZ?name=Sam");
  await expect(visitor.getByTestId("session-error")).toHaveAttribute("data-code", "NO_SUCH_SESSION");
  await expect(visitor.getByRole("heading", { name: "No such session" })).toBeVisible();
  await expectAccessible(visitor, "no such session");

  // A live room, idle.
  const session = await createSession(baseURL!, "Access");
  const teacher = await ConsolePage.open(browser, session);
  const projector = await ProjectorPage.open(browser, session.code);
  const student = await StudentPage.join(browser, session.code, "X");
  await teacher.expectParticipants(1);
  // Still arrows: axe checks the settled page, and three endless animations would only slow it down
  // (the animation itself is checked in its own test below).
  for (const view of [teacher, projector, student]) await view.page.emulateMedia({ reducedMotion: "reduce" });
  await expectAccessible(teacher.page, "console, idle");
  await expectAccessible(projector.page, "projector, idle");
  await expectAccessible(student.page, "student, no poll");

  // The projector with a side panel.
  await teacher.page.getByTestId("projector-panel-objects").click();
  await expect(projector.page.getByTestId("projector-panel")).toHaveAttribute("data-panel", "objects");
  await expectAccessible(projector.page, "projector, objects panel");

  // A poll, open.
  await jumpTo(teacher, 4);
  await student.expectStep(4);
  await teacher.page.getByTestId("poll-open").click();
  const card = student.page.getByTestId("poll-card");
  await expect(card).toHaveAttribute("data-poll-status", "open");
  await expect(pollOptions(student)).toHaveCount(4);
  await expect(projector.page.getByTestId("projector-poll")).toBeVisible();
  await expectAccessible(teacher.page, "console, poll open");
  await expectAccessible(student.page, "student, poll open");

  // The poll card is a region named by its heading, so a screen reader can jump to it.
  const question = (await student.page.locator("#poll-question").textContent())!.trim();
  const region = student.page.getByRole("region", { name: question });
  await expect(region).toHaveAttribute("data-testid", "poll-card");
  await expect(region.getByRole("heading", { name: question })).toBeVisible();
  await expect(region.getByRole("button")).toHaveCount(4);

  // Vote (the receipt is announced), close, reveal.
  const first = (await pollOptions(student).first().getAttribute("data-option-id"))!;
  await pollOption(student, first).click();
  await expect(student.page.getByTestId("vote-receipt")).toHaveAttribute("data-kind", "ok");
  await expect(student.page.getByTestId("vote-receipt")).toHaveAttribute("role", "status");
  await teacher.page.getByTestId("poll-close").click();
  await teacher.page.getByTestId("poll-reveal").click();
  const feedback = student.page.getByTestId("poll-feedback");
  await expect(feedback).toBeVisible();
  await expect(projector.page.getByTestId("poll-tally")).toHaveAttribute("data-total", "1");
  await expectAccessible(teacher.page, "console, after reveal");
  await expectAccessible(projector.page, "projector, revealed poll");
  await expectAccessible(student.page, "student, after reveal");

  // Feedback sits in a live region; the tally has its numbers in text, for every view.
  await expect(student.page.locator("[aria-live]").filter({ has: feedback })).toHaveCount(1);
  for (const tally of [
    student.page.getByTestId("poll-results"),
    projector.page.getByTestId("poll-tally"),
    pollControls(teacher).getByTestId("poll-tally"),
  ]) {
    await expect(tally).toHaveAttribute("aria-label", /\d+ votes?/);
    const rows = tally.locator("li[data-option-id]");
    await expect(rows).toHaveCount(4);
    for (const row of await rows.all()) {
      const count = (await row.getAttribute("data-count"))!;
      // The count and the share as text, readable (not hidden from assistive technology).
      await expect(row.getByText(new RegExp(`^${count} · \\d+%$`))).toBeVisible();
    }
    await expect(tally.locator("li").filter({ hasText: "(correct answer)" })).toHaveCount(1);
  }

  // No speed-based scoring: the student's feedback is right or wrong and why, never points or time.
  const feedbackText = (await feedback.innerText()).trim();
  // The verdict is exactly one of two sentences: nothing about speed can hide in it.
  await expect(feedback.locator("p").first()).toHaveText(/^(You were right!|Not quite\.)$/);
  expect(feedbackText, "no points, score or time in the feedback").not.toMatch(SCORING);
  expect((await card.innerText()).replace(question, ""), "no points, score or time on the revealed card").not.toMatch(SCORING);
  for (const page of [projector.page, student.page]) {
    await expect(page.locator("body")).not.toContainText(/\b(points?|score|leaderboard)\b/i);
  }

  // The student's lesson panels, opened.
  await student.page.getByText("Inspect objects, topology and more").click();
  await expect(student.page.getByTestId("lesson-panels")).toHaveAttribute("open", "");
  await expect(student.page.getByTestId("object-inspector")).toBeVisible();
  await expectAccessible(student.page, "student, Inspect objects… opened");

  // End the session (window.confirm), then the saved list and the replay.
  await teacher.page.getByTestId("end-session").click();
  await teacher.page.getByTestId("end-session-confirm").click();
  await expect(teacher.page.getByTestId("replay-link")).toBeVisible();
  const list = await teacher.context.newPage();
  await list.goto("/sessions");
  const row = list.locator(`[data-testid=session-row][data-code="${session.code}"]`);
  await expect(row).toContainText("ended");
  await expectAccessible(list, "/sessions, one ended session");
  await row.getByTestId("replay-link").click();
  await expect(list).toHaveURL(new RegExp(`/replay/${session.id}$`));
  await expect(list.getByTestId("replay-timeline")).toBeVisible();
  await expectAccessible(list, "replay");
});

test("the keyboard alone runs the console, with a visible focus ring", async ({ browser, baseURL }) => {
  const session = await createSession(baseURL!, "Keyboard");
  const teacher = await ConsolePage.open(browser, session);
  const student = await StudentPage.join(browser, session.code, "Kay");
  await teacher.expectParticipants(1);
  const page = teacher.page;

  // The student's step indicator is a polite live region whose text follows the step.
  await expect(student.step()).toHaveAttribute("aria-live", "polite");
  const before = (await student.step().textContent())!.trim();

  // Keys on the page itself (nothing focused).
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  const keys: [string, number][] = [
    ["ArrowRight", 2],
    [" ", 3],
    ["ArrowLeft", 2],
    ["End", 12],
    ["Home", 1],
    ["ArrowRight", 2],
  ];
  for (const [key, step] of keys) {
    await page.keyboard.press(key === " " ? "Space" : key);
    await teacher.expectStep(step);
    await student.expectStep(step);
  }
  const after = (await student.step().textContent())!.trim();
  expect(after).not.toBe(before);
  expect(after).toContain("Step 2 of 12");

  // Tab through the console: every control it lands on shows its focus, and it reaches the key ones.
  const wanted = new Set(["next-step", "poll-open", "mode-option"]);
  const seen = new Set<string>();
  const noRing: string[] = [];
  for (let i = 0; i < 120 && seen.size < wanted.size; i++) {
    await page.keyboard.press("Tab");
    const f = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      if (!el || el === document.body) return null;
      const style = getComputedStyle(el);
      return {
        id: el.dataset.testid ?? "",
        name: `${el.tagName.toLowerCase()}${el.dataset.testid ? `[${el.dataset.testid}]` : ""} "${(el.textContent ?? "").trim().slice(0, 30)}"`,
        visible: el.matches(":focus-visible"),
        outline: style.outlineStyle,
        width: parseFloat(style.outlineWidth),
      };
    });
    if (!f) continue;
    if (!f.visible || f.outline === "none" || !(f.width > 0))
      noRing.push(`${f.name}: focus-visible=${f.visible} outline=${f.outline} ${f.width}px`);
    if (wanted.has(f.id)) seen.add(f.id);
  }
  expect([...seen].sort(), "Tab reaches next, poll and mode").toEqual([...wanted].sort());
  expect(noRing, "every focused control shows a focus outline").toEqual([]);

  // On to "What happens next?" (a couple of Tabs after the step controls), and open the poll with Enter.
  for (let i = 0; i < 20; i++) {
    if ((await page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.testid)) === "poll-open") break;
    await page.keyboard.press("Tab");
  }
  await expect(page.getByTestId("poll-open")).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(student.page.getByTestId("poll-card")).toHaveAttribute("data-poll-status", "open");
  await expect(pollControls(teacher).getByTestId("poll-close")).toBeVisible();
  await teacher.expectStep(2);
});

test("a screen reader hears the poll open, close and reveal", async ({ browser, baseURL }) => {
  const session = await createSession(baseURL!, "Announce");
  const teacher = await ConsolePage.open(browser, session);
  const student = await StudentPage.join(browser, session.code, "Ray");
  const announcer = student.page.getByTestId("poll-announcer");
  await expect(announcer).toHaveAttribute("aria-live", "polite");
  await expect(announcer).toHaveText("");
  await teacher.page.getByTestId("poll-open").click();
  await expect(announcer).toContainText("New poll: What happens next, after CREATE PVC?");
  await pollOptions(student).first().click();
  await teacher.page.getByTestId("poll-close").click();
  await expect(announcer).toContainText("The poll is closed");
  await teacher.page.getByTestId("poll-reveal").click();
  await expect(announcer).toContainText(/Answer revealed: CREATE POD: .*(You were right!|Not quite\.)/);
  // The card was not rebuilt for the reveal: the same element now shows the feedback.
  await expect(student.page.getByTestId("poll-card")).toHaveCount(1);
  await teacher.context.close();
  await student.context.close();
});

test("the current arrow stands still when the reader asks for reduced motion", async ({ browser, baseURL }) => {
  const session = await createSession(baseURL!, "Motion");
  const student = await StudentPage.join(browser, session.code, "Mo");
  // A phone shows the steps as a list (the current one slides in) and the drawing on request (its arrow flows).
  await student.page.getByText("Show the full diagram").click();
  const moving = [student.page.locator(".arrow-current").first(), student.page.locator("[data-testid=step-trail] .step-enter")];
  for (const el of moving) await expect(el).toHaveCount(1);
  const animations = () => Promise.all(moving.map((el) => el.evaluate((e) => getComputedStyle(e).animationName)));

  await student.page.emulateMedia({ reducedMotion: "no-preference" });
  for (const name of await animations()) expect(name).not.toBe("none");
  await student.page.emulateMedia({ reducedMotion: "reduce" });
  for (const name of await animations()) expect(name).toBe("none");
  await student.page.emulateMedia({ reducedMotion: "no-preference" });
  for (const name of await animations()) expect(name).not.toBe("none");
});

test("an out-of-date student page is refused by name and offers a reload", async ({ browser, baseURL }) => {
  const session = await createSession(baseURL!, "Old tab");
  const context = await browser.newContext({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  const connects: string[] = [];
  // The client states the version before this one: rewrite the CONNECT packet's auth on its way out.
  await page.routeWebSocket(/socket\.io/, (ws) => {
    const server = ws.connectToServer();
    ws.onMessage((m) => {
      const out = typeof m === "string" ? m.replace(`"v":${PROTOCOL_VERSION}`, `"v":${PROTOCOL_VERSION - 1}`) : m;
      if (typeof out === "string" && out.startsWith("40")) connects.push(out);
      server.send(out);
    });
    server.onMessage((m) => ws.send(m));
  });
  await page.goto(`/join/${session.code}?name=Old`);

  const error = page.getByTestId("session-error");
  await expect(error).toHaveAttribute("data-code", "CLIENT_TOO_OLD");
  expect(connects.length, "the CONNECT packet went through the route").toBeGreaterThan(0);
  expect(connects[0]).toContain(`"v":${PROTOCOL_VERSION - 1}`);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("This page is out of date");
  await expect(error.getByRole("alert")).toContainText("Reload it to continue");
  await expect(page.getByRole("button", { name: "Reload" })).toBeVisible();
  await expect(page.getByTestId("poll-card")).toHaveCount(0);
  await expect(page.getByTestId("step-indicator")).toHaveCount(0);
  await expectAccessible(page, "out of date");
});

test("a made-up server action is answered 404 by the server, before Next.js sees it", async ({ request }) => {
  // The app has none; Next.js printed an error line for every such request, from anyone.
  for (const where of ["/", "/join/ABCDEF"]) {
    const res = await request.post(where, {
      headers: { "Next-Action": "0123456789abcdef0123456789abcdef01234567", "Content-Type": "text/plain;charset=UTF-8" },
      data: "[]",
    });
    expect(res.status()).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("NOT_FOUND");
  }
});
