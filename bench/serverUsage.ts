import { cpuMs, rssBytes } from "./proc";
import type { RunningServer } from "./servers";
import { sleep } from "./wait";

/** What a running server costs: its memory after a forced GC, and its CPU time. */

/** RSS of the server: the sum over the cluster's nodes (Redis itself not included). */
function serverRss(server: RunningServer): number {
  return server.procs.reduce((sum, p) => sum + rssBytes(p.pid!), 0);
}

/**
 * RSS after a forced full GC: every server process is started with
 * --expose-gc and runs global.gc() on SIGUSR2 (server/index.ts,
 * bench/bareServer.ts). Two GCs 300 ms apart (the second collects what the
 * first one's finalisers freed), then the RSS is read every 100 ms until three
 * readings in a row are within 0.5 % of each other (V8 and the allocator give
 * pages back over a few hundred ms after the collection), at most 5 s.
 */
export async function rssAfterGc(
  server: RunningServer,
): Promise<{ bytes: number; beforeGcBytes: number; settleMs: number; settled: boolean }> {
  const beforeGcBytes = serverRss(server);
  const start = Date.now();
  for (let i = 0; i < 2; i++) {
    for (const p of server.procs) p.kill("SIGUSR2");
    await sleep(300);
  }
  const readings: number[] = [];
  for (;;) {
    readings.push(serverRss(server));
    const last = readings.slice(-3);
    const settled = last.length === 3 && (Math.max(...last) - Math.min(...last)) / Math.max(...last) < 0.005;
    if (settled || Date.now() - start > 5_000)
      return { bytes: readings[readings.length - 1], beforeGcBytes, settleMs: Date.now() - start, settled };
    await sleep(100);
  }
}

/** CPU time (utime + stime) used so far by the server's processes, in ms; the cluster's includes its redis-server. */
export function serverCpuMs(server: RunningServer): number {
  return server.cpuPids.reduce((sum, pid) => sum + cpuMs(pid), 0);
}

/** The token the benchmark gives the product (METRICS_TOKEN) so it can read its GET /metrics; the baseline answers it too. */
export const BENCH_METRICS_TOKEN = "bench-metrics-0123456789abcdef";
/** Environment for a product server whose /metrics the benchmark reads. */
export const METRICS_ENV = { METRICS_TOKEN: BENCH_METRICS_TOKEN };
/** prom-client's event-loop sampling period in the product (server/ops/metrics.ts) and the baseline. */
const LOOP_DELAY_RESOLUTION_MS = 10;

/** What a server's GET /metrics says about its process. */
export interface ProcessStats {
  /** the event loop's delay since the previous scrape (each scrape resets it), beyond the 10 ms sampling period */
  loopDelayP50Ms: number;
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
  heapUsedBytes: number;
  heapTotalBytes: number;
  externalBytes: number;
  liveSessions: number;
}

/**
 * GET /metrics in the Prometheus text format: the product's (server/ops/metrics.ts, prom-client's process
 * metrics; on with METRICS_TOKEN, see METRICS_ENV) or the baseline's, which answers the same names.
 */
export async function scrapeStats(server: RunningServer): Promise<ProcessStats> {
  const res = await fetch(`${server.url}/metrics`, {
    headers: { authorization: `Bearer ${BENCH_METRICS_TOKEN}` },
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET /metrics: ${res.status} ${text.slice(0, 200)} (is the server started with METRICS_ENV?)`);
  const value = (name: string): number => {
    const match = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, "m").exec(text);
    if (!match) throw new Error(`GET /metrics has no ${name}`);
    return Number(match[1]);
  };
  // The histogram holds the sampling timer's whole period; the delay is what exceeds it.
  const delayMs = (seconds: number) => Math.max(0, Math.round((seconds * 1000 - LOOP_DELAY_RESOLUTION_MS) * 100) / 100);
  return {
    loopDelayP50Ms: delayMs(value("nodejs_eventloop_lag_p50_seconds")),
    loopDelayP99Ms: delayMs(value("nodejs_eventloop_lag_p99_seconds")),
    loopDelayMaxMs: delayMs(value("nodejs_eventloop_lag_max_seconds")),
    heapUsedBytes: value("nodejs_heap_size_used_bytes"),
    heapTotalBytes: value("nodejs_heap_size_total_bytes"),
    externalBytes: value("nodejs_external_memory_bytes"),
    liveSessions: value("classroom_live_sessions"),
  };
}

/**
 * A reading: the event loop's delay since the previous reading (scraped before the forced GC, so the
 * collection's own pause falls in no interval), RSS after a forced GC, and the heap after it (a second
 * scrape, which also starts the next interval).
 */
export async function readingAfterGc(server: RunningServer) {
  const before = await scrapeStats(server);
  const rss = await rssAfterGc(server);
  const after = await scrapeStats(server);
  return { ...rss, loopDelay: { p50Ms: before.loopDelayP50Ms, p99Ms: before.loopDelayP99Ms, maxMs: before.loopDelayMaxMs }, after };
}
