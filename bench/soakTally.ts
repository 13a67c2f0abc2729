/** What the soak's classes did (bench/soakClasses.ts), counted per row and in total, and what went wrong. */

export interface Counts {
  sessionsStarted: number;
  sessionsEnded: number;
  joins: number;
  leaves: number;
  reconnects: number;
  votes: number;
  steps: number;
  polls: number;
  /** teacher command → ack (ms) */
  ackMs: number[];
}
const emptyCounts = (): Counts => ({
  sessionsStarted: 0,
  sessionsEnded: 0,
  joins: 0,
  leaves: 0,
  reconnects: 0,
  votes: 0,
  steps: 0,
  polls: 0,
  ackMs: [],
});
/** This row's counts (taken and renewed by each row), and the run's. */
let counts = emptyCounts();
export const totals = emptyCounts();
export function bump(key: Exclude<keyof Counts, "ackMs">): void {
  counts[key] += 1;
  totals[key] += 1;
}
/** A teacher command's ack came after `ms`. */
export function recordAck(ms: number): void {
  counts.ackMs.push(ms);
  totals.ackMs.push(ms);
}
/** The counts since the last row, for this row; the next row counts afresh. */
export function takeCounts(): Counts {
  const row = counts;
  counts = emptyCounts();
  return row;
}
/** Forget what the warm-up counted: the table starts from here. */
export function resetCounts(): void {
  Object.assign(totals, emptyCounts());
  counts = emptyCounts();
}

/** Failures by kind; any at all fails the soak. */
export const failures: Record<string, number> = {};
export const failureNotes: string[] = [];
export function fail(kind: string, detail: string): void {
  failures[kind] = (failures[kind] ?? 0) + 1;
  if (failureNotes.length < 20) failureNotes.push(`${kind}: ${detail}`);
}
export const failureCount = () => Object.values(failures).reduce((a, b) => a + b, 0);
