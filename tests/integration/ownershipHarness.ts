import { afterEach, expect } from "vitest";
import type { AccountLessonList, AccountSessionList } from "../../lib/account/ownership";
import type { AccountView } from "../../lib/account/rest";
import type { CreatedLesson, CreatedSessionBody } from "../../lib/protocol/rest";
import { CookieClient } from "../support/cookieClient";
import { startServer, type TestClient, type TestServer } from "./harness";
import { handshake } from "./storeContractStores";

/** Shared by tests/integration/accountsOwnership*.test.ts: servers with an admin token, and browsers with accounts. */

export const servers: TestServer[] = [];
export const clients: TestClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  for (const s of servers.splice(0)) await s.close();
});
export const track = (c: TestClient) => (clients.push(c), c);
export const ADMIN_TOKEN = "script-admin-token-0123456789";

export async function server(): Promise<TestServer> {
  const s = await startServer({ adminToken: ADMIN_TOKEN });
  servers.push(s);
  return s;
}

export const PASSWORD = "correct horse battery staple";

/** A browser with an account: signed up on this server (the first one is the administrator). */
export async function teacher(srv: TestServer, name: string): Promise<CookieClient & { account: AccountView }> {
  const browser = new CookieClient(srv.url);
  const email = `${name.toLowerCase().replace(/\W+/g, ".")}@school.example`;
  const res = await browser.post("/api/account/sign-up", { email, displayName: name, password: PASSWORD });
  expect(res.status).toBe(201);
  return Object.assign(browser, { account: (await res.json()) as AccountView });
}

/** The same person on a fresh browser: no keys, no cookie, then signed in. */
export async function signIn(srv: TestServer, email: string): Promise<CookieClient> {
  const browser = new CookieClient(srv.url);
  expect((await browser.post("/api/account/sign-in", { email, password: PASSWORD })).status).toBe(200);
  return browser;
}

export async function body<T>(res: Response, status = 200): Promise<T> {
  if (res.status !== status) throw new Error(`${res.url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

export async function errorCode(res: Response): Promise<[number, string]> {
  const b = (await res.json()) as { error: { code: string } };
  return [res.status, b.error.code];
}

export async function startSession(browser: CookieClient, extra: Record<string, unknown> = {}): Promise<CreatedSessionBody> {
  return body<CreatedSessionBody>(await browser.post("/api/sessions", { title: "Storage 101", ...extra }), 201);
}

export async function saveLesson(browser: CookieClient): Promise<CreatedLesson> {
  return body<CreatedLesson>(await browser.post("/api/lessons", { lesson: handshake, source: "sequenceDiagram\n  C->>S: SYN\n" }), 201);
}

export const mySessions = (b: CookieClient, headers: Record<string, string> = {}) =>
  b.request("/api/account/sessions", { headers }).then((r) => body<AccountSessionList>(r));
export const myLessons = (b: CookieClient, headers: Record<string, string> = {}) =>
  b.request("/api/account/lessons", { headers }).then((r) => body<AccountLessonList>(r));
