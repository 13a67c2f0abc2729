/** The soak's options (bench/soak.ts), read from argv once when this module loads; a bad value stops it with exit code 2. */

function arg(name: string): string | undefined {
  const hit = process.argv.slice(2).find((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  return hit?.includes("=") ? hit.slice(hit.indexOf("=") + 1) : undefined;
}
function intArg(name: string, fallback: number, lo: number, hi: number, what: string): number {
  const raw = arg(name);
  const value = raw === undefined ? fallback : Number(raw);
  if (!(Number.isInteger(value) && value >= lo && value <= hi)) {
    console.error(`--${name} takes ${what}, ${lo}..${hi} (default ${fallback}).`);
    process.exit(2);
  }
  return value;
}

export const MINUTES = intArg("minutes", 60, 1, 24 * 60, "the churn's length in minutes");
/** Classes live at once. */
export const SESSIONS = intArg("sessions", 12, 1, 200, "the number of classes live at once");
/** Students per class (kept there: a student who leaves is replaced by a new one). */
export const CLASS_SIZE = intArg("class", 25, 1, 500, "students per class");
export const CHURN_MS = MINUTES * 60_000;
/** A row every this often: 30 rows over the run, at least every 10 s and at most every 2 minutes. */
export const SAMPLE_MS =
  intArg("sample-seconds", Math.min(120, Math.max(10, Math.round(CHURN_MS / 30 / 1000))), 5, 3_600, "seconds between rows") * 1000;
/** A class lives a random time in [CHURN/4, CHURN/2], within 2–6 minutes when the churn is long enough. */
export const LIFETIME_MS: [number, number] = [Math.min(120_000, CHURN_MS / 4), Math.min(360_000, CHURN_MS / 2)];

/**
 * After every session ended and every socket closed, the server's memory after a forced GC may exceed the
 * baseline by at most this. What legitimately stays: bounded caches (per-participant vote buckets, per-session
 * command buckets, both LRU at 10,000 keys; per-address limiters), the ids of ended sessions, SQLite's page
 * cache, and code compiled during the churn. RSS also keeps pages the allocators did not give back.
 */
export const HEAP_TOLERANCE_BYTES = 8 * 2 ** 20;
export const RSS_TOLERANCE_BYTES = 48 * 2 ** 20;
