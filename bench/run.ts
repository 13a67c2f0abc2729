import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { redisServerPath, stopProcess } from "../tests/support/loopback";
import { ADDRESSES, CLUSTER, HELP, JOIN_WINDOW, KINDS, label, NOISY, NS, REPS, SCHOOL, STEPS, USAGE, VOTE_SPREAD_MS, WORKERS } from "./cli";
import { log } from "./log";
import { runNoisy } from "./noisy";
import { noisyPlan } from "./noisyOptions";
import { noisyReport } from "./noisyReport";
import type { NoisyResult } from "./noisyResults";
import { pageWeight } from "./pageWeight";
import { killAll, ROOT, track } from "./processes";
import { report } from "./report";
import { runScenario, type ScenarioResult } from "./scenario";
import { runSchool, type SchoolResult } from "./school";
import { schoolPlan, schoolReport } from "./schoolReport";
import { startServer } from "./servers";
import { connectTeacher } from "./teacher";
import { Worker } from "./workers";

/**
 * The load benchmark: the product's real server and a bare socket.io server
 * (bench/bareServer.ts) under the same simulated class, in one run.
 *
 *   npm run bench                       # N = 100, 1000; 25 steps; every cell 3 times, interleaved
 *   npm run bench -- --n=100,1000,5000 --steps=30
 *   npm run bench -- --reps=5           # every cell 5 times (median [min–max])
 *   npm run bench -- --only=product     # or bare
 *   npm run bench -- --cpu-prof=/tmp/prof   # CPU profiles of the servers
 *   npm run bench -- --cluster=3        # also K product nodes on one Redis
 *   npm run bench -- --noisy            # only the noisy-neighbour scenario (bench/noisy.ts)
 *   npm run bench -- --school           # only the school: 200 rooms × 30 students on one server (bench/school.ts)
 *   npm run bench -- --help             # the options
 *
 * Every (server, N) cell runs --reps times (3), interleaved: product, bare
 * (, cluster), product, bare, ... Prints a table per metric with product,
 * bare and product/bare (and, with --cluster=K, product×K (Redis) and its
 * ratio to bare): each cell is the median of the runs with [min–max], each
 * ratio divides medians. Writes bench/results/latest.json (every run).
 * Figures, not pass/fail. See bench/README.md.
 */

const RESULTS_DIR = path.join(__dirname, "results");

async function main(): Promise<void> {
  if (HELP) {
    console.log(USAGE);
    process.exit(0);
  }
  if (!NOISY && !SCHOOL && CLUSTER && KINDS.includes("cluster") && !redisServerPath()) {
    console.error("--cluster needs redis-server on PATH, and none was found. On Debian: apt-get install -y redis-server.");
    process.exit(2);
  }
  const started = Date.now();
  const load = os.loadavg();
  const plan = NOISY
    ? noisyPlan(NOISY)
    : SCHOOL
      ? schoolPlan(SCHOOL)
      : `N = ${NS.join(", ")}; ${STEPS} steps; ${WORKERS} client workers; servers: ${KINDS.map(label).join(", ")}; ${REPS} run${REPS === 1 ? "" : "s"} of each, interleaved`;
  log(`${plan}; load average ${load.map((l) => l.toFixed(1)).join(" ")}`);
  const results: ScenarioResult[] = [];
  const failures: string[] = [];
  let noisy: NoisyResult | null = null;
  const school: SchoolResult[] = [];
  if (NOISY) {
    try {
      const deps = {
        startServer: () => startServer("product"),
        connectTeacher,
        newWorker: (i: number) => new Worker(i),
        track,
        stop: stopProcess,
        log,
      };
      noisy = await runNoisy({ ...deps, addresses: ADDRESSES, joinWindow: JOIN_WINDOW }, NOISY); // the product cells' start-up and clients
    } catch (err) {
      failures.push((err as Error).message);
      log(`FAILED ${(err as Error).message.split("\n")[0]}`);
    }
  }
  // The school: product, bare, product, bare, ... (no cluster column: one server process is the point).
  for (let run = 1; SCHOOL && run <= REPS; run++) {
    for (const kind of KINDS.filter((k) => k !== "cluster")) {
      try {
        school.push(await runSchool(kind, run, SCHOOL));
      } catch (err) {
        failures.push((err as Error).message);
        log(`FAILED ${(err as Error).message.split("\n")[0]}`);
      }
    }
  }
  // Interleaved: product, bare (, cluster), product, bare, ... so a drift in the machine's load reaches every column alike.
  for (const n of NOISY || SCHOOL ? [] : NS) {
    for (let run = 1; run <= REPS; run++) {
      for (const kind of KINDS) {
        try {
          results.push(await runScenario(kind, n, run));
        } catch (err) {
          failures.push((err as Error).message);
          log(`FAILED ${(err as Error).message.split("\n")[0]}`);
        }
      }
    }
  }
  const page = NOISY || SCHOOL ? null : await pageWeight();
  const text = NOISY ? noisyReport(noisy) : SCHOOL ? schoolReport(school, SCHOOL) : report(results, page);
  const title = NOISY
    ? "noisy neighbour on the product server"
    : SCHOOL
      ? `a whole school on one server, product vs bare socket.io 4.8`
      : `product vs bare socket.io 4.8${CLUSTER ? ` vs ${label("cluster")}` : ""}`;
  console.log(`\n# Benchmark: ${title} (${new Date().toISOString()})\n`);
  console.log(text);
  if (failures.length) console.log(`\n## Failed scenarios\n${failures.map((f) => `- ${f}`).join("\n")}`);
  const seconds = (Date.now() - started) / 1000;
  console.log(
    `\nNode ${process.version}, ${os.cpus().length} CPUs, load average at start ${load.map((l) => l.toFixed(1)).join(" ")}, at end ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}; ${seconds.toFixed(0)} s. Figures, not pass/fail; on a shared machine treat them as ±30 %.`,
  );
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = path.join(RESULTS_DIR, "latest.json");
  writeFileSync(
    file,
    JSON.stringify(
      {
        at: new Date().toISOString(),
        node: process.version,
        cpus: os.cpus().length,
        loadAverage: { start: load, end: os.loadavg() },
        options: {
          n: NS,
          reps: REPS,
          steps: STEPS,
          workers: WORKERS,
          servers: KINDS,
          clusterNodes: CLUSTER || null,
          joinWindowPerWorker: JOIN_WINDOW,
          voteSpreadMs: VOTE_SPREAD_MS,
          school: SCHOOL,
        },
        results,
        noisy,
        school,
        pageWeight: page,
        failures,
        seconds,
      },
      null,
      2,
    ) + "\n",
  );
  console.log(`Results: ${path.relative(ROOT, file)}`);
  killAll();
  process.exit(failures.length ? 1 : 0);
}

main().catch((err) => {
  console.error(err);
  killAll();
  process.exit(1);
});
