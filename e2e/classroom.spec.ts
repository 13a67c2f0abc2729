import { expect, test } from "@playwright/test";
import { io } from "socket.io-client";
import { PROTOCOL_VERSION } from "../lib/protocol/wire";
import { ConsolePage, ProjectorPage, StudentPage, createSession, closeContextsAfterEach } from "./fixtures";

closeContextsAfterEach();

test("a teacher drives, the projector and every student follow", async ({ browser, baseURL }) => {
  const session = await createSession(baseURL!);
  const teacher = await ConsolePage.open(browser, session);
  const projector = await ProjectorPage.open(browser, session.code);
  const students = [
    await StudentPage.join(browser, session.code, "Ana"),
    await StudentPage.join(browser, session.code, "Bo"),
    await StudentPage.join(browser, session.code.toLowerCase(), "Cy"),
  ];
  await teacher.expectParticipants(3);

  await teacher.next();
  await teacher.next();
  for (const view of [teacher, projector, ...students]) await view.expectStep(3);
  await expect(students[0].step()).toContainText("NEW POD");
  await expect(students[0].step()).toHaveAttribute("data-total", "12");

  await teacher.prev();
  for (const view of [teacher, projector, ...students]) await view.expectStep(2);

  // Keyboard: Right and End on the console.
  await teacher.page.locator("body").press("ArrowRight");
  await projector.expectStep(3);
  await teacher.page.locator("body").press("End");
  for (const view of [projector, ...students]) await view.expectStep(12);
  await teacher.page.locator("body").press("Home");
  await students[1].expectStep(1);

  // A late joiner lands on the current step at once.
  await teacher.page.getByTestId("step-jump").nth(6).click();
  const late = await StudentPage.join(browser, session.code, "Late");
  await late.expectStep(7);
  await teacher.expectParticipants(4);

  // A reload keeps the student's identity: still four participants.
  await students[0].page.reload();
  await students[0].expectConnected();
  await students[0].expectStep(7);
  await expect(teacher.page.getByTestId("participant-list").locator("li")).toHaveCount(4);
  await teacher.expectParticipants(4);

  // Offline: "reconnecting", then back on the current step by itself.
  await students[1].context.setOffline(true);
  await expect(students[1].page.getByTestId("connection-status")).toHaveAttribute("data-state", "reconnecting", { timeout: 30_000 });
  await teacher.next();
  await projector.expectStep(8);
  await students[1].context.setOffline(false);
  await students[1].expectConnected();
  await students[1].expectStep(8);
});

test("a bad room code says so plainly", async ({ browser }) => {
  const context = await browser.newContext({ viewport: { width: 360, height: 740 } });
  const page = await context.newPage();
  await page.goto("/join/ZZZZZZ?name=Sam");
  await expect(page.getByTestId("session-error")).toHaveAttribute("data-code", "NO_SUCH_SESSION");
  await expect(page.getByRole("heading", { name: "No such session" })).toBeVisible();

  await page.goto("/join");
  await page.getByTestId("join-code").fill("0O1");
  await page.getByTestId("join-submit").click();
  await expect(page.locator("#join-error")).toContainText("six letters");
});

test("the console without the host key offers the student view", async ({ browser, baseURL }) => {
  const session = await createSession(baseURL!);
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`/host/${session.code}`);
  await expect(page.getByRole("heading", { name: "This browser is not the host" })).toBeVisible();
  await expect(page.getByTestId("next-step")).toHaveCount(0);
  await page.getByRole("link", { name: "Open the student view" }).click();
  await expect(page).toHaveURL(new RegExp(`/join/${session.code}$`));
});

test("starting a session from the landing page opens a console that survives a reload", async ({ page }) => {
  await page.goto("/");
  await page.getByLabel("Title").fill("Tuesday storage");
  await page.getByTestId("start-session").click();
  await expect(page).toHaveURL(/\/host\/[A-Z2-9]{6}$/);
  const code = (await page.getByTestId("room-code").textContent())!.trim();
  await expect(page.getByTestId("join-link")).toContainText(`/join/${code}`);
  await page.getByTestId("next-step").click();
  await expect(page.getByTestId("step-indicator")).toHaveAttribute("data-step", "2");
  await page.reload();
  await expect(page.getByTestId("step-indicator")).toHaveAttribute("data-step", "2");
  await page.getByTestId("next-step").click();
  await expect(page.getByTestId("step-indicator")).toHaveAttribute("data-step", "3");
});

test("a student's own socket cannot drive the class, whatever the page shows", async ({ browser, baseURL }) => {
  const session = await createSession(baseURL!);
  const teacher = await ConsolePage.open(browser, session);
  const student = await StudentPage.join(browser, session.code, "Eve");
  await expect(student.page.getByTestId("next-step")).toHaveCount(0);
  // The student's identity, as dev tools would show it, used on a raw socket.
  const token = await student.page.evaluate((code) => localStorage.getItem(`classroom:token:${code}`), session.code);
  expect(token).toBeTruthy();
  const socket = io(baseURL!, {
    transports: ["websocket"],
    forceNew: true,
    reconnection: false,
    auth: { v: PROTOCOL_VERSION, role: "student", code: session.code, token },
  });
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once("connect", () => resolve());
      socket.once("connect_error", reject);
    });
    for (const [event, payload] of [
      ["step:go", { stepIndex: 11 }],
      ["step:move", { delta: 1 }],
      ["mode:set", { mode: "Immediate" }],
      ["poll:open", { kind: "next-step" }],
      ["session:end", {}],
    ] as const) {
      const ack = await socket.timeout(5000).emitWithAck(event, payload);
      expect(ack, event).toMatchObject({ ok: false, error: { code: "NOT_HOST" } });
    }
    // And claiming to be the host without the key is refused at the door.
    const fake = io(baseURL!, {
      transports: ["websocket"],
      forceNew: true,
      reconnection: false,
      auth: { v: PROTOCOL_VERSION, role: "host", code: session.code, hostKey: token },
    });
    const refused = await new Promise<string>((resolve) => {
      fake.once("connect", () => resolve("connected"));
      fake.once("connect_error", (err: Error & { data?: { code: string } }) => resolve(err.data?.code ?? err.message));
    });
    fake.close();
    expect(refused).toBe("NOT_HOST");
  } finally {
    socket.close();
  }
  // Nothing moved anywhere.
  await teacher.expectStep(1);
  await student.expectStep(1);
  await expect(teacher.page.getByTestId("poll-close")).toHaveCount(0);
});

test("a locked room tells a newcomer plainly, while the class carries on", async ({ browser, baseURL }) => {
  const session = await createSession(baseURL!);
  const teacher = await ConsolePage.open(browser, session);
  const inside = await StudentPage.join(browser, session.code, "Early");
  await teacher.page.getByTestId("room-lock").click();
  await expect(teacher.page.getByTestId("room-lock")).toHaveAttribute("aria-pressed", "true");
  const late = await browser.newContext({ viewport: { width: 360, height: 740 } });
  const page = await late.newPage();
  await page.goto(`/join/${session.code}?name=Late`);
  await expect(page.getByTestId("session-error")).toHaveAttribute("data-code", "ROOM_LOCKED");
  await expect(page.getByRole("heading", { name: "The room is locked" })).toBeVisible();
  // Someone already in the class reloads and is still in.
  await inside.page.reload();
  await inside.expectConnected();
  await teacher.next();
  await inside.expectStep(2);
  await teacher.expectParticipants(1);
});

test("the projector fits one 1920x1080 screen at the last step", async ({ browser, baseURL }) => {
  const session = await createSession(baseURL!);
  const teacher = await ConsolePage.open(browser, session);
  const projector = await ProjectorPage.open(browser, session.code);
  await teacher.page.locator("body").press("End");
  await projector.expectStep(12);
  const box = await projector.page.getByTestId("sequence-diagram").boundingBox();
  expect(box).not.toBeNull();
  expect(box!.y + box!.height).toBeLessThanOrEqual(1080);
  expect(box!.height).toBeGreaterThan(600);
  // Nothing scrolls: the whole lesson is on the screen.
  expect(await projector.page.evaluate(() => document.documentElement.scrollHeight)).toBeLessThanOrEqual(1080);
});

test("a teacher's rename sticks when the student reconnects", async ({ browser, baseURL }) => {
  const session = await createSession(baseURL!);
  const teacher = await ConsolePage.open(browser, session);
  const student = await StudentPage.join(browser, session.code, "xXsk8rXx");
  await teacher.expectParticipants(1);
  await teacher.page.getByTestId("participant-rename").click();
  await teacher.page.getByTestId("rename-input").fill("Sam");
  await teacher.page.getByTestId("rename-save").click();
  await expect(teacher.page.getByTestId("participant-list")).toContainText("Sam");
  await expect(student.page.locator("header")).toContainText("Sam");
  // The student's link still says ?name=xXsk8rXx; reloading must not undo the rename.
  await student.page.reload();
  await student.expectConnected();
  await expect(student.page.locator("header")).toContainText("Sam");
  await expect(teacher.page.getByTestId("participant-list")).not.toContainText("xXsk8rXx");
});
