/**
 * Runs each sender's calls one at a time, in the order they arrived, and
 * answers every call by its deadline whatever happens to it.
 *
 * A teacher's second command must not overtake the first: if the first is
 * stuck retrying toward an owner node that froze, and the second runs on the
 * node that took over, the log would hold them the wrong way round (steps 1,
 * 3, 2). So the second waits for the first to be answered, or given up at its
 * deadline. A call given up after it started may still finish in the
 * background; the cluster's ownership fence keeps that from landing after
 * anything that runs later on another node (server/scaleout/clusterGateway.ts).
 */
export class OrderedQueue {
  /** Per sender: settles when its latest call has been answered or given up. */
  private readonly tails = new Map<string, Promise<void>>();

  /**
   * Runs `fn` once the sender's earlier calls are answered or given up, unless
   * `deadline` (ms since the epoch) has passed by then. Resolves with what `fn`
   * returns or throws, or at the deadline with what `late(started)` returns or
   * throws: `started` says whether `fn` had begun (and may yet finish).
   */
  run<T>(sender: string, deadline: number, fn: () => Promise<T>, late: (started: boolean) => T): Promise<T> {
    const before = this.tails.get(sender) ?? Promise.resolve();
    let started = false;
    let timer: NodeJS.Timeout | undefined;
    return new Promise<T>((resolve, reject) => {
      const givenUp = new Promise<void>((passed) => {
        timer = setTimeout(
          () => {
            try {
              resolve(late(started));
            } catch (err) {
              reject(err instanceof Error ? err : new Error(String(err)));
            }
            passed();
          },
          Math.max(0, deadline - Date.now()),
        );
      });
      const ran = before.then(async () => {
        if (Date.now() >= deadline) return;
        started = true;
        try {
          resolve(await fn());
        } catch (err) {
          reject(err instanceof Error ? err : new Error(String(err)));
        } finally {
          clearTimeout(timer);
        }
      });
      const tail = Promise.race([ran, givenUp]);
      this.tails.set(sender, tail);
      void tail.then(() => {
        if (this.tails.get(sender) === tail) this.tails.delete(sender);
      });
    });
  }

  /** Senders with a call queued or running (for tests and leak checks). */
  get size(): number {
    return this.tails.size;
  }
}
