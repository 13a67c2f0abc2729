"use client";

import { useTranslations } from "next-intl";
import { PROJECTOR_OBJECTS, PROJECTOR_PANELS, type ProjectorChoice, type ProjectorObject } from "@/lib/session/types";
import { deepDivesAt } from "@/lib/session/rules";
import { getScenario } from "@/lib/lesson/scenarios";
import type { HostSnapshot } from "@/lib/session/views";
import { useSend } from "@/components/live/LiveSession";
import { moveWithinGroup } from "./focus";
import { useLessonProse } from "@/components/i18n/useScenario";

/** Kubernetes kinds as kubectl abbreviates them: never translated. The Events list is named in the reader's language. */
const KIND_LABELS: Record<Exclude<ProjectorObject, "events">, string> = {
  PersistentVolumeClaim: "PVC",
  PersistentVolume: "PV",
  Pod: "Pod",
  StorageClass: "StorageClass",
  VolumeAttachment: "VolumeAttachment",
};

/**
 * What the projector shows beside the diagram, and inside it: the projector
 * has no controls, so the teacher picks the panel, the object (or the Events)
 * and the deep dive here. The pressed choice is what the projector shows
 * (`projectorSide`, decided on the server): a poll goes up when it opens and
 * comes down when the teacher picks anything else, "Diagram only" included.
 * A teacher's own lesson has no Kubernetes panels: its poll or the diagram.
 */
export function ProjectorPanelSwitch({ snapshot, disabled, custom }: { snapshot: HostSnapshot; disabled?: boolean; custom?: boolean }) {
  const t = useTranslations("console");
  const prose = useLessonProse();
  const send = useSend();
  const side = snapshot.projectorSide;
  const choices: ProjectorChoice[] = [...(snapshot.poll ? (["poll"] as const) : []), ...(custom ? (["none"] as const) : PROJECTOR_PANELS)];
  const name = (c: ProjectorChoice) => t("panel", { panel: c });
  const focus = snapshot.projectorFocus;
  // The step's own deep dives first, then the card's "not shown" list (which every step offers).
  const dives = deepDivesAt(snapshot);
  const ownCount = getScenario(snapshot.mode, snapshot.variant, snapshot.kubeVersion).steps[snapshot.stepIndex]?.underTheHood?.length ?? 0;
  // The projector opens the chosen one, or the step's first: the same rule as ProjectorPanel's DeepDive.
  const openDive = dives.find((d) => d.title === focus.deepDive)?.title ?? (ownCount > 0 ? dives[0].title : null);
  return (
    <section className="rounded-xl border border-slate-700 bg-slate-900/70 p-4" aria-labelledby="projector-panel-heading">
      <h2 id="projector-panel-heading" className="text-lg font-semibold">
        {t("projectorHeading")}
      </h2>
      <div
        className="mt-2 flex flex-wrap gap-2"
        role="group"
        aria-label={t("projectorChoice")}
        data-own-keys=""
        onKeyDown={moveWithinGroup}
        data-testid="projector-choice"
        data-panel={side}
      >
        {choices.map((p) => (
          <button
            key={p}
            type="button"
            disabled={disabled}
            aria-pressed={side === p}
            // One Tab stop for the group (the choice in force); the arrows move between the choices.
            tabIndex={side === p || (!choices.includes(side) && p === choices[0]) ? 0 : -1}
            data-testid={`projector-panel-${p}`}
            onClick={() => void send("projector:show", { panel: p })}
            className={`rounded-lg px-3 py-1.5 text-sm font-semibold ${
              side === p ? (p === "poll" ? "bg-violet-300 text-slate-950" : "bg-slate-100 text-slate-950") : "border border-slate-600"
            }`}
          >
            {name(p)}
          </button>
        ))}
      </div>
      {side === "objects" && (
        <div
          className="mt-3 flex flex-wrap gap-2"
          role="group"
          aria-label={t("projectorObject")}
          data-own-keys=""
          onKeyDown={moveWithinGroup}
        >
          {PROJECTOR_OBJECTS.map((o) => (
            <button
              key={o}
              type="button"
              disabled={disabled}
              aria-pressed={focus.object === o}
              data-testid="projector-object"
              data-object={o}
              onClick={() =>
                void send("projector:focus", {
                  object: o,
                  deepDive: focus.deepDive && dives.some((d) => d.title === focus.deepDive) ? focus.deepDive : null,
                })
              }
              className={`rounded-md px-2.5 py-1 text-sm font-semibold ${focus.object === o ? "bg-sky-400 text-slate-950" : "border border-slate-600"}`}
            >
              {o === "events" ? (
                t("events")
              ) : (
                <span translate="no" dir="ltr">
                  {KIND_LABELS[o]}
                </span>
              )}
            </button>
          ))}
        </div>
      )}
      {side === "hood" && (
        <div
          className="mt-3 flex flex-wrap gap-2"
          role="group"
          aria-label={t("projectorDeepDive")}
          data-own-keys=""
          onKeyDown={moveWithinGroup}
        >
          {dives.map((d, i) => (
            <button
              key={d.title}
              type="button"
              disabled={disabled}
              aria-pressed={openDive === d.title}
              data-testid="projector-deep-dive"
              data-title={d.title}
              onClick={() => void send("projector:focus", { object: focus.object, deepDive: d.title })}
              className={`rounded-md px-2.5 py-1 text-left text-sm font-semibold ${openDive === d.title ? "bg-sky-400 text-slate-950" : "border border-slate-600"} ${
                i === ownCount ? "border-dashed" : ""
              }`}
            >
              {i >= ownCount && <span className="sr-only">{t("notOnCard")} </span>}
              {/* Shown in the reader's language; the English title stays the deep dive's name on the wire. */}
              <span lang={prose.localize(d.title).lang}>{prose.localize(d.title).text}</span>
            </button>
          ))}
        </div>
      )}
    </section>
  );
}
