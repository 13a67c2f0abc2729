import os from "node:os";
import { CLUSTER, label, NS, REPS, STEPS } from "./cli";
import type { ServerKind } from "./messages";
import type { PageWeight } from "./pageWeight";
import { CLOCK_TICKS } from "./proc";
import type { ScenarioResult } from "./scenario";
import { fmt, ratio, runMedian, table } from "./stats";

/** The report: every cell is the median of its runs with [min–max]; every ratio divides medians. */

export function report(results: ScenarioResult[], page: PageWeight | null): string {
  const runsOf = (kind: ServerKind, n: number) => results.filter((r) => r.kind === kind && r.n === n);
  const out: string[] = [];
  const clusterName = label("cluster");
  const header = ["N", "measure", "product", "bare", "product/bare", ...(CLUSTER ? [clusterName, `×${CLUSTER}/bare`] : []), "target"];
  const kinds = ["product", "bare", "cluster"] as const;
  /** " (2 runs)" when a cell has fewer runs than asked for (a run failed). */
  const short = (k: ServerKind, n: number) => {
    const got = runsOf(k, n).length;
    return got > 0 && got < REPS ? ` (${got} run${got === 1 ? "" : "s"})` : "";
  };
  /**
   * A figure per run → median [min–max] in each server's column; `ratioed`:
   * product/bare (and ×K/bare) from the medians.
   */
  function numRow(
    n: number,
    measure: string,
    pick: (r: ScenarioResult) => number | null | undefined,
    digits: number,
    ratioed: boolean,
    target: string,
  ): string[] {
    const meds: Partial<Record<ServerKind, number>> = {};
    const cells = kinds.map((k) => {
      const xs = runsOf(k, n)
        .map(pick)
        .filter((x): x is number => x !== null && x !== undefined && Number.isFinite(x));
      if (xs.length === 0) return "–";
      const med = runMedian(xs);
      meds[k] = med;
      const spread = xs.length > 1 ? ` [${fmt(Math.min(...xs), digits)}–${fmt(Math.max(...xs), digits)}]` : "";
      return `${fmt(med, digits)}${spread}${short(k, n)}`;
    });
    const rat = (k: ServerKind) => (ratioed && meds[k] !== undefined && meds.bare !== undefined ? ratio(meds[k], meds.bare) : "");
    return [String(n), measure, cells[0], cells[1], rat("product"), ...(CLUSTER ? [cells[2], rat("cluster")] : []), target];
  }
  /** A text per run: shown once when every run gave the same, else run by run ("0, 3, 0"). */
  function textRow(n: number, measure: string, show: (r: ScenarioResult) => string, target: string): string[] {
    const cells = kinds.map((k) => {
      const texts = runsOf(k, n).map(show);
      if (texts.length === 0) return "–";
      return new Set(texts).size === 1 ? `${texts[0]}${short(k, n)}` : texts.join(", ");
    });
    return [String(n), measure, cells[0], cells[1], "", ...(CLUSTER ? [cells[2], ""] : []), target];
  }
  /** Medians of two figures, "a → b" (no ratio). */
  function pairRow(
    n: number,
    measure: string,
    a: (r: ScenarioResult) => number,
    b: (r: ScenarioResult) => number,
    digits: number,
  ): string[] {
    const cells = kinds.map((k) => {
      const runs = runsOf(k, n);
      return runs.length ? `${fmt(runMedian(runs.map(a)), digits)} → ${fmt(runMedian(runs.map(b)), digits)}` : "–";
    });
    return [String(n), measure, cells[0], cells[1], "", ...(CLUSTER ? [cells[2], ""] : []), ""];
  }
  const runsNote = REPS > 1 ? `median of ${REPS} interleaved runs [min–max]; ratios divide the medians` : "one run (--reps=1)";
  const tick = 1000 / CLOCK_TICKS;

  out.push(`Each cell: ${runsNote}.${CLUSTER ? ` ${clusterName}: CPU summed over the ${CLUSTER} nodes and redis-server.` : ""}`);
  out.push(
    `CPU: utime + stime from /proc/<pid>/stat (all threads; ${fmt(tick, 0)} ms ticks) over the phase, divided by its steps or votes.\n`,
  );

  out.push(`## 1. Step fan-out: teacher's command → last student's snapshot (ms, ${STEPS} steps), and CPU per step`);
  const fanRows: string[][] = [];
  for (const n of NS) {
    const target = n >= 1000 ? "≤1.25x" : "";
    fanRows.push(numRow(n, "last student, median", (r) => r.fanout.lastMedian, 1, true, target));
    fanRows.push(numRow(n, "last student, p99", (r) => r.fanout.lastP99, 1, true, target));
    fanRows.push(numRow(n, "median student, median", (r) => r.fanout.medianStudentMedian, 1, true, ""));
    fanRows.push(numRow(n, "server CPU per step (ms)", (r) => r.cpu.stepServerMs / STEPS, 2, true, ""));
    fanRows.push(numRow(n, "client workers' CPU per step (ms)", (r) => r.cpu.stepWorkersMsPerStep, 2, false, ""));
    fanRows.push(
      numRow(
        n,
        "machine busy during the steps (% of 2 cores)".replace("2", String(os.cpus().length)),
        (r) => r.cpu.stepMachineBusy * 100,
        0,
        false,
        "",
      ),
    );
  }
  out.push(table(header, fanRows));

  out.push("\n## 2. Vote burst: every student votes once, spread over 1 s; then the poll closes");
  const voteRows: string[][] = [];
  type Vote = NonNullable<ScenarioResult["vote"]>;
  const v = (pickVote: (x: Vote) => number) => (r: ScenarioResult) => (r.vote ? pickVote(r.vote) : null);
  for (const n of NS) {
    const is1k = n === 1000;
    voteRows.push(textRow(n, "votes sent / acked", (r) => (r.vote ? `${r.vote.sent} / ${r.vote.acked}` : "–"), ""));
    voteRows.push(
      numRow(
        n,
        "vote → ack, median vote (ms)",
        v((x) => x.ackMedianMs),
        1,
        true,
        "",
      ),
    );
    voteRows.push(
      numRow(
        n,
        "vote → ack, slowest vote (ms)",
        v((x) => x.ackMaxMs),
        1,
        false,
        "",
      ),
    );
    voteRows.push(numRow(n, "server CPU per vote, vote → last ack (µs)", (r) => r.cpu.voteServerUsPerVote, 0, true, ""));
    voteRows.push(numRow(n, "client workers' CPU per vote (µs)", (r) => r.cpu.voteWorkersUsPerVote, 0, false, ""));
    voteRows.push(textRow(n, "votes lost (sent − final total)", (r) => (r.vote ? String(r.vote.lost) : "–"), "0"));
    voteRows.push(
      numRow(
        n,
        "close → final tally at every student (ms)",
        v((x) => x.closeToAllMs),
        1,
        true,
        is1k ? "≤250 ms" : "",
      ),
    );
    voteRows.push(
      numRow(
        n,
        "close → final tally at the first student (ms)",
        v((x) => x.closeToFirstMs),
        1,
        true,
        "",
      ),
    );
    voteRows.push(
      numRow(
        n,
        "tally messages sent (sum over students)",
        v((x) => x.tallyMessages),
        0,
        true,
        "∝ N",
      ),
    );
    voteRows.push(
      numRow(
        n,
        "poll length, first vote → close (s)",
        v((x) => x.pollSeconds),
        2,
        false,
        "",
      ),
    );
    voteRows.push(
      numRow(
        n,
        "tallies per student per second of poll",
        v((x) => x.talliesPerStudentPerSecond),
        2,
        true,
        is1k ? "≤10" : "",
      ),
    );
  }
  out.push(table(header, voteRows));

  out.push(
    `\n## 3. Memory after a forced GC: server RSS growth per connected student (KiB)${CLUSTER ? `; ${clusterName}: summed over the ${CLUSTER} nodes, Redis not included` : ""}`,
  );
  const memRows: string[][] = [];
  for (const n of NS) {
    memRows.push(numRow(n, "RSS after join − before, per student, after GC", (r) => r.memory.perStudentBytes / 1024, 1, true, "≤1.5x"));
    memRows.push(
      pairRow(
        n,
        "RSS before → after, after GC (MiB)",
        (r) => r.memory.beforeBytes / 2 ** 20,
        (r) => r.memory.afterBytes / 2 ** 20,
        1,
      ),
    );
    memRows.push(
      numRow(
        n,
        "same without the GC, per student (KiB)",
        (r) => (r.memory.afterNoGcBytes - r.memory.beforeNoGcBytes) / 1024 / r.join.ok,
        1,
        false,
        "",
      ),
    );
  }
  out.push(table(header, memRows));

  out.push(
    `\n## 4. Join storm: N students connect (100 in flight per worker) and get their first snapshot (ms)${CLUSTER ? `; ${clusterName}: round-robin over the nodes` : ""}`,
  );
  const joinRows: string[][] = [];
  for (const n of NS) {
    joinRows.push(numRow(n, "all joined", (r) => r.join.allMs, 1, true, ""));
    joinRows.push(textRow(n, "joined / failed", (r) => `${r.join.ok} / ${r.join.failed}`, ""));
    joinRows.push(numRow(n, "server CPU per join (µs)", (r) => r.cpu.joinServerUsPerStudent, 0, true, ""));
  }
  out.push(table(header, joinRows));

  out.push("\n## 5. Page weight: first-load JS of the student page, from the production build");
  if (!page) out.push("route-bundle-stats.json not found: run npm run build first (a Turbopack build).");
  else
    out.push(
      table(
        ["route", "raw kB", "gzip kB", "target"],
        [[page.route, fmt(page.rawBytes / 1000), fmt(page.gzipBytes / 1000), "< 200 kB gzip"]],
      ) + (page.note ? `\n(${page.note})` : ""),
    );

  const problems = results.flatMap((r) => r.errors.map((e) => `- ${label(r.kind)} N=${r.n} run ${r.run}: ${e}`));
  if (problems.length) out.push(`\n## Anomalies\n${problems.join("\n")}`);
  return out.join("\n");
}
