import { spawnSync } from "node:child_process";
import { expect, test, type Browser, type BrowserContext, type Page } from "@playwright/test";
import { expectAccessible } from "./axe";
import { ConsolePage, StudentPage, closeContextsAfterEach } from "./fixtures";

/**
 * Issue 29's "Done means", in real Chromium: a teacher signs up on browser A,
 * writes a lesson and teaches a session from it; signs in on a fresh browser
 * B and finds the lesson, the session's replay, exports and share link, and
 * opens the console of the live session there (both consoles drive the
 * class: a phone follows a step from each); a second account invited as
 * co-teacher drives the same class; a stranger's account sees none of it;
 * the student joined by code, as before, with no account.
 */

closeContextsAfterEach();

const PASSWORD = "harbour lantern copper field";
const run = Date.now().toString(36);
const emailOf = (who: string) => `${who}.${run}@school.example`;

const DIAGRAM = `---
title: Rolling update
---
sequenceDiagram
  participant U as You
  participant D as Deployment controller
  participant R as ReplicaSet
  U->>D: Change the Pod template
  D->>R: Create a new ReplicaSet
  R-->>D: New Pod ready
  D->>R: Scale the old ReplicaSet down
  R-->>U: Rollout complete
`;

async function signUp(browser: Browser, who: string, name: string, next: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
  const page = await context.newPage();
  await page.goto(`/account/sign-up?next=${encodeURIComponent(next)}`);
  await page.getByLabel("Your name", { exact: true }).fill(name);
  await page.getByLabel("Email", { exact: true }).fill(emailOf(who));
  await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await page.getByTestId("sign-up-submit").click();
  await expect(page).toHaveURL(new RegExp(`${next.replace(/[/?]/g, "\\$&")}$`));
  await expect(page.getByTestId("account-menu")).toHaveAttribute("data-account", name);
  return { context, page };
}

async function signIn(browser: Browser, who: string, next: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
  const page = await context.newPage();
  await page.goto(`/account/sign-in?next=${encodeURIComponent(next)}`);
  await page.getByLabel("Email", { exact: true }).fill(emailOf(who));
  await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await page.getByTestId("sign-in-submit").click();
  await expect(page).toHaveURL(new RegExp(`${next}$`));
  return { context, page };
}

test("a teacher's lesson and live session follow her to another browser, a co-teacher drives the class, a stranger sees none of it", async ({
  browser,
  baseURL,
}) => {
  // The server's first account becomes its administrator, who sees everything: make it first, so nobody below is.
  const first = await fetch(`${baseURL}/api/account/sign-up`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: baseURL! },
    body: JSON.stringify({ email: emailOf("first"), displayName: "First account", password: PASSWORD }),
  });
  expect(first.status).toBe(201);

  // Browser A: Ms Rivera signs up, writes a lesson and starts a session from it.
  const a = await signUp(browser, "rivera", "Ms Rivera", "/lessons");
  await expect(a.page.getByTestId("my-lessons-empty")).toBeVisible();
  await a.page.getByTestId("new-lesson").click();
  // The editor puts its example in once it has loaded; typing before that would be overwritten.
  await expect(a.page.getByTestId("lesson-source")).not.toHaveValue("");
  await a.page.getByTestId("lesson-source").fill(DIAGRAM);
  await expect(a.page.getByTestId("lesson-preview")).toHaveAttribute("data-steps", "5");
  await a.page.getByTestId("lesson-save").click();
  await expect(a.page.getByTestId("lesson-status")).toContainText("Saved");
  await a.page.goto("/lessons");
  const lessonItemA = a.page.getByTestId("my-lessons").getByTestId("lesson-item");
  await expect(lessonItemA).toHaveCount(1);
  const lessonId = (await lessonItemA.getAttribute("data-lesson-id"))!;
  await lessonItemA.getByTestId("lesson-start").click();
  await expect(a.page).toHaveURL(/\/host\/[A-Z0-9]{6}$/);
  const code = (await a.page.getByTestId("room-code").innerText()).trim();
  const consoleA = new ConsolePage(a.page, a.context);
  await expect(consoleA.step()).toHaveAttribute("data-total", "5");

  // A student joins by code, exactly as before: no account, no sign-in.
  const phoneContext = await browser.newContext({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });
  const phonePage = await phoneContext.newPage();
  await phonePage.goto("/join");
  await phonePage.getByTestId("join-code").fill(code.toLowerCase());
  await phonePage.getByLabel("Nickname").fill("Sam");
  await phonePage.getByTestId("join-submit").click();
  const phone = new StudentPage(phonePage, phoneContext);
  await phone.expectConnected();
  await consoleA.expectParticipants(1);
  await consoleA.next();
  await phone.expectStep(2);

  // Browser B, a fresh context: she signs in and finds the lesson...
  const b = await signIn(browser, "rivera", "/lessons");
  const lessonItemB = b.page.getByTestId("my-lessons").locator(`[data-lesson-id="${lessonId}"]`);
  await expect(lessonItemB).toContainText("Rolling update");
  await expect(lessonItemB).toContainText("version 1");
  await expectAccessible(b.page, "/lessons, signed in on another browser");

  // ...and the session: its replay, its exports and its share link, then its live console.
  await b.page.goto("/sessions");
  const sessionB = b.page.getByTestId("my-sessions").locator(`[data-code="${code}"]`);
  await expect(sessionB).toHaveAttribute("data-status", "live");
  const sessionId = (await sessionB.getAttribute("data-session-id"))!;
  await expect(sessionB.getByTestId("replay-link")).toHaveAttribute("href", `/replay/${sessionId}`);
  await expectAccessible(b.page, "/sessions, signed in on another browser");
  const download = b.page.waitForEvent("download");
  await sessionB.getByRole("button", { name: "JSON" }).click();
  const exported = JSON.parse(await (await import("node:fs/promises")).readFile((await (await download).path())!, "utf8")) as {
    session: { code: string };
  };
  expect(exported.session.code).toBe(code);
  await sessionB.getByTestId("share-toggle").click();
  await expect(sessionB.getByTestId("share-link")).toHaveValue(new RegExp(`/replay/${sessionId}#share=`));
  await sessionB.getByTestId("open-console").click();
  await expect(b.page).toHaveURL(new RegExp(`/host/${code}$`));
  const consoleB = new ConsolePage(b.page, b.context);
  await expect(b.page.getByTestId("room-code")).toHaveText(code);
  await consoleB.expectStep(2);

  // Both consoles drive the class: the phone follows a step from each, and each console follows the other.
  await consoleB.next();
  await phone.expectStep(3);
  await consoleA.expectStep(3);
  await consoleA.next();
  await phone.expectStep(4);
  await consoleB.expectStep(4);

  // The replay opens on B by the account alone.
  const replay = await b.context.newPage();
  await replay.goto(`/replay/${sessionId}`);
  await expect(replay.getByTestId("step-indicator")).toBeVisible();

  // A co-teacher: Mr Okoro has an account; Ms Rivera invites him from her list on A.
  const c = await signUp(browser, "okoro", "Mr Okoro", "/sessions");
  await expect(c.page.getByTestId("my-sessions-empty")).toBeVisible();
  const listA = await a.context.newPage();
  await listA.goto("/sessions");
  const invite = listA.getByTestId("my-sessions").locator(`[data-session-id="${sessionId}"]`).getByTestId("invite-coteacher");
  await invite.getByRole("textbox").fill(emailOf("okoro"));
  await invite.getByRole("button", { name: "Invite" }).click();
  await expect(listA.getByRole("status").filter({ hasText: "Mr Okoro can drive this class now." })).toBeVisible();

  await c.page.reload();
  const sessionC = c.page.getByTestId("my-sessions").locator(`[data-session-id="${sessionId}"]`);
  await expect(sessionC).toHaveAttribute("data-relation", "coteacher");
  await expect(sessionC).toContainText("Co-taught with Ms Rivera");
  await sessionC.getByTestId("open-console").click();
  await expect(c.page).toHaveURL(new RegExp(`/host/${code}$`));
  const consoleC = new ConsolePage(c.page, c.context);
  await consoleC.expectStep(4);
  await consoleC.next();
  await phone.expectStep(5);
  await consoleA.expectStep(5);

  // A stranger's account: nothing of hers in either list, and the API refuses her.
  const d = await signUp(browser, "stranger", "Mx Stranger", "/sessions");
  await expect(d.page.getByTestId("my-sessions-empty")).toBeVisible();
  await expect(d.page.getByTestId("my-sessions").locator("[data-session-id]")).toHaveCount(0);
  await d.page.goto("/lessons");
  await expect(d.page.getByTestId("my-lessons-empty")).toBeVisible();
  await expect(d.page.getByTestId("my-lessons").locator("[data-lesson-id]")).toHaveCount(0);
  for (const path of [`/api/sessions/${sessionId}`, `/api/sessions/${sessionId}/export?format=json`, `/api/lessons/${lessonId}`]) {
    expect((await d.page.request.get(path)).status(), path).toBe(403);
  }
  const consoleKey = await d.page.request.post(`/api/sessions/${sessionId}/consoles`, { data: {}, headers: { origin: baseURL! } });
  expect(consoleKey.status()).toBe(403);
  // The console's address opens nothing for her: her browser holds no key and her account none.
  await d.page.goto(`/host/${code}`);
  await expect(d.page.getByTestId("session-error")).toHaveAttribute("data-code", "NOT_HOST");
  await expect(d.page.getByTestId("next-step")).toHaveCount(0);

  // Nothing the student did needed an account: the phone holds no sign-in cookie, and is still in class.
  expect((await phoneContext.cookies()).filter((k) => k.name.includes("signin"))).toEqual([]);
  await phone.expectConnected();
});

test("the administrator's account lists every teacher's sessions and lessons, ends a live one and deletes them", async ({
  browser,
  baseURL,
}) => {
  // An operator makes the administrator from the command line, against the server's own data folder.
  const made = spawnSync(
    process.execPath,
    ["--import", "tsx", "scripts/account.ts", "create", "--email", emailOf("head"), "--name", "Head of IT", "--admin"],
    { input: `${PASSWORD}\n`, env: { ...process.env, DATA_DIR: process.env.E2E_DATA_DIR }, encoding: "utf8" },
  );
  expect(made.status, made.stderr).toBe(0);

  // A teacher's session (a phone in it) and lesson, made through the API as her pages would.
  const teacher = await browser.newContext();
  const origin = { origin: baseURL! };
  await teacher.request.post("/api/account/sign-up", {
    data: { email: emailOf("lee"), displayName: "Ms Lee", password: PASSWORD },
    headers: origin,
  });
  const session = (await (await teacher.request.post("/api/sessions", { data: { title: "Friday storage" }, headers: origin })).json()) as {
    id: string;
    code: string;
  };
  const lesson = (await (
    await teacher.request.post("/api/lessons", {
      data: {
        lesson: {
          title: "Friday handshake",
          lifelines: [
            { id: "C", name: "Client" },
            { id: "S", name: "Server" },
          ],
          steps: [
            { from: "C", to: "S", line: "solid", head: "filled", title: "SYN" },
            { from: "S", to: "C", line: "solid", head: "filled", title: "SYN-ACK" },
          ],
        },
        source: "sequenceDiagram\n  C->>S: SYN\n  S->>C: SYN-ACK\n",
      },
      headers: origin,
    })
  ).json()) as { id: string };
  const phone = await StudentPage.join(browser, session.code, "Ravi");

  const admin = await signIn(browser, "head", "/sessions");
  await expect(admin.page.getByTestId("account-menu")).toContainText("admin");
  // Her own list is empty; every session is in the administrator's, with its owner.
  await expect(admin.page.getByTestId("my-sessions").locator(`[data-session-id="${session.id}"]`)).toHaveCount(0);
  const item = admin.page.getByTestId("admin-sessions").locator(`[data-session-id="${session.id}"]`);
  await expect(item).toContainText("Ms Lee's");
  await expect(item).toHaveAttribute("data-status", "live");
  // Managing is not teaching: no console to open.
  await expect(item.getByTestId("open-console")).toHaveCount(0);
  await expectAccessible(admin.page, "/sessions, the administrator's lists");

  admin.page.on("dialog", (dialog) => void dialog.accept());
  await item.getByTestId("session-end").click();
  await expect(item).toHaveAttribute("data-status", "ended");
  // The class sees it end, as if the teacher had ended it.
  await expect(phone.page.getByTestId("connection-status")).toHaveAttribute("data-ended", "true");
  await expect(phone.page.getByText("The teacher has ended this session.")).toBeVisible();
  await item.getByTestId("session-delete").click();
  await expect(item).toHaveCount(0);
  expect((await teacher.request.get(`/api/sessions/${session.id}`)).status()).toBe(404);

  await admin.page.goto("/lessons");
  const lessonItem = admin.page.getByTestId("admin-lessons").locator(`[data-lesson-id="${lesson.id}"]`);
  await expect(lessonItem).toContainText("Ms Lee's");
  await lessonItem.getByTestId("lesson-delete").click();
  await expect(lessonItem).toHaveCount(0);
  expect((await teacher.request.get(`/api/lessons/${lesson.id}`)).status()).toBe(404);
});
