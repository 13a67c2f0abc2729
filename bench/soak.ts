import os from "node:os";
import { log } from "./log";
import { killAll } from "./processes";
import { startServer } from "./servers";
import { METRICS_ENV, readingAfterGc, serverCpuMs } from "./serverUsage";
import { churnSecond, classes, endClass, openClass, setServerUrl, warmUp } from "./soakClasses";
import { CHURN_MS, CLASS_SIZE, HEAP_TOLERANCE_BYTES, LIFETIME_MS, MINUTES, RSS_TOLERANCE_BYTES, SAMPLE_MS, SESSIONS } from "./soakOptions";
import { fail, failureCount, failureNotes, failures, resetCounts, takeCounts, totals, type Counts } from "./soakTally";
import { fmt, maxOf, p99 } from "./stats";
import { sleep } from "./wait";

/**
 * The soak (`npm run soak`): one real product server process and, for an hour
 * (`--minutes=N`), classes that come and go: sessions created and ended,
 * students joining, leaving for good, dropping and reconnecting with their
 * token, and voting, while teachers step and poll. Every sample interval it
 * forces a GC in the server and prints a row: RSS and V8 heap after the GC,
 * the event loop's delay since the previous row (from the server's own GET
 * /metrics, server/ops/metrics.ts, on with METRICS_TOKEN), and what the
 * classes did. At the end every session is ended and every socket closed, and the server's memory must come back to
 * the baseline taken before the churn, within the stated tolerance. Exit code
 * 1 if it does not, or if any command or vote was refused or never answered,
 * a reconnect came back as someone else, a closed poll's total was wrong, or
 * a socket was dropped by the server. The students and teachers live in this
 * process: a few hundred sockets with light traffic. Its parts: soakOptions.ts
 * (the options), soakClasses.ts (the classes and students), soakTally.ts
 * (the counts and failures). See bench/README.md.
 *
 *   npm run soak                      # 60 minutes
 *   npm run soak -- --minutes=2       # what CI runs (scripts/test.sh)
 *   npm run soak -- --sessions=20 --class=40 --sample-seconds=30
 */

// ---------------------------------------------------------------------------
// Readings

interface Row {
  atS: number;
  liveSessions: number;
  students: number;
  rssBytes: number;
  heapUsedBytes: number;
  externalBytes: number;
  loopDelay: { p50: number; p99: number; max: number };
  serverCpuMsPerS: number;
  counts: Counts;
  failures: number;
}

const mib = (b: number) => fmt(b / 2 ** 20, 1);
const HEADER =
  "| min | live sessions | students | RSS after GC (MiB) | heap used after GC (MiB) | external (MiB) | loop delay p50 / p99 / max (ms) | server CPU (ms/s) | sessions +/− | joins / leaves / reconnects | votes / steps / polls | teacher ack p99 (ms) | failures |\n" +
  "|---|---|---|---|---|---|---|---|---|---|---|---|---|";
function formatRow(r: Row): string {
  const c = r.counts;
  return `| ${fmt(r.atS / 60, 1)} | ${r.liveSessions} | ${r.students} | ${mib(r.rssBytes)} | ${mib(r.heapUsedBytes)} | ${mib(r.externalBytes)} | ${fmt(r.loopDelay.p50, 1)} / ${fmt(r.loopDelay.p99, 1)} / ${fmt(r.loopDelay.max, 0)} | ${fmt(r.serverCpuMsPerS, 0)} | ${c.sessionsStarted} / ${c.sessionsEnded} | ${c.joins} / ${c.leaves} / ${c.reconnects} | ${c.votes} / ${c.steps} / ${c.polls} | ${c.ackMs.length ? fmt(p99(c.ackMs), 0) : "–"} | ${r.failures} |`;
}

// ---------------------------------------------------------------------------

async function main(): Promise<void> {
  const started = Date.now();
  const load = os.loadavg();
  log(
    `soak: ${MINUTES} min of churn, ${SESSIONS} classes of ${CLASS_SIZE} at once, each living ${fmt(LIFETIME_MS[0] / 1000, 0)}–${fmt(LIFETIME_MS[1] / 1000, 0)} s; a row every ${SAMPLE_MS / 1000} s; load average ${load.map((l) => l.toFixed(1)).join(" ")}`,
  );
  // METRICS_ENV: the event-loop delay and the heap come from its GET /metrics. Sessions come and go faster than the
  // default creation limit allows.
  const server = await startServer("product", { ...METRICS_ENV, SESSION_CREATE_LIMIT: "100000" });
  setServerUrl(server.url);
  const rows: Row[] = [];
  let lastCpu = serverCpuMs(server);
  let lastAt = Date.now();
  const sample = async (): Promise<Row> => {
    const r = await readingAfterGc(server);
    const now = Date.now();
    const cpu = serverCpuMs(server);
    const row: Row = {
      atS: (now - churnStart) / 1000,
      liveSessions: r.after.liveSessions,
      students: [...classes].reduce((s, c) => s + c.students.size, 0),
      rssBytes: r.bytes,
      heapUsedBytes: r.after.heapUsedBytes,
      externalBytes: r.after.externalBytes,
      loopDelay: { p50: r.loopDelay.p50Ms, p99: r.loopDelay.p99Ms, max: r.loopDelay.maxMs },
      serverCpuMsPerS: (cpu - lastCpu) / ((now - lastAt) / 1000),
      counts: takeCounts(),
      failures: failureCount(),
    };
    lastCpu = cpu;
    lastAt = now;
    rows.push(row);
    console.log(formatRow(row));
    return row;
  };
  let churnStart = Date.now();
  try {
    // Warm-up: one short class through every code path the churn uses, so the baseline holds the compiled code.
    log("warm-up class");
    await warmUp();
    await sleep(2_000);
    resetCounts();
    churnStart = Date.now();
    console.log(`\n# Soak: ${MINUTES} min of churn on one product server (${new Date().toISOString()})\n`);
    console.log(HEADER);
    const baseline = await sample();

    // The churn: keep SESSIONS classes live; each second the students churn and due teachers act.
    const churnEnd = churnStart + CHURN_MS;
    let nextSample = Date.now() + SAMPLE_MS;
    const opening = new Set<Promise<void>>();
    while (Date.now() < churnEnd) {
      if (server.procs[0].exitCode !== null) throw new Error(`the server exited (${server.procs[0].exitCode})\n${server.output()}`);
      churnSecond(Date.now());
      const live = [...classes].filter((c) => !c.ending).length + opening.size;
      for (let i = live; i < SESSIONS; i++) {
        const p: Promise<void> = openClass()
          .then(() => undefined)
          .catch((err: Error) => fail("session could not start", err.message))
          .finally(() => opening.delete(p));
        opening.add(p);
      }
      if (Date.now() >= nextSample) {
        await sample();
        nextSample = Date.now() + SAMPLE_MS;
      }
      await sleep(1_000 - ((Date.now() - churnStart) % 1_000));
    }

    // The end: every class ends and every socket closes; the server's memory must come back to the baseline.
    log("churn over: ending every class");
    while (opening.size) await Promise.all([...opening]);
    await Promise.all([...classes].map((c) => (c.ending ? Promise.resolve() : endClass(c))));
    while (classes.size) await sleep(100);
    await sleep(3_000); // presence broadcasts (500 ms) and socket clean-up
    await sample();
    await sleep(2_000);
    const end = await sample();

    const heapGrowth = end.heapUsedBytes - baseline.heapUsedBytes;
    const rssGrowth = end.rssBytes - baseline.rssBytes;
    const heapOk = heapGrowth <= HEAP_TOLERANCE_BYTES;
    const rssOk = rssGrowth <= RSS_TOLERANCE_BYTES;
    const sessionsOk = end.liveSessions === 0;
    const failed = Object.keys(failures).length > 0;
    const delays = rows.slice(1, -2).map((r) => r.loopDelay);
    console.log(
      `\nTotals: ${totals.sessionsStarted} sessions started and ${totals.sessionsEnded} ended; ${totals.joins} joins, ${totals.leaves} leaves, ` +
        `${totals.reconnects} reconnects; ${totals.votes} votes, ${totals.steps} steps, ${totals.polls} polls; teacher ack p99 ${fmt(p99(totals.ackMs), 0)} ms.`,
    );
    if (delays.length)
      console.log(
        `Event-loop delay over the churn (per row): p99 up to ${fmt(maxOf(delays.map((d) => d.p99)), 1)} ms, max up to ${fmt(maxOf(delays.map((d) => d.max)), 0)} ms.`,
      );
    console.log(
      `Memory after every session ended, after a forced GC, against the baseline before the churn:\n` +
        `- heap used ${mib(baseline.heapUsedBytes)} → ${mib(end.heapUsedBytes)} MiB (${heapGrowth >= 0 ? "+" : ""}${mib(heapGrowth)}; tolerance +${mib(HEAP_TOLERANCE_BYTES)}): ${heapOk ? "ok" : "NOT BACK"}\n` +
        `- RSS ${mib(baseline.rssBytes)} → ${mib(end.rssBytes)} MiB (${rssGrowth >= 0 ? "+" : ""}${mib(rssGrowth)}; tolerance +${mib(RSS_TOLERANCE_BYTES)}): ${rssOk ? "ok" : "NOT BACK"}\n` +
        `- live sessions in the server: ${end.liveSessions}${sessionsOk ? "" : " (should be 0)"}`,
    );
    if (failed) console.log(`\nFailures: ${JSON.stringify(failures)}\n${failureNotes.map((n) => `- ${n}`).join("\n")}`);
    else console.log("\nNo command or vote was refused or went unanswered; no reconnect came back as someone else; no socket was dropped.");
    console.log(
      `\nNode ${process.version}, ${os.cpus().length} CPUs, load average at start ${load.map((l) => l.toFixed(1)).join(" ")}, at end ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(" ")}; ${fmt((Date.now() - started) / 1000, 0)} s.`,
    );
    await server.stop();
    // SIGTERM: the server flushes its writes and exits 0 (server/index.ts); anything else is a failure too.
    const exitedCleanly = server.procs[0].exitCode === 0;
    if (!exitedCleanly)
      console.log(`The server did not shut down cleanly: exit code ${server.procs[0].exitCode}, signal ${server.procs[0].signalCode}.`);
    const ok = heapOk && rssOk && sessionsOk && !failed && exitedCleanly;
    console.log(ok ? "SOAK PASSED" : "SOAK FAILED");
    process.exit(ok ? 0 : 1);
  } catch (err) {
    console.error(`soak: ${(err as Error).message}\n--- server output (tail) ---\n${server.output().slice(-4_000)}`);
    killAll();
    process.exit(1);
  }
}

main().catch((err) => {
  console.error(err);
  killAll();
  process.exit(1);
});
