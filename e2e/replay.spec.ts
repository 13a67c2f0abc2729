import { expect, test } from "@playwright/test";
import {
  ConsolePage,
  StudentPage,
  createSession,
  pollControls,
  pollOption,
  pollOptions,
  setMode,
  closeContextsAfterEach,
} from "./fixtures";

closeContextsAfterEach();

/** Counts per option as the tally shows them, keyed by option text. */
async function distribution(tally: import("@playwright/test").Locator): Promise<Record<string, string>> {
  const rows = tally.locator("li[data-option-id]");
  const out: Record<string, string> = {};
  for (let i = 0; i < (await rows.count()); i++) {
    const row = rows.nth(i);
    const text = (await row.locator("span").first().innerText())
      .replace(/^✓\s*/, "")
      .replace(/\s*your vote$/, "")
      .trim();
    out[text] = (await row.getAttribute("data-count"))!;
  }
  return out;
}

test("a finished class is saved, listed and replays exactly as it ran", async ({ browser, baseURL }) => {
  const session = await createSession(baseURL!, "Replay class");
  const teacher = await ConsolePage.open(browser, session);
  const students = [
    await StudentPage.join(browser, session.code, "Ana"),
    await StudentPage.join(browser, session.code, "Bo"),
    await StudentPage.join(browser, session.code, "Cy"),
  ];
  await teacher.expectParticipants(3);

  // Steps, a mode switch, a poll with votes, a reveal.
  await teacher.next();
  await teacher.next();
  await setMode(teacher, "Immediate/standard");
  await teacher.expectStep(7);
  await teacher.page.getByTestId("poll-open").click();
  for (const s of students) await expect(pollOptions(s)).toHaveCount(4);
  const ids = await pollOptions(students[0]).evaluateAll((els) => els.map((e) => e.getAttribute("data-option-id")!));
  await pollOption(students[0], ids[0]).click();
  await pollOption(students[1], ids[0]).click();
  await pollOption(students[2], ids[1]).click();
  const liveTally = pollControls(teacher).getByTestId("poll-tally");
  await expect(liveTally).toHaveAttribute("data-total", "3");
  await teacher.page.getByTestId("poll-close").click();
  await teacher.page.getByTestId("poll-reveal").click();
  await expect(teacher.page.locator("[data-poll-status=revealed]")).toBeVisible();
  const live = await distribution(liveTally);
  expect(Object.values(live).sort()).toEqual(["0", "0", "1", "2"]);
  await teacher.next();

  // End the session (the console confirms first).
  await teacher.page.getByTestId("end-session").click();
  await teacher.page.getByTestId("end-session-confirm").click();
  await expect(teacher.page.getByTestId("replay-link")).toBeVisible();
  for (const s of students) await expect(s.page.getByText("The teacher has ended this session")).toBeVisible();

  // The teacher's browser lists it.
  await teacher.page.goto("/sessions");
  const row = teacher.page.locator(`[data-testid=session-row][data-code="${session.code}"]`);
  await expect(row).toContainText("Replay class");
  await expect(row).toContainText("ended");
  // It says what is kept and for how long (the e2e server sets no RETENTION_DAYS).
  await expect(teacher.page.getByTestId("retention-policy")).toContainText(
    "Ended sessions are kept until the server's operator deletes them.",
  );
  await expect(teacher.page.getByTestId("retention-policy")).toContainText("for 6 hours is ended automatically");
  await row.getByTestId("replay-link").click();
  await expect(teacher.page).toHaveURL(new RegExp(`/replay/${session.id}$`));

  // Replay at 8x: the class's steps and mode switch play back.
  const page = teacher.page;
  await expect(page.getByTestId("step-indicator")).toHaveAttribute("data-step", "1");
  await page.getByTestId("replay-speed").selectOption("8");
  await page.getByTestId("replay-play").click();
  await expect(page.getByTestId("binding-mode")).toHaveAttribute("data-mode", "Immediate", { timeout: 20_000 });

  // "Next poll" lands where its result shows (the reveal), beside the step it was asked at; the distribution equals the live one.
  // Pause if it is still playing (at 8x a short class may already have finished).
  const play = page.getByTestId("replay-play");
  if ((await play.textContent())?.includes("Pause")) await play.click();
  await expect(play).toContainText("Play");
  await page.getByTestId("replay-timeline").focus();
  await page.keyboard.press("Home");
  await page.locator("body").press("]");
  await expect(page.locator("[data-poll-status=revealed]")).toBeVisible();
  await expect(page.getByTestId("poll-tally")).toHaveAttribute("data-total", "3");
  await expect(page.getByTestId("replay-asked-at")).toHaveAttribute("data-step", "7");
  await page.getByTestId("replay-timeline").focus();
  await page.keyboard.press("Home");
  await page.getByTestId("replay-next-poll").click();
  await expect(page.locator("[data-poll-status=revealed]")).toBeVisible();
  await expect(page.getByTestId("poll-tally")).toHaveAttribute("data-total", "3");
  expect(await distribution(page.getByTestId("poll-tally"))).toEqual(live);
  // The teacher's own replay may show who voted what.
  await page.getByText("Who voted what").click();
  await expect(page.getByText(/^Ana:/)).toBeVisible();
  // At the end the class had moved on from the revealed poll: as live, it has left the screen.
  await page.locator("body").press("End");
  await expect(page.locator("[data-poll-status]")).toHaveCount(0);

  // The session id alone (every student had it) opens nothing.
  const stranger = await browser.newContext();
  const shared = await stranger.newPage();
  await shared.goto(`/replay/${session.id}`);
  await expect(shared.getByTestId("session-error")).toContainText("link the teacher shared");

  // The teacher shares the replay from the saved list; that link (another browser, no host key) shows the
  // results the teacher revealed, but never nicknames.
  await page.goto("/sessions");
  await row.getByTestId("share-toggle").click();
  const link = await row.getByTestId("share-link").inputValue();
  expect(link).toMatch(new RegExp(`/replay/${session.id}#share=[A-Za-z0-9_-]{43}$`));
  await shared.goto(link);
  await expect(shared.getByText("shared link: class results only")).toBeVisible();
  // At the reveal (at the end the class had moved on, and the poll had left the screen).
  await shared.getByTestId("replay-next-poll").click();
  await expect(shared.getByTestId("poll-tally")).toHaveAttribute("data-total", "3");
  expect(await distribution(shared.getByTestId("poll-tally"))).toEqual(live);
  await expect(shared.getByText("Who voted what")).toHaveCount(0);
  await expect(shared.locator("body")).not.toContainText("Ana");
});
