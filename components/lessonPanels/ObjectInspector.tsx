"use client";

import { moveWithinGroup } from "@/components/host/focus";
import { useId, useMemo, useState } from "react";
import { useTranslations } from "next-intl";
import { Kube, k8s } from "@/components/i18n/Kube";
import { assertNever } from "@/lib/assertNever";
import {
  describeEventMessage,
  scenarioVersion,
  versionLabel,
  type KubeVersion,
  changedLines,
  toYaml,
  worldAt,
  type KubeObject,
  type Scenario,
  type World,
} from "@/lib/lesson";
import { OBJECT_KINDS, type ObjectKind } from "@/lib/lesson/types";

const KINDS = OBJECT_KINDS;
type Kind = ObjectKind;

export const SHORT: Record<Kind, string> = {
  PersistentVolumeClaim: "PVC",
  PersistentVolume: "PV",
  Pod: "Pod",
  StorageClass: "StorageClass",
  VolumeAttachment: "VolumeAttachment",
};

function objectOf(world: World, kind: Kind): KubeObject | null {
  switch (kind) {
    case "PersistentVolumeClaim":
      return world.pvc;
    case "PersistentVolume":
      return world.pv;
    case "Pod":
      return world.pod;
    case "StorageClass":
      return world.storageClass;
    case "VolumeAttachment":
      return world.volumeAttachment;
    default:
      return assertNever(kind);
  }
}

/** The world before the step at `index` (index 0: before step 1). */
export function worldsAround(scenario: Scenario, index: number): { before: World; after: World } {
  return { before: worldAt(scenario, index - 1), after: worldAt(scenario, index) };
}

export interface ObjectView {
  kind: Kind;
  yaml: string | null;
  changed: Set<number>;
  created: boolean;
}

/** Every object's YAML at this step, and which lines changed since the step before. */
export function useObjectViews(scenario: Scenario, stepIndex: number) {
  const { before, after } = worldsAround(scenario, stepIndex);
  const views = useMemo(
    (): ObjectView[] =>
      KINDS.map((k) => {
        const now = objectOf(after, k);
        const prev = objectOf(before, k);
        const yaml = now ? toYaml(now) : null;
        const prevYaml = prev ? toYaml(prev) : null;
        const changed = yaml ? changedLines(prevYaml, yaml) : new Set<number>();
        return { kind: k, yaml, changed, created: !!now && !prev };
      }),
    [before, after],
  );
  return { before, after, views };
}

/** One object's YAML with the changed lines marked (for sight and for screen readers). */
export function YamlBlock({ view, className }: { view: ObjectView & { yaml: string }; className: string }) {
  const t = useTranslations("panels");
  const label = useId();
  // YAML as Kubernetes prints it: never translated, left to right in every language; only the marks around it are ours.
  return (
    <>
      {/* Its name, not shown: the object's kind as Kubernetes spells it, the rest in the reader's language. */}
      <span id={label} hidden>
        {t.rich("yamlLabel", { kind: view.kind, count: view.changed.size, k8s })}
      </span>
      <pre className={className} data-testid="inspector-yaml" data-kind={view.kind} aria-labelledby={label} tabIndex={0} dir="ltr">
        {view.yaml.split("\n").map((line, i) =>
          view.changed.has(i) ? (
            <mark key={i} data-changed="true" className="block bg-amber-400/20 text-amber-100">
              <span className="sr-only">{t("changedLine")} </span>
              <span translate="no">{line}</span>
            </mark>
          ) : (
            <span key={i} className="block text-slate-200" translate="no">
              {line || " "}
            </span>
          ),
        )}
      </pre>
    </>
  );
}

/**
 * The Events: a table where there is room, stacked cards with the whole
 * message where there is not (a phone, the projector's side panel). The
 * container decides, not the window: the same panel is narrow beside a diagram.
 */
export function EventList({
  events,
  firstNew,
  version,
  cardsOnly,
  compact,
}: {
  events: World["events"];
  firstNew: number;
  /** The release whose `kubectl describe` prints the messages (1.35's puts the container's field path first). */
  version: KubeVersion;
  cardsOnly?: boolean;
  compact?: boolean;
}) {
  const t = useTranslations("panels");
  return (
    <div className="@container">
      {!cardsOnly && (
        <table className="hidden w-full text-left text-[0.8125rem] @3xl:table" data-testid="events-table">
          <thead className="text-slate-400">
            <tr>
              <th scope="col" className="pe-3">
                {t("colObject")}
              </th>
              <th scope="col" className="pe-3">
                {t("colType")}
              </th>
              <th scope="col" className="pe-3">
                {t("colReason")}
              </th>
              <th scope="col" className="pe-3">
                {t("colFrom")}
              </th>
              <th scope="col">{t("colMessage")}</th>
            </tr>
          </thead>
          <tbody>
            {events.map((e, i) => (
              <tr
                key={i}
                data-reason={e.reason}
                className={`align-top ${i >= firstNew ? "bg-amber-400/15" : ""} ${e.type === "Warning" ? "text-rose-200" : "text-slate-200"}`}
              >
                <td className="py-1 pe-3 font-mono" dir="ltr" translate="no">
                  {e.involvedObject}
                </td>
                <td className="py-1 pe-3" dir="ltr" translate="no">
                  {e.type}
                </td>
                <td className="py-1 pe-3 font-semibold" dir="ltr" translate="no" data-testid="event-reason">
                  {e.reason}
                </td>
                <td className="py-1 pe-3 font-mono [overflow-wrap:anywhere]" dir="ltr" translate="no">
                  {e.from}
                </td>
                <td
                  className="py-1 font-mono whitespace-pre-wrap [overflow-wrap:anywhere]"
                  data-testid="event-message"
                  dir="ltr"
                  translate="no"
                >
                  {describeEventMessage(e, version)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ol className={`${compact ? "space-y-1" : "space-y-2"} ${cardsOnly ? "" : "@3xl:hidden"}`} data-testid="event-cards">
        {events.map((e, i) => (
          <li
            key={i}
            data-reason={e.reason}
            className={`break-inside-avoid rounded-lg border ${compact ? "px-2 py-1" : "px-3 py-2"} ${e.type === "Warning" ? "border-rose-400/60 text-rose-100" : "border-slate-700 text-slate-200"} ${
              i >= firstNew ? "bg-amber-400/15" : "bg-slate-950/60"
            }`}
          >
            <p className="flex flex-wrap gap-x-3">
              <span className="font-semibold">
                <Kube>
                  {e.type} · <span data-testid="event-reason">{e.reason}</span>
                </Kube>
                {i >= firstNew && <span className="sr-only"> {t("newEvent")}</span>}
              </span>
              <span className="font-mono [overflow-wrap:anywhere]" dir="ltr" translate="no">
                {e.involvedObject}
              </span>
              {compact && <span className="text-slate-300 [overflow-wrap:anywhere]">{t.rich("from", { from: e.from, k8s })}</span>}
            </p>
            {/* On the projector the message is set in the narrower sans face: read from afar, and it must fit whole. */}
            <p
              className={`${compact ? "" : "font-mono"} whitespace-pre-wrap [overflow-wrap:anywhere]`}
              data-testid="event-message"
              dir="ltr"
              translate="no"
            >
              {describeEventMessage(e, version)}
            </p>
            {!compact && <p className="font-mono text-slate-300 [overflow-wrap:anywhere]">{t.rich("from", { from: e.from, k8s })}</p>}
          </li>
        ))}
      </ol>
    </div>
  );
}

/**
 * Each object as `kubectl get -o yaml` would print it at this step, with what
 * changed since the previous step highlighted, and the Events table.
 */
export function ObjectInspector({ scenario, stepIndex }: { scenario: Scenario; stepIndex: number }) {
  const t = useTranslations("panels");
  const [kind, setKind] = useState<Kind>("PersistentVolumeClaim");
  const { before, after, views } = useObjectViews(scenario, stepIndex);
  const selected = views.find((v) => v.kind === kind)!;
  const newEvents = after.events.length - before.events.length;

  return (
    <section aria-labelledby="inspector-heading" data-testid="object-inspector" className="space-y-3">
      <h3 id="inspector-heading" className="sr-only">
        {t("inspector")}
      </h3>
      <div className="flex flex-wrap gap-2" role="group" aria-label={t("objectsGroup")} data-own-keys="" onKeyDown={moveWithinGroup}>
        {views.map((v) => (
          <button
            key={v.kind}
            type="button"
            aria-pressed={v.kind === kind}
            onClick={() => setKind(v.kind)}
            data-testid="inspector-tab"
            data-kind={v.kind}
            disabled={!v.yaml}
            className={`rounded-md border px-2.5 py-1.5 text-sm font-semibold ${
              v.kind === kind ? "border-sky-300 bg-sky-400 text-slate-950" : "border-slate-600 text-slate-100"
            } disabled:border-slate-800 disabled:text-slate-500`}
          >
            <Kube>{SHORT[v.kind]}</Kube>
            {v.yaml && v.changed.size > 0 && (
              <span className="ms-1 text-amber-400" aria-label={v.created ? t("new") : t("changed")}>
                ●
              </span>
            )}
          </button>
        ))}
      </div>
      {selected.yaml ? (
        <YamlBlock
          view={{ ...selected, yaml: selected.yaml }}
          className="max-h-[28rem] overflow-auto rounded-lg border border-slate-700 bg-slate-950 p-3 text-[0.8125rem] leading-5"
        />
      ) : (
        <p className="text-slate-400">{t.rich("notYet", { kind: SHORT[selected.kind], k8s })}</p>
      )}
      {selected.yaml && <p className="text-xs text-slate-400">{t.rich("yamlNote", { k8s })}</p>}
      <div>
        <h4 className="font-semibold">
          {t.rich("eventsHeading", {
            version: versionLabel(scenarioVersion(scenario)),
            fresh: Math.max(0, newEvents),
            k8s,
            note: (chunks) => <span className="font-normal text-slate-400">{chunks}</span>,
          })}
        </h4>
        {after.events.length === 0 ? (
          <p className="text-slate-400">{t("noEvents")}</p>
        ) : (
          <div className="mt-2">
            <EventList events={after.events} firstNew={before.events.length} version={scenarioVersion(scenario)} />
          </div>
        )}
      </div>
    </section>
  );
}
