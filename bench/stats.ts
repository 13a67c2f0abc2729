/** Statistics over the samples of one run, and over the runs of one cell, and how the tables print a figure. */

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil(q * sorted.length) - 1; // nearest rank
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))];
}
const sortNum = (xs: number[]) => [...xs].sort((a, b) => a - b);
export const median = (xs: number[]) => quantile(sortNum(xs), 0.5);
export const p99 = (xs: number[]) => quantile(sortNum(xs), 0.99);
export const maxOf = (xs: number[]) => xs.reduce((m, x) => Math.max(m, x), -Infinity);

/** The median of the runs (the mean of the middle two for an even count). */
export function runMedian(xs: number[]): number {
  const s = sortNum(xs);
  if (s.length === 0) return NaN;
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

export const fmt = (x: number | null | undefined, digits = 1) =>
  x === null || x === undefined || !Number.isFinite(x) ? "–" : x.toFixed(digits);
/** p/b; "–" when either is missing or not positive (an RSS delta within the noise can come out negative). */
export const ratio = (p: number | null | undefined, b: number | null | undefined) =>
  p === null || p === undefined || b === null || b === undefined || !Number.isFinite(p) || !Number.isFinite(b) || b <= 0 || p <= 0
    ? "–"
    : `${(p / b).toFixed(2)}x`;

/** A Markdown table. */
export function table(header: string[], rows: string[][]): string {
  const lines = [`| ${header.join(" | ")} |`, `|${header.map(() => "---").join("|")}|`];
  for (const r of rows) lines.push(`| ${r.join(" | ")} |`);
  return lines.join("\n");
}

/** Adds `by` to a count kept by key (errors by code, say). */
export const count = (map: Record<string, number>, key: string, by = 1) => {
  map[key] = (map[key] ?? 0) + by;
};
