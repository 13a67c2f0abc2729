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

export default defineConfig({
  testDir: "e2e",
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: process.env.CI ? [["list"]] : [["list"]],
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    browserName: "chromium",
    headless: true,
    trace: "retain-on-failure",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
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
