import { afterEach, describe, expect, it } from "vitest";
import type { AccountState, AccountView } from "../../lib/account/rest";
import { CookieClient } from "../support/cookieClient";
import { SoftAuthenticator, type AuthenticationOptions, type RegistrationOptions } from "../support/softAuthenticator";
import { startServer, type TestServer } from "../support/testServer";

/**
 * Passkeys through the running server: a software authenticator answers the
 * server's options as a platform authenticator would, and the server's real
 * WebAuthn verification checks every byte (challenge, origin, relying party,
 * user verification, signature, user handle). Chromium's own virtual
 * authenticator does the same in e2e/accounts.spec.ts.
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

const state = (browser: CookieClient) => browser.getJson<AccountState>("/api/account");
async function errorCode(res: Response): Promise<string> {
  return ((await res.json()) as { error: { code: string } }).error.code;
}

/** The two-request sign-up with a passkey, as the sign-up page runs it. */
async function passkeySignUp(browser: CookieClient, device: SoftAuthenticator, who = { email: "cy@school.example", displayName: "Cy" }) {
  const options = (await (await browser.post("/api/account/passkey/sign-up/options", who)).json()) as RegistrationOptions;
  return browser.post("/api/account/passkey/sign-up/verify", { response: device.register(options) });
}

async function passkeySignIn(
  browser: CookieClient,
  device: SoftAuthenticator,
  overrides: Parameters<SoftAuthenticator["authenticate"]>[1] = {},
) {
  const options = (await (await browser.post("/api/account/passkey/sign-in/options")).json()) as AuthenticationOptions;
  return browser.post("/api/account/passkey/sign-in/verify", { response: device.authenticate(options, overrides) });
}

describe("passkeys", () => {
  it("signs up with a passkey alone, then signs in on another browser with it, without typing an email", async () => {
    const srv = await server();
    const device = new SoftAuthenticator(srv.url);
    const a = new CookieClient(srv.url);
    const options = (await (
      await a.post("/api/account/passkey/sign-up/options", { email: "cy@school.example", displayName: "Cy" })
    ).json()) as {
      rp: { id: string };
      user: { name: string; id: string };
      authenticatorSelection: { residentKey: string; userVerification: string };
      attestation: string;
    };
    // A discoverable credential for this host, user verification required, no attestation asked for, and a
    // user handle that is not the email.
    expect(options.rp.id).toBe("127.0.0.1");
    expect(options.authenticatorSelection).toMatchObject({ residentKey: "required", userVerification: "required" });
    expect(options.attestation).toBe("none");
    expect(options.user.name).toBe("cy@school.example");
    expect(Buffer.from(options.user.id, "base64url").toString("utf8")).not.toContain("cy@");
    // Nothing is created before the passkey is verified.
    expect((await state(new CookieClient(srv.url))).signup.firstAccount).toBe(true);

    const verified = await a.post("/api/account/passkey/sign-up/verify", {
      response: device.register(options as unknown as RegistrationOptions),
    });
    expect(verified.status).toBe(201);
    const account = (await verified.json()) as AccountView;
    expect(account).toMatchObject({
      email: "cy@school.example",
      admin: true,
      hasPassword: false,
      passkeys: [{ backedUp: true, lastUsedAt: null }],
    });
    expect((await state(a)).account?.id).toBe(account.id);

    const b = new CookieClient(srv.url);
    const signedIn = await passkeySignIn(b, device);
    expect(signedIn.status).toBe(200);
    expect((await state(b)).account).toMatchObject({ id: account.id, passkeys: [{ lastUsedAt: expect.any(Number) }] });
    // The sign-ins list says how each browser got in.
    const list = await b.getJson<{ signIns: { method: string; current: boolean }[] }>("/api/account/sign-ins");
    expect(list.signIns.map((s) => [s.method, s.current])).toEqual([
      ["passkey", true],
      ["passkey", false],
    ]);
  });

  it("refuses an answer for another site, a replayed challenge, an unverified user, a wrong user handle and an unknown key", async () => {
    const srv = await server();
    const device = new SoftAuthenticator(srv.url);
    expect((await passkeySignUp(new CookieClient(srv.url), device)).status).toBe(201);
    const b = new CookieClient(srv.url);

    // Signed for a phishing page's origin: the browser puts the real origin in what the key signs.
    expect(await errorCode(await passkeySignIn(b, device, { origin: "https://phish.example" }))).toBe("PASSKEY_FAILED");

    // A challenge answers once: the same signed answer sent again (with a new ceremony cookie) is refused.
    const options = (await (await b.post("/api/account/passkey/sign-in/options")).json()) as AuthenticationOptions;
    const answer = device.authenticate(options);
    expect((await b.post("/api/account/passkey/sign-in/verify", { response: answer })).status).toBe(200);
    await b.post("/api/account/sign-out");
    await b.post("/api/account/passkey/sign-in/options");
    expect(await errorCode(await b.post("/api/account/passkey/sign-in/verify", { response: answer }))).toBe("PASSKEY_FAILED");
    // ...and without any ceremony at all.
    const stranger = new CookieClient(srv.url);
    expect(await errorCode(await stranger.post("/api/account/passkey/sign-in/verify", { response: answer }))).toBe("PASSKEY_FAILED");

    device.userVerified = false;
    expect(await errorCode(await passkeySignIn(b, device))).toBe("PASSKEY_FAILED");
    device.userVerified = true;
    expect(await errorCode(await passkeySignIn(b, device, { userHandle: Buffer.from("someone else").toString("base64url") }))).toBe(
      "PASSKEY_FAILED",
    );
    // A key this server never registered (made by the same kind of device, for the same site).
    const stray = new SoftAuthenticator(srv.url);
    stray.register({ challenge: "never-sent", rp: { name: "x" }, user: { id: "c3RyYXk", name: "stray", displayName: "Stray" } });
    expect(await errorCode(await passkeySignIn(b, stray))).toBe("PASSKEY_FAILED");
    expect((await state(b)).account).toBeNull();
    // A malformed answer is a 400 naming the field, before any verification.
    await b.post("/api/account/passkey/sign-in/options");
    const malformed = await b.post("/api/account/passkey/sign-in/verify", { response: { ...answer, type: "password" } });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { error: { field: string } }).error.field).toBe("response.type");
  });

  it("adds a second passkey to a password account, and keeps the last way in from being removed", async () => {
    const srv = await server();
    const a = new CookieClient(srv.url);
    await a.post("/api/account/sign-up", { email: "di@school.example", displayName: "Di", password: "a good long passphrase" });
    const laptop = new SoftAuthenticator(srv.url);
    const options = (await (await a.post("/api/account/passkey/add/options")).json()) as RegistrationOptions;
    const added = await a.post("/api/account/passkey/add/verify", { response: laptop.register(options) });
    expect(added.status).toBe(200);
    const account = (await added.json()) as AccountView;
    expect(account.passkeys).toHaveLength(1);
    // Adding needs the sign-in: another browser cannot attach its key to this account.
    expect(await errorCode(await new CookieClient(srv.url).post("/api/account/passkey/add/options"))).toBe("SIGNED_OUT");

    const b = new CookieClient(srv.url);
    expect((await passkeySignIn(b, laptop)).status).toBe(200);
    expect((await state(b)).account?.email).toBe("di@school.example");

    // A passkey-only account cannot remove its only passkey; this one has a password, so it may.
    const device = new SoftAuthenticator(srv.url);
    const c = new CookieClient(srv.url);
    const only = (await (await passkeySignUp(c, device, { email: "ed@school.example", displayName: "Ed" })).json()) as AccountView;
    expect(await errorCode(await c.request(`/api/account/passkeys/${only.passkeys[0].id}`, { method: "DELETE" }))).toBe("LAST_CREDENTIAL");
    expect(await errorCode(await c.request(`/api/account/passkeys/${account.passkeys[0].id}`, { method: "DELETE" }))).toBe("NOT_FOUND");
    expect((await a.request(`/api/account/passkeys/${account.passkeys[0].id}`, { method: "DELETE" })).status).toBe(200);
    expect(await errorCode(await passkeySignIn(new CookieClient(srv.url), laptop))).toBe("PASSKEY_FAILED");
  });

  it("does not start a passkey sign-up for an email that has an account", async () => {
    const srv = await server();
    await new CookieClient(srv.url).post("/api/account/sign-up", {
      email: "fa@school.example",
      displayName: "Fa",
      password: "a good long passphrase",
    });
    const res = await new CookieClient(srv.url).post("/api/account/passkey/sign-up/options", {
      email: "FA@school.example",
      displayName: "Not Fa",
    });
    expect(res.status).toBe(409);
    expect(await errorCode(res)).toBe("EMAIL_TAKEN");
  });
});
