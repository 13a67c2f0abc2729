import { isLifelineId, type ArrowKind, type LifelineId } from "@/lib/lesson/types";

/** Shared visual constants: lifeline colours and arrow styles, chosen for contrast on a dark projector. */
export const LIFELINE_COLOURS: Record<LifelineId, string> = {
  you: "#93c5fd",
  control: "#c4b5fd",
  scheduler: "#fcd34d",
  csi: "#6ee7b7",
  node: "#fda4af",
};

/** A teacher's lesson's lifelines, coloured in turn: as light as the card's, so each reads on the dark projector. */
export const EXTRA_LIFELINE_COLOURS = [
  "#93c5fd",
  "#c4b5fd",
  "#fcd34d",
  "#6ee7b7",
  "#fda4af",
  "#67e8f9",
  "#f0abfc",
  "#bef264",
  "#fdba74",
  "#a5b4fc",
  "#5eead4",
  "#f9a8d4",
] as const;

/** The card's five lifelines (they carry a badge) keep their own colours; any other lifeline takes the next colour in turn. */
export function lifelineColour(lifeline: { id: string; badge?: string }, index: number): string {
  return lifeline.badge && isLifelineId(lifeline.id)
    ? LIFELINE_COLOURS[lifeline.id]
    : EXTRA_LIFELINE_COLOURS[index % EXTRA_LIFELINE_COLOURS.length];
}

export const ARROW_STYLES: Record<ArrowKind, { stroke: string; dash?: string; width: number; head: "filled" | "open" }> = {
  request: { stroke: "#e2e8f0", width: 2.5, head: "filled" },
  watch: { stroke: "#94a3b8", dash: "7 5", width: 2.5, head: "open" },
  // Orange, not yellow: yellow is the current step's highlight, and only one thing may look current.
  storage: { stroke: "#fb923c", width: 3, dash: "12 4 2 4", head: "filled" },
  binding: { stroke: "#4ade80", width: 4, head: "filled" },
};

export const CURRENT_STROKE = "#facc15";

/** Notes drawn on the diagram: neutral, so they never look like the current step. */
export const NOTE_STYLE = { fill: "#1e293b", stroke: "#64748b" } as const;
export const BINDING_NOTE_STYLE = { fill: "#14532d", stroke: "#4ade80" } as const;

/**
 * A scenario has one name everywhere (mode list, switch notice, badge,
 * comparison): its lesson title, e.g. "Local PVs: no matching PV". "Local
 * PVs" is a scenario, not a volumeBindingMode value: the badge shows the
 * StorageClass's real fields beside it.
 */
export function scenarioName(scenario: { title: string }): string {
  return scenario.title;
}
