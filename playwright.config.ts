import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { defineConfig } from "@playwright/test";
import { SERVER_NODE_FLAGS } from "./lib/constants";

const PORT = Number(process.env.E2E_PORT ?? 3100);
// A fresh data folder per run: e2e sessions never mix with a teacher's saved ones.
const DATA_DIR = process.env.E2E_DATA_DIR ?? path.join(os.tmpdir(), `classroom-e2e-${process.pid}-${Date.now()}`);
process.env.E2E_DATA_DIR = DATA_DIR;
// School sign-in (e2e/accounts.spec.ts): that spec starts a real OpenID provider (oidc-provider) on this port and
// registers this client with it. The server reads the provider's metadata only when a teacher first clicks
// "Sign in with your school account", so the provider need not be up when the server starts.
const OIDC_PORT = Number(process.env.E2E_OIDC_PORT ?? PORT + 1000);
process.env.E2E_OIDC_PORT = String(OIDC_PORT);
const OIDC_SECRET = (process.env.E2E_OIDC_SECRET ??= `e2e-${process.pid}-${Date.now()}`);
const OIDC_ENV = { OIDC_ISSUER: `http://127.0.0.1:${OIDC_PORT}`, OIDC_CLIENT_ID: "classroom", OIDC_CLIENT_SECRET: OIDC_SECRET };

/**
 * Debian's old headless shell (package chromium-headless-shell) when it is there: the same Blink, without the
 * browser's own windowing, about a third less CPU per page than /usr/bin/chromium in headless mode.
 */
const HEADLESS_SHELL = "/usr/lib/chromium/chromium-headless-shell";
const CHROMIUM = process.env.CHROMIUM_PATH ?? (fs.existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : "/usr/bin/chromium");

/**
 * Spec files run three at a time (each test makes its own sessions and teachers; tests inside a file run in order).
 * A test tagged @first-account signs up the server's first account (it becomes the administrator, and the sign-up
 * page says so beforehand): it runs before any other, so no other spec's teacher can sign up first. A test tagged
 * @alone changes what the whole server does for 127.0.0.1 (it quarantines the address): it runs after every other
 * one, by itself.
 */
// Three: the whole run took 252 s on two workers, 219 s on three and 219 s on four (one quiet machine, one build, one
// after the other; on two workers the run kept 1.5 of the 2 cores busy, tests waiting on their pages).
const WORKERS = Number(process.env.E2E_WORKERS ?? 3);

export default defineConfig({
  testDir: "e2e",
  fullyParallel: false,
  workers: WORKERS,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: process.env.CI ? [["list"]] : [["list"]],
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    browserName: "chromium",
    headless: true,
    // No trace by default: a failure says what it expected and writes the page's outline (error-context.md), and
    // recording every run for the rare failing one cost most of the run (the screencast two thirds of its CPU; a DOM
    // snapshot around every action and assertion half of the rest, 368 s -> 246 s; the action and network log a fifth
    // of what was left). To debug a spec: E2E_TRACE=on keeps a failing test's trace, E2E_TRACE=full with snapshots.
    trace:
      process.env.E2E_TRACE === "on" || process.env.E2E_TRACE === "full"
        ? { mode: "retain-on-failure", screenshots: false, snapshots: process.env.E2E_TRACE === "full" }
        : "off",
    // Still pages: an entrance animation half done reads as faint text to axe (a contrast failure that came and went
    // with the machine's speed), and the current arrow's endless one repainted every open page 60 times a second.
    // e2e/access.spec.ts checks both animations with motion allowed, and that they stop when the reader asks.
    reducedMotion: "reduce",
    launchOptions: {
      executablePath: CHROMIUM,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
      ],
    },
  },
  projects: [
    { name: "first", grep: /@first-account/ },
    { name: "classes", grepInvert: /@alone|@first-account/, dependencies: ["first"] },
    { name: "alone", grep: /@alone/, dependencies: ["classes"] },
  ],
  webServer: {
    command: `node ${SERVER_NODE_FLAGS.join(" ")} --import tsx server/index.ts`,
    url: `http://127.0.0.1:${PORT}/api/health`,
    // Every spec creates sessions from 127.0.0.1; the per-address limit is for real deployments.
    env: {
      NODE_ENV: "production",
      PORT: String(PORT),
      HOST: "127.0.0.1",
      DATA_DIR,
      LOG_LEVEL: "warn",
      SESSION_CREATE_LIMIT: "1000",
      // Every spec signs teachers up from 127.0.0.1; the per-address limit is for real deployments.
      ACCOUNT_SIGNUP_LIMIT: "1000",
      ...OIDC_ENV,
    },
    reuseExistingServer: false,
    timeout: 60_000,
    stdout: "pipe",
    stderr: "pipe",
  },
});
