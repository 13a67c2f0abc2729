import path from "node:path";
import type { ServerKind } from "./messages";
import { noisyOptions } from "./noisyOptions";

/**
 * The benchmark's options, read from argv once when this module loads; a bad
 * value stops the run with exit code 2 before any process is started.
 */

function arg(name: string): string | undefined {
  const hit = process.argv.slice(2).find((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (!hit) return undefined;
  return hit.includes("=") ? hit.slice(hit.indexOf("=") + 1) : "true";
}

/** --help: the options below, printed by bench/run.ts before it starts anything. */
export const HELP = arg("help") !== undefined;
export const USAGE = `npm run bench [-- options]   (bench/run.ts; see bench/README.md)

  --n=100,1000[,5000]        class sizes, each 1..10000 (default 100,1000)
  --steps=S                  steps per run (25)
  --reps=R                   interleaved runs of every cell, 1..20 (3)
  --workers=W                client processes, 1..8 (2)
  --only=product|bare|cluster   one server only
  --cluster=K                also K product nodes on one redis-server, 2..8
  --cpu-prof=DIR             write V8 CPU profiles of the servers into DIR
  --noisy[=N]                only the noisy-neighbour scenario, N quiet students (200);
                             --noisy-reps=R (3), --flood-sockets=S (10), --flood-fresh=F (4)
  --school[=ROOMS]           only the school: ROOMS rooms (200); --school-class=S (30),
                             --school-seconds=T (60), --school-interval=MS (10000), --school-poll-every=K (5)
  --help                     this text

npm run soak [-- --minutes=M --sessions=N --class=S --sample-seconds=T]   (bench/soak.ts)`;

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

/** The school scenario's shape (bench/school.ts). */
export interface SchoolOptions {
  rooms: number;
  /** students per room */
  classSize: number;
  /** the lesson window: how long the teachers keep stepping and polling */
  seconds: number;
  /** mean time between one room's actions (each gap uniform in 0.5–1.5 × this) */
  intervalMs: number;
  /** every pollEvery-th action of a room is a poll instead of a step */
  pollEvery: number;
}

/**
 * --school[=ROOMS]: instead of the cells above, the school scenario (bench/school.ts): ROOMS rooms (200) of
 * --school-class=S students (30) on one server, product and bare interleaved --reps times; --school-seconds=T
 * (60) of lessons, each room acting every --school-interval=MS (10000: a brisk lesson) on average, every --school-poll-every=K-th
 * action (5) a poll.
 */
function schoolOptions(): SchoolOptions | null {
  const school = arg("school");
  if (school === undefined) return null;
  const num = (value: string | undefined, fallback: number) => (value === undefined || value === "true" ? fallback : Number(value));
  const o: SchoolOptions = {
    rooms: num(school, 200),
    classSize: num(arg("school-class"), 30),
    seconds: num(arg("school-seconds"), 60),
    intervalMs: num(arg("school-interval"), 10_000),
    pollEvery: num(arg("school-poll-every"), 5),
  };
  const bad = (what: string) => {
    console.error(what);
    process.exit(2);
  };
  const int = (x: number, lo: number, hi: number) => Number.isInteger(x) && x >= lo && x <= hi;
  if (!int(o.rooms, 1, 1_000)) bad("--school[=ROOMS] takes the number of rooms, 1..1000 (default 200).");
  if (!int(o.classSize, 1, 500)) bad("--school-class takes the students per room, 1..500 (default 30).");
  if (!int(o.rooms * o.classSize, 1, 20_000)) bad("--school: rooms × students per room must stay within 20,000.");
  if (!int(o.seconds, 5, 3_600)) bad("--school-seconds takes the lesson window in seconds, 5..3600 (default 60).");
  if (!int(o.intervalMs, 200, 600_000))
    bad("--school-interval takes a room's mean time between actions in ms, 200..600000 (default 10000).");
  if (!int(o.pollEvery, 1, 1_000)) bad("--school-poll-every takes 1..1000 (default 5: every fifth action is a poll).");
  return o;
}
export const SCHOOL = schoolOptions();

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

if (NOISY && SCHOOL) {
  console.error("--noisy and --school are two separate scenarios: run one at a time.");
  process.exit(2);
}

/** The product×K column's name, e.g. "product×3 (Redis)". */
export const label = (kind: ServerKind) => (kind === "cluster" ? `product×${CLUSTER} (Redis)` : kind);
