import type { Scenario } from "./types";

/**
 * Where the class lands after a mode switch: the same moment (step label) if
 * the other scenario has it, else the start.
 */
export function mapPosition(from: Scenario, index: number, to: Scenario): { index: number; matched: boolean } {
  const label = from.steps[index]?.label;
  const found = to.steps.findIndex((s) => s.label === label);
  return found >= 0 ? { index: found, matched: true } : { index: 0, matched: false };
}
