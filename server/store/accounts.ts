import type { SignInMethod } from "../../lib/account/rest";

/**
 * Teachers' accounts, their credentials and their sign-ins, behind one small
 * interface: SQLite on one machine (its own tables in the session database
 * file, so `npm run backup` copies them), Redis in scale-out mode (every
 * process signs the same people in). Secrets are stored only as hashes: the
 * password as scrypt (server/auth/password.ts), a sign-in cookie and a
 * ceremony cookie as SHA-256. Lessons and sessions do not point here yet;
 * claiming them is the next step (see docs/security.md "Accounts").
 */

export interface Account {
  id: string;
  /** Trimmed and lower-cased; one account per email. */
  email: string;
  displayName: string;
  admin: boolean;
  createdAt: number;
  /** `scrypt$…` (server/auth/password.ts); null when the account signs in only another way. */
  passwordHash: string | null;
  /** The school identity this account is linked to; null until it is. */
  oidc: { issuer: string; subject: string } | null;
  /** The WebAuthn user handle (64 random bytes, base64url): never the email, so an authenticator learns nothing. */
  userHandle: string;
}

export interface NewAccount extends Omit<Account, "admin"> {
  /** An operator's `--admin`; otherwise the account is admin only if it is the first this server ever created. */
  admin?: boolean;
}

export type CreateAccountResult = { ok: true; account: Account } | { ok: false; reason: "EMAIL_TAKEN" | "OIDC_TAKEN" };

export interface Passkey {
  /** base64url, as the authenticator sends it. */
  credentialId: string;
  accountId: string;
  /** COSE public key, base64url. */
  publicKey: string;
  counter: number;
  transports: string[];
  backedUp: boolean;
  createdAt: number;
  lastUsedAt: number | null;
}

/** One signed-in browser: the cookie's hash, never the cookie. */
export interface SignIn {
  idHash: string;
  /** What the teacher's list shows and revokes by (random, unrelated to the cookie). */
  publicId: string;
  accountId: string;
  method: SignInMethod;
  createdAt: number;
  expiresAt: number;
  lastSeenAt: number;
  userAgent: string;
}

/** A passkey or OIDC round trip in progress: its challenge or state, held for one use and a few minutes. */
export interface Ceremony {
  kind: "passkey-register" | "passkey-authenticate" | "oidc";
  /** JSON chosen by the ceremony (challenge, PKCE verifier, nonce, the account being registered). */
  payload: string;
  expiresAt: number;
}

export type AccountPatch = Partial<Pick<Account, "passwordHash" | "oidc" | "admin" | "displayName">>;

export interface AccountStore {
  /** Atomically: refuses a taken email or school identity; the first account ever created is the administrator. */
  createAccount(account: NewAccount): Promise<CreateAccountResult>;
  account(id: string): Promise<Account | null>;
  accountByEmail(email: string): Promise<Account | null>;
  accountByOidc(issuer: string, subject: string): Promise<Account | null>;
  /** Every account, oldest first (the administrator's list, the command line). */
  listAccounts(): Promise<Account[]>;
  countAccounts(): Promise<number>;
  /** False when the account does not exist, or (`oidc`) that school identity is linked to another account. */
  updateAccount(id: string, patch: AccountPatch): Promise<boolean>;
  /** The account with its passkeys and sign-ins; false when there was none. */
  deleteAccount(id: string): Promise<boolean>;

  /** False when that credential is already registered (to any account). */
  addPasskey(passkey: Passkey): Promise<boolean>;
  passkey(credentialId: string): Promise<Passkey | null>;
  passkeysOf(accountId: string): Promise<Passkey[]>;
  notePasskeyUse(credentialId: string, counter: number, at: number): Promise<void>;
  removePasskey(accountId: string, credentialId: string): Promise<boolean>;

  createSignIn(signIn: SignIn): Promise<void>;
  /** The sign-in while it has not expired (an expired one is removed and reads as none). */
  signIn(idHash: string, now: number): Promise<SignIn | null>;
  touchSignIn(idHash: string, at: number): Promise<void>;
  /** The account's sign-ins that have not expired, newest first. */
  signInsOf(accountId: string, now: number): Promise<SignIn[]>;
  endSignIn(idHash: string): Promise<void>;
  /** One of the account's sign-ins, by the id its list shows; false when it is not the account's. */
  endSignInByPublicId(accountId: string, publicId: string): Promise<boolean>;
  /** Every sign-in of the account ("sign out everywhere"); resolves with how many ended. */
  endSignInsOf(accountId: string): Promise<number>;

  saveCeremony(idHash: string, ceremony: Ceremony, now: number): Promise<void>;
  /** The ceremony, removed as it is read: a challenge or an OIDC state answers once. Null when unknown or expired. */
  takeCeremony(idHash: string, now: number): Promise<Ceremony | null>;
  close(): Promise<void>;
}

/** The form an email is kept and compared in. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}
