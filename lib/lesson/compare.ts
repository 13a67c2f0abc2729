import { scenarioId, type ScenarioId } from "./kubeCluster";
import type { Scenario, ScenarioStep } from "./types";

/**
 * Two scenarios side by side on one time axis: row i is the i-th thing that
 * happens in each. Both tracks use the card's step labels, so the eye can see
 * the same label arrive at different moments (Immediate's PROVISION is the
 * second thing that happens; WaitForFirstConsumer's is the sixth).
 */

export interface TimelineRow {
  /** The moment: 0-based row on the shared time axis. */
  moment: number;
  a: ScenarioStep | null;
  b: ScenarioStep | null;
  /** Both sides do the same thing at this moment (same label, same noop/failed). */
  same: boolean;
}

export interface TimelineComparison {
  rows: TimelineRow[];
  /** The first row where the two tracks differ, or null if they never do. */
  firstDivergence: number | null;
  /** One or two sentences for the class on what makes the tracks part. */
  divergenceExplanation: string;
}

function sameStep(a: ScenarioStep | null, b: ScenarioStep | null): boolean {
  return a !== null && b !== null && a.label === b.label && !!a.noop === !!b.noop && !!a.failed === !!b.failed;
}

type Pair = `${ScenarioId} | ${ScenarioId}`;

const SAME_TRACKS = "The two tracks are the same, step for step.";

const WFFC_VS_IMMEDIATE =
  "In Immediate the disk is created and bound right after the PVC, before any Pod exists, in a zone chosen without knowing the Pod; in WaitForFirstConsumer provisioning waits for the scheduler's choice of node, and the disk is created where that node can reach it.";

// Keyed "A | B" in SCENARIO_IDS order; lookups try both orders.
const EXPLANATIONS: Partial<Record<Pair, string>> = {
  "WaitForFirstConsumer/standard | Immediate/standard": WFFC_VS_IMMEDIATE,
  "WaitForFirstConsumer/standard | Immediate/zone-conflict":
    "In Immediate the disk is created and bound right after the PVC, before any Pod exists; it landed in zone-a, the Pod may only run in zone-b, and scheduling fails. In WaitForFirstConsumer the scheduler picks the node first, so zone-a is ruled out before anything is provisioned.",
  "Immediate/standard | Immediate/zone-conflict":
    "Same order and the same zone-a disk; only the Pod differs. Free to run anywhere, it follows the disk to node-a; restricted to zone-b, no node satisfies both its selector and the PV's zone-a affinity, and it stays Pending.",
  "WaitForFirstConsumer/standard | Local/standard":
    "Both wait for the scheduler. At NODE CHOSEN, WaitForFirstConsumer writes selected-node on the PVC so a provisioner creates a disk; Local writes claimRef on a pre-created PV, so PROVISION, CREATE DISK and CREATE PV never happen and binding follows at once.",
  "WaitForFirstConsumer/standard | Local/no-local-pv":
    "Both wait for the scheduler, but with kubernetes.io/no-provisioner a node qualifies only if a matching pre-created PV is there. There is none, so PICK NODE fails where WaitForFirstConsumer would go on to provision.",
  "Immediate/standard | Local/standard":
    "Immediate provisions and binds right after the PVC, before any Pod; Local waits for the scheduler, then binds a hand-made PV on the chosen node. Nothing is provisioned.",
  "Immediate/zone-conflict | Local/standard":
    "Immediate provisions and binds right after the PVC and later cannot place the Pod; Local waits for the scheduler, which only considers nodes holding a matching PV, then binds that PV.",
  "Immediate/standard | Local/no-local-pv":
    "Immediate provisions a disk right after the PVC; with kubernetes.io/no-provisioner nothing can be provisioned, and with no matching local PV scheduling fails.",
  "Immediate/zone-conflict | Local/no-local-pv":
    "Both end with the Pod Pending at PICK NODE, for different reasons: Immediate already made a disk in the wrong zone; Local has no PV to bind and cannot make one.",
  "Local/standard | Local/no-local-pv":
    "Same until PICK NODE: with local-pv-node-b1-ssd1 present, node-b1 qualifies; without a matching PV every node fails VolumeBinding, nothing can be provisioned, and the Pod stays Pending.",
};

/** Every fixed sentence the comparison can show (the lesson catalog translates them). */
export const COMPARE_SENTENCES: readonly string[] = [SAME_TRACKS, ...new Set(Object.values(EXPLANATIONS))];

function describeStep(step: ScenarioStep | null): string {
  if (!step) return "has already ended";
  const state = step.failed ? " (fails)" : step.noop ? " (nothing to do)" : "";
  return `is at step ${step.label} ${step.title}${state}`;
}

function explain(a: Scenario, b: Scenario, row: TimelineRow): string {
  const idA = scenarioId(a.mode, a.variant);
  const idB = scenarioId(b.mode, b.variant);
  if (idA && idB) {
    const known = EXPLANATIONS[`${idA} | ${idB}`] ?? EXPLANATIONS[`${idB} | ${idA}`];
    if (known) return known;
  }
  return `At moment ${row.moment + 1}, ${a.title} ${describeStep(row.a)} while ${b.title} ${describeStep(row.b)}.`;
}

export function compareTimeline(a: Scenario, b: Scenario): TimelineComparison {
  const length = Math.max(a.steps.length, b.steps.length);
  const rows: TimelineRow[] = [];
  for (let moment = 0; moment < length; moment++) {
    const stepA = a.steps[moment] ?? null;
    const stepB = b.steps[moment] ?? null;
    rows.push({ moment, a: stepA, b: stepB, same: sameStep(stepA, stepB) });
  }
  const index = rows.findIndex((r) => !r.same);
  if (index < 0) {
    return { rows, firstDivergence: null, divergenceExplanation: SAME_TRACKS };
  }
  return { rows, firstDivergence: index, divergenceExplanation: explain(a, b, rows[index]) };
}
