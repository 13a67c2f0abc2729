import type { IncomingMessage } from "node:http";
import { KeyedLimiter } from "../edge/rateLimit";
import { parseHost, requestScheme } from "../edge/origin";
import { clientAddress } from "../http/request";
import type { OidcConfig } from "../config";
import type { AccountStore } from "../store/accounts";

/**
 * What every account route shares: the store, the settings, the clock and
 * the limiters, and where this request came from (the site's origin, which
 * WebAuthn and the OIDC callback are bound to).
 */

/** School sign-in's settings (OIDC_*), as server/config.ts reads them. */
export type OidcSettings = OidcConfig;

export interface AuthSettings {
  publicUrl: string | null;
  trustProxy: boolean;
  /** ACCOUNT_SIGNUP: whether anyone may create an account on the sign-up page (the command line always may). */
  signupOpen: boolean;
  oidc: OidcSettings | null;
  /** ACCOUNT_SIGNUP_LIMIT: new accounts one address may create at once (then one every 2 minutes); default 5. */
  signupBurst?: number;
}

/** Token buckets, per client address and per account (the email tried). Numbers: docs/security.md "Accounts". */
export const AUTH_LIMITS = {
  /** Password sign-ins and passkey sign-in verifications per address: a staff room behind one NAT address signs in. */
  signInPerAddress: { capacity: 20, refillPerSecond: 1 / 6 },
  /** Password sign-ins per account, whoever tries: 5 at once, then one a minute (passkeys and OIDC are not slowed). */
  signInPerAccount: { capacity: 5, refillPerSecond: 1 / 60 },
  /** New accounts per address. */
  signUpPerAddress: { capacity: 5, refillPerSecond: 1 / 120 },
  /** Passkey and OIDC round trips started per address (each holds a stored challenge for a few minutes). */
  ceremoniesPerAddress: { capacity: 30, refillPerSecond: 1 / 2 },
  /** Everything else a signed-in teacher does with the account (lists, revokes, passkeys, password changes). */
  accountPerAddress: { capacity: 60, refillPerSecond: 2 },
} as const;

/** A sign-in lasts this long, whatever is done with it; then the teacher signs in again. */
export const SIGN_IN_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/** A passkey challenge or an OIDC state is good for this long, once. */
export const CEREMONY_TTL_MS = 10 * 60 * 1000;
/** lastSeenAt is written at most this often per sign-in (every request would be a write). */
export const SIGN_IN_TOUCH_MS = 60 * 60 * 1000;

export type LimitName = keyof typeof AUTH_LIMITS;

export interface AuthContext {
  store: AccountStore;
  settings: AuthSettings;
  now: () => number;
  limiters: ReturnType<typeof createLimiters>;
}

export function createLimiters(overrides: Partial<Record<LimitName, { capacity: number; refillPerSecond: number }>> = {}) {
  const make = (name: LimitName) => new KeyedLimiter(overrides[name] ?? AUTH_LIMITS[name]);
  return {
    signInPerAddress: make("signInPerAddress"),
    signInPerAccount: make("signInPerAccount"),
    signUpPerAddress: make("signUpPerAddress"),
    ceremoniesPerAddress: make("ceremoniesPerAddress"),
    accountPerAddress: make("accountPerAddress"),
  } satisfies Record<LimitName, KeyedLimiter>;
}

export function addressOfRequest(ctx: AuthContext, req: IncomingMessage): string {
  return clientAddress(req, ctx.settings.trustProxy);
}

/**
 * Whether the browser reached us over HTTPS: the connection (or, with
 * TRUST_PROXY, the proxy) says so, or the request is addressed to an https
 * PUBLIC_URL's host (a TLS proxy in front that does not say). The cookies are
 * then Secure. A teacher on http://<LAN address> gets cookies without it, or
 * the browser would drop them.
 */
export function isSecure(ctx: AuthContext, req: IncomingMessage): boolean {
  if (requestScheme(req, ctx.settings.trustProxy) === "https") return true;
  if (!ctx.settings.publicUrl?.startsWith("https:")) return false;
  return parseHost(req.headers.host)?.host === new URL(ctx.settings.publicUrl).host;
}

/** The origin the request was made to: its scheme and Host (which the server's host check already admitted). */
export function requestOrigin(ctx: AuthContext, req: IncomingMessage): URL {
  const host = parseHost(req.headers.host)?.host ?? "localhost";
  return new URL(`${requestScheme(req, ctx.settings.trustProxy)}://${host}`);
}

/**
 * The page origin a WebAuthn ceremony is bound to: the request's `Origin`
 * (already checked equal to this site's address or PUBLIC_URL by the origin
 * policy), else the address the request was made to. Its host name is the
 * relying party id, so a passkey made on one address of the server is used
 * on that address.
 */
export function pageOrigin(ctx: AuthContext, req: IncomingMessage): URL {
  const origin = req.headers.origin;
  if (origin) {
    try {
      return new URL(origin);
    } catch {
      // not a URL: fall through to the request's own address
    }
  }
  return requestOrigin(ctx, req);
}

/** The user agent, cut to what the sign-ins list shows (it is the browser's own words, shown back only to its owner). */
export function userAgentOf(req: IncomingMessage): string {
  return String(req.headers["user-agent"] ?? "").slice(0, 120);
}
