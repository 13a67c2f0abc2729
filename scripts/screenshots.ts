/**
 * `npm run screenshots`: pictures of what a teacher and a class see, taken
 * from the real app so the README never shows a screen that no longer exists.
 *
 * Starts the production server (run `npm run build` first) on a free port
 * with a throwaway data folder, runs a short class in Chromium (console at
 * 1440x900, projector at 1920x1080, a phone at 390x844; the rest of the class
 * are socket.io clients that vote), and writes PNGs into docs/screenshots/ at
 * three moments: a poll open, its reveal, and a failure scenario.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { chromium, type Browser, type Page } from "@playwright/test";
import { io, type Socket } from "socket.io-client";
import { PROTOCOL_VERSION } from "../lib/protocol/wire";
import { SERVER_NODE_FLAGS } from "../lib/constants";

const ROOT = path.resolve(import.meta.dirname, "..");
const OUT = path.join(ROOT, "docs", "screenshots");
const CLASS_NAMES = [
  "Ada",
  "Linus",
  "Grace",
  "Ken",
  "Barbara",
  "Dennis",
  "Margaret",
  "Edsger",
  "Frances",
  "Alan",
  "Radia",
  "Vint",
  "Sophie",
  "Tim",
];

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

async function startServer(port: number, dataDir: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, "--import", "tsx", "server/index.ts"], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: "production",
      PORT: String(port),
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      LOG_LEVEL: "warn",
      // The address students would type: the projector and the console show it.
      PUBLIC_URL: "https://class.example.edu",
      SESSION_CREATE_LIMIT: "100",
    },
    stdio: ["ignore", "inherit", "inherit"],
  });
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/api/health`);
      if (res.ok) return child;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  child.kill("SIGKILL");
  throw new Error("the server did not start within 60 s");
}

/** A student on a socket (no browser): joins, and votes when told. */
function botStudent(base: string, code: string, nickname: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = io(base, { transports: ["websocket"], auth: { v: PROTOCOL_VERSION, role: "student", code, nickname } });
    socket.once("session:welcome", () => resolve(socket));
    socket.once("connect_error", reject);
  });
}

function emit(socket: Socket, event: string, payload: unknown): Promise<unknown> {
  return new Promise((resolve) => socket.timeout(5000).emit(event, payload, (_err: unknown, ack: unknown) => resolve(ack)));
}

async function shoot(page: Page, name: string): Promise<void> {
  // Let the patches arrive and the layout settle (the projector's diagram measures itself).
  await page.waitForTimeout(600);
  await page.screenshot({ path: path.join(OUT, `${name}.png`) });
  console.log(`wrote docs/screenshots/${name}.png`);
}

async function run(browser: Browser, base: string): Promise<void> {
  const created = (await (
    await fetch(`${base}/api/sessions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ title: "Storage, week 3" }),
    })
  ).json()) as {
    code: string;
    hostKey: string;
  };
  const { code, hostKey } = created;

  const consoleContext = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const consolePage = await consoleContext.newPage();
  await consolePage.goto(`${base}/host/${code}#key=${hostKey}`);
  await consolePage.getByTestId("room-code").waitFor();
  // The projector window opens from the console, in the teacher's browser.
  const projector = await consoleContext.newPage();
  await projector.setViewportSize({ width: 1920, height: 1080 });
  await projector.goto(`${base}/present/${code}`);
  await projector.getByTestId("projector-diagram").waitFor();
  const phoneContext = await browser.newContext({
    viewport: { width: 390, height: 844 },
    isMobile: true,
    hasTouch: true,
    deviceScaleFactor: 2,
  });
  const phone = await phoneContext.newPage();
  await phone.goto(`${base}/join/${code}?name=Sam`);
  await phone.getByTestId("connection-status").waitFor();
  for (const page of [consolePage, projector, phone]) await page.emulateMedia({ reducedMotion: "reduce" });

  const bots = await Promise.all(CLASS_NAMES.map((name) => botStudent(base, code, name)));
  const teacher = await new Promise<Socket>((resolve, reject) => {
    const socket = io(base, { transports: ["websocket"], auth: { v: PROTOCOL_VERSION, role: "host", code, hostKey } });
    socket.once("session:welcome", () => resolve(socket));
    socket.once("connect_error", reject);
  });

  // 1. A poll open, at PICK NODE: most of the class has voted.
  await emit(teacher, "step:go", { stepIndex: 3 });
  const opened = (await emit(teacher, "poll:open", { kind: "next-step", durationS: 0 })) as { ok: boolean; data: { pollId: string } };
  const pollId = opened.data.pollId;
  const optionIds = ["o1", "o2", "o3", "o4"];
  await Promise.all(
    bots.slice(0, 11).map((b, i) => emit(b, "poll:vote", { pollId, optionId: optionIds[[0, 1, 1, 2, 1, 1, 3, 1, 0, 1, 1][i]] })),
  );
  await phone.getByTestId("poll-option").first().waitFor();
  await shoot(consolePage, "1-poll-open-console");
  await shoot(projector, "1-poll-open-projector");
  await shoot(phone, "1-poll-open-phone");

  // 2. The reveal.
  await phone.getByTestId("poll-option").nth(1).click();
  await emit(teacher, "poll:close", { pollId });
  await emit(teacher, "poll:reveal", { pollId });
  await phone.getByTestId("poll-feedback").waitFor();
  await shoot(consolePage, "2-reveal-console");
  await shoot(projector, "2-reveal-projector");
  await shoot(phone, "2-reveal-phone");

  // 3. A failure: Immediate binding with a zone conflict, the projector on the Events.
  await emit(teacher, "mode:set", { mode: "Immediate", variant: "zone-conflict" });
  await emit(teacher, "step:go", { stepIndex: 7 });
  await emit(teacher, "projector:show", { panel: "objects" });
  await emit(teacher, "projector:focus", { object: "events", deepDive: null });
  await phone.getByText("Inspect objects, topology and more").click();
  await phone.getByTestId("event-cards").waitFor();
  await phone.locator("[data-testid=event-cards] li[data-reason=FailedScheduling]").scrollIntoViewIfNeeded();
  await shoot(consolePage, "3-failure-console");
  await shoot(projector, "3-failure-projector");
  await shoot(phone, "3-failure-phone");

  for (const socket of [...bots, teacher]) socket.disconnect();
}

async function main(): Promise<void> {
  if (!existsSync(path.join(ROOT, ".next", "BUILD_ID"))) throw new Error("No production build: run `npm run build` first.");
  mkdirSync(OUT, { recursive: true });
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "classroom-screenshots-"));
  const port = await freePort();
  const server = await startServer(port, dataDir);
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu"],
  });
  try {
    await run(browser, `http://127.0.0.1:${port}`);
  } finally {
    await browser.close();
    server.kill("SIGTERM");
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
