import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

/** What the driver reads of a process or of the machine from /proc (Linux). */

/** Clock ticks per second (`getconf CLK_TCK`, 100 on Linux): the resolution of the CPU times below is 1000 / this ms. */
export const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/**
 * CPU time (user + system, all threads of the process: the main loop, V8's GC
 * helpers, libuv's pool) a process has used so far, in ms: /proc/<pid>/stat
 * fields 14 (utime) and 15 (stime). NaN if the process is gone.
 */
export function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" "); // fields[0] is field 3 (state)
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return NaN;
  }
}

/** Resident set size of a process, in bytes (/proc/<pid>/status VmRSS). */
export function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  if (!match) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(match[1]) * 1024;
}

/** The machine's CPU counters (all cores, clock ticks): busy and total, from the first line of /proc/stat. */
export function machineTicks(): { busy: number; total: number } {
  const fields = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1, 9).map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  return { busy: total - fields[3] - fields[4], total }; // minus idle and iowait
}

/** Busy share of the whole machine between two readings, 0..1. */
export function busyShare(a: { busy: number; total: number }, b: { busy: number; total: number }): number {
  return b.total > a.total ? (b.busy - a.busy) / (b.total - a.total) : NaN;
}
