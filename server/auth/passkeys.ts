import type { IncomingMessage, ServerResponse } from "node:http";
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticatorTransportFuture,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
} from "@simplewebauthn/server";
import { z } from "zod";
import type { AccountView } from "../../lib/account/rest";
import { log } from "../logger";
import type { Account } from "../store/accounts";
import { admitSignUp, draftAccount, logCreated } from "./accountRoutes";
import { addressOfRequest, pageOrigin, type AuthContext } from "./context";
import { AuthError, rateLimited } from "./errors";
import { authenticationVerifyBody, parseBody, passkeySignUpBody, registrationVerifyBody } from "./schemas";
import { accountView, requireSignIn, startCeremony, startSignIn, takeCeremony } from "./signIns";

/**
 * Passkeys (WebAuthn, through @simplewebauthn/server). Each ceremony is two
 * requests: the options (a fresh challenge, stored under the ceremony cookie
 * for ten minutes, one use) and the browser's answer, verified against that
 * challenge, this page's origin and its host name as relying party id. User
 * verification (the device's PIN or biometric) is required, so a passkey is a
 * whole sign-in on its own; attestation is not asked for (no device model is
 * collected). Sign-in is "usernameless": the browser offers the passkeys it
 * holds for this site, so no email is typed and none is confirmed or denied.
 */

const RP_NAME = "Dynamic provisioning, live";
const TRANSPORTS = new Set<string>(["ble", "cable", "hybrid", "internal", "nfc", "smart-card", "usb"]);
const isTransport = (t: string): t is AuthenticatorTransportFuture => TRANSPORTS.has(t);

/** What a registration ceremony remembers between its two requests. */
const registerState = z.object({
  challenge: z.string(),
  origin: z.string(),
  rpId: z.string(),
  /** Sign-up: the account to create once the passkey checks out. */
  draft: z.object({ id: z.string(), email: z.string(), displayName: z.string(), userHandle: z.string(), createdAt: z.number() }).optional(),
  /** Adding a passkey to a signed-in account. */
  accountId: z.string().optional(),
});
const authenticateState = z.object({ challenge: z.string(), origin: z.string(), rpId: z.string() });

function ceremonyFailed(reason: string, extra: Record<string, unknown> = {}): AuthError {
  log.info("passkey ceremony refused", { reason, ...extra });
  return new AuthError(400, "PASSKEY_FAILED");
}

function admitCeremony(ctx: AuthContext, req: IncomingMessage): void {
  if (!ctx.limiters.ceremoniesPerAddress.take(addressOfRequest(ctx, req))) throw rateLimited();
}

async function registrationOptions(
  ctx: AuthContext,
  req: IncomingMessage,
  res: ServerResponse,
  user: { email: string; displayName: string; userHandle: string },
  state: { draft?: z.infer<typeof registerState>["draft"]; accountId?: string },
  exclude: string[],
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const origin = pageOrigin(ctx, req);
  const options = await generateRegistrationOptions({
    rpName: RP_NAME,
    rpID: origin.hostname,
    userName: user.email,
    userDisplayName: user.displayName,
    userID: Buffer.from(user.userHandle, "base64url"),
    attestationType: "none",
    excludeCredentials: exclude.map((id) => ({ id })),
    authenticatorSelection: { residentKey: "required", userVerification: "required" },
  });
  await startCeremony(ctx, req, res, "passkey-register", {
    challenge: options.challenge,
    origin: origin.origin,
    rpId: origin.hostname,
    ...state,
  } satisfies z.infer<typeof registerState>);
  return options;
}

/** Checks the browser's new credential against the stored ceremony; the passkey to store, or a refusal. */
async function verifyRegistration(ctx: AuthContext, req: IncomingMessage, res: ServerResponse, body: unknown) {
  const { response } = parseBody(registrationVerifyBody, body);
  const state = registerState.safeParse(await takeCeremony(ctx, req, res, "passkey-register"));
  if (!state.success) throw ceremonyFailed("no registration in progress");
  const { challenge, origin, rpId } = state.data;
  const verified = await verifyRegistrationResponse({
    response: {
      ...response,
      response: { ...response.response, transports: response.response.transports?.filter(isTransport) },
      clientExtensionResults: {},
    },
    expectedChallenge: challenge,
    expectedOrigin: origin,
    expectedRPID: rpId,
    requireUserVerification: true,
  }).catch((err: unknown) => {
    throw ceremonyFailed("registration did not verify", { error: err instanceof Error ? err.message : String(err) });
  });
  if (!verified.verified) throw ceremonyFailed("registration did not verify");
  const info = verified.registrationInfo;
  const passkey = (accountId: string) => ({
    credentialId: info.credential.id,
    accountId,
    publicKey: Buffer.from(info.credential.publicKey).toString("base64url"),
    counter: info.credential.counter,
    transports: info.credential.transports ?? [],
    backedUp: info.credentialBackedUp,
    createdAt: ctx.now(),
    lastUsedAt: null,
  });
  return { state: state.data, passkey };
}

export function createPasskeyRoutes(ctx: AuthContext) {
  return {
    /** Sign-up, step 1: the email must be free (as the password sign-up says too) and sign-up open. */
    async signUpOptions(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<PublicKeyCredentialCreationOptionsJSON> {
      if (!ctx.settings.signupOpen) throw new AuthError(403, "SIGNUP_CLOSED");
      admitCeremony(ctx, req);
      const { email, displayName } = parseBody(passkeySignUpBody, body);
      if (await ctx.store.accountByEmail(email)) throw new AuthError(409, "EMAIL_TAKEN", undefined, undefined, "email");
      const draft = draftAccount(ctx, email, displayName);
      return registrationOptions(ctx, req, res, draft, { draft }, []);
    },

    /** Sign-up, step 2: the account is created only now, with its passkey, and the browser is signed in. */
    async signUpVerify(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<AccountView> {
      const { state, passkey } = await verifyRegistration(ctx, req, res, body);
      if (!state.draft) throw ceremonyFailed("not a sign-up");
      admitSignUp(ctx, req);
      const created = await ctx.store.createAccount({ ...state.draft, passwordHash: null, oidc: null });
      if (!created.ok) throw new AuthError(409, "EMAIL_TAKEN", undefined, undefined, "email");
      if (!(await ctx.store.addPasskey(passkey(created.account.id)))) {
        await ctx.store.deleteAccount(created.account.id);
        throw ceremonyFailed("credential already registered");
      }
      logCreated(created.account, "passkey");
      await startSignIn(ctx, req, res, created.account, "passkey");
      return accountView(ctx, created.account);
    },

    async addOptions(req: IncomingMessage, res: ServerResponse): Promise<PublicKeyCredentialCreationOptionsJSON> {
      const { account } = await requireSignIn(ctx, req);
      admitCeremony(ctx, req);
      const existing = (await ctx.store.passkeysOf(account.id)).map((p) => p.credentialId);
      return registrationOptions(ctx, req, res, account, { accountId: account.id }, existing);
    },

    async addVerify(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<AccountView> {
      const { account } = await requireSignIn(ctx, req);
      const { state, passkey } = await verifyRegistration(ctx, req, res, body);
      if (state.accountId !== account.id) throw ceremonyFailed("started by another account");
      if (!(await ctx.store.addPasskey(passkey(account.id)))) throw ceremonyFailed("credential already registered");
      return accountView(ctx, account);
    },

    async signInOptions(req: IncomingMessage, res: ServerResponse): Promise<PublicKeyCredentialRequestOptionsJSON> {
      admitCeremony(ctx, req);
      const origin = pageOrigin(ctx, req);
      const options = await generateAuthenticationOptions({ rpID: origin.hostname, userVerification: "required" });
      await startCeremony(ctx, req, res, "passkey-authenticate", {
        challenge: options.challenge,
        origin: origin.origin,
        rpId: origin.hostname,
      } satisfies z.infer<typeof authenticateState>);
      return options;
    },

    async signInVerify(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<AccountView> {
      if (!ctx.limiters.signInPerAddress.take(addressOfRequest(ctx, req))) throw rateLimited();
      const { response } = parseBody(authenticationVerifyBody, body);
      const state = authenticateState.safeParse(await takeCeremony(ctx, req, res, "passkey-authenticate"));
      if (!state.success) throw ceremonyFailed("no sign-in in progress");
      const passkey = await ctx.store.passkey(response.id);
      const account: Account | null = passkey ? await ctx.store.account(passkey.accountId) : null;
      if (!passkey || !account) throw ceremonyFailed("unknown credential");
      // The authenticator names the account it made the credential for; it must be the one the credential belongs to.
      if (response.response.userHandle !== undefined && response.response.userHandle !== account.userHandle)
        throw ceremonyFailed("user handle does not match", { accountId: account.id });
      const verified = await verifyAuthenticationResponse({
        response: { ...response, clientExtensionResults: {} },
        expectedChallenge: state.data.challenge,
        expectedOrigin: state.data.origin,
        expectedRPID: state.data.rpId,
        credential: {
          id: passkey.credentialId,
          publicKey: Buffer.from(passkey.publicKey, "base64url"),
          counter: passkey.counter,
          transports: passkey.transports.filter(isTransport),
        },
        requireUserVerification: true,
      }).catch((err: unknown) => {
        throw ceremonyFailed("assertion did not verify", {
          accountId: account.id,
          error: err instanceof Error ? err.message : String(err),
        });
      });
      if (!verified.verified) throw ceremonyFailed("assertion did not verify", { accountId: account.id });
      await ctx.store.notePasskeyUse(passkey.credentialId, verified.authenticationInfo.newCounter, ctx.now());
      await startSignIn(ctx, req, res, account, "passkey");
      return accountView(ctx, account);
    },

    /** Removes one of the account's passkeys, unless it is the only way left to sign in. */
    async remove(req: IncomingMessage, credentialId: string): Promise<AccountView> {
      const { account } = await requireSignIn(ctx, req);
      const passkeys = await ctx.store.passkeysOf(account.id);
      if (!passkeys.some((p) => p.credentialId === credentialId)) throw new AuthError(404, "NOT_FOUND", "No such passkey on your account.");
      if (passkeys.length === 1 && account.passwordHash === null && account.oidc === null) throw new AuthError(409, "LAST_CREDENTIAL");
      await ctx.store.removePasskey(account.id, credentialId);
      return accountView(ctx, account);
    },
  };
}
