import type { ArrowKind, LifelineId } from "@/lib/lesson/types";

/** Shared visual constants: lifeline colours and arrow styles, chosen for contrast on a dark projector. */
export const LIFELINE_COLOURS: Record<LifelineId, string> = {
  you: "#93c5fd",
  control: "#c4b5fd",
  scheduler: "#fcd34d",
  csi: "#6ee7b7",
  node: "#fda4af",
};

export const ARROW_STYLES: Record<ArrowKind, { stroke: string; dash?: string; width: number; head: "filled" | "open" }> = {
  request: { stroke: "#e2e8f0", width: 2.5, head: "filled" },
  watch: { stroke: "#94a3b8", dash: "7 5", width: 2.5, head: "open" },
  storage: { stroke: "#fbbf24", width: 3, head: "filled" },
  binding: { stroke: "#4ade80", width: 4, head: "filled" },
};

export const CURRENT_STROKE = "#facc15";

export const MODE_LABELS = {
  WaitForFirstConsumer: "WaitForFirstConsumer",
  Immediate: "Immediate",
  // A scenario name, not a volumeBindingMode value: the badge shows the class's real fields.
  Local: "Local PVs (no-provisioner)",
} as const;
