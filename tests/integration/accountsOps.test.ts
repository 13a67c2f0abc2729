import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import type { AccountState, AccountView } from "../../lib/account/rest";
import { createClassroomServer } from "../../server/app";
import { SqliteSessionStore } from "../../server/store/sqlite";
import { CookieClient } from "../support/cookieClient";
import { freePort, startRedis, type RedisServer } from "../support/loopback";
import { formOf, startOidcProvider } from "../support/oidcProvider";
import { startServer } from "../support/testServer";
import { spawnServer, type ServerProcess } from "./process";

/**
 * Accounts as an operator meets them: the command line (`npm run account`),
 * backups, HTTPS behind a proxy, closed sign-up, and several server processes
 * sharing accounts through Redis.
 */

const ROOT = path.resolve(__dirname, "../..");
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
const PASSWORD = "the operator's long passphrase";

/** `npm run account -- <args>` as the script npm runs, with `input` on stdin. */
function account(
  args: string[],
  env: Record<string, string>,
  input = "",
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", "scripts/account.ts", ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.once("exit", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

async function serverOn(dataDir: string, config: { accountSignupOpen?: boolean; trustProxy?: boolean; oidc?: never } = {}) {
  const server = createClassroomServer({
    config: { port: 0, host: "127.0.0.1", publicUrl: null, idleTimeoutMs: 0, dev: false, adminToken: null, ...config },
    store: new SqliteSessionStore(path.join(dataDir, "sessions.sqlite")),
  });
  const port = await server.listen();
  cleanups.push(() => server.close());
  return `http://127.0.0.1:${port}`;
}

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "classroom-accounts-ops-"));
const state = (browser: CookieClient) => browser.getJson<AccountState>("/api/account");

describe("accounts for an operator", () => {
  it("creates the administrator from the command line before anyone signs up; lists, resets and deletes accounts", async () => {
    const dataDir = tempDir();
    const env = { DATA_DIR: dataDir, LOG_LEVEL: "silent" };
    const created = await account(["create", "--email", "Lee@School.example", "--name", "Ms Lee", "--admin"], env, `${PASSWORD}\n`);
    expect(created).toMatchObject({ code: 0, stdout: "created lee@school.example (Ms Lee), administrator\n" });
    expect(created.stdout + created.stderr).not.toContain(PASSWORD);
    expect((await account(["create", "--email", "lee@school.example"], env, `${PASSWORD}\n`)).code).toBe(2);
    expect((await account(["create", "--email", "short@school.example"], env, "short\n")).stderr).toContain("Use at least 10 characters.");

    const url = await serverOn(dataDir);
    const lee = new CookieClient(url);
    expect((await lee.post("/api/account/sign-in", { email: "lee@school.example", password: PASSWORD })).status).toBe(200);
    expect((await state(lee)).account).toMatchObject({ displayName: "Ms Lee", admin: true });
    // The administrator exists, so the first web sign-up is a teacher.
    const web = await new CookieClient(url).post("/api/account/sign-up", {
      email: "mo@school.example",
      displayName: "Mo",
      password: PASSWORD,
    });
    expect(((await web.json()) as AccountView).admin).toBe(false);

    const list = await account(["list"], env);
    expect(list.stdout).toBe("lee@school.example\tMs Lee\tadmin\tpassword\nmo@school.example\tMo\tteacher\tpassword\n2 accounts\n");

    const reset = await account(["set-password", "--email", "lee@school.example"], env, "a different passphrase\n");
    expect(reset).toMatchObject({ code: 0, stdout: "new password set for lee@school.example; 1 sign-in ended\n" });
    expect((await state(lee)).account).toBeNull();
    expect((await lee.post("/api/account/sign-in", { email: "lee@school.example", password: "a different passphrase" })).status).toBe(200);

    expect((await account(["admin", "--email", "mo@school.example"], env)).stdout).toBe("mo@school.example is now an administrator\n");
    expect((await account(["delete", "--email", "lee@school.example"], env)).code).toBe(0);
    expect((await state(lee)).account).toBeNull();
    expect((await account(["delete", "--email", "lee@school.example"], env)).stderr).toBe("There is no account for lee@school.example.\n");
    // Eight runs of the command line, each a fresh Node compiling the script (tsx) and hashing a password: 8 s on a
    // quiet machine, past 30 s beside the integration tests (npm test runs the two side by side). A hang guard.
  }, 120_000);

  it("an account made for school sign-in (no password) is taken by the first verified school sign-in with its email", async () => {
    const dataDir = tempDir();
    const made = await account(["create", "--email", "ng@school.example", "--no-password"], { DATA_DIR: dataDir, LOG_LEVEL: "silent" });
    expect(made.stdout).toBe("created ng@school.example (ng), administrator, no password: school sign-in takes it\n");
    const idp = await startOidcProvider();
    cleanups.push(() => idp.stop());
    const server = createClassroomServer({
      config: {
        port: 0,
        host: "127.0.0.1",
        publicUrl: null,
        idleTimeoutMs: 0,
        dev: false,
        adminToken: null,
        oidc: {
          issuer: idp.issuer,
          clientId: idp.clientId,
          clientSecret: idp.clientSecret,
          allowedDomain: "school.example",
          allowedGroup: null,
        },
      },
      store: new SqliteSessionStore(path.join(dataDir, "sessions.sqlite")),
    });
    const url = `http://127.0.0.1:${await server.listen()}`;
    cleanups.push(() => server.close());
    idp.serve([`${url}/auth/oidc/callback`]);
    idp.users.set("ng", { email: "ng@school.example", email_verified: true, name: "Dr Ng" });

    const browser = new CookieClient(url);
    const login = await browser.navigate("/auth/oidc/start");
    const loginForm = formOf(await login.res.text(), login.url);
    const consent = await browser.submitForm(loginForm.action, { ...loginForm.fields, login: "ng", password: "x" });
    const consentForm = formOf(await consent.res.text(), consent.url);
    const end = await browser.submitForm(consentForm.action, consentForm.fields);
    expect(end.url.pathname).toBe("/account");
    expect((await state(browser)).account).toMatchObject({ email: "ng@school.example", admin: true, hasOidc: true, hasPassword: false });
  });

  it("backs up the accounts with the sessions (npm run backup), and the copy signs the same people in", async () => {
    const srv = await startServer();
    cleanups.push(() => srv.close());
    await new CookieClient(srv.url).post("/api/account/sign-up", { email: "ol@school.example", displayName: "Ol", password: PASSWORD });
    const target = path.join(tempDir(), "backup.sqlite");
    const backup = await new Promise<number | null>((resolve) => {
      const child = spawn(process.execPath, ["--import", "tsx", "scripts/backup.ts", target], {
        cwd: ROOT,
        env: { ...process.env, DATA_DIR: srv.dataDir },
        stdio: "ignore",
      });
      child.once("exit", resolve);
    });
    expect(backup).toBe(0);
    const copy = new Database(target, { readonly: true });
    const rows = copy.prepare<[], { email: string; password_hash: string }>(`SELECT email, password_hash FROM accounts`).all();
    const signIns = copy.prepare<[], { n: number }>(`SELECT COUNT(*) AS n FROM account_sign_ins`).get()!.n;
    copy.close();
    expect(rows.map((r) => r.email)).toEqual(["ol@school.example"]);
    expect(signIns).toBe(1);

    // Restored into a fresh data folder, the account signs in there.
    const restored = tempDir();
    fs.copyFileSync(target, path.join(restored, "sessions.sqlite"));
    const url = await serverOn(restored);
    expect((await new CookieClient(url).post("/api/account/sign-in", { email: "ol@school.example", password: PASSWORD })).status).toBe(200);
  });

  it("over HTTPS (behind a proxy it trusts) the cookie is __Host- prefixed and Secure", async () => {
    const url = await serverOn(tempDir(), { trustProxy: true });
    const host = new URL(url).host;
    const browser = new CookieClient(url, { "x-forwarded-proto": "https" });
    const res = await browser.request("/api/account/sign-up", {
      method: "POST",
      json: { email: "pi@school.example", displayName: "Pi", password: PASSWORD },
      origin: `https://${host}`,
    });
    expect(res.status).toBe(201);
    const cookie = browser.seen.find((c) => c.name === "__Host-cls_signin")!;
    expect(cookie.attributes.has("secure")).toBe(true);
    expect(cookie.attributes.has("httponly")).toBe(true);
    expect(cookie.attributes.get("path")).toBe("/");
    expect(cookie.attributes.has("domain")).toBe(false);
    expect((await state(browser)).account?.email).toBe("pi@school.example");
    // The http:// origin of the same host is another site once the browser is on https.
    const downgraded = await browser.request("/api/account/sign-out", { method: "POST", json: {}, origin: `http://${host}` });
    expect(downgraded.status).toBe(403);
  });

  it("with ACCOUNT_SIGNUP=closed, only the command line (and school sign-in) creates accounts", async () => {
    const dataDir = tempDir();
    const url = await serverOn(dataDir, { accountSignupOpen: false });
    const browser = new CookieClient(url);
    expect((await state(browser)).signup).toEqual({ open: false, firstAccount: true });
    for (const [route, body] of [
      ["/api/account/sign-up", { email: "qu@school.example", displayName: "Qu", password: PASSWORD }],
      ["/api/account/passkey/sign-up/options", { email: "qu@school.example", displayName: "Qu" }],
    ] as const) {
      const res = await browser.post(route, body);
      expect(res.status, route).toBe(403);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("SIGNUP_CLOSED");
    }
    expect(
      (await account(["create", "--email", "qu@school.example"], { DATA_DIR: dataDir, LOG_LEVEL: "silent" }, `${PASSWORD}\n`)).code,
    ).toBe(0);
    expect((await browser.post("/api/account/sign-in", { email: "qu@school.example", password: PASSWORD })).status).toBe(200);
  });
});

describe("accounts across server processes (Redis)", () => {
  let redis: RedisServer | null = null;
  const nodes: ServerProcess[] = [];
  afterEach(async () => {
    for (const n of nodes.splice(0)) n.proc.kill("SIGKILL");
    await redis?.stop();
    redis = null;
  });

  it("a teacher signed in through one process is signed in on the other, and signing out everywhere reaches both", async () => {
    redis = await startRedis();
    const env = { REDIS_URL: redis.url };
    const [one, two] = await Promise.all([
      spawnServer({ dataDir: tempDir(), port: await freePort(), env }),
      spawnServer({ dataDir: tempDir(), port: await freePort(), env }),
    ]);
    nodes.push(one, two);
    const atOne = new CookieClient(one.url);
    expect((await atOne.post("/api/account/sign-up", { email: "ro@school.example", displayName: "Ro", password: PASSWORD })).status).toBe(
      201,
    );
    // The same cookie, presented to the other process (as a load balancer would route the next request).
    const atTwo = new CookieClient(two.url, { cookie: `cls_signin=${atOne.cookie("cls_signin")}` });
    expect((await state(atTwo)).account).toMatchObject({ email: "ro@school.example", admin: true });
    const other = new CookieClient(two.url);
    expect((await other.post("/api/account/sign-in", { email: "ro@school.example", password: PASSWORD })).status).toBe(200);

    expect(await (await other.post("/api/account/sign-out-everywhere")).json()).toEqual({ ended: 2 });
    expect((await state(atOne)).account).toBeNull();
    expect((await state(atTwo)).account).toBeNull();
  });
});
