import { WFFC_STEPS } from "./card";
import type { BindingMode, Scenario, VariantId } from "./types";

/** Which variants each mode offers; the first is the default. */
export const VARIANTS_BY_MODE: Record<BindingMode, readonly VariantId[]> = {
  WaitForFirstConsumer: ["standard"],
  Immediate: ["standard", "zone-conflict"],
  Local: ["standard", "no-local-pv"],
};

export function isVariantOf(mode: BindingMode, variant: VariantId): boolean {
  return VARIANTS_BY_MODE[mode].includes(variant);
}

// Placeholder until the Immediate and Local tracks land: every mode shows the card's track.
export function getScenario(mode: BindingMode, variant: VariantId = "standard"): Scenario {
  return { mode, variant, title: mode, summary: "", steps: [...WFFC_STEPS] };
}

/**
 * Where the class lands after a mode switch: the same moment (step label) if
 * the other scenario has it, else the start.
 */
export function mapPosition(from: Scenario, index: number, to: Scenario): { index: number; matched: boolean } {
  const label = from.steps[index]?.label;
  const found = to.steps.findIndex((s) => s.label === label);
  return found >= 0 ? { index: found, matched: true } : { index: 0, matched: false };
}
