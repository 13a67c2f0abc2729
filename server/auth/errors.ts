import { ACCOUNT_ERRORS, type AccountErrorCode } from "../../lib/account/rest";

/** A refused account request: its HTTP status and a named code; the handler answers `{ error: { code, message } }`. */
export class AuthError extends Error {
  constructor(
    readonly status: number,
    readonly code: AccountErrorCode,
    message: string = ACCOUNT_ERRORS[code],
    /** A 405's `Allow` header. */
    readonly allow?: readonly string[],
    /** The body field a 400 is about, so a form can show the message beside it. */
    readonly field?: string,
  ) {
    super(message);
    this.name = "AuthError";
  }
}

export const signedOut = () => new AuthError(401, "SIGNED_OUT");
export const rateLimited = () => new AuthError(429, "RATE_LIMITED");
export const methodNotAllowed = (allow: readonly string[]) => new AuthError(405, "METHOD_NOT_ALLOWED", `Use ${allow.join(" or ")}.`, allow);
