/**
 * Teachers' accounts over REST (`/api/account…`, `/auth/oidc/…`): the bodies
 * the server answers with, the error codes and the limits the browser shows.
 * Plain types and constants, so pages import it freely; the server checks
 * every request body with zod (server/auth/schemas.ts). Students never have
 * an account: nothing here touches joining a room.
 */

/** How an account proves itself: a password, a passkey (WebAuthn), or the school's identity provider (OIDC). */
export type SignInMethod = "password" | "passkey" | "oidc";

/** The signed-in teacher, as their own pages show them. */
export interface AccountView {
  id: string;
  email: string;
  displayName: string;
  /** The server's administrator: the first account created on it, or one an operator made with `--admin`. */
  admin: boolean;
  createdAt: number;
  hasPassword: boolean;
  /** Linked to the school's identity provider. */
  hasOidc: boolean;
  passkeys: PasskeyView[];
}

export interface PasskeyView {
  /** The credential id (base64url): not a secret, the authenticator sends it at every sign-in. */
  id: string;
  createdAt: number;
  lastUsedAt: number | null;
  /** Synced between the teacher's devices (a platform passkey) rather than bound to one. */
  backedUp: boolean;
}

/** `GET /api/account`: who this browser is signed in as (null: nobody), and which ways in the server offers. */
export interface AccountState {
  account: AccountView | null;
  /** Sign-up with a password or a passkey is open (ACCOUNT_SIGNUP=open), and whether nobody has an account yet. */
  signup: { open: boolean; firstAccount: boolean };
  /** The school's identity provider, when OIDC_ISSUER is set. */
  oidc: { enabled: boolean };
  /** Password rules, so the form says them before the server does. */
  password: { minLength: number; maxLength: number };
}

/** One signed-in browser of the account (`GET /api/account/sign-ins`). */
export interface SignInView {
  /** Names this sign-in for revoking it; not the cookie, which is never shown. */
  id: string;
  method: SignInMethod;
  createdAt: number;
  lastSeenAt: number;
  expiresAt: number;
  /** The browser as it described itself (cut to 120 characters), to recognise it in the list. */
  userAgent: string;
  /** The browser asking. */
  current: boolean;
}

/** Codes only the account API answers with (besides BAD_REQUEST, RATE_LIMITED, CROSS_ORIGIN, NOT_FOUND). */
export const ACCOUNT_ERRORS = {
  BAD_REQUEST: "The request was malformed.",
  BAD_CREDENTIALS: "That email and password do not match an account.",
  EMAIL_TAKEN: "An account with this email already exists. Sign in instead.",
  SIGNUP_CLOSED: "This server does not take new accounts. Ask its administrator to create yours.",
  SIGNED_OUT: "You are not signed in (or your sign-in ended). Sign in again.",
  PASSKEY_FAILED: "The passkey could not be checked. Try again, or sign in another way.",
  LAST_CREDENTIAL: "This is the account's only way to sign in. Add another before removing it.",
  OIDC_DISABLED: "This server has no school sign-in configured.",
  OIDC_FAILED: "School sign-in did not complete. Try again.",
  OIDC_NOT_ALLOWED: "Your school account is not allowed to sign in here.",
  OIDC_EMAIL_IN_USE: "An account with your school email already exists. Sign in to it, then link school sign-in on your account page.",
  NOT_ADMIN: "Only the server's administrator can do that.",
  CONFIRM_MISMATCH: "Type the account's email exactly to confirm.",
  RATE_LIMITED: "Too many attempts. Wait a minute and try again.",
  BUSY: "The server is busy checking other sign-ins. Try again in a moment.",
  CROSS_ORIGIN: "Requests from other websites are not accepted.",
  UNSUPPORTED_MEDIA_TYPE: "Send the request with Content-Type: application/json.",
  PAYLOAD_TOO_LARGE: "That request is too large.",
  NOT_FOUND: "No such account endpoint.",
  NO_ACCESS: "That belongs to another teacher. Ask its owner to invite you.",
  NOT_OWNER: "Only the teacher who owns it can do that.",
  NO_SUCH_SESSION: "There is no session with that id.",
  NO_SUCH_LESSON: "There is no lesson with that id.",
  NO_SUCH_CONSOLE: "That console is not open on this session (it may have been revoked already).",
  NO_SUCH_ACCOUNT: "There is no teacher account with that email on this server. Ask them to create one first.",
  ALREADY_INVITED: "That teacher already has it.",
  SESSION_LIVE: "The session is still running. End it first.",
  SESSION_ENDED: "This session has ended: its console cannot be opened.",
  TOO_MANY: "It already has as many as it may. Remove one first.",
  SHARED_ELSEWHERE:
    "This replay was shared before accounts, from the browser that ran it: show its link there, or stop sharing and share again.",
  NO_LESSONS: "This server keeps no lessons.",
  METHOD_NOT_ALLOWED: "That method is not allowed here.",
  INTERNAL: "Something went wrong on the server.",
} as const;

export type AccountErrorCode = keyof typeof ACCOUNT_ERRORS;

/** Password length, in characters (long passphrases welcome; no composition rules, as NIST SP 800-63B advises). */
export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 256;
export const DISPLAY_NAME_MAX = 60;
export const EMAIL_MAX = 254;

/** Where a sign-in page may send the browser afterwards: a path on this site, never another origin. */
export function safeNextPath(next: string | null | undefined): string {
  // "//host" and "/\\host" are other sites to a browser, and it drops tabs and newlines before reading them.
  const unsafe = (c: string) => c.charCodeAt(0) < 0x20 || c === "\\" || /\s/.test(c);
  if (!next || next.length > 512 || !next.startsWith("/") || next.startsWith("//") || [...next].some(unsafe)) return "/account";
  return next;
}
