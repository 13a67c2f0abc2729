/** The noisy-neighbour scenario's options (bench/noisy.ts), read by bench/cli.ts; a bad value stops the run with exit code 2. */

export interface NoisyOptions {
  /** quiet students in room A */
  n: number;
  /** quiet/flood pairs */
  reps: number;
  /** steps per phase */
  steps: number;
  workers: number;
  floodAddress: string;
  /** the flood's student sockets in room B */
  floodSockets: number;
  /** the flood's fresh CONNECT-only connections */
  floodFresh: number;
}

/** The --noisy options: --noisy[=N] (default 200), --noisy-reps=R (3), --flood-sockets=S (10), --flood-fresh=F (4); steps from --steps, at least 20. */
export function noisyOptions(arg: (name: string) => string | undefined, base: { steps: number; workers: number }): NoisyOptions {
  const noisy = arg("noisy");
  const num = (value: string | undefined, fallback: number) => (value === undefined || value === "true" ? fallback : Number(value));
  const o: NoisyOptions = {
    n: num(noisy, 200),
    reps: num(arg("noisy-reps"), 3),
    steps: Math.max(20, base.steps),
    workers: base.workers,
    floodAddress: "127.0.0.99",
    floodSockets: num(arg("flood-sockets"), 10),
    floodFresh: num(arg("flood-fresh"), 4),
  };
  const bad = (what: string) => {
    console.error(what);
    process.exit(2);
  };
  if (!(Number.isInteger(o.n) && o.n >= 1 && o.n <= 10_000)) bad("--noisy[=N] takes room A's class size, 1..10000 (default 200).");
  if (!(Number.isInteger(o.reps) && o.reps >= 1 && o.reps <= 20))
    bad("--noisy-reps takes the number of quiet/flood pairs, 1..20 (default 3).");
  if (!(Number.isInteger(o.floodSockets) && o.floodSockets >= 1 && o.floodSockets <= 200))
    bad("--flood-sockets takes 1..200 (default 10).");
  if (!(Number.isInteger(o.floodFresh) && o.floodFresh >= 0 && o.floodFresh <= 200)) bad("--flood-fresh takes 0..200 (default 4).");
  return o;
}

/** One line for the run's log. */
export function noisyPlan(o: NoisyOptions): string {
  return `noisy neighbour: N = ${o.n}; ${o.reps} × (quiet, flood) of ${o.steps} steps; ${o.workers} client workers; ${o.floodSockets} + ${o.floodFresh} flood connections from ${o.floodAddress}`;
}
