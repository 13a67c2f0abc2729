import path from "node:path";
import type { FloodMode } from "./addressFlooder";
import { ROOT } from "./processes";

/** bench/addressFlood.ts's options (see its header), and the addresses and token it uses. */

export interface Options {
  roots: { name: string; dir: string }[];
  kinds: FloodMode[];
  reps: number;
  sockets: number;
  students: number;
  /** How long each phase (quiet, flood) steps room A, in seconds. */
  seconds: number;
  questions: number;
  rate: number;
  /** A late joiner every this many ms of a phase. */
  lateEveryMs: number;
}

export function parseOptions(argv: string[]): Options {
  const arg = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const before = arg("before");
  const kinds = (arg("kinds") ?? "resync,frames").split(",").filter((k): k is FloodMode => k === "resync" || k === "frames");
  const only = arg("only");
  const roots = [...(before ? [{ name: "before", dir: path.resolve(before) }] : []), { name: before ? "after" : "this", dir: ROOT }];
  return {
    roots: roots.filter((r) => !only || r.name === only),
    kinds,
    reps: Number(arg("reps") ?? 2),
    sockets: Number(arg("sockets") ?? 300),
    students: Number(arg("students") ?? 30),
    seconds: Number(arg("seconds") ?? 15),
    questions: Number(arg("questions") ?? 300),
    rate: Number(arg("rate") ?? 2),
    lateEveryMs: Number(arg("late-every") ?? 2_000),
  };
}

export const METRICS_TOKEN = "bench-metrics-0123456789abcdef";
export const FLOOD_ADDRESS = "127.0.0.99";
export const STEP_TIMEOUT_MS = 10_000;
