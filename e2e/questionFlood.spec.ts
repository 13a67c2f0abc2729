import { expect, test } from "@playwright/test";
import { io, type Socket } from "socket.io-client";
import { PROTOCOL_VERSION, type Ack, type ClientToServerEvents, type ServerToClientEvents } from "../lib/protocol/wire";
import { expectAccessible } from "./axe";
import { ConsolePage, createSession } from "./fixtures";

type StudentSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

const sockets: StudentSocket[] = [];

test.afterEach(async ({ browser }) => {
  for (const s of sockets.splice(0)) s.close();
  for (const context of browser.contexts()) await context.close();
});

/** A student's script: identities of its own, each asking as soon as it is in. */
function joinBot(baseURL: string, code: string, nickname: string): Promise<StudentSocket> {
  return new Promise((resolve, reject) => {
    const socket: StudentSocket = io(baseURL, {
      transports: ["websocket"],
      reconnection: false,
      forceNew: true,
      auth: { v: PROTOCOL_VERSION, role: "student", code, nickname },
    });
    sockets.push(socket);
    socket.on("session:patch", (patch) => {
      if (patch.whole && patch.stream === "public") resolve(socket);
    });
    socket.once("connect_error", reject);
  });
}

const ask = (socket: StudentSocket, text: string) =>
  new Promise<Ack<unknown>>((resolve) => socket.emit("question:ask", { text, target: { kind: "step", stepIndex: 0 } }, resolve));

test("a flood of questions waiting for approval is cleared from the console in one action, by keyboard, and stays cleared", async ({
  browser,
  baseURL,
}) => {
  const session = await createSession(baseURL!, "Flooded class");
  const teacher = await ConsolePage.open(browser, session);
  const page = teacher.page;
  await page.getByTestId("questions-mode").selectOption("moderated");
  await expect(page.getByTestId("questions-mode")).toHaveValue("moderated");

  // Twelve identities of one script, each with a question waiting.
  const bots = await Promise.all(Array.from({ length: 12 }, (_, i) => joinBot(baseURL!, session.code, `bot ${i + 1}`)));
  for (const [i, bot] of bots.entries()) expect(await ask(bot, `spam ${i + 1}`)).toMatchObject({ ok: true });
  const hideAll = page.getByTestId("questions-hide-pending");
  await expect(hideAll).toHaveAttribute("data-count", "12");
  await expect(hideAll).toHaveText("Hide all waiting (12)");

  // It asks first, in place; Escape takes the question back and puts focus on the button.
  await hideAll.focus();
  await page.keyboard.press("Enter");
  const hideOnly = page.getByTestId("questions-hide-pending-confirm");
  await expect(hideOnly).toBeFocused();
  await expect(page.getByRole("group", { name: /Hide the 12 questions waiting for approval\?/ })).toBeVisible();
  await expectAccessible(page, "the console asking whether to hide every waiting question");
  await page.keyboard.press("Escape");
  await expect(hideAll).toBeFocused();
  await expect(page.locator("[data-testid=question-item][data-status=pending]")).toHaveCount(12);

  // Hide them all and stop their askers: by keyboard, from the first choice to the second.
  await page.keyboard.press("Enter");
  await expect(hideOnly).toBeFocused();
  await page.keyboard.press("Tab");
  await expect(page.getByTestId("questions-hide-pending-block")).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("questions-hide-pending-status")).toHaveText("12 questions hidden; their askers may not ask again.");
  await expect(hideAll).toHaveCount(0);
  // Focus stays in the questions, never on the page (where Space would step the class).
  await expect(page.locator("#host-questions-heading")).toBeFocused();
  await expect(page.locator("[data-testid=question-item][data-status=pending]")).toHaveCount(0);
  await expect(page.locator("[data-testid=question-item][data-status=hidden]")).toHaveCount(12);
  await expect(page.getByTestId("new-questions")).toHaveAttribute("data-count", "0");
  await expect(page.getByTestId("host-questions")).toContainText("its asker may not ask again");

  // It stays cleared: a stopped identity is refused, and nothing new waits.
  expect(await ask(bots[0], "spam again")).toMatchObject({ ok: false, error: { code: "QUESTION_LIMIT" } });
  await page.waitForTimeout(500);
  await expect(page.locator("[data-testid=question-item][data-status=pending]")).toHaveCount(0);

  // A real student swept up with it is let back: showing their question again lets them ask.
  const swept = page.locator("[data-testid=question-item]").filter({ hasText: "spam 12" });
  await swept.getByTestId("question-hide").click();
  await expect(swept).toHaveAttribute("data-status", "pending");
  expect(await ask(bots[11], "a real question")).toMatchObject({ ok: true });
  await expect(page.getByTestId("questions-hide-pending")).toHaveText("Hide all waiting (2)");
  await expectAccessible(page, "the console after clearing a flood");
});
