import { readFileSync } from "node:fs";
import { checkCluster, type CheckResult } from "../../lib/lesson/clusterCheck";

/** Shared by the tests of "Check my cluster" (lib/lesson/clusterCheck*.test.ts): the pastes by name, and readers of the result. */

// Fixtures are in the exact shape kubectl prints: JSON with kubectl's keys and wrappers, tables aligned as
// Go's tabwriter aligns them (kubectl's padding 3, describe's padding 2), prompts and all.
export const fixture = (name: string) => readFileSync(new URL(`../../lib/lesson/fixtures/${name}`, import.meta.url), "utf8");
export const paste = (name: string) => fixture(`clusterCheck/${name}`);

/** The check's report, or the test fails with the problem it gave instead. */
export const ok = (r: CheckResult) => {
  if (!r.ok) throw new Error(`expected a result, got: ${r.problem}`);
  return r;
};

/** The problem the check gives for a paste (against WaitForFirstConsumer), or the test fails with its summary. */
export const problem = (text: string) => {
  const r = checkCluster(text, "WaitForFirstConsumer", "standard");
  if (r.ok) throw new Error(`expected a problem, got: ${r.summary}`);
  return r.problem;
};

/** The steps that got events, one line each: "6 PROVISION: ExternalProvisioning, Provisioning", a repeated event with its count. */
export const placed = (r: Extract<CheckResult, { ok: true }>) =>
  r.steps
    .filter((s) => s.events.length > 0)
    .map((s) => `${s.position} ${s.title}: ${s.events.map((e) => (e.count > 1 ? `${e.reason} x${e.count}` : e.reason)).join(", ")}`);
