"use client";

import { PROJECTOR_PANELS, type ProjectorPanel } from "@/lib/session/types";
import type { HostSnapshot } from "@/lib/session/views";
import { useSend } from "@/components/live/LiveSession";
import { PANEL_LABELS } from "@/components/lesson/panelLabels";

/** What the projector shows beside the diagram (a poll, while one is on, takes that place). */
export function ProjectorPanelSwitch({ snapshot, disabled }: { snapshot: HostSnapshot; disabled?: boolean }) {
  const send = useSend();
  return (
    <section className="rounded-xl border border-slate-700 bg-slate-900/70 p-4" aria-labelledby="projector-panel-heading">
      <h2 id="projector-panel-heading" className="text-lg font-semibold">
        On the projector
      </h2>
      <div className="mt-2 flex flex-wrap gap-2" role="group" aria-label="Projector side panel">
        {PROJECTOR_PANELS.map((p: ProjectorPanel) => (
          <button
            key={p}
            type="button"
            disabled={disabled}
            aria-pressed={snapshot.projectorPanel === p}
            data-testid={`projector-panel-${p}`}
            onClick={() => void send("projector:show", { panel: p })}
            className={`rounded-lg px-3 py-1.5 text-sm font-semibold ${
              snapshot.projectorPanel === p ? "bg-slate-100 text-slate-950" : "border border-slate-600"
            }`}
          >
            {p === "none" ? "Diagram only" : PANEL_LABELS[p]}
          </button>
        ))}
      </div>
    </section>
  );
}
