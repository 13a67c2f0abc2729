"use client";

import { useLayoutEffect, useRef, useState, type ReactNode } from "react";
import { useTranslations } from "next-intl";
import { k8s } from "@/components/i18n/Kube";
import { useLessonProse } from "@/components/i18n/useScenario";
import { useStepHeading } from "@/components/diagram/useStepHeading";
import { assertNever } from "@/lib/assertNever";
import { scenarioVersion, versionLabel, type Scenario } from "@/lib/lesson";
import { deepDivesAt } from "@/lib/session/rules";
import type { ProjectorFocus, ProjectorPanel as Panel } from "@/lib/session/types";
import { EventList, SHORT, useObjectViews, YamlBlock } from "@/components/lessonPanels/ObjectInspector";
import { usePanelLabel } from "@/components/lessonPanels/panelLabels";
import { TopologyPanel } from "@/components/lessonPanels/TopologyPanel";
import { CompareView } from "@/components/lessonPanels/CompareView";
import { FidelityNoteList } from "@/components/classroom/FidelityNotes";

/**
 * A side panel on the projector. Nobody can click or scroll there, so the
 * teacher's console chooses what it shows (`projectorFocus`), and what it
 * shows must fit: when the content is taller than the panel it flows into
 * more columns instead of hiding below the edge.
 */
export function ProjectorPanel({
  panel,
  focus,
  scenario,
  stepIndex,
}: {
  panel: Exclude<Panel, "none">;
  focus: ProjectorFocus;
  scenario: Scenario;
  stepIndex: number;
}) {
  const label = usePanelLabel();
  return (
    <section
      className="flex min-h-0 min-w-0 flex-col rounded-2xl border border-slate-700 bg-slate-900 p-[0.5rem] text-[0.8rem]"
      aria-label={label(panel)}
      data-testid="projector-panel-content"
    >
      <FitColumns key={`${panel}:${focus.object}:${focus.deepDive}:${scenario.mode}:${scenario.variant}:${stepIndex}`}>
        <PanelContent panel={panel} focus={focus} scenario={scenario} stepIndex={stepIndex} />
      </FitColumns>
    </section>
  );
}

function PanelContent({
  panel,
  focus,
  scenario,
  stepIndex,
}: {
  panel: Exclude<Panel, "none">;
  focus: ProjectorFocus;
  scenario: Scenario;
  stepIndex: number;
}) {
  switch (panel) {
    case "objects":
      return <Objects focus={focus} scenario={scenario} stepIndex={stepIndex} />;
    case "topology":
      return <TopologyPanel scenario={scenario} stepIndex={stepIndex} />;
    case "compare":
      return <CompareView scenario={scenario} stepIndex={stepIndex} />;
    case "hood":
      return <DeepDive focus={focus} scenario={scenario} stepIndex={stepIndex} />;
    default:
      return assertNever(panel);
  }
}

/** One object's YAML, or the Events with every message whole. */
function Objects({ focus, scenario, stepIndex }: { focus: ProjectorFocus; scenario: Scenario; stepIndex: number }) {
  const t = useTranslations("projector");
  const tp = useTranslations("panels");
  const { before, after, views } = useObjectViews(scenario, stepIndex);
  if (focus.object === "events") {
    const fresh = after.events.length - before.events.length;
    return (
      <div data-testid="projector-events" className="text-[0.78rem] leading-snug">
        <h3 className="mb-2 font-semibold">
          {t.rich("eventsHeading", {
            version: versionLabel(scenarioVersion(scenario)),
            fresh: Math.max(0, fresh),
            k8s,
            note: (chunks) => <span className="font-normal text-slate-300">{chunks}</span>,
          })}
        </h3>
        {after.events.length === 0 ? (
          <p className="text-slate-300">{tp("noEvents")}</p>
        ) : (
          <EventList events={after.events} firstNew={before.events.length} version={scenarioVersion(scenario)} cardsOnly compact />
        )}
      </div>
    );
  }
  const view = views.find((v) => v.kind === focus.object)!;
  return (
    <div>
      <h3 className="mb-2 font-semibold">
        <span dir="ltr" translate="no">
          {view.kind}
        </span>
        {view.yaml && (
          <span className="font-normal text-slate-300">
            {" "}
            · {view.created ? t("newAtStep") : t("linesChanged", { count: view.changed.size })}
          </span>
        )}
      </h3>
      {view.yaml ? (
        <YamlBlock
          view={{ ...view, yaml: view.yaml }}
          className="whitespace-pre-wrap font-mono text-[length:inherit] leading-snug [overflow-wrap:anywhere] [&>*]:pl-[2ch] [&>*]:[text-indent:-2ch]"
        />
      ) : (
        <p className="text-slate-300">{tp.rich("notYet", { kind: SHORT[view.kind], k8s })}</p>
      )}
    </div>
  );
}

/** The deep dive the teacher opened (the step's first when none), with the others named. */
function DeepDive({ focus, scenario, stepIndex }: { focus: ProjectorFocus; scenario: Scenario; stepIndex: number }) {
  const t = useTranslations("projector");
  const stepHeading = useStepHeading();
  const step = scenario.steps[stepIndex];
  const dives = deepDivesAt({ mode: scenario.mode, variant: scenario.variant, stepIndex });
  const own = step?.underTheHood ?? [];
  const chosen = dives.find((d) => d.title === focus.deepDive);
  const open = chosen ?? own[0] ?? null;
  // The lesson's own words: the teacher's choice names an English deep dive (put in the reader's language here); the
  // step's own come already in it. Either is marked English where the lesson catalog has no translation.
  const prose = useLessonProse();
  const words = (text: string) => (chosen ? prose.localize(text) : { text, lang: prose.langOf(text) });
  const [openTitle, openBody] = open ? [words(open.title), words(open.body)] : [null, null];
  return (
    <div data-testid="under-the-hood" className="space-y-2">
      <h3 className="font-semibold">
        {t.rich("hoodHeading", { step: stepHeading(scenario.steps, stepIndex), lesson: (chunks) => <span lang="en">{chunks}</span> })}
      </h3>
      {open ? (
        <article className="rounded-lg bg-slate-800/70 px-3 py-2" data-testid="deep-dive" data-title={open.title}>
          <h4 className="font-semibold text-sky-200" lang={openTitle?.lang}>
            {openTitle?.text}
          </h4>
          <p className="mt-1 whitespace-pre-line" lang={openBody?.lang}>
            {openBody?.text}
          </p>
        </article>
      ) : (
        <>
          <p className="text-slate-300">{t("wholeStory")}</p>
          <FidelityNoteList className="list-disc space-y-1 ps-5" />
        </>
      )}
      {own.length > 1 && (
        <p className="text-slate-300">
          {t.rich("alsoHere", {
            titles: own
              .filter((d) => d !== open)
              .map((d) => d.title)
              .join(" · "),
            lesson: (chunks) => <span lang="en">{chunks}</span>,
          })}
        </p>
      )}
    </div>
  );
}

/**
 * Content that flows into as many columns as it needs to fit its box (up to
 * three), then, if three are not enough, is set denser (a little smaller and
 * tighter, never under 0.76rem: 18 px at 1080p): the projector cannot scroll,
 * and cutting the bottom off would hide the very event the failure scenario
 * is about.
 */
function FitColumns({ children }: { children: ReactNode }) {
  const ref = useRef<HTMLDivElement | null>(null);
  const [fit, setFit] = useState({ columns: 1, dense: false });
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const check = () => {
      if (el.scrollHeight <= el.clientHeight + 1 && el.scrollWidth <= el.clientWidth + 1) return;
      // Already as dense as it gets: the same state, so no render loop.
      setFit((f) => (f.columns < 3 ? { ...f, columns: f.columns + 1 } : f.dense ? f : { ...f, dense: true }));
    };
    check();
    const observer = new ResizeObserver(check);
    observer.observe(el);
    return () => observer.disconnect();
  }, [fit]);
  return (
    <div
      ref={ref}
      className={`min-h-0 flex-1 overflow-hidden [column-gap:1rem] [column-fill:auto] ${fit.dense ? "[&_*]:leading-[1.22]!" : ""}`}
      style={{ columnCount: fit.columns, ...(fit.dense ? { fontSize: "0.76rem" } : {}) }}
      data-columns={fit.columns}
      data-dense={fit.dense || undefined}
    >
      {children}
    </div>
  );
}
