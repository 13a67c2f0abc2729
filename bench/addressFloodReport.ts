import type { AddressFloodStats, FloodMode } from "./addressFlooder";
import { FLOOD_ADDRESS, type Options } from "./addressFloodOptions";
import { fmt, maxOf, median, ratio, runMedian, table } from "./stats";

/** bench/addressFlood.ts's results, and the tables it prints (before and after side by side, per flood). */

export interface PhaseResult {
  fanoutMs: number[];
  lateJoinMs: number[];
  lateJoinFailed: number;
  loopP99Ms: number;
  loopMaxMs: number;
}

export interface RunResult {
  root: string;
  kind: FloodMode;
  rep: number;
  wholeBytes: number;
  quiet: PhaseResult;
  flood: PhaseResult;
  stats: AddressFloodStats;
  joined: number;
  serverCpuMsPerS: { quiet: number; flood: number };
}

const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.max(0, Math.ceil(0.95 * xs.length) - 1))] ?? NaN;

export function report(results: RunResult[], o: Options): string {
  const out: string[] = [];
  for (const kind of o.kinds) {
    const rows: string[][] = [];
    const cell = (root: string) => results.filter((r) => r.kind === kind && r.root === root);
    for (const root of o.roots) {
      const runs = cell(root.name);
      if (runs.length === 0) continue;
      const m = (f: (r: RunResult) => number) => runMedian(runs.map(f));
      const spread = (f: (r: RunResult) => number) => `${fmt(m(f))} [${fmt(Math.min(...runs.map(f)))}–${fmt(Math.max(...runs.map(f)))}]`;
      const quietFan = m((r) => median(r.quiet.fanoutMs));
      const floodFan = m((r) => median(r.flood.fanoutMs));
      const sec = (r: RunResult) => Math.max(1, r.stats.seconds);
      rows.push([
        root.name,
        spread((r) => median(r.quiet.fanoutMs)),
        spread((r) => median(r.flood.fanoutMs)),
        ratio(floodFan, quietFan),
        `${fmt(quietFan * 2 + 5)}`,
        spread((r) => p95(r.flood.fanoutMs)),
        spread((r) => maxOf(r.flood.fanoutMs)),
        spread((r) => median(r.quiet.lateJoinMs)),
        spread((r) => median(r.flood.lateJoinMs)),
        spread((r) => maxOf(r.flood.lateJoinMs)),
        `${runs.reduce((s, r) => s + r.flood.lateJoinFailed, 0)}`,
        `${fmt(m((r) => r.quiet.loopP99Ms))} → ${fmt(m((r) => r.flood.loopP99Ms))}`,
        `${fmt(
          m((r) => r.serverCpuMsPerS.quiet),
          0,
        )} → ${fmt(
          m((r) => r.serverCpuMsPerS.flood),
          0,
        )}`,
        `${fmt(
          m((r) => r.stats.bytesReceived / sec(r) / 1024 / 1024),
          2,
        )}`,
        `${fmt(
          m((r) => (r.stats.acks.ok ?? 0) / sec(r)),
          0,
        )} / ${fmt(
          m((r) => (r.stats.framesSent - (r.stats.acks.ok ?? 0)) / sec(r)),
          0,
        )}`,
        `${fmt(
          m((r) => r.stats.wholePatches / sec(r)),
          1,
        )}`,
        `${fmt(
          m((r) => r.stats.closedByServer),
          0,
        )}`,
      ]);
    }
    const whole = results.find((r) => r.kind === kind)?.wholeBytes ?? 0;
    out.push(
      `\n### ${kind} flood: ${o.sockets} sockets from ${FLOOD_ADDRESS}${kind === "resync" ? ` at ${o.rate}/s each` : ", 16 KiB nested frames"}; room B's whole class patch ${(whole / 1024).toFixed(0)} KiB; room A: ${o.students} students stepped for ${o.seconds} s a phase (quiet, then flooded), a late joiner every ${o.lateEveryMs} ms; ${o.reps} runs (median of runs [min–max])\n`,
    );
    out.push(
      table(
        [
          "server",
          "fan-out quiet (ms)",
          "fan-out flood (ms)",
          "flood/quiet",
          "bound 2x+5 (ms)",
          "fan-out flood p95 (ms)",
          "fan-out flood max (ms)",
          "late join quiet (ms)",
          "late join flood (ms)",
          "late join flood max (ms)",
          "late joins failed",
          "loop delay p99 quiet → flood (ms)",
          "server CPU ms/s quiet → flood",
          "sent to flooder (MiB/s)",
          "flood frames answered ok / refused-or-unanswered per s",
          "whole patches to flooder /s",
          "flood sockets closed",
        ],
        rows,
      ),
    );
  }
  return out.join("\n");
}
