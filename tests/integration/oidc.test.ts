import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AccountState } from "../../lib/account/rest";
import { createClassroomServer, type ClassroomServer } from "../../server/app";
import type { OidcConfig } from "../../server/config";
import { setLogLevel } from "../../server/logger";
import { SqliteSessionStore } from "../../server/store/sqlite";
import { CookieClient } from "../support/cookieClient";
import { freePort } from "../support/loopback";
import { formOf, startOidcProvider, type TestProvider } from "../support/oidcProvider";

/**
 * School sign-in against a real OpenID provider (oidc-provider, certified)
 * started here on a loopback port: the full authorization code flow with
 * PKCE over real HTTP, the provider's own login and consent forms posted, its
 * redirects followed, its tokens and userinfo fetched by the server through
 * openid-client. Nothing is mocked.
 */
setLogLevel("silent");

interface Running {
  url: string;
  server: ClassroomServer;
  idp: TestProvider;
}
const running: Running[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) {
    await r.server.close();
    await r.idp.stop();
  }
});

/** A provider and a classroom server that trusts it, each on its own port. */
async function start(rules: Partial<Pick<OidcConfig, "allowedDomain" | "allowedGroup">> = {}, issuer?: string): Promise<Running> {
  const idp = await startOidcProvider();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "classroom-oidc-"));
  const port = await freePort();
  const server = createClassroomServer({
    config: {
      port,
      host: "127.0.0.1",
      publicUrl: null,
      idleTimeoutMs: 0,
      dev: false,
      adminToken: null,
      oidc: {
        issuer: issuer ?? idp.issuer,
        clientId: idp.clientId,
        clientSecret: idp.clientSecret,
        allowedDomain: rules.allowedDomain ?? null,
        allowedGroup: rules.allowedGroup ?? null,
      },
    },
    store: new SqliteSessionStore(path.join(dataDir, "sessions.sqlite")),
  });
  await server.listen();
  const url = `http://127.0.0.1:${port}`;
  idp.serve([`${url}/auth/oidc/callback`]);
  const r = { url, server, idp };
  running.push(r);
  return r;
}

/** What the browser went through: every address it was sent to, and where it ended. */
interface Journey {
  hops: URL[];
  end: URL;
}

/** A teacher clicks "Sign in with your school account", types `login` on the provider's page and consents. */
async function schoolSignIn(
  browser: CookieClient,
  idp: TestProvider,
  login: string,
  startPath = "/auth/oidc/start?next=/lessons",
): Promise<Journey> {
  const first = await browser.navigate(startPath);
  const hops = [...first.hops];
  expect(first.url.origin, "the start sends the browser to the provider's login page").toBe(idp.issuer);
  const loginForm = formOf(await first.res.text(), first.url);
  const afterLogin = await browser.submitForm(loginForm.action, { ...loginForm.fields, login, password: "whatever the school uses" });
  hops.push(...afterLogin.hops);
  let end = afterLogin;
  if (end.url.origin === idp.issuer) {
    // The provider asks to consent the first time this client asks for this identity.
    const consent = formOf(await end.res.text(), end.url);
    end = await browser.submitForm(consent.action, consent.fields);
    hops.push(...end.hops);
  }
  return { hops, end: end.url };
}

const state = (browser: CookieClient) => browser.getJson<AccountState>("/api/account");
const callbackOf = (j: Journey) => j.hops.find((h) => h.pathname === "/auth/oidc/callback")!;

describe("school sign-in (OIDC)", () => {
  it("runs the authorization code flow with PKCE, state and nonce, creates the account and signs the browser in", async () => {
    const { url, idp } = await start();
    idp.users.set("ana", { email: "Ana@School.example", email_verified: true, name: "Ana Teacher", groups: ["staff"] });
    const a = new CookieClient(url);
    expect((await state(a)).oidc).toEqual({ enabled: true });

    const journey = await schoolSignIn(a, idp, "ana");
    const authorize = journey.hops.find((h) => h.origin === idp.issuer)!;
    expect(Object.fromEntries(authorize.searchParams)).toMatchObject({
      client_id: idp.clientId,
      response_type: "code",
      redirect_uri: `${url}/auth/oidc/callback`,
      scope: "openid email profile",
      code_challenge_method: "S256",
    });
    expect(authorize.searchParams.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(authorize.searchParams.get("state")).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(authorize.searchParams.get("nonce")).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    // The verifier itself never travels through the browser.
    expect(journey.hops.map((h) => h.href).join(" ")).not.toMatch(/code_verifier/);
    expect(callbackOf(journey).searchParams.get("code")).toBeTruthy();
    expect(journey.end.pathname).toBe("/lessons");

    // Email and name came from the provider's userinfo endpoint (not in the ID token by default).
    const signedIn = (await state(a)).account;
    expect(signedIn).toMatchObject({
      email: "ana@school.example",
      displayName: "Ana Teacher",
      hasOidc: true,
      hasPassword: false,
      admin: true,
    });
    const list = await a.getJson<{ signIns: { method: string }[] }>("/api/account/sign-ins");
    expect(list.signIns.map((s) => s.method)).toEqual(["oidc"]);

    // Another browser, the same school identity: the same account, not a second one.
    const b = new CookieClient(url);
    const again = await schoolSignIn(b, idp, "ana", "/auth/oidc/start");
    expect(again.end.pathname).toBe("/account");
    expect((await state(b)).account?.id).toBe(signedIn!.id);
  });

  it("refuses a callback that is replayed, arrives in another browser, or carries a state the browser did not start", async () => {
    const { url, idp } = await start();
    idp.users.set("bo", { email: "bo@school.example", email_verified: true });
    const a = new CookieClient(url);
    const journey = await schoolSignIn(a, idp, "bo");
    expect((await state(a)).account?.email).toBe("bo@school.example");
    const callback = callbackOf(journey);

    // The same callback (code and state) again, in the same browser: the state was used up.
    const replay = await a.navigate(callback.href);
    expect(replay.url.pathname + replay.url.search).toBe("/account/sign-in?error=OIDC_FAILED");
    // Someone who got hold of the callback address, in their own browser: no ceremony of theirs matches it.
    const thief = new CookieClient(url);
    const stolen = await thief.navigate(callback.href);
    expect(stolen.url.pathname + stolen.url.search).toBe("/account/sign-in?error=OIDC_FAILED");
    expect((await state(thief)).account).toBeNull();

    // A flow this browser started and the provider answered, with the state changed on the way back (an
    // attacker's state, or one from another flow): the code is fresh and the verifier is this browser's, so only
    // the state check stands in the way.
    const c = new CookieClient(url);
    const toCallback = (next: URL) => next.pathname === "/auth/oidc/callback";
    const loginPage = await c.navigate("/auth/oidc/start");
    const loginForm = formOf(await loginPage.res.text(), loginPage.url);
    let answer = await c.submitForm(loginForm.action, { ...loginForm.fields, login: "bo", password: "x" }, 10, toCallback);
    if (answer.res.status === 200) {
      const consent = formOf(await answer.res.text(), answer.url);
      answer = await c.submitForm(consent.action, consent.fields, 10, toCallback);
    }
    const genuine = new URL(answer.res.headers.get("location")!, answer.url);
    expect(genuine.pathname).toBe("/auth/oidc/callback");
    const forged = new URL(genuine);
    forged.searchParams.set("state", "attacker-chosen-state-value");
    const refused = await c.navigate(forged.href);
    expect(refused.url.search).toBe("?error=OIDC_FAILED");
    expect((await state(c)).account).toBeNull();
    // The ceremony is used up by the refusal: the genuine answer, arriving now, is refused too.
    expect((await c.navigate(genuine.href)).url.search).toBe("?error=OIDC_FAILED");
    // The provider's own refusal (the teacher cancelled) comes back as a refusal too.
    await c.navigate("/auth/oidc/start");
    const cancelled = await c.navigate(`/auth/oidc/callback?error=access_denied&state=x`);
    expect(cancelled.url.search).toBe("?error=OIDC_FAILED");
  });

  it("lets in only verified emails of the allowed domain, and only members of the allowed group", async () => {
    const { url, idp } = await start({ allowedDomain: "school.example", allowedGroup: "teachers" });
    idp.users.set("outsider", { email: "someone@elsewhere.example", email_verified: true, groups: ["teachers"] });
    idp.users.set("unverified", { email: "new@school.example", email_verified: false, groups: ["teachers"] });
    idp.users.set("student", { email: "kid@school.example", email_verified: true, groups: ["students"] });
    idp.users.set("teacher", { email: "cy@school.example", email_verified: true, groups: ["staff", "teachers"] });
    for (const login of ["outsider", "unverified", "student"]) {
      const browser = new CookieClient(url);
      const journey = await schoolSignIn(browser, idp, login);
      expect(journey.end.pathname + journey.end.search, login).toBe("/account/sign-in?error=OIDC_NOT_ALLOWED");
      expect((await state(browser)).account, login).toBeNull();
    }
    const browser = new CookieClient(url);
    expect((await schoolSignIn(browser, idp, "teacher")).end.pathname).toBe("/lessons");
    expect((await state(browser)).account).toMatchObject({ email: "cy@school.example", admin: true });
    // Refused identities created nothing.
    expect((await state(browser)).signup.firstAccount).toBe(false);
  });

  it("never takes over an account that has the same email; its owner links school sign-in from their account", async () => {
    const { url, idp } = await start();
    idp.users.set("di-at-school", { email: "di@school.example", email_verified: true, name: "Di" });
    const owner = new CookieClient(url);
    await owner.post("/api/account/sign-up", { email: "di@school.example", displayName: "Di", password: "di's own passphrase" });

    const other = new CookieClient(url);
    const journey = await schoolSignIn(other, idp, "di-at-school");
    expect(journey.end.pathname + journey.end.search).toBe("/account/sign-in?error=OIDC_EMAIL_IN_USE");
    expect((await state(other)).account).toBeNull();

    // Linking needs the owner's sign-in: without it, it goes no further than a refusal.
    const anonymous = await new CookieClient(url).navigate("/auth/oidc/start?link=1");
    expect(anonymous.url.pathname + anonymous.url.search).toBe("/account/sign-in?error=SIGNED_OUT");
    const linked = await schoolSignIn(owner, idp, "di-at-school", "/auth/oidc/start?link=1");
    expect(linked.end.pathname + linked.end.search).toBe("/account?linked=1");
    expect((await state(owner)).account).toMatchObject({ hasOidc: true, hasPassword: true });

    const later = new CookieClient(url);
    expect((await schoolSignIn(later, idp, "di-at-school")).end.pathname).toBe("/lessons");
    expect((await state(later)).account?.email).toBe("di@school.example");
  });

  it("says so plainly when the provider cannot be reached, and refuses a start from another site", async () => {
    const dead = `http://127.0.0.1:${await freePort()}`;
    const { url } = await start({}, dead);
    const a = new CookieClient(url);
    const res = await a.request("/auth/oidc/start");
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/account/sign-in?error=OIDC_FAILED");
    const crossSite = await a.request("/auth/oidc/start", { headers: { "sec-fetch-site": "cross-site" } });
    expect(crossSite.status).toBe(403);
  });
});
