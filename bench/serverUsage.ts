import type { ChildProcess } from "node:child_process";
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

/**
 * What a server logs on each SIGUSR2 (server/index.ts; bench/bareServer.ts writes the same line): the event
 * loop's delay since the previous signal (beyond the 10 ms sampling period) and the heap after the forced GC.
 */
export interface ProcessStats {
  loopDelayP50Ms: number;
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  liveSessions?: number;
}

/**
 * Collects the "process stats" lines a server process writes on stdout (the product logs them at info, so
 * start it with LOG_LEVEL=info). `since(mark)` returns the lines written after `mark = count()`.
 */
export function watchProcessStats(proc: ChildProcess): { count(): number; since(mark: number): ProcessStats[] } {
  const lines: ProcessStats[] = [];
  let partial = "";
  proc.stdout!.on("data", (d: Buffer) => {
    const text = partial + d.toString();
    const parts = text.split("\n");
    partial = parts.pop() ?? "";
    for (const line of parts) {
      if (!line.includes('"process stats"')) continue;
      try {
        lines.push(JSON.parse(line) as ProcessStats);
      } catch {
        // a line that only looks like one
      }
    }
  });
  return { count: () => lines.length, since: (mark) => lines.slice(mark) };
}
