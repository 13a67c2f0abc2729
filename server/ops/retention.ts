import { RETENTION_SWEEP_INTERVAL_MS } from "../../lib/constants";
import { errorMessage } from "../../lib/errors";
import { log } from "../logger";
import type { RetentionSweep, SessionStore } from "../store/types";

export const DAY_MS = 24 * 60 * 60 * 1000;

export interface RetentionOptions {
  store: Pick<SessionStore, "deleteEndedBefore">;
  /** RETENTION_DAYS: ended sessions are deleted this long after they end. */
  days: number;
  now?: () => number;
  intervalMs?: number;
  /** Before the first pass (it runs soon after start, not before the server listens). */
  firstDelayMs?: number;
}

/**
 * Forgetting on schedule: every `intervalMs` (and once just after start),
 * sessions that ended more than `days` ago are deleted with their log
 * (nicknames and votes included), their students' tokens and the replay
 * share key. Live sessions are never touched (the idle timeout ends them
 * first). Each pass is logged, so an operator can show when data went. In
 * scale-out mode every node sweeps; the store deletes each session once,
 * atomically, so the passes may split the count between nodes.
 */
export function startRetention({
  store,
  days,
  now = Date.now,
  intervalMs = RETENTION_SWEEP_INTERVAL_MS,
  firstDelayMs = 1_000,
}: RetentionOptions) {
  let running: Promise<RetentionSweep | null> | null = null;
  let stopped = false;
  // Shutdown stops a long pass between two sessions (each is deleted whole, or not at all).
  const stopping = new AbortController();

  async function pass(): Promise<RetentionSweep | null> {
    const cutoff = now() - days * DAY_MS;
    try {
      const swept = await store.deleteEndedBefore(cutoff, stopping.signal);
      const fields = { ...swept, retentionDays: days, endedBefore: new Date(cutoff).toISOString() };
      if (swept.sessions > 0) log.info("retention: deleted ended sessions", fields);
      else log.debug("retention: nothing to delete", fields);
      return swept;
    } catch (err) {
      log.error("retention: deleting ended sessions failed", { retentionDays: days, error: errorMessage(err) });
      return null;
    }
  }

  /** One pass at a time: a slow pass is not stacked on by the next tick. */
  function run(): Promise<RetentionSweep | null> {
    if (stopped) return Promise.resolve(null);
    running ??= pass().finally(() => {
      running = null;
    });
    return running;
  }

  log.info("retention: ended sessions are deleted after they end", { retentionDays: days, everyMinutes: intervalMs / 60_000 });
  const first = setTimeout(() => void run(), firstDelayMs);
  const timer = setInterval(() => void run(), intervalMs);
  first.unref();
  timer.unref();

  return {
    /** Runs a pass now (or joins the one running). */
    run,
    /** Stops the schedule, and a pass in progress after its current session; resolves when that pass has returned. */
    async stop(): Promise<void> {
      stopped = true;
      stopping.abort();
      clearTimeout(first);
      clearInterval(timer);
      await running;
    },
  };
}
