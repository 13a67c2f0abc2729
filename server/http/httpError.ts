import type { ErrorCode, RestErrorCode } from "../../lib/protocol";

/** Every failed API request: an HTTP status and a named code; the handler turns it into `{ error: { code, message } }`. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode | RestErrorCode,
    message: string,
    /** A 405's `Allow` header: the methods the path answers (RFC 9110 requires it). */
    readonly allow?: readonly string[],
  ) {
    super(message);
  }
}

/** A 405 naming the methods the path answers, in the message and the `Allow` header. */
export function methodNotAllowed(allow: readonly string[], message = `Use ${allow.filter((m) => m !== "HEAD").join(" or ")}.`): HttpError {
  return new HttpError(405, "METHOD_NOT_ALLOWED", message, allow);
}
