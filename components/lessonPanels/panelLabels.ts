import type { ProjectorPanel } from "@/lib/session/types";

/** Names of the lesson's side panels (kept apart from the panels so pages can name them without loading them). */
export const PANEL_LABELS: Record<Exclude<ProjectorPanel, "none">, string> = {
  objects: "Objects & events",
  topology: "Topology",
  compare: "Compare modes",
  hood: "Under the hood",
};
