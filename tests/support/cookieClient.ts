/**
 * A browser's worth of HTTP for tests that sign in: a cookie jar per host
 * name, as browsers keep them (ports share cookies; what Set-Cookie said,
 * dropped at Max-Age=0), the Origin header a page of
 * the site would send on a POST, and redirects followed by hand so each hop
 * can be looked at. Real requests, real servers: nothing is mocked.
 */

export interface SetCookie {
  name: string;
  value: string;
  attributes: Map<string, string>;
}

export function parseSetCookie(header: string): SetCookie {
  const [pair, ...attrs] = header.split(";").map((p) => p.trim());
  const eq = pair.indexOf("=");
  const attributes = new Map<string, string>();
  for (const a of attrs) {
    const i = a.indexOf("=");
    attributes.set((i < 0 ? a : a.slice(0, i)).toLowerCase(), i < 0 ? "" : a.slice(i + 1));
  }
  return { name: pair.slice(0, eq), value: pair.slice(eq + 1), attributes };
}

export class CookieClient {
  /** host name -> name -> value */
  private readonly jar = new Map<string, Map<string, string>>();
  /** Every Set-Cookie seen, newest last (tests check the flags). */
  readonly seen: SetCookie[] = [];

  constructor(
    /** The site this "browser" has open: its pages' origin, sent as Origin on POST and DELETE. */
    readonly base: string,
    private readonly extraHeaders: Record<string, string> = {},
  ) {}

  cookie(name: string, host = new URL(this.base).hostname): string | undefined {
    return this.jar.get(host)?.get(name);
  }

  cookies(host = new URL(this.base).hostname): Map<string, string> {
    return new Map(this.jar.get(host) ?? []);
  }

  /** Drops every cookie (a browser whose storage was cleared). */
  clear(): void {
    this.jar.clear();
  }

  private store(url: URL, res: Response): void {
    for (const header of res.headers.getSetCookie()) {
      const c = parseSetCookie(header);
      this.seen.push(c);
      let forOrigin = this.jar.get(url.hostname);
      if (!forOrigin) this.jar.set(url.hostname, (forOrigin = new Map()));
      if (c.attributes.get("max-age") === "0" || c.value === "") forOrigin.delete(c.name);
      else forOrigin.set(c.name, c.value);
    }
  }

  /** One request, no redirect followed. `origin: null` sends no Origin (a non-browser client). */
  async request(
    path: string,
    init: { method?: string; json?: unknown; body?: string; headers?: Record<string, string>; origin?: string | null } = {},
  ): Promise<Response> {
    const url = new URL(path, this.base);
    const method = init.method ?? (init.json !== undefined ? "POST" : "GET");
    const headers: Record<string, string> = { ...this.extraHeaders };
    const jar = this.jar.get(url.hostname);
    if (jar && jar.size > 0) headers.cookie = [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
    if (method !== "GET" && method !== "HEAD" && init.origin !== null) headers.origin = init.origin ?? new URL(this.base).origin;
    if (init.json !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(url, {
      method,
      headers: { ...headers, ...init.headers },
      body: init.json !== undefined ? JSON.stringify(init.json) : init.body,
      redirect: "manual",
    });
    this.store(url, res);
    return res;
  }

  async post(path: string, json: unknown = {}): Promise<Response> {
    return this.request(path, { method: "POST", json });
  }

  async getJson<T>(path: string): Promise<T> {
    const res = await this.request(path);
    if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  }

  /** GET `url` and follow redirects (any origin), as a browser navigating; returns the last response and its URL. */
  async navigate(url: string, maxHops = 10, stopBefore?: (next: URL) => boolean): Promise<{ res: Response; url: URL; hops: URL[] }> {
    let at = new URL(url, this.base);
    const hops: URL[] = [];
    for (let i = 0; i <= maxHops; i++) {
      hops.push(at);
      const res = await this.requestAbsolute(at, { method: "GET" });
      const location = res.headers.get("location");
      if (res.status >= 300 && res.status < 400 && location && !stopBefore?.(new URL(location, at))) {
        at = new URL(location, at);
        continue;
      }
      return { res, url: at, hops };
    }
    throw new Error(`more than ${maxHops} redirects from ${url}`);
  }

  /** A form post to any origin (an identity provider's login page), following the redirects it answers with. */
  async submitForm(
    action: URL,
    fields: Record<string, string>,
    maxHops = 10,
    stopBefore?: (next: URL) => boolean,
  ): Promise<{ res: Response; url: URL; hops: URL[] }> {
    const res = await this.requestAbsolute(action, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: action.origin },
      body: new URLSearchParams(fields).toString(),
    });
    const location = res.headers.get("location");
    if (res.status >= 300 && res.status < 400 && location && !stopBefore?.(new URL(location, action))) {
      const next = await this.navigate(new URL(location, action).href, maxHops, stopBefore);
      return { ...next, hops: [action, ...next.hops] };
    }
    return { res, url: action, hops: [action] };
  }

  private async requestAbsolute(url: URL, init: { method: string; headers?: Record<string, string>; body?: string }): Promise<Response> {
    const jar = this.jar.get(url.hostname);
    const headers: Record<string, string> = { ...this.extraHeaders, ...init.headers };
    if (jar && jar.size > 0) headers.cookie = [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
    const res = await fetch(url, { method: init.method, headers, body: init.body, redirect: "manual" });
    this.store(url, res);
    return res;
  }
}
