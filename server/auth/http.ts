import type { IncomingMessage, ServerResponse } from "node:http";
import { ACCOUNT_ERRORS } from "../../lib/account/rest";
import { toError } from "../../lib/errors";
import { createOriginPolicy } from "../edge/origin";
import { HttpError } from "../http/httpError";
import { readJsonBody, sendJson } from "../http/request";
import { log } from "../logger";
import { countRateLimited } from "../ops/metrics";
import type { AccountStore } from "../store/accounts";
import { createAccountRoutes } from "./accountRoutes";
import { addressOfRequest, createLimiters, type AuthContext, type AuthSettings, AUTH_LIMITS } from "./context";
import { AuthError, methodNotAllowed, rateLimited } from "./errors";
import { OIDC_CALLBACK_PATH, OIDC_START_PATH, createOidcRoutes } from "./oidc";
import { createPasskeyRoutes } from "./passkeys";
import { requireSignIn } from "./signIns";
import type { OwnershipRoutes } from "./ownershipRoutes";

/**
 * The account API (`/api/account…`) and the OIDC redirects (`/auth/oidc/…`),
 * in front of the rest of the API. Every state-changing request passes the
 * server's origin policy (server/edge/origin.ts: Origin equal to this site or
 * PUBLIC_URL, no `Sec-Fetch-Site: cross-site`) and, for a POST, the JSON
 * content type that a cross-site form cannot send: with SameSite=Lax cookies
 * that is the CSRF defence, and no token is needed. docs/protocol.md and
 * docs/security.md "Accounts" describe each call.
 */

export interface AuthHandlerOptions {
  store: AccountStore;
  settings: AuthSettings;
  now?: () => number;
  /** What follows the account (claim, its sessions and lessons; server/auth/ownershipRoutes.ts), where the server keeps them. */
  ownership?: OwnershipRoutes;
  /** Before an account is deleted: what it owned goes or passes to a co-teacher (server/auth/ownership.ts). */
  removeAccountData?: (accountId: string) => Promise<unknown>;
}

export type AuthHandler = (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;

export function createAuthHandler(options: AuthHandlerOptions): AuthHandler {
  const ctx: AuthContext = {
    store: options.store,
    settings: options.settings,
    now: options.now ?? Date.now,
    limiters: createLimiters(
      options.settings.signupBurst === undefined
        ? {}
        : { signUpPerAddress: { capacity: options.settings.signupBurst, refillPerSecond: AUTH_LIMITS.signUpPerAddress.refillPerSecond } },
    ),
  };
  const origins = createOriginPolicy({ publicUrl: ctx.settings.publicUrl, trustProxy: ctx.settings.trustProxy });
  const account = createAccountRoutes(ctx, options.removeAccountData);
  const passkeys = createPasskeyRoutes(ctx);
  const oidc = createOidcRoutes(ctx);

  /** Only the signed-in teacher's everyday calls share this bucket; sign-in and sign-up have their own. */
  const everyday = (req: IncomingMessage) => {
    if (!ctx.limiters.accountPerAddress.take(addressOfRequest(ctx, req))) throw rateLimited();
  };

  async function route(req: IncomingMessage, res: ServerResponse, path: string, url: URL): Promise<void> {
    const method = req.method ?? "GET";
    const post =
      (handler: (body: unknown) => Promise<unknown>, status = 200) =>
      async () => {
        if (method !== "POST") throw methodNotAllowed(["POST"]);
        sendJson(res, status, await handler(await readJsonBody(req)));
      };
    const routes: Record<string, () => Promise<void>> = {
      "/api/account": async () => {
        if (method !== "GET" && method !== "HEAD") throw methodNotAllowed(["GET", "HEAD"]);
        sendJson(res, 200, await account.state(req));
      },
      "/api/account/sign-up": post((body) => account.signUp(req, res, body), 201),
      "/api/account/sign-in": post((body) => account.signIn(req, res, body)),
      "/api/account/sign-out": post(() => account.signOut(req, res)),
      "/api/account/sign-out-everywhere": post(() => account.signOutEverywhere(req, res)),
      "/api/account/password": post((body) => (everyday(req), account.setPassword(req, body))),
      "/api/account/delete": post((body) => (everyday(req), account.deleteAccount(req, res, body))),
      "/api/account/sign-ins": async () => {
        if (method !== "GET") throw methodNotAllowed(["GET"]);
        everyday(req);
        sendJson(res, 200, await account.signIns(req));
      },
      "/api/account/passkey/sign-up/options": post((body) => passkeys.signUpOptions(req, res, body)),
      "/api/account/passkey/sign-up/verify": post((body) => passkeys.signUpVerify(req, res, body), 201),
      "/api/account/passkey/sign-in/options": post(() => passkeys.signInOptions(req, res)),
      "/api/account/passkey/sign-in/verify": post((body) => passkeys.signInVerify(req, res, body)),
      "/api/account/passkey/add/options": post(() => passkeys.addOptions(req, res)),
      "/api/account/passkey/add/verify": post((body) => (everyday(req), passkeys.addVerify(req, res, body))),
      "/api/account/admin/accounts": async () => {
        if (method !== "GET") throw methodNotAllowed(["GET"]);
        everyday(req);
        const { account: me } = await requireSignIn(ctx, req);
        if (!me.admin) throw new AuthError(403, "NOT_ADMIN");
        const all = await ctx.store.listAccounts();
        sendJson(res, 200, {
          accounts: all.map((a) => ({ id: a.id, email: a.email, displayName: a.displayName, admin: a.admin, createdAt: a.createdAt })),
        });
      },
      [OIDC_START_PATH]: async () => {
        if (method !== "GET") throw methodNotAllowed(["GET"]);
        await oidc.start(req, res, url);
      },
      [OIDC_CALLBACK_PATH]: async () => {
        if (method !== "GET") throw methodNotAllowed(["GET"]);
        await oidc.callback(req, res, url);
      },
    };
    const exact = routes[path];
    if (exact) return exact();
    const signIn = /^\/api\/account\/sign-ins\/([A-Za-z0-9-]{1,64})$/.exec(path);
    if (signIn) {
      if (method !== "DELETE") throw methodNotAllowed(["DELETE"]);
      everyday(req);
      return sendJson(res, 200, await account.endOneSignIn(req, res, signIn[1]));
    }
    if (options.ownership && (await options.ownership.account(req, res, path, url))) return;
    const passkey = /^\/api\/account\/passkeys\/([A-Za-z0-9_-]{1,1400})$/.exec(path);
    if (passkey) {
      if (method !== "DELETE") throw methodNotAllowed(["DELETE"]);
      everyday(req);
      return sendJson(res, 200, await passkeys.remove(req, passkey[1]));
    }
    throw new AuthError(404, "NOT_FOUND");
  }

  return async function handleAuth(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const url = new URL(req.url ?? "/", "http://localhost");
    const path = url.pathname.replace(/\/+$/, "");
    if (path !== "/api/account" && !path.startsWith("/api/account/") && !path.startsWith("/auth/")) return false;
    try {
      // The provider's redirect back is a cross-site navigation by design; its state, bound to this browser's
      // ceremony cookie, is what proves it. Everything else that changes state must come from our own pages.
      const safe = req.method === "GET" || req.method === "HEAD";
      if (path !== OIDC_CALLBACK_PATH && (!safe || path === OIDC_START_PATH) && !origins.originAllowed(req))
        throw new AuthError(403, "CROSS_ORIGIN");
      res.setHeader("Cache-Control", "no-store");
      await route(req, res, path, url);
    } catch (err) {
      const refusal = asAuthError(err);
      if (refusal) {
        if (refusal.status === 429) countRateLimited("http");
        if (refusal.allow) res.setHeader("Allow", refusal.allow.join(", "));
        const { code, message, field } = refusal;
        sendJson(res, refusal.status, { error: field ? { code, message, field } : { code, message } });
      } else {
        log.error("account request failed", { path, error: toError(err).stack });
        if (!res.headersSent) sendJson(res, 500, { error: { code: "INTERNAL", message: ACCOUNT_ERRORS.INTERNAL } });
        else res.end();
      }
    }
    return true;
  };
}

/** The API's own refusals (a body that is not JSON, too large, cut off) in the account API's words. */
function asAuthError(err: unknown): AuthError | null {
  if (err instanceof AuthError) return err;
  if (!(err instanceof HttpError)) return null;
  if (err.status === 415) return new AuthError(415, "UNSUPPORTED_MEDIA_TYPE");
  if (err.status === 413) return new AuthError(413, "PAYLOAD_TOO_LARGE");
  if (err.status === 429) return new AuthError(429, "RATE_LIMITED");
  return new AuthError(err.status, "BAD_REQUEST", err.message);
}
