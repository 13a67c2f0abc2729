/** Whatever was thrown, as an Error (a thrown string or object is wrapped, never cast). */
export function toError(thrown: unknown): Error {
  return thrown instanceof Error ? thrown : new Error(typeof thrown === "string" ? thrown : JSON.stringify(thrown));
}

/** The message of whatever was thrown, for logs. */
export function errorMessage(thrown: unknown): string {
  return toError(thrown).message;
}
