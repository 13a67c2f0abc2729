import os from "node:os";
import type { ModeSummary, NoisyResult, Spread } from "./noisyResults";
import { fmt, table } from "./stats";

/** The noisy-neighbour scenario's table (section 6 of the benchmark's report), from bench/noisy.ts's result. */

const int = (x: number) => (Number.isFinite(x) ? Math.round(x).toLocaleString("en-US") : "–");
const times = (x: number) => (Number.isFinite(x) ? `${x.toFixed(2)}x` : "–");
const showSpread = (s: Spread, digits = 1) => `${fmt(s.median, digits)} [${fmt(s.min, digits)}–${fmt(s.max, digits)}]`;
const codes = (map: Record<string, number>) =>
  Object.entries(map)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${int(v)}`)
    .join(", ") || "none";

export function noisyReport(r: NoisyResult | null): string {
  if (!r) return "## 6. Noisy neighbour\nThe scenario did not run (see Failed scenarios).";
  const o = r.options;
  const q = r.quiet;
  const f = r.flood;
  const t = r.floodTotals;
  const out: string[] = [];
  out.push(
    `## 6. Noisy neighbour: room A (${o.n} students) steps while ${o.floodAddress} floods room B ` +
      `(${o.floodSockets} student sockets + ${o.floodFresh} fresh connections); median of ${o.reps} runs [min–max], ${o.steps} steps each, interleaved`,
  );
  const latency = (p: ModeSummary["joins"]) => `${fmt(p.medianMs)} / ${fmt(p.maxMs)}`;
  const rows: string[][] = [
    ["fan-out, last student, median (ms)", showSpread(q.lastMedian), showSpread(f.lastMedian), times(r.ratio.lastMedian), "≤2x"],
    ["fan-out, last student, p99 (ms)", showSpread(q.lastP99), showSpread(f.lastP99), times(r.ratio.lastP99), ""],
    [
      "fan-out, median student, median (ms)",
      showSpread(q.medianStudentMedian),
      showSpread(f.medianStudentMedian),
      times(r.ratio.medianStudentMedian),
      "",
    ],
    ["steps some student missed (of all steps)", `${q.stepsIncomplete} / ${q.steps}`, `${f.stepsIncomplete} / ${f.steps}`, "", "0"],
    ["server CPU (ms per s)", showSpread(q.serverCpuMsPerS, 0), showSpread(f.serverCpuMsPerS, 0), times(r.ratio.serverCpu), ""],
    ["flooder CPU (ms per s)", "–", showSpread(f.flooderCpuMsPerS, 0), "", ""],
    [
      `machine CPU busy, all ${os.cpus().length} cores and processes (%)`,
      showSpread(q.machineBusyPercent, 0),
      showSpread(f.machineBusyPercent, 0),
      "",
      "",
    ],
    ["new students in room A: joined / tried", `${q.joins.ok} / ${q.joins.tried}`, `${f.joins.ok} / ${f.joins.tried}`, "", "all"],
    ["new student → first snapshot, median / max (ms)", latency(q.joins), latency(f.joins), times(f.joins.medianMs / q.joins.medianMs), ""],
    ["GET /api/health: 200 / sent", `${q.health.ok} / ${q.health.tried}`, `${f.health.ok} / ${f.health.tried}`, "", "all"],
    ["GET /api/health, median / max (ms)", latency(q.health), latency(f.health), times(f.health.medianMs / q.health.medianMs), ""],
    [
      "flood: frames sent / replies received",
      "–",
      `${int(t.framesSent)} / ${int(t.replies)} (${fmt((100 * t.replies) / t.framesSent, 0)} %)`,
      "",
      "",
    ],
    ["flood: frames per second / MiB per second", "–", `${showSpread(t.framesPerSecond, 0)} / ${showSpread(t.mibPerSecond, 1)}`, "", ""],
    ["flood: replies by code", "–", codes(t.repliesByCode), "", ""],
    [
      "flood: connections opened (student + fresh) / closed by the server",
      "–",
      `${int(t.opened.student)} + ${int(t.opened.fresh)} / ${int(t.closedByServer)}`,
      "",
      "",
    ],
    ["flood: handshakes refused, by code", "–", codes(t.handshakeRefusals), "", ""],
  ];
  out.push(table(["measure", "quiet", "flood", "flood/quiet", "target"], rows));
  out.push(
    `\nflood/quiet divides the medians over the runs; run by run (last student, median): ${r.pairRatios.map(times).join(", ")}. ` +
      `Flood totals are summed over the ${o.reps} flood phases (${fmt(t.durationMs / 1000)} s of flooding); every flood frame is ${int(o.frameChars)} characters and asks for an ack.`,
  );
  if (r.errors.length) out.push(`\n## Anomalies\n${r.errors.map((e) => `- noisy N=${o.n}: ${e}`).join("\n")}`);
  return out.join("\n");
}
