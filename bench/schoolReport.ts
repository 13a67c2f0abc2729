import os from "node:os";
import { REPS, WORKERS, type SchoolOptions } from "./cli";
import type { ServerKind } from "./messages";
import { IDLE_WINDOW_MS, RECEIPT_TIMEOUT_MS, type SchoolResult } from "./school";
import { fmt, ratio, runMedian, table } from "./stats";

/** The school scenario's log line and its table (section 7 of the benchmark's report), from bench/school.ts's results. */

export function schoolPlan(o: SchoolOptions): string {
  return (
    `school: ${o.rooms} rooms × ${o.classSize} students on one server; ${o.seconds} s of lessons, each room acting every ` +
    `${o.intervalMs / 1000} s on average (every ${o.pollEvery}th action a poll); ${WORKERS} client workers; ${REPS} run${REPS === 1 ? "" : "s"} of product and bare, interleaved`
  );
}

export function schoolReport(results: SchoolResult[], o: SchoolOptions): string {
  const runsOf = (k: ServerKind) => results.filter((r) => r.kind === k);
  const cell = (k: ServerKind, pick: (r: SchoolResult) => number, digits: number) => {
    const xs = runsOf(k)
      .map(pick)
      .filter((x) => Number.isFinite(x));
    if (!xs.length) return { text: "–", med: NaN };
    const med = runMedian(xs);
    const spread = xs.length > 1 ? ` [${fmt(Math.min(...xs), digits)}–${fmt(Math.max(...xs), digits)}]` : "";
    return { text: `${fmt(med, digits)}${spread}`, med };
  };
  const num = (measure: string, pick: (r: SchoolResult) => number, digits: number, ratioed: boolean, target = ""): string[] => {
    const p = cell("product", pick, digits);
    const b = cell("bare", pick, digits);
    return [measure, p.text, b.text, ratioed ? ratio(p.med, b.med) : "", target];
  };
  const text = (measure: string, show: (r: SchoolResult) => string, target = ""): string[] => {
    const col = (k: ServerKind) => {
      const texts = runsOf(k).map(show);
      return texts.length === 0 ? "–" : new Set(texts).size === 1 ? texts[0] : texts.join(", ");
    };
    return [measure, col("product"), col("bare"), "", target];
  };
  const mib = (x: number) => fmt(x / 2 ** 20, 1);
  const students = o.rooms * o.classSize;
  const rows: string[][] = [
    text("students joined / of", (r) => `${r.join.ok} / ${students}`, "all"),
    num("join: all joined (ms)", (r) => r.join.allMs, 0, true),
    num("join: server CPU per student (µs)", (r) => r.join.serverUsPerStudent, 0, true),
    text("steps / polls done", (r) => `${r.lessons.steps} / ${r.lessons.polls}`),
    num("fan-out to the room's last student, p50 of all steps (ms)", (r) => r.lessons.stepLastP50, 1, true),
    num("fan-out to the room's last student, p99 of all steps (ms)", (r) => r.lessons.stepLastP99, 1, true, "< 100 ms"),
    num("fan-out, slowest step (ms)", (r) => r.lessons.stepLastMax, 1, false),
    num("fan-out, each room's p99: median room (ms)", (r) => r.lessons.roomP99Median, 1, true),
    num("fan-out, each room's p99: worst room (ms)", (r) => r.lessons.roomP99Worst, 1, false),
    num("rooms whose p99 is over 100 ms", (r) => r.lessons.roomsP99Over100, 0, false, "0"),
    num("fan-out to the median student, p50 (ms)", (r) => r.lessons.stepMedianStudentP50, 1, true),
    text("votes sent / acked", (r) => `${r.lessons.votesSent} / ${r.lessons.votesAcked}`),
    num("vote → ack, p50 (ms)", (r) => r.lessons.voteAckP50, 1, true),
    num("vote → ack, p99 (ms)", (r) => r.lessons.voteAckP99, 1, true),
    num("close → the room's last student has the final tally, p50 (ms)", (r) => r.lessons.finalLastP50, 1, true),
    num("close → the room's last student has the final tally, p99 (ms)", (r) => r.lessons.finalLastP99, 1, true),
    text(
      "missing messages: step snapshots + closed-poll snapshots never received",
      (r) => `${r.lessons.stepMissing + r.lessons.finalMissing}`,
      "0",
    ),
    text("votes lost / wrong final totals", (r) => `${r.lessons.votesLost} / ${r.lessons.finalWrong}`, "0 / 0"),
    num(`server CPU, everyone connected and idle, over ${IDLE_WINDOW_MS / 1000} s (ms per s)`, (r) => r.cpu.idleServerMsPerS, 1, true),
    num("server CPU during the lessons (ms per s; 1,000 = one core)", (r) => r.cpu.serverMsPerS, 0, true),
    num("server CPU per connected student (µs per s)", (r) => r.cpu.serverUsPerStudentS, 2, true),
    num("server CPU per action, step or poll (ms)", (r) => r.cpu.serverMsPerAction, 2, true),
    num("server event-loop delay during the lessons, p99 (ms)", (r) => r.loopDelay?.p99Ms ?? NaN, 1, true),
    num("server event-loop delay during the lessons, max (ms)", (r) => r.loopDelay?.maxMs ?? NaN, 0, true),
    num("client workers' CPU (ms per s)", (r) => r.cpu.workersMsPerS, 0, false),
    num(`machine busy during the lessons (% of ${os.cpus().length} cores)`, (r) => r.cpu.machineBusy * 100, 0, false),
    num("RSS per student after GC (KiB)", (r) => r.memory.perStudentBytes / 1024, 1, true, "≤1.5x"),
    num("V8 heap used per student after GC (KiB)", (r) => r.memory.heapPerStudentBytes / 1024, 1, true),
    num("RSS per room: session + teacher, after GC (KiB)", (r) => r.memory.perRoomBytes / 1024, 1, true),
    text(
      "RSS after GC: empty → rooms → students → after the lessons (MiB)",
      (r) =>
        `${mib(r.memory.startBytes)} → ${mib(r.memory.roomsBytes)} → ${mib(r.memory.studentsBytes)} → ${mib(r.memory.afterLessonsBytes)}`,
    ),
  ];
  const out: string[] = [];
  out.push(
    `## 7. A whole school on one server: ${o.rooms} rooms × ${o.classSize} students (${students.toLocaleString("en-US")}), ` +
      `each teacher acting every ${o.intervalMs / 1000} s on average (staggered; every ${o.pollEvery}th action a poll), ${o.seconds} s; ` +
      `median of ${REPS} interleaved runs [min–max]`,
  );
  out.push(table(["measure", "product", "bare", "product/bare", "target"], rows));
  out.push(
    "\nFan-out: per step, the teacher's command → the last of that room's students holding the new step; p50/p99 over every step of every room " +
      `(steps where a student never got it within ${RECEIPT_TIMEOUT_MS / 1000} s are counted as missing, not timed). ` +
      "RSS per student: (RSS with the students − RSS with the rooms and teachers) / students, each after a forced GC.",
  );
  const problems = results.flatMap((r) => r.errors.map((e) => `- school ${r.kind} run ${r.run}: ${e}`));
  if (problems.length) out.push(`\n## Anomalies\n${problems.join("\n")}`);
  return out.join("\n");
}
