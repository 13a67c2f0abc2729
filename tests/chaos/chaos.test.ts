import { describe, expect, it } from "vitest";
import { freshSeed } from "./rng";
import { runChaos } from "./runner";

/**
 * The short chaos run of `npm test`: a fixed-size schedule (every kind of
 * fault at least once: a node killed, frozen and restarted, Redis killed
 * and frozen) while four classes run, checked by history (./checker.ts).
 * Each run draws a fresh seed and prints it; `CHAOS_SEED=S npx vitest run
 * tests/chaos` or `npm run chaos -- --faults=6 --seed=S` replays one. The
 * long run is `npm run chaos -- --minutes=N --seed=S`.
 */

/** Every kind once, and one more drawn from the seed. */
const FAULTS = 6;

describe("random faults, checked by history", () => {
  it("keeps every invariant through a seeded schedule of kills, freezes and restarts of nodes and Redis", async () => {
    const seed = process.env.CHAOS_SEED ? Number(process.env.CHAOS_SEED) : freshSeed();
    const result = await runChaos({ seed, faults: FAULTS });
    expect(result.ok, result.report).toBe(true);
  }, 400_000);
});
