import path from "node:path";
import type { ServerKind } from "./messages";
import { noisyOptions } from "./noisy";

/**
 * The benchmark's options, read from argv once when this module loads; a bad
 * value stops the run with exit code 2 before any process is started.
 */

function arg(name: string): string | undefined {
  const hit = process.argv.slice(2).find((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (!hit) return undefined;
  return hit.includes("=") ? hit.slice(hit.indexOf("=") + 1) : "true";
}

/** The default class sizes; 5,000 on request (--n=100,1000,5000): 3 interleaved runs of it would take the default run past 6 minutes. */
const DEFAULT_NS = "100,1000";
export const NS = (arg("n") ?? DEFAULT_NS)
  .split(",")
  .map((s) => Number(s.trim().replace(/_/g, "")))
  .filter((n) => Number.isInteger(n) && n > 0);
export const STEPS = Math.max(2, Math.min(200, Number(arg("steps") ?? 25)));
export const WORKERS = Math.max(1, Math.min(8, Number(arg("workers") ?? 2)));
/** --reps=N: runs of every (server, N) cell, interleaved across the servers (3). */
export const REPS = Number(arg("reps") ?? 3);
const ONLY = arg("only") as ServerKind | undefined;
/** --cluster=K: also run K product processes sharing one redis-server (REDIS_URL), students round-robin over them. */
const CLUSTER_ARG = arg("cluster");
export const CLUSTER = CLUSTER_ARG === undefined ? 0 : Number(CLUSTER_ARG);
const ALL_KINDS: ServerKind[] = CLUSTER ? ["product", "bare", "cluster"] : ["product", "bare"];
export const KINDS: ServerKind[] = ONLY && ALL_KINDS.includes(ONLY) ? [ONLY] : ALL_KINDS;
/** Source addresses for the students: 127.0.0.2 .. 127.0.0.31, round-robin. */
export const ADDRESSES = Array.from({ length: 30 }, (_, i) => `127.0.0.${i + 2}`);
/** --cpu-prof=DIR: write a V8 CPU profile of each server process into DIR (open it in Chrome DevTools). */
export const CPU_PROF_DIR = arg("cpu-prof");
export const profileArgs = CPU_PROF_DIR ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(CPU_PROF_DIR)}`] : [];
export const JOIN_WINDOW = 100; // connections in flight per worker
export const VOTE_SPREAD_MS = 1_000;
/** --noisy[=N]: instead of the cells above, the noisy-neighbour scenario (bench/noisy.ts) with N quiet students (200). */
export const NOISY = arg("noisy") !== undefined ? noisyOptions(arg, { steps: STEPS, workers: WORKERS }) : null;

if (CLUSTER_ARG !== undefined && !(Number.isInteger(CLUSTER) && CLUSTER >= 2 && CLUSTER <= 8)) {
  console.error("--cluster=K takes the number of product nodes, 2..8 (e.g. --cluster=3).");
  process.exit(2);
}
if (ONLY && !ALL_KINDS.includes(ONLY)) {
  console.error(`--only takes ${ALL_KINDS.join(" or ")}${CLUSTER ? "" : " (cluster needs --cluster=K)"}.`);
  process.exit(2);
}
if (!(Number.isInteger(REPS) && REPS >= 1 && REPS <= 20)) {
  console.error("--reps=N takes the number of runs of every cell, 1..20 (default 3).");
  process.exit(2);
}
if (NS.length === 0 || NS.some((n) => n > 10_000)) {
  console.error("--n takes a comma-separated list of class sizes, each 1..10000 (the product caps a session at 10,000).");
  process.exit(2);
}

/** The product×K column's name, e.g. "product×3 (Redis)". */
export const label = (kind: ServerKind) => (kind === "cluster" ? `product×${CLUSTER} (Redis)` : kind);
