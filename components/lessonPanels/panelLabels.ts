import { useTranslations } from "next-intl";
import { useCallback } from "react";
import type { ProjectorPanel } from "@/lib/session/types";

type Panel = Exclude<ProjectorPanel, "none">;

/** Names of the lesson's side panels in English (kept apart from the panels so pages can name them without loading them). */
export const PANEL_LABELS: Record<Panel, string> = {
  objects: "Objects & events",
  topology: "Topology",
  compare: "Compare modes",
  hood: "Under the hood",
};

/** A side panel's name in the reader's language (the catalog's `panels` namespace; English reads as PANEL_LABELS). */
export function usePanelLabel(): (panel: Panel) => string {
  const t = useTranslations("panels");
  return useCallback((panel: Panel) => t(panel), [t]);
}
