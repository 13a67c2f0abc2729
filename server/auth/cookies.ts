import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * The two cookies accounts use, both HttpOnly (no script reads them),
 * SameSite=Lax (a cross-site page cannot send them on a POST, only on a
 * top-level link, which is how the identity provider returns), Path=/, and
 * Secure whenever the browser reached us over HTTPS. Over HTTPS the names
 * carry the `__Host-` prefix, which the browser enforces: Secure, no Domain,
 * Path=/, so no sibling host can plant or shadow them. Over plain HTTP
 * (a laptop on a classroom LAN) the prefix is not allowed, hence two names.
 *
 * - the sign-in cookie: 256 random bits naming one signed-in browser; the
 *   server keeps only its SHA-256.
 * - the ceremony cookie: a passkey challenge or an OIDC state in progress,
 *   the same way, for CEREMONY_TTL_MS.
 */
export const COOKIE = {
  signIn: { secure: "__Host-cls_signin", plain: "cls_signin" },
  ceremony: { secure: "__Host-cls_ceremony", plain: "cls_ceremony" },
} as const;

export type CookieName = keyof typeof COOKIE;

/** Every cookie of the request (the first of a name wins, as browsers send the most specific first). */
export function readCookies(req: IncomingMessage): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (!out.has(name) && value.length <= 256) out.set(name, value);
  }
  return out;
}

/** The cookie's value, under whichever of its two names the browser holds (the secure one first). */
export function readCookie(req: IncomingMessage, which: CookieName): string | null {
  const cookies = readCookies(req);
  const value = cookies.get(COOKIE[which].secure) ?? cookies.get(COOKIE[which].plain) ?? null;
  // Values are base64url: anything else was not set by this server.
  return value && /^[A-Za-z0-9_-]{16,128}$/.test(value) ? value : null;
}

/** Appends a Set-Cookie header (others already set stay). */
function appendSetCookie(res: ServerResponse, cookie: string): void {
  const prior = res.getHeader("Set-Cookie");
  const list = prior === undefined ? [] : Array.isArray(prior) ? prior : [String(prior)];
  res.setHeader("Set-Cookie", [...list, cookie]);
}

export function setCookie(res: ServerResponse, which: CookieName, value: string, maxAgeSeconds: number, secure: boolean): void {
  const name = secure ? COOKIE[which].secure : COOKIE[which].plain;
  const flags = [`${name}=${value}`, "Path=/", `Max-Age=${Math.floor(maxAgeSeconds)}`, "HttpOnly", "SameSite=Lax"];
  if (secure) flags.push("Secure");
  appendSetCookie(res, flags.join("; "));
}

/** Removes the cookie under both names (the browser may hold either, from an earlier scheme). */
export function clearCookie(res: ServerResponse, which: CookieName, secure: boolean): void {
  appendSetCookie(res, `${COOKIE[which].plain}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}`);
  if (secure) appendSetCookie(res, `${COOKIE[which].secure}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax; Secure`);
}
