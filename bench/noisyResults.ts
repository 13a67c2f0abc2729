import { emptyFloodStats, type FloodStats } from "./messages";
import type { NoisyOptions } from "./noisyOptions";
import { count, maxOf, median } from "./stats";

/** What the noisy-neighbour scenario (bench/noisy.ts) measures: per phase, and summed up over the quiet and the flood phases. */

export interface Probe {
  tried: number;
  ok: number;
  failed: number;
  errors: Record<string, number>;
  ms: number[];
}

export interface Phase {
  mode: "quiet" | "flood";
  run: number;
  /** per step: the last student's latency (a step with a missing receipt counts as the step timeout) */
  lastMs: number[];
  medianStudentMs: number[];
  /** steps where some student got no snapshot within the step timeout */
  stepsIncomplete: number;
  missing: number;
  lastMedian: number;
  lastP99: number;
  medianStudentMedian: number;
  /** the measured window: from the first step to the last */
  seconds: number;
  serverCpuMsPerS: number;
  flooderCpuMsPerS: number;
  /** the whole machine (all processes, all cores) busy, % */
  machineBusyPercent: number;
  joins: Probe;
  health: Probe;
  /** the flooder's counts, from its start to its stop (flood phases) */
  flood: FloodStats | null;
}

export interface Spread {
  median: number;
  min: number;
  max: number;
}

export interface ModeSummary {
  runs: number;
  steps: number;
  lastMedian: Spread;
  lastP99: Spread;
  medianStudentMedian: Spread;
  serverCpuMsPerS: Spread;
  flooderCpuMsPerS: Spread;
  machineBusyPercent: Spread;
  stepsIncomplete: number;
  joins: Probe & { medianMs: number; maxMs: number };
  health: Probe & { medianMs: number; maxMs: number };
}

export interface NoisyResult {
  options: NoisyOptions & { stepTimeoutMs: number; frameChars: number; floodKinds: string[] };
  join: { ok: number; failed: number; errors: Record<string, number> };
  phases: Phase[];
  quiet: ModeSummary;
  flood: ModeSummary;
  /** flood / quiet, of the medians over the runs */
  ratio: { lastMedian: number; lastP99: number; medianStudentMedian: number; serverCpu: number };
  /** flood / quiet of the last-student median, run by run */
  pairRatios: number[];
  /** the flood phases' counts, summed */
  floodTotals: FloodStats & { framesPerSecond: Spread; mibPerSecond: Spread };
  errors: string[];
  seconds: number;
}

const spread = (xs: number[]): Spread => ({ median: median(xs), min: Math.min(...xs), max: Math.max(...xs) });

export function emptyProbe(): Probe {
  return { tried: 0, ok: 0, failed: 0, errors: {}, ms: [] };
}

function sumFlood(all: FloodStats[]): FloodStats {
  const total = emptyFloodStats();
  for (const s of all) {
    total.durationMs += s.durationMs;
    total.framesSent += s.framesSent;
    total.bytesSent += s.bytesSent;
    total.replies += s.replies;
    total.otherMessages += s.otherMessages;
    total.opened.student += s.opened.student;
    total.opened.fresh += s.opened.fresh;
    total.joined += s.joined;
    total.closedByServer += s.closedByServer;
    for (const [k, v] of Object.entries(s.framesByKind)) count(total.framesByKind, k, v);
    for (const [k, v] of Object.entries(s.repliesByCode)) count(total.repliesByCode, k, v);
    for (const [k, v] of Object.entries(s.handshakeRefusals)) count(total.handshakeRefusals, k, v);
    for (const [k, v] of Object.entries(s.socketErrors)) count(total.socketErrors, k, v);
    for (const [kind, codes] of Object.entries(s.repliesByKind))
      for (const [k, v] of Object.entries(codes)) count((total.repliesByKind[kind] ??= {}), k, v);
  }
  return total;
}

/** The phases summed up: each mode's spread over its runs, the flood's totals, and flood / quiet. */
export function summarizePhases(
  phases: Phase[],
  reps: number,
): Pick<NoisyResult, "quiet" | "flood" | "ratio" | "pairRatios" | "floodTotals"> {
  const summarize = (mode: Phase["mode"]): ModeSummary => {
    const ps = phases.filter((p) => p.mode === mode);
    const probe = (pick: (p: Phase) => Probe) => {
      const all = emptyProbe();
      for (const p of ps) {
        const x = pick(p);
        all.tried += x.tried;
        all.ok += x.ok;
        all.failed += x.failed;
        all.ms.push(...x.ms);
        for (const [k, v] of Object.entries(x.errors)) count(all.errors, k, v);
      }
      return { ...all, medianMs: median(all.ms), maxMs: maxOf(all.ms) };
    };
    return {
      runs: ps.length,
      steps: ps.reduce((s, p) => s + p.lastMs.length, 0),
      lastMedian: spread(ps.map((p) => p.lastMedian)),
      lastP99: spread(ps.map((p) => p.lastP99)),
      medianStudentMedian: spread(ps.map((p) => p.medianStudentMedian)),
      serverCpuMsPerS: spread(ps.map((p) => p.serverCpuMsPerS)),
      flooderCpuMsPerS: spread(ps.map((p) => p.flooderCpuMsPerS)),
      machineBusyPercent: spread(ps.map((p) => p.machineBusyPercent)),
      stepsIncomplete: ps.reduce((s, p) => s + p.stepsIncomplete, 0),
      joins: probe((p) => p.joins),
      health: probe((p) => p.health),
    };
  };
  const quiet = summarize("quiet");
  const flood = summarize("flood");
  const floods = phases.filter((p) => p.flood).map((p) => p.flood!);
  const floodTotals = {
    ...sumFlood(floods),
    framesPerSecond: spread(floods.map((f) => f.framesSent / (f.durationMs / 1000))),
    mibPerSecond: spread(floods.map((f) => f.bytesSent / 2 ** 20 / (f.durationMs / 1000))),
  };
  const ratio = {
    lastMedian: flood.lastMedian.median / quiet.lastMedian.median,
    lastP99: flood.lastP99.median / quiet.lastP99.median,
    medianStudentMedian: flood.medianStudentMedian.median / quiet.medianStudentMedian.median,
    serverCpu: flood.serverCpuMsPerS.median / quiet.serverCpuMsPerS.median,
  };
  const pairRatios = Array.from({ length: reps }, (_, i) => {
    const q = phases.find((p) => p.mode === "quiet" && p.run === i + 1);
    const f = phases.find((p) => p.mode === "flood" && p.run === i + 1);
    return q && f ? f.lastMedian / q.lastMedian : NaN;
  });
  return { quiet, flood, ratio, pairRatios, floodTotals };
}
