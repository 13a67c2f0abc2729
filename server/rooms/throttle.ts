/**
 * A leading-edge throttle: the first request runs at once, later ones within
 * the interval are folded into one run at its end, and the last request is
 * never lost. Used for poll tallies (a vote storm is at most 4 messages a
 * second, fewer in a class over 2,500) and presence (a join storm is at most 2 console updates a second).
 */
export class LeadingEdgeThrottle {
  private timer: NodeJS.Timeout | null = null;
  private pending = false;
  private stopped = false;

  constructor(
    /** Fixed, or asked at each run (a tally's interval grows with the class). */
    private readonly intervalMs: number | (() => number),
    private readonly run: () => void,
  ) {}

  request(): void {
    this.pending = true;
    if (this.timer || this.stopped) return;
    this.pending = false;
    this.run();
    this.timer = setTimeout(
      () => {
        this.timer = null;
        if (this.pending) this.request();
      },
      typeof this.intervalMs === "number" ? this.intervalMs : this.intervalMs(),
    );
  }

  /** Forget a pending run (what it would have sent is stale: the poll closed). */
  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.pending = false;
  }

  /** No more runs, ever (the room is disposed). */
  stop(): void {
    this.cancel();
    this.stopped = true;
  }
}
