import { WFFC_STEPS } from "./card";
import { scenarioId, type ScenarioId } from "./kubeCluster";
import type { Scenario, ScenarioStep } from "./types";

/**
 * Step numbers as the class reads them. A step's `label` is the card's number
 * (the WaitForFirstConsumer order) and stays the moment's identity: a mode
 * switch, a question and a poll match on it. What a screen shows first is the
 * step's place in the order the current scenario runs, so Immediate reads
 * 1, 2, 3 … like any other, and the card's number appears beside it, named as
 * the card's, only where the two differ: the reordering is the lesson.
 */

type Numbered = Pick<ScenarioStep, "label">;

export interface StepNumber {
  /** The step's place in the order shown, 1-based: the number every view shows first. */
  ordinal: number;
  /** The card's number for the same moment, only when it differs from `ordinal`. */
  card: number | null;
}

export function stepNumber(steps: readonly Numbered[], index: number): StepNumber {
  const label = steps[index]?.label;
  return { ordinal: index + 1, card: label !== undefined && label !== index + 1 ? label : null };
}

/** The visible tag beside a number: short enough for a button in the step list. */
export function cardStepTag(card: number): string {
  return `card step ${card}`;
}

/** What the tag means, for a screen reader and a tooltip: the card is the WaitForFirstConsumer order. */
export const CARD_ORDER_NOTE = "the WaitForFirstConsumer order";

/** The tag in words that make sense read aloud on their own, e.g. in an aria-label. */
export function cardStepSpoken(card: number): string {
  return `${cardStepTag(card)} (${CARD_ORDER_NOTE})`;
}

// ---------------------------------------------------------------------------
// What a scenario's order does to the card's: derived from the steps alone.

/** Card steps that come earlier than on the card, as one run of consecutive card numbers. */
export interface MovedRun {
  labels: number[];
  /** The card step they now follow, or null when they come first. */
  after: number | null;
  /** Where they are in this order. */
  ordinals: number[];
}

export interface OrderChange {
  movedEarlier: MovedRun[];
  /** Card steps that do not happen in a scenario that runs to its end (local PVs provision nothing). */
  skipped: number[];
  /** The step where the scenario fails (it ends there), and the card steps it never reaches. */
  failure: { label: number; ordinal: number; unreached: number[] } | null;
}

const CARD_LABELS: readonly number[] = WFFC_STEPS.map((s) => s.label);

export function orderChange(steps: readonly Pick<ScenarioStep, "label" | "failed">[]): OrderChange {
  const present = new Set(steps.map((s) => s.label));
  const missing = CARD_LABELS.filter((label) => !present.has(label));
  const failedAt = steps.findIndex((s) => s.failed);

  // A run has moved up when it starts while an earlier card step that this scenario has is still to come.
  const movedEarlier: MovedRun[] = [];
  const seen = new Set<number>();
  const expected = () => Math.min(...[...present].filter((label) => !seen.has(label)));
  for (let i = 0; i < steps.length;) {
    if (steps[i].label <= expected()) {
      seen.add(steps[i].label);
      i++;
      continue;
    }
    const run: MovedRun = { labels: [], after: i > 0 ? steps[i - 1].label : null, ordinals: [] };
    const first = i;
    while (i < steps.length && (i === first || steps[i].label === steps[i - 1].label + 1)) {
      run.labels.push(steps[i].label);
      run.ordinals.push(i + 1);
      seen.add(steps[i].label);
      i++;
    }
    movedEarlier.push(run);
  }

  return {
    movedEarlier,
    skipped: failedAt >= 0 ? [] : missing,
    failure: failedAt >= 0 ? { label: steps[failedAt].label, ordinal: failedAt + 1, unreached: missing } : null,
  };
}

/** "6–9", "5 and 10–12": consecutive card numbers as ranges. */
function runsOf(labels: readonly number[]): number[][] {
  const runs: number[][] = [];
  for (const label of [...labels].sort((a, b) => a - b)) {
    const last = runs.at(-1);
    if (last && label === last[last.length - 1] + 1) last.push(label);
    else runs.push([label]);
  }
  return runs;
}

function range(run: readonly number[]): string {
  return run.length === 1 ? String(run[0]) : `${run[0]}–${run[run.length - 1]}`;
}

function ranges(labels: readonly number[]): string {
  const parts = runsOf(labels).map(range);
  return parts.length <= 1 ? (parts[0] ?? "") : `${parts.slice(0, -1).join(", ")} and ${parts[parts.length - 1]}`;
}

const plural = (labels: readonly number[], word: string) => `${word}${labels.length === 1 ? "" : "s"}`;

function cardTitle(label: number): string {
  return WFFC_STEPS.find((s) => s.label === label)?.title ?? `step ${label}`;
}

/** "PROVISION to CREATE PV": a run of card steps by their names. */
function titles(run: readonly number[]): string {
  return run.length === 1 ? cardTitle(run[0]) : `${cardTitle(run[0])} to ${cardTitle(run[run.length - 1])}`;
}

/**
 * Why the order is what it is, per scenario: the one part of the sentence that
 * cannot be read off the steps. Each clause is LESSON.md's own account
 * (sections 1, 2 and 4 and "Scenarios the mode switch moves between").
 */
const ORDER_REASONS: Record<ScenarioId, string> = {
  "WaitForFirstConsumer/standard": "In WaitForFirstConsumer, nothing is provisioned until the scheduler has chosen a node for the Pod",
  "Immediate/standard": "In Immediate, the volume is provisioned and bound as soon as the claim is created, without waiting for a Pod",
  "Immediate/zone-conflict":
    "In Immediate, the volume is provisioned and bound as soon as the claim is created, in a zone chosen without the Pod",
  "Local/standard": "With local PVs the scheduler picks a hand-made PV on the chosen node and nothing is provisioned",
  "Local/no-local-pv": "With local PVs nothing is provisioned, and here no node has a matching hand-made PV",
};

/** What the scenario's order does to the card's, in words (no reason, no full stop). */
export function describeOrderChange(steps: readonly Pick<ScenarioStep, "label" | "failed">[]): string {
  const change = orderChange(steps);
  const parts: string[] = [];
  for (const run of change.movedEarlier) {
    const one = run.labels.length === 1;
    parts.push(
      `${plural(run.labels, "card step")} ${range(run.labels)} (${titles(run.labels)}) now ${one ? "comes" : "come"} ${
        run.after === null ? "first" : `right after ${cardTitle(run.after)}`
      }, as ${plural(run.ordinals, "step")} ${range(run.ordinals)}`,
    );
  }
  if (change.skipped.length > 0) {
    const gone = runsOf(change.skipped);
    let text = `${plural(change.skipped, "card step")} ${ranges(change.skipped)} (${gone.map(titles).join("; ")}) ${
      change.skipped.length === 1 ? "does" : "do"
    } not happen`;
    // The first step after the gap is where the numbers part from the card's.
    const after = Math.max(...change.skipped);
    const next = steps.findIndex((s) => s.label > after);
    if (next >= 0 && steps[next].label !== next + 1) text += `, so ${cardTitle(steps[next].label)} is step ${next + 1}`;
    parts.push(text);
  }
  if (change.failure) {
    const { label, ordinal, unreached } = change.failure;
    let text = `${cardTitle(label)} fails${ordinal !== label ? ` (step ${ordinal})` : ""}`;
    if (unreached.length > 0)
      text += `, so ${plural(unreached, "card step")} ${ranges(unreached)} ${unreached.length === 1 ? "does" : "do"} not happen`;
    parts.push(text);
  }
  if (parts.length === 0) return `the steps follow the card's order, 1 to ${steps.length}`;
  return parts.join(", and ");
}

/**
 * One sentence for the class after a mode switch: what moved against the
 * card's order, and why. The moves are derived from the steps; the reason is
 * the scenario's.
 */
export function orderExplanation(scenario: Scenario): string {
  const id = scenarioId(scenario.mode, scenario.variant);
  const facts = describeOrderChange(scenario.steps);
  return id ? `${ORDER_REASONS[id]}: ${facts}.` : `${facts.charAt(0).toUpperCase()}${facts.slice(1)}.`;
}

/** A step named in running text: "9 NODE CHOSEN (card step 5)", or "4 PICK NODE" where the numbers agree. */
export function stepHeading(steps: readonly (Numbered & { title: string })[], index: number): string {
  const step = steps[index];
  if (!step) return "";
  const { ordinal, card } = stepNumber(steps, index);
  return `${ordinal} ${step.title}${card === null ? "" : ` (${cardStepTag(card)})`}`;
}
