import { isRecord } from "@/lib/guards";
import { ACCOUNT_ERRORS, type AccountErrorCode, type AccountState } from "@/lib/account/rest";

/**
 * The account API from the browser: same-origin requests (the sign-in cookie
 * travels by itself and no script can read it), JSON bodies, and refusals
 * turned into a sentence and the field they concern.
 */

export class AccountApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

const isCode = (code: string): code is AccountErrorCode => code in ACCOUNT_ERRORS;

/** The sentence for an error code carried in an address (`?error=OIDC_FAILED`), or null for anything else. */
export function messageForCode(code: string | null): string | null {
  return code && isCode(code) ? ACCOUNT_ERRORS[code] : null;
}

async function call<T>(path: string, init: RequestInit): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, { ...init, credentials: "same-origin", cache: "no-store" });
  } catch {
    throw new AccountApiError(0, "NETWORK", "The server could not be reached. Check the connection and try again.");
  }
  const body: unknown = await res.json().catch(() => null);
  if (res.ok) {
    // The account API is the only author of these bodies (lib/account/rest.ts types them).
    // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion
    return body as T;
  }
  const error = isRecord(body) && isRecord(body.error) ? body.error : null;
  const read = (key: string) => {
    const value = error?.[key];
    return typeof value === "string" ? value : undefined;
  };
  const code = read("code") ?? "INTERNAL";
  throw new AccountApiError(res.status, code, read("message") ?? messageForCode(code) ?? ACCOUNT_ERRORS.INTERNAL, read("field"));
}

/**
 * A lessons or sessions API answer (plain fetch, with this browser's keys):
 * its body, or an AccountApiError carrying the refusal's code and the
 * server's sentence (empty when it sent none), for useAccountErrorText.
 */
export async function readReply<T>(res: Response): Promise<T> {
  const body: unknown = await res.json().catch(() => null);
  if (res.ok && body !== null) {
    // The contract (lib/protocol/rest.ts) types this path's body; the server is its only author.
    // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion
    return body as T;
  }
  const error = isRecord(body) && isRecord(body.error) ? body.error : null;
  const code = typeof error?.code === "string" ? error.code : "INTERNAL";
  throw new AccountApiError(res.status, code, typeof error?.message === "string" ? error.message : "");
}

/** Any JSON call of this server's account-authenticated API, with extra headers (this browser's keys, for instance). */
export function requestJson<T>(path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<T> {
  const method = init.method ?? (init.body === undefined ? "GET" : "POST");
  const headers: Record<string, string> = { ...init.headers };
  if (method === "POST" || method === "PUT") headers["content-type"] = "application/json";
  return call<T>(path, { method, headers, body: method === "POST" || method === "PUT" ? JSON.stringify(init.body ?? {}) : undefined });
}

export function getJson<T>(path: string): Promise<T> {
  return call<T>(path, { method: "GET" });
}

export function postJson<T>(path: string, body: unknown = {}): Promise<T> {
  return call<T>(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
}

export function del<T>(path: string): Promise<T> {
  return call<T>(path, { method: "DELETE" });
}

export function getAccountState(): Promise<AccountState> {
  return getJson<AccountState>("/api/account");
}

/** Where a sign-in page sends the teacher afterwards (`?next=`), only ever a path on this site. */
export { safeNextPath } from "@/lib/account/rest";
