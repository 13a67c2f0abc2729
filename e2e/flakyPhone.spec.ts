import { expect, test } from "@playwright/test";
import { ConsolePage, StudentPage, closeContextsAfterEach, createSession } from "./fixtures";

/**
 * The phone's live screen (socket client, lesson, diagram, poll) is a chunk
 * of its own, fetched after the join form is up. A classroom's Wi-Fi drops
 * requests as thirty phones arrive: the page must say so and keep trying,
 * never crash or wait for a reload.
 */

closeContextsAfterEach();

test("a phone whose network drops the live screen's code says so, keeps trying, offers a reload that keeps its name, and joins", async ({
  browser,
  baseURL,
}) => {
  const session = await createSession(baseURL!, "Flaky Wi-Fi");
  const teacher = await ConsolePage.open(browser, session);

  const context = await browser.newContext({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  // The network refuses the chunk that holds the live screen (the one naming the poll banner) until told otherwise.
  let networkBack = false;
  let refused = 0;
  await page.route("**/_next/static/chunks/**", async (route) => {
    const response = await route.fetch();
    const body = await response.text();
    if (!networkBack && body.includes("poll-banner")) {
      refused += 1;
      await route.abort("internetdisconnected");
      return;
    }
    await route.fulfill({ response, body });
  });
  const crashes: string[] = [];
  page.on("pageerror", (err) => crashes.push(err.message));

  await page.goto(`/join/${session.code}`);
  await page.getByTestId("nickname").fill("Flaky");
  await page.getByRole("button", { name: "Join the class" }).click();
  await expect(page.getByRole("status")).toHaveText("Can't reach the server. Retrying…");
  // Not one try and give up: the page fetches it again while the network is down, and after a few offers a reload
  // that keeps the name (a server rebuilt since the form loaded no longer has that chunk at all).
  await expect.poll(() => refused, { timeout: 15_000 }).toBeGreaterThanOrEqual(3);
  const reload = page.getByRole("link", { name: "Reload" });
  await expect(reload).toHaveAttribute("href", `/join/${session.code}?name=Flaky`);
  await teacher.expectParticipants(0);

  networkBack = true;
  await reload.click();
  const student = new StudentPage(page, context);
  await student.expectConnected();
  await teacher.expectParticipants(1);
  await expect(teacher.page.getByTestId("participant-list").locator("li")).toHaveText([/Flaky/]);
  await teacher.next();
  await student.expectStep(2);
  expect(crashes).toEqual([]);
});
