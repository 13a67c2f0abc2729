import type { IncomingMessage } from "node:http";
import os from "node:os";
import { TLSSocket } from "node:tls";

/**
 * Which hosts and origins this server answers. Browsers send `Origin` on
 * WebSocket handshakes and on every POST/DELETE, so comparing it (scheme
 * included) with the address the request was made to keeps other sites'
 * pages out. `Host` is checked when PUBLIC_URL is set: a DNS-rebinding page
 * (evil.example resolving to this server) then reaches nothing, because only
 * PUBLIC_URL's host and the server's own addresses are answered.
 */
export interface OriginPolicy {
  publicUrl: string | null;
  /** Behind a trusted proxy, X-Forwarded-Proto says whether the browser used https. */
  trustProxy: boolean;
}

/** The scheme the browser used to reach us. */
export function requestScheme(req: IncomingMessage, trustProxy: boolean): "http" | "https" {
  if (trustProxy) {
    const forwarded = String(req.headers["x-forwarded-proto"] ?? "")
      .split(",")[0]
      ?.trim()
      .toLowerCase();
    if (forwarded === "https" || forwarded === "http") return forwarded;
  }
  // A TLS socket (node:https) says so; a plain one has no `encrypted` at all.
  return req.socket instanceof TLSSocket && req.socket.encrypted ? "https" : "http";
}

const HOST_PATTERN = /^(?:[a-z0-9-]+(?:\.[a-z0-9-]+)*\.?|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

type ParsedHost = Readonly<{ host: string; hostname: string }>;

/**
 * The last few `Host` values parsed: every WebSocket handshake of a join storm brings the same one or two, and
 * a URL parse each was a few microseconds of every join. Bounded: a client may send any Host.
 */
const parsedHosts = new Map<string, ParsedHost | null>();
const PARSED_HOSTS_MAX = 64;

/** `Host` as a URL host (`name:port`, default port dropped), or null when it is missing or not a host. */
export function parseHost(host: string | undefined): ParsedHost | null {
  if (!host || host.length > 255) return null;
  const known = parsedHosts.get(host);
  if (known !== undefined) return known;
  const parsed = parseHostNow(host);
  if (parsedHosts.size >= PARSED_HOSTS_MAX) parsedHosts.clear();
  parsedHosts.set(host, parsed);
  return parsed;
}

function parseHostNow(host: string): ParsedHost | null {
  if (!HOST_PATTERN.test(host)) return null;
  try {
    const url = new URL(`http://${host}`);
    return Object.freeze({ host: url.host, hostname: url.hostname });
  } catch {
    return null;
  }
}

const LOCAL_NAMES = new Set(["localhost", "127.0.0.1", "[::1]", "0.0.0.0"]);

/** This machine's own addresses, as URL hostnames. */
function ownHostnames(): Set<string> {
  const names = new Set(LOCAL_NAMES);
  for (const list of Object.values(os.networkInterfaces())) {
    for (const i of list ?? []) names.add(i.family === "IPv6" ? `[${i.address.split("%")[0]}]` : i.address);
  }
  return names;
}

export function createOriginPolicy({ publicUrl, trustProxy }: OriginPolicy) {
  const publicOrigin = publicUrl ? new URL(publicUrl).origin : null;
  const publicHost = publicUrl ? new URL(publicUrl).host : null;
  let own = ownHostnames();
  let ownAt = Date.now();
  const isOwn = (hostname: string) => {
    // Interfaces change (a laptop joins another Wi-Fi); look again at most every 30 s.
    if (Date.now() - ownAt > 30_000) {
      own = ownHostnames();
      ownAt = Date.now();
    }
    return own.has(hostname);
  };

  /** Whether the request's Host is one this server answers. */
  function hostAllowed(req: IncomingMessage): boolean {
    const parsed = parseHost(req.headers.host);
    if (!parsed) return false;
    if (!publicHost) return true;
    return parsed.host === publicHost || isOwn(parsed.hostname);
  }

  /**
   * Whether a browser request comes from one of our own pages. No Origin:
   * not a browser (or a same-origin GET), allowed; `Sec-Fetch-Site:
   * cross-site` is refused even without an Origin.
   */
  function originAllowed(req: IncomingMessage): boolean {
    if (req.headers["sec-fetch-site"] === "cross-site") return false;
    const origin = req.headers.origin;
    if (origin === undefined) return true;
    if (publicOrigin !== null && origin === publicOrigin) return true;
    const host = parseHost(req.headers.host);
    return host !== null && origin === `${requestScheme(req, trustProxy)}://${host.host}`;
  }

  return { hostAllowed, originAllowed };
}
