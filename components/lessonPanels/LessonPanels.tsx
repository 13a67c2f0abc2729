"use client";

import { moveWithinGroup } from "@/components/host/focus";
import { useState } from "react";
import { useTranslations } from "next-intl";
import { useStepHeading } from "@/components/diagram/useStepHeading";
import { assertNever } from "@/lib/assertNever";
import { NOT_SHOWN, type Scenario } from "@/lib/lesson";
import { PROJECTOR_PANELS, type ProjectorPanel } from "@/lib/session/types";
import { ObjectInspector } from "./ObjectInspector";
import { TopologyPanel } from "./TopologyPanel";
import { CompareView } from "./CompareView";
import { PANEL_LABELS, usePanelLabel } from "./panelLabels";
import { useLessonProse } from "@/components/i18n/useScenario";
import { FidelityNoteList } from "@/components/classroom/FidelityNotes";

export { PANEL_LABELS };

export function PanelBody({
  panel,
  scenario,
  stepIndex,
}: {
  panel: Exclude<ProjectorPanel, "none">;
  scenario: Scenario;
  stepIndex: number;
}) {
  switch (panel) {
    case "objects":
      return <ObjectInspector scenario={scenario} stepIndex={stepIndex} />;
    case "topology":
      return <TopologyPanel scenario={scenario} stepIndex={stepIndex} />;
    case "compare":
      return <CompareView scenario={scenario} stepIndex={stepIndex} />;
    case "hood":
      return <UnderTheHood scenario={scenario} stepIndex={stepIndex} />;
    default:
      return assertNever(panel);
  }
}

/** Per-step expanders for what the card simplifies, and the card's "not shown" list. */
export function UnderTheHood({ scenario, stepIndex }: { scenario: Scenario; stepIndex: number }) {
  const t = useTranslations("panels");
  const stepHeading = useStepHeading();
  const step = scenario.steps[stepIndex];
  // The deep dives, the notes and the "not shown" list are the built-in lesson's own words: the lesson catalog's in the
  // reader's language where it has them, else English, marked (docs/i18n.md).
  const prose = useLessonProse();
  return (
    <section aria-labelledby="hood-heading" data-testid="under-the-hood" className="space-y-2">
      <h3 id="hood-heading" className="font-semibold">
        {t.rich("hoodHeading", { step: stepHeading(scenario.steps, stepIndex), lesson: (chunks) => <span lang="en">{chunks}</span> })}
      </h3>
      {step?.underTheHood?.length ? (
        step.underTheHood.map((u) => (
          <details key={u.title} className="rounded-lg bg-slate-800/60 px-3 py-2" lang={prose.langOf(u.title)}>
            <summary className="cursor-pointer font-medium text-sky-200">{u.title}</summary>
            <p className="mt-1 whitespace-pre-line text-slate-200">{u.body}</p>
          </details>
        ))
      ) : (
        <p className="text-slate-400">{t("wholeStory")}</p>
      )}
      <h4 className="pt-2 font-semibold">{t("howSimplifies")}</h4>
      <FidelityNoteList className="list-disc space-y-1 ps-5 text-slate-200" />
      <h4 className="pt-2 font-semibold">{t("notShown")}</h4>
      {NOT_SHOWN.map((u) => {
        const [title, body] = [prose.localize(u.title), prose.localize(u.body)];
        return (
          <details key={u.title} className="rounded-lg bg-slate-800/60 px-3 py-2">
            <summary className="cursor-pointer font-medium text-sky-200" lang={title.lang}>
              {title.text}
            </summary>
            <p className="mt-1 whitespace-pre-line text-slate-200" lang={body.lang}>
              {body.text}
            </p>
          </details>
        );
      })}
    </section>
  );
}

/**
 * The lesson's side panels: objects, topology, compare, under the hood.
 * Console and students pick their own tab; on a phone the whole thing folds
 * away so the step stays readable.
 */
export function LessonPanels({ scenario, stepIndex, audience }: { scenario: Scenario; stepIndex: number; audience: "host" | "student" }) {
  const t = useTranslations("panels");
  const label = usePanelLabel();
  const [panel, setPanel] = useState<Exclude<ProjectorPanel, "none">>("objects");
  const tabs = PROJECTOR_PANELS.filter((p): p is Exclude<ProjectorPanel, "none"> => p !== "none");
  const body = (
    <div className="space-y-3">
      <div className="flex flex-wrap gap-2" role="group" aria-label={t("group")} data-own-keys="" onKeyDown={moveWithinGroup}>
        {tabs.map((p) => (
          <button
            key={p}
            type="button"
            aria-pressed={p === panel}
            onClick={() => setPanel(p)}
            data-testid={`panel-${p}`}
            className={`rounded-lg px-3 py-2 text-sm font-semibold ${p === panel ? "bg-slate-100 text-slate-950" : "border border-slate-600 text-slate-100"}`}
          >
            {label(p)}
          </button>
        ))}
      </div>
      <PanelBody panel={panel} scenario={scenario} stepIndex={stepIndex} />
    </div>
  );
  // On a phone the student's wrapper (StudentLessonPanels) folds this away.
  if (audience === "student") return body;
  return (
    <section className="rounded-xl border border-slate-700 bg-slate-900/60 p-3" data-testid="lesson-panels" aria-label={t("group")}>
      {body}
    </section>
  );
}
