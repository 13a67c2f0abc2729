// Random faults, checked by history: `npm run chaos -- --minutes=N --seed=S` (tests/chaos/runner.ts).
import { freshSeed } from "../tests/chaos/rng";
import { recheck, runChaos } from "../tests/chaos/runner";

/**
 * The long chaos run, on demand: four app nodes on one redis-server, four
 * classes driven by scripts, and for N minutes a schedule drawn from the seed
 * that kills (SIGKILL), freezes (SIGSTOP/SIGCONT) and restarts nodes and
 * Redis; then the history is checked. Without --seed a fresh one is drawn
 * and printed; a failure prints the line that replays it. Exit code 1 when
 * an invariant failed, 2 on a bad argument.
 */

function arg(name: string): string | undefined {
  const hit = process.argv.slice(2).find((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  return hit?.includes("=") ? hit.slice(hit.indexOf("=") + 1) : undefined;
}

function intArg(name: string, fallback: number | undefined, lo: number, hi: number, what: string): number | undefined {
  const raw = arg(name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!(Number.isInteger(value) && value >= lo && value <= hi)) {
    console.error(`--${name} takes ${what}, ${lo}..${hi}.`);
    process.exit(2);
  }
  return value;
}

async function main(): Promise<number> {
  if (process.argv.includes("--help") || process.argv.includes("-h")) {
    console.log(
      "usage: npm run chaos -- [--minutes=N (default 10)] [--seed=S] [--faults=K (a fixed-size schedule instead)] | --recheck=DIR (a failed run's kept history)",
    );
    return 0;
  }
  const kept = arg("recheck");
  if (kept) {
    const { ok, report } = recheck(kept);
    console.log(report);
    return ok ? 0 : 1;
  }
  const seed = intArg("seed", freshSeed(), 0, 2 ** 32 - 1, "the schedule's seed")!;
  const faults = intArg("faults", undefined, 5, 1_000, "a fixed number of faults");
  const minutes = faults ? undefined : intArg("minutes", 10, 1, 24 * 60, "minutes of faults");
  const result = await runChaos({ seed, faults, minutes });
  console.log(`chaos: ${result.ok ? "green" : "red"} after ${(result.ms / 1000).toFixed(0)} s (seed ${seed})`);
  return result.ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
