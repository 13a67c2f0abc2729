import type { IncomingMessage, ServerResponse } from "node:http";
import { randomBytes } from "node:crypto";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, type AccountState, type AccountView, type SignInView } from "../../lib/account/rest";
import { log } from "../logger";
import { newId } from "../secrets";
import type { Account, NewAccount } from "../store/accounts";
import { addressOfRequest, type AuthContext } from "./context";
import { AuthError, rateLimited } from "./errors";
import { HashBusyError, hashPassword, verifyPassword } from "./password";
import { deleteAccountBody, parseBody, setPasswordBody, signInBody, signUpBody } from "./schemas";
import { accountView, currentSignIn, endSignIn, requireSignIn, startSignIn } from "./signIns";

/**
 * Password accounts and what a signed-in teacher does with their account:
 * who am I, sign up, sign in, sign out (here or everywhere), the list of
 * signed-in browsers, a new password, and deleting the account.
 */

/** A password check, with "the server is busy" said as such instead of a 500. */
async function checkPassword(password: string, stored: string | null) {
  try {
    return await verifyPassword(password, stored);
  } catch (err) {
    if (err instanceof HashBusyError) throw new AuthError(503, "BUSY");
    throw err;
  }
}

async function newHash(password: string): Promise<string> {
  try {
    return await hashPassword(password);
  } catch (err) {
    if (err instanceof HashBusyError) throw new AuthError(503, "BUSY");
    throw err;
  }
}

/** A new account's fields besides its credentials. */
export function draftAccount(ctx: AuthContext, email: string, displayName: string): Omit<NewAccount, "passwordHash" | "oidc"> {
  // The WebAuthn user handle: random, so an authenticator holding it learns nothing about the teacher.
  return { id: newId(), email, displayName, createdAt: ctx.now(), userHandle: randomBytes(32).toString("base64url") };
}

/** Refuses when sign-up is closed or the address has created enough accounts for now. */
export function admitSignUp(ctx: AuthContext, req: IncomingMessage): void {
  if (!ctx.settings.signupOpen) throw new AuthError(403, "SIGNUP_CLOSED");
  if (!ctx.limiters.signUpPerAddress.take(addressOfRequest(ctx, req))) throw rateLimited();
}

export function logCreated(account: Account, method: string): void {
  // Ids only: an email is personal data, and the log is read by more people than the database.
  log.info("account created", { accountId: account.id, admin: account.admin, method });
}

/** `removeAccountData`: what the account owned goes (or passes to a co-teacher) before the account does (./ownership.ts). */
export function createAccountRoutes(ctx: AuthContext, removeAccountData?: (accountId: string) => Promise<unknown>) {
  return {
    async state(req: IncomingMessage): Promise<AccountState> {
      const current = await currentSignIn(ctx, req);
      return {
        account: current ? await accountView(ctx, current.account) : null,
        signup: { open: ctx.settings.signupOpen, firstAccount: (await ctx.store.countAccounts()) === 0 },
        oidc: { enabled: ctx.settings.oidc !== null },
        password: { minLength: PASSWORD_MIN_LENGTH, maxLength: PASSWORD_MAX_LENGTH },
      };
    },

    async signUp(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<AccountView> {
      admitSignUp(ctx, req);
      const { email, displayName, password } = parseBody(signUpBody, body);
      // Hash first, whether or not the email is taken: both answers then take the same time.
      const passwordHash = await newHash(password);
      const created = await ctx.store.createAccount({ ...draftAccount(ctx, email, displayName), passwordHash, oidc: null });
      if (!created.ok) throw new AuthError(409, "EMAIL_TAKEN", undefined, undefined, "email");
      logCreated(created.account, "password");
      await startSignIn(ctx, req, res, created.account, "password");
      return accountView(ctx, created.account);
    },

    async signIn(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<AccountView> {
      const { email, password } = parseBody(signInBody, body);
      // Both buckets are spent before the hash is computed: a guesser pays for every try, right or wrong.
      if (!ctx.limiters.signInPerAddress.take(addressOfRequest(ctx, req))) throw rateLimited();
      if (!ctx.limiters.signInPerAccount.take(email)) throw rateLimited();
      const account = await ctx.store.accountByEmail(email);
      // An unknown email is checked against a decoy hash: the same answer, in the same time, as a wrong password.
      const { ok, stale } = await checkPassword(password, account?.passwordHash ?? null);
      if (!account || !ok) throw new AuthError(401, "BAD_CREDENTIALS");
      if (stale) await ctx.store.updateAccount(account.id, { passwordHash: await newHash(password) });
      await startSignIn(ctx, req, res, account, "password");
      return accountView(ctx, account);
    },

    async signOut(req: IncomingMessage, res: ServerResponse): Promise<{ signedOut: true }> {
      await endSignIn(ctx, req, res);
      return { signedOut: true };
    },

    /** Ends every sign-in of the account, this browser's included. */
    async signOutEverywhere(req: IncomingMessage, res: ServerResponse): Promise<{ ended: number }> {
      const { account } = await requireSignIn(ctx, req);
      const ended = await ctx.store.endSignInsOf(account.id);
      await endSignIn(ctx, req, res);
      log.info("signed out everywhere", { accountId: account.id, ended });
      return { ended };
    },

    async signIns(req: IncomingMessage): Promise<{ signIns: SignInView[] }> {
      const { account, signIn: mine } = await requireSignIn(ctx, req);
      const list = await ctx.store.signInsOf(account.id, ctx.now());
      return {
        signIns: list.map((s) => ({
          id: s.publicId,
          method: s.method,
          createdAt: s.createdAt,
          lastSeenAt: s.lastSeenAt,
          expiresAt: s.expiresAt,
          userAgent: s.userAgent,
          current: s.idHash === mine.idHash,
        })),
      };
    },

    async endOneSignIn(req: IncomingMessage, res: ServerResponse, publicId: string): Promise<{ ended: true }> {
      const { account, signIn: mine } = await requireSignIn(ctx, req);
      if (!(await ctx.store.endSignInByPublicId(account.id, publicId))) throw new AuthError(404, "NOT_FOUND", "No such sign-in of yours.");
      if (publicId === mine.publicId) await endSignIn(ctx, req, res);
      return { ended: true };
    },

    /** Sets (or, with the current one, changes) the account's password. */
    async setPassword(req: IncomingMessage, body: unknown): Promise<AccountView> {
      const { account } = await requireSignIn(ctx, req);
      const { currentPassword, password } = parseBody(setPasswordBody, body);
      if (account.passwordHash !== null) {
        if (!ctx.limiters.signInPerAccount.take(account.email)) throw rateLimited();
        const { ok } = await checkPassword(currentPassword ?? "", account.passwordHash);
        if (!ok) throw new AuthError(403, "BAD_CREDENTIALS", "Your current password is not right.", undefined, "currentPassword");
      }
      await ctx.store.updateAccount(account.id, { passwordHash: await newHash(password) });
      return accountView(ctx, { ...account, passwordHash: "set" });
    },

    /**
     * Deletes the account with its credentials and sign-ins, once the teacher
     * types its email; first its lessons and ended sessions (or, shared with a
     * co-teacher, they pass to them: server/auth/ownership.ts).
     */
    async deleteAccount(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<{ deleted: true }> {
      const { account } = await requireSignIn(ctx, req);
      const { confirmEmail } = parseBody(deleteAccountBody, body);
      if (confirmEmail !== account.email) throw new AuthError(400, "CONFIRM_MISMATCH", undefined, undefined, "confirmEmail");
      await removeAccountData?.(account.id);
      await ctx.store.deleteAccount(account.id);
      await endSignIn(ctx, req, res);
      log.info("account deleted", { accountId: account.id });
      return { deleted: true };
    },
  };
}
