"use client";

import { moveWithinGroup } from "@/components/host/focus";
import { useMemo, useState } from "react";
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
  return (
    <pre
      className={className}
      data-testid="inspector-yaml"
      data-kind={view.kind}
      aria-label={`${view.kind} YAML at this step; ${view.changed.size} lines changed`}
      tabIndex={0}
    >
      {view.yaml.split("\n").map((line, i) =>
        view.changed.has(i) ? (
          <mark key={i} data-changed="true" className="block bg-amber-400/20 text-amber-100">
            <span className="sr-only">changed: </span>
            {line}
          </mark>
        ) : (
          <span key={i} className="block text-slate-200">
            {line || " "}
          </span>
        ),
      )}
    </pre>
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
  return (
    <div className="@container">
      {!cardsOnly && (
        <table className="hidden w-full text-left text-[0.8125rem] @3xl:table" data-testid="events-table">
          <thead className="text-slate-400">
            <tr>
              <th scope="col" className="pr-3">
                Object
              </th>
              <th scope="col" className="pr-3">
                Type
              </th>
              <th scope="col" className="pr-3">
                Reason
              </th>
              <th scope="col" className="pr-3">
                From
              </th>
              <th scope="col">Message</th>
            </tr>
          </thead>
          <tbody>
            {events.map((e, i) => (
              <tr
                key={i}
                data-reason={e.reason}
                className={`align-top ${i >= firstNew ? "bg-amber-400/15" : ""} ${e.type === "Warning" ? "text-rose-200" : "text-slate-200"}`}
              >
                <td className="py-1 pr-3 font-mono">{e.involvedObject}</td>
                <td className="py-1 pr-3">{e.type}</td>
                <td className="py-1 pr-3 font-semibold">{e.reason}</td>
                <td className="py-1 pr-3 font-mono [overflow-wrap:anywhere]">{e.from}</td>
                <td className="py-1 font-mono whitespace-pre-wrap [overflow-wrap:anywhere]" data-testid="event-message">
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
                {e.type} · {e.reason}
                {i >= firstNew && <span className="sr-only"> (new)</span>}
              </span>
              <span className="font-mono [overflow-wrap:anywhere]">{e.involvedObject}</span>
              {compact && <span className="text-slate-300 [overflow-wrap:anywhere]">from {e.from}</span>}
            </p>
            {/* On the projector the message is set in the narrower sans face: read from afar, and it must fit whole. */}
            <p className={`${compact ? "" : "font-mono"} whitespace-pre-wrap [overflow-wrap:anywhere]`} data-testid="event-message">
              {describeEventMessage(e, version)}
            </p>
            {!compact && <p className="font-mono text-slate-300 [overflow-wrap:anywhere]">from {e.from}</p>}
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
  const [kind, setKind] = useState<Kind>("PersistentVolumeClaim");
  const { before, after, views } = useObjectViews(scenario, stepIndex);
  const selected = views.find((v) => v.kind === kind)!;
  const newEvents = after.events.length - before.events.length;

  return (
    <section aria-labelledby="inspector-heading" data-testid="object-inspector" className="space-y-3">
      <h3 id="inspector-heading" className="sr-only">
        Object inspector
      </h3>
      <div className="flex flex-wrap gap-2" role="group" aria-label="Objects" data-own-keys="" onKeyDown={moveWithinGroup}>
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
            {SHORT[v.kind]}
            {v.yaml && v.changed.size > 0 && (
              <span className="ml-1 text-amber-400" aria-label={v.created ? " (new)" : " (changed)"}>
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
        <p className="text-slate-400">{SHORT[selected.kind]} does not exist yet.</p>
      )}
      {selected.yaml && (
        <p className="text-xs text-slate-400">
          Keys in kubectl get -o yaml order; creationTimestamp, resourceVersion, managedFields, IPs and container IDs left out.
        </p>
      )}
      <div>
        <h4 className="font-semibold">
          Events{" "}
          <span className="font-normal text-slate-400">
            (as kubectl describe prints them on {versionLabel(scenarioVersion(scenario))}
            {newEvents > 0 ? `; ${newEvents} new` : ""})
          </span>
        </h4>
        {after.events.length === 0 ? (
          <p className="text-slate-400">No events yet.</p>
        ) : (
          <div className="mt-2">
            <EventList events={after.events} firstNew={before.events.length} version={scenarioVersion(scenario)} />
          </div>
        )}
      </div>
    </section>
  );
}
