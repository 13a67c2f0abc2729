import { generateKeyPairSync, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Provider, { type Configuration } from "oidc-provider";

/**
 * A real OpenID provider for tests: `oidc-provider` (OpenID Certified), in
 * this process on a free loopback port, standing in for a school's identity
 * provider. One confidential client (client_secret_basic, authorization code
 * only, PKCE required), its own signing key, and the provider's development
 * login and consent pages (any login; the password is not checked): the
 * login typed is the subject, and `users` says which claims each subject
 * has. Claims follow OIDC's default rules: email, name and groups come from
 * the userinfo endpoint, not the ID token.
 */

export interface TestUser {
  email?: string;
  email_verified?: boolean;
  name?: string;
  groups?: string[];
}

export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Claims per login (the subject); change them between tests. */
  users: Map<string, TestUser>;
  /**
   * Registers the client's redirect URIs and starts answering. Two steps, because the classroom server needs the
   * issuer to start, and the provider needs the server's address for its client.
   */
  serve(redirectUris: string[]): void;
  stop(): Promise<void>;
}

/** The provider's port is taken at once (its issuer is known); it answers once `serve` names the redirect URIs. */
export async function startOidcProvider(options: { port?: number; clientSecret?: string } = {}): Promise<TestProvider> {
  const clientId = "classroom";
  const clientSecret = options.clientSecret ?? randomBytes(24).toString("base64url");
  const users = new Map<string, TestUser>();
  const server: Server = createServer((_req, res) => {
    res.statusCode = 503;
    res.end("not serving yet");
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const signingKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "jwk" });
  return {
    issuer,
    clientId,
    clientSecret,
    users,
    serve(redirectUris) {
      const configuration: Configuration = {
        clients: [
          {
            client_id: clientId,
            client_secret: clientSecret,
            redirect_uris: redirectUris,
            grant_types: ["authorization_code"],
            response_types: ["code"],
            token_endpoint_auth_method: "client_secret_basic",
          },
        ],
        pkce: { required: () => true },
        claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name", "groups"] },
        findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub, ...users.get(sub) }) }),
        jwks: { keys: [{ ...signingKey, kid: "test-key", use: "sig", alg: "RS256" }] },
        cookies: { keys: [randomBytes(24).toString("base64url")] },
        features: { devInteractions: { enabled: true } },
        // Stated, so the provider does not print a notice per artifact (seconds).
        ttl: { AccessToken: 600, AuthorizationCode: 60, Grant: 3600, IdToken: 600, Interaction: 600, Session: 3600 },
      };
      // Koa's handler answers every request itself (errors included); nothing is left to await here.
      const handle = new Provider(issuer, configuration).callback();
      server.removeAllListeners("request");
      server.on("request", (req: IncomingMessage, res: ServerResponse) => void handle(req, res));
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The provider's HTML form (login or consent): where it posts and its hidden fields. */
export function formOf(html: string, base: URL): { action: URL; fields: Record<string, string> } {
  const unescape = (s: string) =>
    s
      .replace(/&amp;/g, "&")
      .replace(/&quot;/g, '"')
      .replace(/&#x2F;/g, "/")
      .replace(/&#39;/g, "'");
  const action = /<form[^>]*action="([^"]+)"/.exec(html);
  if (!action) throw new Error(`no form in the provider's page:\n${html.slice(0, 500)}`);
  const fields: Record<string, string> = {};
  for (const m of html.matchAll(/<input[^>]*type="hidden"[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g)) fields[m[1]] = unescape(m[2]);
  return { action: new URL(unescape(action[1]), base), fields };
}
