import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import type { AccountState, AccountView, SignInView } from "../../lib/account/rest";
import { hashSecret } from "../../server/secrets";
import { CookieClient } from "../support/cookieClient";
import { startServer, type TestServer } from "../support/testServer";

/**
 * Teachers' password accounts through the running server, as browsers meet
 * them: sign up, sign in on another browser, sign out here and everywhere,
 * delete; what the cookie says and what the database keeps; the CSRF and
 * rate-limit refusals. Passkeys: accountsPasskey.test.ts; the command line,
 * backups, HTTPS and closed sign-up: accountsOps.test.ts; school sign-in: oidc.test.ts.
 */

const servers: TestServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});
async function server(): Promise<TestServer> {
  const s = await startServer();
  servers.push(s);
  return s;
}

const PASSWORD = "correct horse battery staple";
const ana = { email: "Ana.Teacher@School.example", displayName: "Ms Ana", password: PASSWORD };

async function state(browser: CookieClient): Promise<AccountState> {
  return browser.getJson<AccountState>("/api/account");
}

async function errorOf(res: Response): Promise<{ status: number; code: string; message: string; field?: string }> {
  const body = (await res.json()) as { error: { code: string; message: string; field?: string } };
  return { status: res.status, ...body.error };
}

describe("password accounts", () => {
  it("the first sign-up becomes the administrator and is signed in by an HttpOnly, SameSite=Lax cookie whose hash alone is stored", async () => {
    const srv = await server();
    const a = new CookieClient(srv.url);
    expect(await state(a)).toMatchObject({ account: null, signup: { open: true, firstAccount: true }, oidc: { enabled: false } });

    const res = await a.post("/api/account/sign-up", ana);
    expect(res.status).toBe(201);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const account = (await res.json()) as AccountView;
    expect(account).toMatchObject({
      email: "ana.teacher@school.example",
      displayName: "Ms Ana",
      admin: true,
      hasPassword: true,
      passkeys: [],
    });

    const cookie = a.seen.find((c) => c.name === "cls_signin")!;
    expect(cookie.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(cookie.attributes.has("httponly")).toBe(true);
    expect(cookie.attributes.get("samesite")).toBe("Lax");
    expect(cookie.attributes.get("path")).toBe("/");
    // Plain HTTP: a Secure cookie would be dropped by the browser.
    expect(cookie.attributes.has("secure")).toBe(false);
    expect(Number(cookie.attributes.get("max-age"))).toBe(30 * 24 * 60 * 60);
    expect((await state(a)).account).toMatchObject({ id: account.id, admin: true });

    const db = new Database(path.join(srv.dataDir, "sessions.sqlite"), { readonly: true });
    const stored = db.prepare<[], { password_hash: string }>(`SELECT password_hash FROM accounts`).get()!;
    const signIns = db.prepare<[], { id_hash: string }>(`SELECT id_hash FROM account_sign_ins`).all();
    const dump =
      JSON.stringify(db.prepare(`SELECT * FROM accounts`).all()) + JSON.stringify(db.prepare(`SELECT * FROM account_sign_ins`).all());
    db.close();
    expect(stored.password_hash).toMatch(/^scrypt\$17\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(signIns).toEqual([{ id_hash: hashSecret(cookie.value) }]);
    expect(dump).not.toContain(PASSWORD);
    expect(dump).not.toContain(cookie.value);

    // The second account is a teacher, not an administrator; the email is taken whatever its case.
    const b = new CookieClient(srv.url);
    const second = await b.post("/api/account/sign-up", { email: "bo@school.example", displayName: "Mr Bo", password: PASSWORD });
    expect(second.status).toBe(201);
    expect(((await second.json()) as AccountView).admin).toBe(false);
    expect(
      await errorOf(await new CookieClient(srv.url).post("/api/account/sign-up", { ...ana, email: "ANA.teacher@school.example" })),
    ).toMatchObject({
      status: 409,
      code: "EMAIL_TAKEN",
      field: "email",
    });
    expect((await state(new CookieClient(srv.url))).signup.firstAccount).toBe(false);
  });

  it("answers a malformed body with the field and a sentence, and only JSON from this site's own pages", async () => {
    const srv = await server();
    const a = new CookieClient(srv.url);
    expect(await errorOf(await a.post("/api/account/sign-up", { ...ana, password: "short" }))).toEqual({
      status: 400,
      code: "BAD_REQUEST",
      message: "Use at least 10 characters.",
      field: "password",
    });
    expect(await errorOf(await a.post("/api/account/sign-up", { ...ana, email: "not an email" }))).toMatchObject({
      code: "BAD_REQUEST",
      field: "email",
      message: "Enter a valid email address.",
    });
    expect(await errorOf(await a.post("/api/account/sign-up", { ...ana, displayName: "\u200b \u202e" }))).toMatchObject({
      field: "displayName",
    });
    expect(await errorOf(await a.post("/api/account/sign-in", { email: ana.email }))).toMatchObject({ status: 400, field: "password" });
    expect(
      await errorOf(
        await a.request("/api/account/sign-in", { method: "POST", body: "{", headers: { "content-type": "application/json" } }),
      ),
    ).toMatchObject({
      status: 400,
      code: "BAD_REQUEST",
    });

    // A cross-site form can send text/plain without a preflight: refused before anything is read.
    const form = await a.request("/api/account/sign-up", {
      method: "POST",
      body: JSON.stringify(ana),
      headers: { "content-type": "text/plain" },
    });
    expect(await errorOf(form)).toMatchObject({ status: 415, code: "UNSUPPORTED_MEDIA_TYPE" });
    const elsewhere = await a.request("/api/account/sign-up", { method: "POST", json: ana, origin: "https://evil.example" });
    expect(await errorOf(elsewhere)).toMatchObject({ status: 403, code: "CROSS_ORIGIN" });
    const crossSite = await a.request("/api/account/sign-up", {
      method: "POST",
      json: ana,
      origin: null,
      headers: { "sec-fetch-site": "cross-site" },
    });
    expect(await errorOf(crossSite)).toMatchObject({ status: 403, code: "CROSS_ORIGIN" });
    expect(await errorOf(await a.request("/api/account/sign-up"))).toMatchObject({ status: 405, code: "METHOD_NOT_ALLOWED" });
    expect(await errorOf(await a.request("/api/account/nothing-here"))).toMatchObject({ status: 404, code: "NOT_FOUND" });
    // None of it created an account.
    expect((await state(a)).signup.firstAccount).toBe(true);

    // Signed in, a cross-site POST still cannot sign the teacher out of everywhere.
    await a.post("/api/account/sign-up", ana);
    const forged = await a.request("/api/account/sign-out-everywhere", { method: "POST", json: {}, origin: "http://evil.example" });
    expect(forged.status).toBe(403);
    expect((await state(a)).account?.email).toBe("ana.teacher@school.example");
  });

  it("signs in on a second browser; a wrong password and an unknown email get the same answer, in comparable time", async () => {
    const srv = await server();
    await new CookieClient(srv.url).post("/api/account/sign-up", ana);
    const b = new CookieClient(srv.url);

    const timed = async (body: unknown) => {
      const started = performance.now();
      const res = await b.post("/api/account/sign-in", body);
      return { ms: performance.now() - started, error: await errorOf(res) };
    };
    const wrong = await timed({ email: ana.email, password: "not the password at all" });
    const unknown = await timed({ email: "nobody@school.example", password: "not the password at all" });
    expect(wrong.error).toEqual({ status: 401, code: "BAD_CREDENTIALS", message: "That email and password do not match an account." });
    expect(unknown.error).toEqual(wrong.error);
    // Both computed a full scrypt hash (about 0.3 s here): an unknown email is not answered at once.
    expect(unknown.ms).toBeGreaterThan(wrong.ms * 0.4);
    expect(b.cookie("cls_signin")).toBeUndefined();

    const res = await b.post("/api/account/sign-in", { email: "  ANA.TEACHER@school.example ", password: PASSWORD });
    expect(res.status).toBe(200);
    expect(((await res.json()) as AccountView).displayName).toBe("Ms Ana");
    expect((await state(b)).account?.email).toBe("ana.teacher@school.example");
  });

  it("lists the account's signed-in browsers; signing out ends only this one, signing out everywhere ends them all", async () => {
    const srv = await server();
    const a = new CookieClient(srv.url, { "user-agent": "Laptop browser" });
    await a.post("/api/account/sign-up", ana);
    const b = new CookieClient(srv.url, { "user-agent": "School PC browser" });
    const c = new CookieClient(srv.url, { "user-agent": "Phone browser" });
    for (const browser of [b, c])
      expect((await browser.post("/api/account/sign-in", { email: ana.email, password: PASSWORD })).status).toBe(200);

    const { signIns } = await b.getJson<{ signIns: SignInView[] }>("/api/account/sign-ins");
    expect(signIns.map((s) => [s.userAgent, s.current, s.method])).toEqual([
      ["Phone browser", false, "password"],
      ["School PC browser", true, "password"],
      ["Laptop browser", false, "password"],
    ]);
    // The list names sign-ins by an id of their own, never by the cookie.
    expect(JSON.stringify(signIns)).not.toContain(b.cookie("cls_signin")!);

    // B revokes the phone's sign-in from its list.
    const phone = signIns.find((s) => s.userAgent === "Phone browser")!;
    expect((await b.request(`/api/account/sign-ins/${phone.id}`, { method: "DELETE" })).status).toBe(200);
    expect((await state(c)).account).toBeNull();

    const out = await b.post("/api/account/sign-out");
    expect(out.status).toBe(200);
    expect(b.seen.at(-1)).toMatchObject({ name: "cls_signin", value: "" });
    expect(b.seen.at(-1)!.attributes.get("max-age")).toBe("0");
    expect((await state(b)).account).toBeNull();
    expect((await state(a)).account).not.toBeNull();

    for (const browser of [b, c]) await browser.post("/api/account/sign-in", { email: ana.email, password: PASSWORD });
    const everywhere = await a.post("/api/account/sign-out-everywhere");
    expect(await everywhere.json()).toEqual({ ended: 3 });
    for (const browser of [a, b, c]) expect((await state(browser)).account).toBeNull();
    expect(await errorOf(await a.request("/api/account/sign-ins"))).toMatchObject({ status: 401, code: "SIGNED_OUT" });
  });

  it("a stolen-looking or planted cookie signs nobody in, and a sign-in never keeps the cookie the browser came with", async () => {
    const srv = await server();
    const a = new CookieClient(srv.url);
    await a.post("/api/account/sign-up", ana);
    const before = a.cookie("cls_signin")!;
    const planted = new CookieClient(srv.url, { cookie: `cls_signin=${"A".repeat(43)}` });
    expect((await state(planted)).account).toBeNull();
    await a.post("/api/account/sign-in", { email: ana.email, password: PASSWORD });
    const after = a.cookie("cls_signin")!;
    expect(after).not.toBe(before);
    // The one it replaced no longer works.
    expect((await state(new CookieClient(srv.url, { cookie: `cls_signin=${before}` }))).account).toBeNull();
    expect((await state(new CookieClient(srv.url, { cookie: `cls_signin=${after}` }))).account?.email).toBe("ana.teacher@school.example");
  });

  it("limits password guesses per account (the right password too, once over) and sign-ups per address", async () => {
    const srv = await server();
    await new CookieClient(srv.url).post("/api/account/sign-up", ana);
    const guesser = new CookieClient(srv.url);
    const codes: number[] = [];
    for (let i = 0; i < 5; i++)
      codes.push((await guesser.post("/api/account/sign-in", { email: ana.email, password: `guess number ${i}` })).status);
    expect(codes).toEqual([401, 401, 401, 401, 401]);
    // The sixth try is refused before the password is looked at, even the right one.
    const sixth = await guesser.post("/api/account/sign-in", { email: ana.email, password: PASSWORD });
    expect(await errorOf(sixth)).toMatchObject({ status: 429, code: "RATE_LIMITED" });
    // Another account is not slowed by it.
    const other = { email: "bo@school.example", displayName: "Bo", password: PASSWORD };
    expect((await guesser.post("/api/account/sign-up", other)).status).toBe(201);

    // Sign-ups: five at once per address (two used above), then one every two minutes.
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      statuses.push((await new CookieClient(srv.url).post("/api/account/sign-up", { ...other, email: `t${i}@school.example` })).status);
    }
    expect(statuses).toEqual([201, 201, 201, 429]);
  });

  it("deletes the account with its credentials and sign-ins once its email is typed; the email is free again", async () => {
    const srv = await server();
    const a = new CookieClient(srv.url);
    const b = new CookieClient(srv.url);
    await a.post("/api/account/sign-up", ana);
    await b.post("/api/account/sign-in", { email: ana.email, password: PASSWORD });
    expect(await errorOf(await a.post("/api/account/delete", { confirmEmail: "someone@else.example" }))).toMatchObject({
      status: 400,
      code: "CONFIRM_MISMATCH",
      field: "confirmEmail",
    });
    expect((await a.post("/api/account/delete", { confirmEmail: " Ana.Teacher@school.example" })).status).toBe(200);
    for (const browser of [a, b]) expect((await state(browser)).account).toBeNull();
    expect((await b.post("/api/account/sign-in", { email: ana.email, password: PASSWORD })).status).toBe(401);

    const db = new Database(path.join(srv.dataDir, "sessions.sqlite"), { readonly: true });
    const left = ["accounts", "account_passkeys", "account_sign_ins"].map(
      (t) => db.prepare<[], { n: number }>(`SELECT COUNT(*) AS n FROM ${t}`).get()!.n,
    );
    db.close();
    expect(left).toEqual([0, 0, 0]);
    // Signing up again with that email works, and does not make the server's administrator again.
    const again = await new CookieClient(srv.url).post("/api/account/sign-up", ana);
    expect(((await again.json()) as AccountView).admin).toBe(false);
  });

  it("changes the password only with the current one, and shows the administrator every account", async () => {
    const srv = await server();
    const admin = new CookieClient(srv.url);
    await admin.post("/api/account/sign-up", ana);
    const bo = new CookieClient(srv.url);
    await bo.post("/api/account/sign-up", { email: "bo@school.example", displayName: "Mr Bo", password: PASSWORD });

    expect(
      await errorOf(await bo.post("/api/account/password", { currentPassword: "wrong wrong wrong", password: "a brand new passphrase" })),
    ).toMatchObject({
      status: 403,
      field: "currentPassword",
    });
    expect((await bo.post("/api/account/password", { currentPassword: PASSWORD, password: "a brand new passphrase" })).status).toBe(200);
    expect((await new CookieClient(srv.url).post("/api/account/sign-in", { email: "bo@school.example", password: PASSWORD })).status).toBe(
      401,
    );
    expect(
      (await new CookieClient(srv.url).post("/api/account/sign-in", { email: "bo@school.example", password: "a brand new passphrase" }))
        .status,
    ).toBe(200);

    const list = await admin.getJson<{ accounts: { email: string; admin: boolean }[] }>("/api/account/admin/accounts");
    expect(list.accounts.map((x) => [x.email, x.admin])).toEqual([
      ["ana.teacher@school.example", true],
      ["bo@school.example", false],
    ]);
    expect(JSON.stringify(list)).not.toContain("scrypt");
    expect(await errorOf(await bo.request("/api/account/admin/accounts"))).toMatchObject({ status: 403, code: "NOT_ADMIN" });
    expect(await errorOf(await new CookieClient(srv.url).request("/api/account/admin/accounts"))).toMatchObject({ status: 401 });
  });

  it("leaves students' joining alone: no cookie, no account, the same room as before", async () => {
    const srv = await server();
    const created = await srv.createSession("No accounts needed");
    const res = await fetch(`${srv.url}/api/join-info?code=${created.code}`);
    expect(res.status).toBe(200);
    expect(res.headers.getSetCookie()).toEqual([]);
  });
});
