import { READINESS_CACHE_MS, READINESS_TIMEOUT_MS } from "../../lib/constants";
import { errorMessage } from "../../lib/errors";
import { log } from "../logger";
import type { SessionStore } from "../store/types";

/** `GET /api/ready`: whether this process can save what a class does. */
export interface ReadinessReport {
  ready: boolean;
  store: { kind: "sqlite" | "redis"; writable: boolean; ms: number | null; problem?: string };
  /** The server is shutting down: it takes no new classes, whatever the store says. */
  draining: boolean;
}

export interface ReadinessOptions {
  store: Pick<SessionStore, "checkWritable">;
  kind: "sqlite" | "redis";
  timeoutMs?: number;
  cacheMs?: number;
  now?: () => number;
}

/**
 * Readiness is "can this node save a vote now", not "is the process up"
 * (that is /api/health, the liveness probe). A load balancer that stops
 * sending students to a node whose disk is full or whose Redis is gone sends
 * them to one that can keep their votes.
 *
 * Each check commits one small write. Answers are reused for `cacheMs` and
 * checks in flight are shared, so probes and floods of requests cost at most
 * one write per interval; a write that hangs (a Redis that stopped answering)
 * is given up after `timeoutMs` and is not started again until it settles.
 */
export function createReadiness({
  store,
  kind,
  timeoutMs = READINESS_TIMEOUT_MS,
  cacheMs = READINESS_CACHE_MS,
  now = Date.now,
}: ReadinessOptions) {
  let draining = false;
  let last: { at: number; report: ReadinessReport } | null = null;
  let checking: Promise<ReadinessReport> | null = null;
  /** The store's write, while it has not settled (it may outlive the timeout). */
  let probing: Promise<void> | null = null;
  let probeStartedAt = 0;
  let wasReady: boolean | null = null;

  async function probe(): Promise<ReadinessReport> {
    const started = now();
    let problem: string | undefined;
    if (probing) {
      problem = `the store has not answered a write for ${started - probeStartedAt} ms`;
    } else {
      probeStartedAt = started;
      const write = store.checkWritable().finally(() => {
        probing = null;
      });
      probing = write;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), timeoutMs)));
      try {
        if ((await Promise.race([write, timeout])) === "timeout") problem = `the store did not take a write within ${timeoutMs} ms`;
      } catch (err) {
        problem = "the store refused a write";
        // The detail (a path, a Redis error) goes to the log, not to whoever asks.
        log.warn("readiness: the store refused a write", { store: kind, error: errorMessage(err) });
      } finally {
        clearTimeout(timer);
      }
    }
    const writable = problem === undefined;
    if (wasReady !== writable) {
      if (writable) {
        if (wasReady === false) log.info("readiness: the store takes writes again", { store: kind });
      } else log.warn("readiness: not ready", { store: kind, problem });
      wasReady = writable;
    }
    return {
      ready: writable && !draining,
      store: { kind, writable, ms: writable ? now() - started : null, ...(problem ? { problem } : {}) },
      draining,
    };
  }

  return {
    async check(): Promise<ReadinessReport> {
      if (last && now() - last.at < cacheMs) return { ...last.report, ready: last.report.ready && !draining, draining };
      checking ??= probe()
        .then((report) => {
          last = { at: now(), report };
          return report;
        })
        .finally(() => {
          checking = null;
        });
      return checking;
    },
    /** From now on the answer is "not ready" (shutdown has begun). */
    drain(): void {
      draining = true;
    },
  };
}
