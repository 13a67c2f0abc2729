import type { IncomingMessage, ServerResponse } from "node:http";
import * as oidc from "openid-client";
import { z } from "zod";
import { DISPLAY_NAME_MAX, safeNextPath, type AccountErrorCode } from "../../lib/account/rest";
import { cleanText } from "../../lib/text";
import { errorMessage } from "../../lib/errors";
import { log } from "../logger";
import { parseHost } from "../edge/origin";
import { draftAccount, logCreated } from "./accountRoutes";
import { addressOfRequest, requestOrigin, type AuthContext, type OidcSettings } from "./context";
import { currentSignIn, startCeremony, startSignIn, takeCeremony } from "./signIns";

/**
 * Sign-in with the school's identity provider: OpenID Connect's
 * authorization code flow with PKCE (S256), a state and a nonce, through
 * openid-client (OpenID certified). The state, nonce and code verifier wait
 * in the store under the ceremony cookie, once; openid-client checks the
 * state, the issuer (RFC 9207 `iss` when the provider sends it), the ID
 * token's signature, audience, expiry and nonce. The client authenticates
 * with client_secret_basic (OIDC Core's default, which every provider takes).
 *
 * Who may come in: a school identity whose email is verified, in
 * OIDC_ALLOWED_DOMAIN when set, and with OIDC_ALLOWED_GROUP in its `groups`
 * claim when set (both, when both are). The first sign-in creates the account;
 * an existing account with the same email is never taken over: its owner
 * links school sign-in from their account page (or an operator created it
 * from the command line without a password, for exactly this).
 */

export const OIDC_CALLBACK_PATH = "/auth/oidc/callback";
export const OIDC_START_PATH = "/auth/oidc/start";

const state = z.object({
  state: z.string(),
  nonce: z.string(),
  codeVerifier: z.string(),
  redirectUri: z.string(),
  next: z.string(),
  /** Linking school sign-in to this signed-in account instead of signing in. */
  linkAccountId: z.string().nullable(),
});

const claimsSchema = z
  .object({
    sub: z.string().min(1).max(255),
    email: z.string().max(254).optional(),
    email_verified: z.boolean().optional(),
    name: z.string().max(200).optional(),
    preferred_username: z.string().max(200).optional(),
    groups: z.array(z.string().max(256)).max(1_000).optional(),
  })
  .loose();

const isLoopback = (url: URL) => ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname);

function redirect(res: ServerResponse, location: string): void {
  res.statusCode = 302;
  res.setHeader("Location", location);
  res.setHeader("Cache-Control", "no-store");
  res.end();
}

function refuse(res: ServerResponse, code: AccountErrorCode, linking = false): void {
  redirect(res, linking ? `/account?error=${code}` : `/account/sign-in?error=${code}`);
}

/** Whether the identity may sign in here: a verified email, in the allowed domain and group when they are set. */
export function admitted(settings: OidcSettings, claims: z.infer<typeof claimsSchema>): boolean {
  if (!claims.email || claims.email_verified === false) return false;
  if (settings.allowedDomain && claims.email.toLowerCase().split("@").pop() !== settings.allowedDomain.toLowerCase()) return false;
  if (settings.allowedGroup && !(claims.groups ?? []).includes(settings.allowedGroup)) return false;
  return true;
}

export function createOidcRoutes(ctx: AuthContext) {
  const settings = ctx.settings.oidc;
  let discovered: Promise<oidc.Configuration> | null = null;

  /** The provider's metadata, fetched on first use and kept; a failed fetch is tried again next time. */
  function provider(s: OidcSettings): Promise<oidc.Configuration> {
    const issuer = new URL(s.issuer);
    discovered ??= oidc
      .discovery(issuer, s.clientId, { client_secret: s.clientSecret }, oidc.ClientSecretBasic(s.clientSecret), {
        // Plain HTTP only to a provider on this machine (tests, a local development provider).
        execute: issuer.protocol === "http:" && isLoopback(issuer) ? [oidc.allowInsecureRequests] : [],
        timeout: 10,
      })
      .catch((err: unknown) => {
        discovered = null;
        throw err;
      });
    return discovered;
  }

  function redirectUri(req: IncomingMessage): string {
    const base = ctx.settings.publicUrl ? new URL(ctx.settings.publicUrl) : requestOrigin(ctx, req);
    return new URL(OIDC_CALLBACK_PATH, base).href;
  }

  return {
    /** `GET /auth/oidc/start[?next=/path][&link=1]`: off to the provider. */
    async start(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
      const linking = url.searchParams.get("link") === "1";
      if (!settings) return refuse(res, "OIDC_DISABLED", linking);
      // The callback comes back to PUBLIC_URL's host (the address registered with the provider): start there, so
      // the ceremony cookie is on the host that will read it.
      if (ctx.settings.publicUrl) {
        const home = new URL(ctx.settings.publicUrl);
        if (parseHost(req.headers.host)?.host !== home.host) return redirect(res, new URL(`${OIDC_START_PATH}${url.search}`, home).href);
      }
      if (!ctx.limiters.ceremoniesPerAddress.take(addressOfRequest(ctx, req))) return refuse(res, "RATE_LIMITED", linking);
      const current = linking ? await currentSignIn(ctx, req) : null;
      if (linking && !current) return refuse(res, "SIGNED_OUT");
      let config: oidc.Configuration;
      try {
        config = await provider(settings);
      } catch (err) {
        log.warn("the identity provider could not be reached", { issuer: settings.issuer, error: errorMessage(err) });
        return refuse(res, "OIDC_FAILED", linking);
      }
      const codeVerifier = oidc.randomPKCECodeVerifier();
      const flow: z.infer<typeof state> = {
        state: oidc.randomState(),
        nonce: oidc.randomNonce(),
        codeVerifier,
        redirectUri: redirectUri(req),
        next: safeNextPath(url.searchParams.get("next")),
        linkAccountId: current?.account.id ?? null,
      };
      const target = oidc.buildAuthorizationUrl(config, {
        redirect_uri: flow.redirectUri,
        scope: "openid email profile",
        response_type: "code",
        code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: "S256",
        state: flow.state,
        nonce: flow.nonce,
      });
      await startCeremony(ctx, req, res, "oidc", flow);
      redirect(res, target.href);
    },

    /** `GET /auth/oidc/callback?code=…&state=…`: the provider sends the browser back here. */
    async callback(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
      if (!settings) return refuse(res, "OIDC_DISABLED");
      const parsed = state.safeParse(await takeCeremony(ctx, req, res, "oidc"));
      if (!parsed.success) return refuse(res, "OIDC_FAILED");
      const flow = parsed.data;
      const linking = flow.linkAccountId !== null;
      let claims: z.infer<typeof claimsSchema>;
      let issuer: string;
      try {
        const config = await provider(settings);
        issuer = config.serverMetadata().issuer;
        const current = new URL(flow.redirectUri);
        current.search = url.search;
        const tokens = await oidc.authorizationCodeGrant(config, current, {
          pkceCodeVerifier: flow.codeVerifier,
          expectedState: flow.state,
          expectedNonce: flow.nonce,
          idTokenExpected: true,
        });
        let raw: Record<string, unknown> = { ...tokens.claims() };
        // Groups (and sometimes the email) may come only from the userinfo endpoint.
        if ((settings.allowedGroup && raw.groups === undefined) || raw.email === undefined) {
          const info = await oidc.fetchUserInfo(config, tokens.access_token, String(raw.sub));
          raw = { ...info, ...raw };
        }
        claims = claimsSchema.parse(raw);
      } catch (err) {
        log.warn("school sign-in failed", { issuer: settings.issuer, error: errorMessage(err) });
        return refuse(res, "OIDC_FAILED", linking);
      }
      if (!admitted(settings, claims)) {
        log.info("school sign-in refused by the allowed domain or group", { issuer });
        return refuse(res, "OIDC_NOT_ALLOWED", linking);
      }
      const identity = { issuer, subject: claims.sub };

      if (flow.linkAccountId !== null) {
        const linked = await ctx.store.updateAccount(flow.linkAccountId, { oidc: identity });
        return linked ? redirect(res, "/account?linked=1") : refuse(res, "OIDC_EMAIL_IN_USE", true);
      }
      let account = await ctx.store.accountByOidc(issuer, claims.sub);
      if (!account) {
        const email = claims.email!.toLowerCase();
        const holder = await ctx.store.accountByEmail(email);
        if (holder) {
          // Only an account with no way in yet (made from the command line for school sign-in) takes the identity.
          const bare = holder.passwordHash === null && holder.oidc === null && (await ctx.store.passkeysOf(holder.id)).length === 0;
          if (!bare || !(await ctx.store.updateAccount(holder.id, { oidc: identity }))) return refuse(res, "OIDC_EMAIL_IN_USE");
          account = { ...holder, oidc: identity };
        } else {
          // The provider's words, cleaned as every name shown to others is.
          const name =
            cleanText(claims.name ?? "", DISPLAY_NAME_MAX) ||
            cleanText(claims.preferred_username ?? "", DISPLAY_NAME_MAX) ||
            email.split("@")[0];
          const created = await ctx.store.createAccount({ ...draftAccount(ctx, email, name), passwordHash: null, oidc: identity });
          if (!created.ok) return refuse(res, "OIDC_EMAIL_IN_USE");
          logCreated(created.account, "oidc");
          account = created.account;
        }
      }
      await startSignIn(ctx, req, res, account, "oidc");
      redirect(res, flow.next);
    },
  };
}
