/** Bounded waiting: every wait in the benchmark has a timer, so a stuck server or worker fails the run instead of hanging it. */

/** Waits `ms` (a negative wait, a moment already past, is none). */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)));

export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
    }),
  ]);
}

/** Resolves when `expected` arrivals have come or after `timeoutMs`, whichever is first. */
export class Arrivals {
  count = 0;
  readonly done: Promise<void>;
  private resolve!: () => void;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly expected: number,
    timeoutMs: number,
  ) {
    this.done = new Promise((resolve) => (this.resolve = resolve));
    this.timer = setTimeout(() => this.resolve(), timeoutMs);
    if (expected <= 0) this.finish();
  }

  arrive(): void {
    this.count += 1;
    if (this.count >= this.expected) this.finish();
  }

  private finish(): void {
    clearTimeout(this.timer);
    this.resolve();
  }
}
