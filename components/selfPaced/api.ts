import { isRecord } from "@/lib/guards";
import { ASSIGNMENT_TOKEN_HEADER } from "@/lib/course/rest";

/**
 * The assignments API from the browser: same-origin JSON calls whose refusals
 * become a sentence and a code (the server's own words: docs/protocol.md).
 */

export class AssignmentApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Where this browser keeps its token for one assignment (a refresh or a return resumes the same student). */
export const assignmentTokenKey = (id: string) => `classroom:assignment:${id}`;

export function readToken(id: string): string | null {
  try {
    return localStorage.getItem(assignmentTokenKey(id));
  } catch {
    return null;
  }
}

export function keepToken(id: string, token: string | null): void {
  try {
    if (token) localStorage.setItem(assignmentTokenKey(id), token);
    else localStorage.removeItem(assignmentTokenKey(id));
  } catch {
    // Private mode without storage: the walk works, but a reload starts again.
  }
}

export async function callApi<T>(path: string, init: { method?: string; json?: unknown; token?: string | null } = {}): Promise<T> {
  const headers: Record<string, string> = {};
  if (init.json !== undefined) headers["content-type"] = "application/json";
  if (init.token) headers[ASSIGNMENT_TOKEN_HEADER] = init.token;
  let res: Response;
  try {
    res = await fetch(path, {
      method: init.method ?? (init.json !== undefined ? "POST" : "GET"),
      headers,
      body: init.json !== undefined ? JSON.stringify(init.json) : undefined,
      credentials: "same-origin",
      cache: "no-store",
    });
  } catch {
    throw new AssignmentApiError(0, "NETWORK", "The server could not be reached. Check your connection and try again.");
  }
  const body: unknown = await res.json().catch(() => null);
  if (res.ok) {
    // The server is the only author of these bodies (lib/course/rest.ts types them).
    // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion
    return body as T;
  }
  const error = isRecord(body) && isRecord(body.error) ? body.error : null;
  const code = typeof error?.code === "string" ? error.code : "INTERNAL";
  const message = typeof error?.message === "string" ? error.message : "Something went wrong on the server. Try again.";
  throw new AssignmentApiError(res.status, code, message);
}

export const errorText = (err: unknown) => (err instanceof Error ? err.message : "Something went wrong. Try again.");
