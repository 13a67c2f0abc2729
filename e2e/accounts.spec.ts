import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import { startOidcProvider, type TestProvider } from "../tests/support/oidcProvider";
import { expectAccessible } from "./axe";
import { closeContextsAfterEach } from "./fixtures";

/**
 * Teachers' accounts in real Chromium: sign up with a password in browser A,
 * sign out, sign in on a fresh browser B; a passkey made in Chromium's
 * virtual authenticator and used on another browser; and school sign-in
 * against a real OpenID provider (oidc-provider) that this spec starts on the
 * port playwright.config.ts gave the server as OIDC_ISSUER.
 */

closeContextsAfterEach();

const PASSWORD = "river stone lantern pebble";

async function fresh(context: BrowserContext): Promise<Page> {
  return context.newPage();
}

/** The focused element draws a visible outline (the site's :focus-visible style). */
async function expectVisibleFocus(page: Page) {
  const outline = await page.evaluate(() => {
    const el = document.activeElement;
    if (!el || el === document.body) return "none";
    return getComputedStyle(el).outlineStyle;
  });
  expect(outline).not.toBe("none");
}

// Tagged @first-account: it runs before every other spec (playwright.config.ts), so its teacher is the server's first.
test("a teacher signs up with a password on browser A, signs out, and signs in on a fresh browser B @first-account", async ({
  browser,
}) => {
  const a = await fresh(await browser.newContext());
  // The first account on a server becomes its administrator; the sign-up page says so beforehand.
  const { signup } = (await (await a.request.get("/api/account")).json()) as { signup: { firstAccount: boolean } };
  expect(signup.firstAccount, "no other spec has signed a teacher up yet").toBe(true);
  await a.goto("/");
  await expect(a.getByTestId("sign-in")).toBeVisible();
  await expect(a.getByTestId("account-menu")).toHaveCount(0);
  await a.getByTestId("sign-up").click();
  await expect(a).toHaveURL(/\/account\/sign-up\?next=%2F$/);
  await expect(a.getByRole("heading", { level: 1, name: "Create a teacher account" })).toBeVisible();
  await expect(a.getByTestId("first-account-note")).toHaveCount(1);
  await expectAccessible(a, "sign-up page");

  // A too-short password is refused with the rule, beside the field, and announced.
  await a.getByLabel("Your name", { exact: true }).fill("Ms Rivera");
  await a.getByLabel("Email", { exact: true }).fill("rivera@school.example");
  await a.getByLabel("Password", { exact: true }).fill("short");
  await a.getByTestId("sign-up-submit").click();
  await expect(a.getByTestId("account-error")).toHaveText("Use at least 10 characters.");
  await expect(a.getByLabel("Password", { exact: true })).toHaveAttribute("aria-invalid", "true");

  // Then by keyboard alone: back to the password field, type, and Enter submits.
  await a.getByLabel("Password", { exact: true }).focus();
  await expectVisibleFocus(a);
  await a.keyboard.press("ControlOrMeta+A");
  await a.keyboard.type(PASSWORD);
  await a.keyboard.press("Enter");
  await expect(a).toHaveURL(/\/$/);
  const menu = a.getByTestId("account-menu");
  await expect(menu).toHaveAttribute("data-account", "Ms Rivera");
  await expect(menu).toContainText("admin");
  await expectAccessible(a, "landing, signed in");

  // The menu reaches the account page, which lists this browser's sign-in.
  await a.goto("/account");
  await expect(a.getByTestId("sign-in-list").getByRole("listitem")).toHaveCount(1);
  await expect(a.getByTestId("sign-in-list")).toContainText("this browser");
  await expectAccessible(a, "account page");
  await a.goto("/");
  await a.getByTestId("sign-out").click();
  await expect(a.getByTestId("sign-in")).toBeVisible();
  await expect(a.getByTestId("account-menu")).toHaveCount(0);
  await expect(a.getByRole("status").filter({ hasText: "You are signed out." })).toBeVisible();
  await a.reload();
  await expect(a.getByTestId("account-menu")).toHaveCount(0);

  // Browser B: a fresh context, from the saved sessions page, and back there once signed in.
  const b = await fresh(await browser.newContext());
  await b.goto("/sessions");
  await b.getByTestId("sign-in").click();
  await expect(b).toHaveURL(/\/account\/sign-in\?next=%2Fsessions$/);
  await expectAccessible(b, "sign-in page");
  await b.getByLabel("Email", { exact: true }).fill("rivera@school.example");
  await b.getByLabel("Password", { exact: true }).fill("not the password at all");
  await b.getByLabel("Password", { exact: true }).press("Enter");
  await expect(b.getByTestId("account-error")).toHaveText("That email and password do not match an account.");
  await expect(b.getByTestId("account-error")).toHaveAttribute("role", "alert");
  await b.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await b.getByTestId("sign-in-submit").click();
  await expect(b).toHaveURL(/\/sessions$/);
  await expect(b.getByTestId("account-menu")).toHaveAttribute("data-account", "Ms Rivera");
  await b.goto("/lessons");
  await expect(b.getByTestId("account-menu")).toHaveAttribute("data-account", "Ms Rivera");
  // A still signed out: B's sign-in is B's alone.
  await a.reload();
  await expect(a.getByTestId("sign-in")).toBeVisible();
});

test("a passkey made in one browser signs the teacher in on another, without a password", async ({ browser, baseURL }) => {
  // WebAuthn needs a secure page with a host name for the relying party: http://localhost is one, 127.0.0.1 is not.
  const site = baseURL!.replace("127.0.0.1", "localhost");
  const contextA = await browser.newContext({ baseURL: site });
  const a = await fresh(contextA);
  const cdpA = await contextA.newCDPSession(a);
  await cdpA.send("WebAuthn.enable");
  const options = {
    protocol: "ctap2" as const,
    transport: "internal" as const,
    hasResidentKey: true,
    hasUserVerification: true,
    isUserVerified: true,
    automaticPresenceSimulation: true,
  };
  const { authenticatorId } = await cdpA.send("WebAuthn.addVirtualAuthenticator", { options });
  await a.goto("/account/sign-up");
  await a.getByLabel("Your name", { exact: true }).fill("Mr Okoro");
  await a.getByLabel("Email", { exact: true }).fill("okoro@school.example");
  await a.getByTestId("sign-up-passkey").click();
  await expect(a).toHaveURL(/\/account$/);
  await expect(a.getByTestId("account-menu")).toHaveAttribute("data-account", "Mr Okoro");
  await expect(a.getByText(/Passkey 1, added/)).toBeVisible();

  // The passkey syncs to the teacher's other device: the same credential in B's authenticator.
  const { credentials } = await cdpA.send("WebAuthn.getCredentials", { authenticatorId });
  expect(credentials).toHaveLength(1);
  const contextB = await browser.newContext({ baseURL: site });
  const b = await fresh(contextB);
  const cdpB = await contextB.newCDPSession(b);
  await cdpB.send("WebAuthn.enable");
  const { authenticatorId: idB } = await cdpB.send("WebAuthn.addVirtualAuthenticator", { options });
  await cdpB.send("WebAuthn.addCredential", { authenticatorId: idB, credential: credentials[0] });
  await b.goto("/account/sign-in?next=/lessons");
  await b.getByTestId("sign-in-passkey").click();
  await expect(b).toHaveURL(/\/lessons$/);
  await expect(b.getByTestId("account-menu")).toHaveAttribute("data-account", "Mr Okoro");
});

test.describe("school sign-in", () => {
  let idp: TestProvider;
  test.beforeAll(async ({ baseURL }) => {
    idp = await startOidcProvider({ port: Number(process.env.E2E_OIDC_PORT), clientSecret: process.env.E2E_OIDC_SECRET });
    idp.serve([`${baseURL}/auth/oidc/callback`]);
    idp.users.set("okafor", { email: "okafor@school.example", email_verified: true, name: "Dr Okafor", groups: ["staff"] });
  });
  test.afterAll(async () => {
    await idp.stop();
  });

  test("signs in with the school's identity provider and lands back on the page it started from", async ({ browser }) => {
    const page = await fresh(await browser.newContext());
    await page.goto("/lessons");
    await page.getByTestId("sign-in").click();
    await page.getByTestId("sign-in-oidc").click();
    // The provider's own login page, on its own origin.
    await expect(page).toHaveURL(new RegExp(`^${idp.issuer}/interaction/`));
    await page.locator('input[name="login"]').fill("okafor");
    await page.locator('input[name="password"]').fill("anything");
    await page.getByRole("button", { name: "Sign-in" }).click();
    await page.getByRole("button", { name: "Continue" }).click();
    await expect(page).toHaveURL(/127\.0\.0\.1:\d+\/lessons$/);
    await expect(page.getByTestId("account-menu")).toHaveAttribute("data-account", "Dr Okafor");
    await page.goto("/account");
    await expect(page.getByText("Linked: you can sign in with your school account.")).toBeVisible();
  });
});
