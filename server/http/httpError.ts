import type { ErrorCode, RestErrorCode } from "../../lib/protocol";

/** Every failed API request: an HTTP status and a named code; the handler turns it into `{ error: { code, message } }`. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode | RestErrorCode,
    message: string,
  ) {
    super(message);
  }
}
