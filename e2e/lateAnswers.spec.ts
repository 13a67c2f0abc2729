import { expect, test, type WebSocketRoute } from "@playwright/test";
import { ConsolePage, StudentPage, createSession, pollControls, pollOptions, closeContextsAfterEach } from "./fixtures";

closeContextsAfterEach();

/**
 * A vote whose answer never comes back in time (a server that froze, an
 * owner node that changed hands) must not stay on the student's screen as
 * failed when it counted, nor as counted when it did not. The browser's own
 * 8 s timeout fires here because the test drops one socket.io frame, as a
 * frozen server would hold it; the receipt then follows the server's account
 * of the student's vote.
 */
test("a vote answered too late still shows as counted; one that never arrived says so and can be sent again", async ({
  browser,
  baseURL,
}) => {
  test.setTimeout(60_000);
  const session = await createSession(baseURL!, "Late answers");
  const teacher = await ConsolePage.open(browser, session);

  const context = await browser.newContext({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  // Between the phone and the server: drop the server's answer to the first vote, then the second vote itself.
  let votesSent = 0;
  await page.routeWebSocket(/\/socket\.io\//, (ws: WebSocketRoute) => {
    const server = ws.connectToServer();
    ws.onMessage((frame) => {
      // socket.io: 42<ack id>["poll:vote", …] is a vote asking for an answer.
      if (typeof frame === "string" && /^42\d+\["poll:vote"/.test(frame) && ++votesSent === 2) return;
      server.send(frame);
    });
    server.onMessage((frame) => {
      // 43<ack id>[{"ok":true,"data":{"pollId": …}}] is the answer to a vote.
      if (typeof frame === "string" && votesSent === 1 && /^43\d+\[\{"ok":true,"data":\{"pollId"/.test(frame)) return;
      ws.send(frame);
    });
  });
  await page.goto(`/join/${session.code}?name=${encodeURIComponent("Late")}`);
  const student = new StudentPage(page, context);
  await student.expectConnected();

  await teacher.page.getByTestId("poll-open").click();
  await expect(pollOptions(student)).toHaveCount(4);
  const receipt = page.getByTestId("vote-receipt");

  // 1. The vote counts, its answer is lost: after the browser gives up waiting, the receipt says it counted.
  const first = pollOptions(student).first();
  await first.click();
  await expect(receipt).toHaveAttribute("data-kind", "ok", { timeout: 15_000 });
  await expect(receipt).toHaveText(/Vote counted/);
  await expect(first).toHaveAttribute("aria-pressed", "true");
  await expect(pollControls(teacher).getByTestId("poll-tally")).toHaveAttribute("data-total", "1");

  // 2. A change of vote that never reaches the server: the receipt says so once the server has been asked.
  const second = pollOptions(student).nth(1);
  await second.click();
  await expect(receipt).toHaveAttribute("data-kind", "error", { timeout: 15_000 });
  await expect(receipt).toHaveText(/did not reach the server/);
  await expect(first).toHaveAttribute("aria-pressed", "true");
  await expect(second).toHaveAttribute("aria-pressed", "false");

  // Sent again, it counts.
  await second.click();
  await expect(receipt).toHaveAttribute("data-kind", "ok");
  await expect(second).toHaveAttribute("aria-pressed", "true");
});
