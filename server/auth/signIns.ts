import type { IncomingMessage, ServerResponse } from "node:http";
import type { AccountView, SignInMethod } from "../../lib/account/rest";
import { hashSecret, newId, newSecret } from "../secrets";
import type { Account, Ceremony, SignIn } from "../store/accounts";
import { clearCookie, readCookie, setCookie } from "./cookies";
import {
  CEREMONY_TTL_MS,
  SIGN_IN_TOUCH_MS,
  SIGN_IN_TTL_MS,
  createLimiters,
  isSecure,
  userAgentOf,
  type AuthContext,
  type AuthSettings,
} from "./context";
import type { AccountStore } from "../store/accounts";
import { signedOut } from "./errors";

/**
 * Signed-in browsers and ceremonies in progress, each named by a random
 * cookie whose SHA-256 is all the store holds: reading the database (or a
 * backup of it) signs nobody in.
 */

/** Signs the browser in as `account`: a new sign-in, its cookie set on the response. */
export async function startSignIn(
  ctx: AuthContext,
  req: IncomingMessage,
  res: ServerResponse,
  account: Account,
  method: SignInMethod,
): Promise<void> {
  // A sign-in always gets a new id: whatever cookie the browser held before (planted or stale) is not promoted.
  const previous = readCookie(req, "signIn");
  if (previous) await ctx.store.endSignIn(hashSecret(previous));
  const secret = newSecret();
  const now = ctx.now();
  await ctx.store.createSignIn({
    idHash: hashSecret(secret),
    publicId: newId(),
    accountId: account.id,
    method,
    createdAt: now,
    expiresAt: now + SIGN_IN_TTL_MS,
    lastSeenAt: now,
    userAgent: userAgentOf(req),
  });
  setCookie(res, "signIn", secret, SIGN_IN_TTL_MS / 1000, isSecure(ctx, req));
}

export interface Current {
  signIn: SignIn;
  account: Account;
}

/** The browser's sign-in and its account, or null (no cookie, an unknown or expired one, or a deleted account). */
export async function currentSignIn(ctx: AuthContext, req: IncomingMessage): Promise<Current | null> {
  const secret = readCookie(req, "signIn");
  if (!secret) return null;
  const now = ctx.now();
  const signIn = await ctx.store.signIn(hashSecret(secret), now);
  if (!signIn) return null;
  const account = await ctx.store.account(signIn.accountId);
  if (!account) return null;
  if (now - signIn.lastSeenAt >= SIGN_IN_TOUCH_MS) await ctx.store.touchSignIn(signIn.idHash, now);
  return { signIn, account };
}

/** For the rest of the API (sessions, lessons): the account a request is signed in as, or null. */
export function createSignedInReader(store: AccountStore, settings: AuthSettings, now: () => number = Date.now) {
  const ctx: AuthContext = { store, settings, now, limiters: createLimiters() };
  return async (req: IncomingMessage): Promise<Account | null> => (await currentSignIn(ctx, req))?.account ?? null;
}

export async function requireSignIn(ctx: AuthContext, req: IncomingMessage): Promise<Current> {
  const current = await currentSignIn(ctx, req);
  if (!current) throw signedOut();
  return current;
}

/** Ends this browser's sign-in (if any) and clears its cookie. */
export async function endSignIn(ctx: AuthContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const secret = readCookie(req, "signIn");
  if (secret) await ctx.store.endSignIn(hashSecret(secret));
  clearCookie(res, "signIn", isSecure(ctx, req));
}

/** Starts a ceremony: its state stored under a new ceremony cookie (replacing any other this browser had going). */
export async function startCeremony(
  ctx: AuthContext,
  req: IncomingMessage,
  res: ServerResponse,
  kind: Ceremony["kind"],
  payload: unknown,
): Promise<void> {
  const previous = readCookie(req, "ceremony");
  const now = ctx.now();
  if (previous) await ctx.store.takeCeremony(hashSecret(previous), now);
  const secret = newSecret();
  await ctx.store.saveCeremony(hashSecret(secret), { kind, payload: JSON.stringify(payload), expiresAt: now + CEREMONY_TTL_MS }, now);
  setCookie(res, "ceremony", secret, CEREMONY_TTL_MS / 1000, isSecure(ctx, req));
}

/** The browser's ceremony of that kind, used up by reading it; null when it has none, another kind, or it expired. */
export async function takeCeremony(ctx: AuthContext, req: IncomingMessage, res: ServerResponse, kind: Ceremony["kind"]): Promise<unknown> {
  const secret = readCookie(req, "ceremony");
  clearCookie(res, "ceremony", isSecure(ctx, req));
  if (!secret) return null;
  const ceremony = await ctx.store.takeCeremony(hashSecret(secret), ctx.now());
  if (!ceremony || ceremony.kind !== kind) return null;
  return JSON.parse(ceremony.payload) as unknown;
}

/** The account as its owner's pages show it. */
export async function accountView(ctx: AuthContext, account: Account): Promise<AccountView> {
  const passkeys = await ctx.store.passkeysOf(account.id);
  return {
    id: account.id,
    email: account.email,
    displayName: account.displayName,
    admin: account.admin,
    createdAt: account.createdAt,
    hasPassword: account.passwordHash !== null,
    hasOidc: account.oidc !== null,
    passkeys: passkeys.map((p) => ({ id: p.credentialId, createdAt: p.createdAt, lastUsedAt: p.lastUsedAt, backedUp: p.backedUp })),
  };
}
