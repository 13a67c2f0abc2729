import { mulberry32 } from "../support/random";

/**
 * The chaos run's randomness: one seed, split into independent streams by
 * name (the fault schedule, each teacher, each student), so adding a student
 * does not change the schedule a seed draws, and a printed seed replays the
 * same faults and the same scripted choices.
 */
export class Rng {
  private readonly next: () => number;

  constructor(readonly seed: number) {
    this.next = mulberry32(seed);
  }

  /** A stream of its own for `label`, the same for the same seed and label. */
  fork(label: string): Rng {
    let h = this.seed ^ 0x9e3779b9;
    for (let i = 0; i < label.length; i++) h = Math.imul(h ^ label.charCodeAt(i), 0x01000193);
    return new Rng(h >>> 0);
  }

  /** A number in [0, 1). */
  float(): number {
    return this.next();
  }

  /** An integer in [lo, hi], both included. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error("pick from nothing");
    return items[Math.floor(this.next() * items.length)];
  }

  /** One of `choices`, each as likely as its weight. */
  weighted<T>(choices: readonly (readonly [T, number])[]): T {
    const total = choices.reduce((sum, [, w]) => sum + w, 0);
    let r = this.next() * total;
    for (const [value, w] of choices) {
      r -= w;
      if (r < 0) return value;
    }
    return choices[choices.length - 1][0];
  }
}

/** A fresh seed for a run that was not given one (printed, so it can be given next time). */
export function freshSeed(): number {
  return Math.floor(Math.random() * 2 ** 31);
}
