/** Progress on stderr with the time of day, so stdout stays the report alone. */
export function log(line: string): void {
  process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
}
