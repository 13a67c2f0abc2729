import fs from "node:fs";
import path from "node:path";
import { DEFAULT_CLUSTER_ACK_BUDGET_MS } from "../../lib/constants";
import type { SessionEvent } from "../../lib/session";
import { check, formatReport, type CheckInput } from "./checker";
import { Classroom, type ClassPlan } from "./classroom";
import { Fleet } from "./fleet";
import { History } from "./history";
import { Rng } from "./rng";
import { describeSchedule, drawSchedule, type Fault } from "./schedule";
import { converge, finish } from "./settle";

/**
 * One chaos run, Jepsen's way: a fault schedule drawn from the seed, classes
 * driven by scripts drawn from the same seed while the schedule kills,
 * freezes and restarts the nodes and Redis, then everything healed, each
 * class finished, its saved log read back, and the history checked
 * (./checker.ts). The seed is printed first and in the report, so a failure
 * replays with `npm run chaos -- --seed=S` (same faults at the same times,
 * same scripted choices; the interleaving of real sockets may differ).
 */

export interface ChaosOptions {
  seed: number;
  /** A fixed-size schedule (the short run in `npm test`)… */
  faults?: number;
  /** …or faults for this many minutes (`npm run chaos -- --minutes=N`). */
  minutes?: number;
  nodePorts?: readonly [number, number];
  redisPorts?: readonly [number, number];
  /** Added to CLUSTER_ACK_BUDGET_MS for the loopback round trip and a loaded machine's event-loop lag. */
  slackMs?: number;
  log?: (line: string) => void;
}

export interface ChaosResult {
  ok: boolean;
  seed: number;
  report: string;
  /** Where the history and the nodes' logs were kept (a failed run only). */
  kept?: string;
  ms: number;
}

/** Three nodes the schedule may hit, and a fourth it never does: the sheltered class lives there. */
const FAULTABLE_NODES = 3;
const SHELTER = FAULTABLE_NODES;
const ALL_NODES = [0, 1, 2, SHELTER];
/** After the last fault, traffic goes on this long with everything up before the scripts stop. */
const TAIL_MS = 5_000;
const DEFAULT_SLACK_MS = 1_500;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function plans(): ClassPlan[] {
  const exposed = [0, 1, 2].map((owner) => ({ cls: owner, sheltered: false, owner, nodes: ALL_NODES, students: 5, maxStudents: 8 }));
  return [...exposed, { cls: 3, sheltered: true, owner: SHELTER, nodes: [SHELTER], students: 5, maxStudents: 8 }];
}

async function savedLog(fleet: Fleet, c: Classroom): Promise<SessionEvent[]> {
  for (let attempt = 1; ; attempt++) {
    const res = await fetch(`${fleet.url(SHELTER)}/api/sessions/${c.session.id}/events`, { headers: { "x-host-key": c.session.hostKey } });
    if (res.ok) return ((await res.json()) as { events: SessionEvent[] }).events;
    if (attempt >= 10) throw new Error(`reading class ${c.plan.cls}'s log: HTTP ${res.status} ${await res.text()}`);
    await sleep(1_000);
  }
}

export async function runChaos(o: ChaosOptions): Promise<ChaosResult> {
  const log = o.log ?? ((line: string) => console.log(line));
  const started = Date.now();
  const rng = new Rng(o.seed);
  const schedule: Fault[] = drawSchedule(rng.fork("schedule"), {
    faultableNodes: FAULTABLE_NODES,
    faults: o.faults,
    durationMs: o.minutes ? o.minutes * 60_000 - TAIL_MS : undefined,
  });
  const replay = `npm run chaos -- ${o.faults ? `--faults=${o.faults}` : `--minutes=${o.minutes}`} --seed=${o.seed}`;
  log(`chaos: seed ${o.seed}, ${schedule.length} faults; replay: ${replay}`);
  log(describeSchedule(schedule));

  const history = new History(o.seed);
  const fleet = new Fleet(
    { nodes: ALL_NODES.length, nodePorts: o.nodePorts ?? [3700, 3799], redisPorts: o.redisPorts ?? [6700, 6799] },
    history,
  );
  const classes: Classroom[] = [];
  let ok = false;
  let report: string;
  let input: CheckInput | null = null;
  try {
    await fleet.start();
    log(`chaos: nodes on ports ${fleet.ports.join(", ")} (node ${SHELTER} is never faulted), redis on ${fleet.redisPort}`);
    const env = { history, url: (n: number) => fleet.url(n), reachable: (n: number) => fleet.reachable(n), rng };
    for (const plan of plans()) classes.push(new Classroom(plan, env));
    await Promise.all(classes.map((c) => c.open()));
    log(`chaos: ${((Date.now() - started) / 1000).toFixed(1)} s to start the fleet and seat the classes; the schedule starts now`);

    let running = true;
    const t0 = Date.now();
    const plays = classes.map((c) => c.play(() => running));
    await Promise.all(
      schedule.map(async (f) => {
        await sleep(t0 + f.at - Date.now());
        await fleet.run(f);
        log(`chaos: +${((Date.now() - t0) / 1000).toFixed(1)} s ${f.node === null ? "redis" : `node ${f.node}`} ${f.kind} done`);
      }),
    );
    await sleep(TAIL_MS);
    running = false;
    await Promise.all(plays);
    await fleet.heal();
    log(`chaos: +${((Date.now() - t0) / 1000).toFixed(1)} s healed; finishing the classes`);

    const problems = (await Promise.all(classes.map(finish))).flat();
    history.owners = fleet.ownerChanges();
    const logs = await Promise.all(classes.map((c) => savedLog(fleet, c)));
    problems.push(...(await Promise.all(classes.map((c, i) => converge(c, logs[i])))).flat());

    input = {
      history,
      logs,
      clients: classes.flatMap((c) => c.checked()),
      budgetMs: DEFAULT_CLUSTER_ACK_BUDGET_MS,
      slackMs: o.slackMs ?? DEFAULT_SLACK_MS,
      crashes: fleet.crashes,
      t0,
      problems,
    };
    const checked = check(input);
    ok = checked.violations.length === 0;
    report = [
      `chaos ${ok ? "passed" : "FAILED"}: seed ${o.seed}, ${schedule.length} faults over ${((Date.now() - t0) / 1000).toFixed(0)} s; replay: ${replay}`,
      formatReport(checked),
    ].join("\n");
  } catch (err) {
    report = `chaos FAILED: seed ${o.seed}; replay: ${replay}\n${(err as Error).stack ?? String(err)}`;
  }
  for (const c of classes) for (const s of c.everyone()) s.stop();
  let kept: string | undefined;
  if (!ok) {
    kept = fleet.dir;
    const saved = input ? { ...input, history: history.toJSON() } : { history: history.toJSON() };
    fs.writeFileSync(path.join(kept, "check-input.json"), JSON.stringify(saved));
    fleet.outputs().forEach((out, i) => fs.writeFileSync(path.join(kept!, `node${i}.log`), out));
    report += `\nhistory, logs and node logs kept in ${kept} (check again: npm run chaos -- --recheck=${kept})`;
  }
  await fleet.stop(!ok);
  log(report);
  return { ok, seed: o.seed, report, kept, ms: Date.now() - started };
}

/** Checks a failed run's kept history again (after a change to the checker, or to read it at leisure). */
export function recheck(dir: string): { ok: boolean; report: string } {
  const saved = JSON.parse(fs.readFileSync(path.join(dir, "check-input.json"), "utf8")) as CheckInput & { history: object };
  if (!("logs" in saved)) return { ok: false, report: `${dir}: the run failed before its logs were read; nothing to check` };
  const checked = check({ ...saved, history: History.fromJSON(saved.history) });
  const ok = checked.violations.length === 0;
  return { ok, report: `recheck of ${dir} (seed ${saved.history.seed}): ${ok ? "passed" : "FAILED"}\n${formatReport(checked)}` };
}
