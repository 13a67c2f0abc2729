"use client";

import { useMemo, useState } from "react";
import { assertNever } from "@/lib/assertNever";
import { KUBERNETES_VERSION_LABEL, changedLines, toYaml, worldAt, type KubeObject, type Scenario, type World } from "@/lib/lesson";

const KINDS = ["PersistentVolumeClaim", "PersistentVolume", "Pod", "StorageClass", "VolumeAttachment"] as const;
type Kind = (typeof KINDS)[number];

const SHORT: Record<Kind, string> = {
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

/**
 * Each object as `kubectl get -o yaml` would print it at this step, with what
 * changed since the previous step highlighted, and the Events table.
 */
export function ObjectInspector({ scenario, stepIndex }: { scenario: Scenario; stepIndex: number }) {
  const [kind, setKind] = useState<Kind>("PersistentVolumeClaim");
  const { before, after } = worldsAround(scenario, stepIndex);
  const views = useMemo(
    () =>
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
  const selected = views.find((v) => v.kind === kind)!;
  const newEvents = after.events.length - before.events.length;

  return (
    <section aria-labelledby="inspector-heading" data-testid="object-inspector" className="space-y-3">
      <h3 id="inspector-heading" className="sr-only">
        Object inspector
      </h3>
      <div className="flex flex-wrap gap-2" role="group" aria-label="Objects">
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
        <pre
          className="max-h-[28rem] overflow-auto rounded-lg border border-slate-700 bg-slate-950 p-3 text-[13px] leading-5"
          data-testid="inspector-yaml"
          data-kind={selected.kind}
          aria-label={`${selected.kind} YAML at this step; ${selected.changed.size} lines changed`}
          tabIndex={0}
        >
          {selected.yaml.split("\n").map((line, i) =>
            selected.changed.has(i) ? (
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
          Events <span className="font-normal text-slate-400">(as kubectl describe prints them on {KUBERNETES_VERSION_LABEL}{newEvents > 0 ? `; ${newEvents} new` : ""})</span>
        </h4>
        {after.events.length === 0 ? (
          <p className="text-slate-400">No events yet.</p>
        ) : (
          // Scrolls sideways on a phone: focusable, so a keyboard can scroll it too.
          <div className="mt-2 overflow-x-auto" tabIndex={0} role="region" aria-label="Events table">
            <table className="w-full min-w-[640px] text-left text-[13px]" data-testid="events-table">
              <thead className="text-slate-400">
                <tr>
                  <th scope="col" className="pr-3">Object</th>
                  <th scope="col" className="pr-3">Type</th>
                  <th scope="col" className="pr-3">Reason</th>
                  <th scope="col" className="pr-3">From</th>
                  <th scope="col">Message</th>
                </tr>
              </thead>
              <tbody>
                {after.events.map((e, i) => (
                  <tr
                    key={i}
                    data-reason={e.reason}
                    className={`align-top ${i >= before.events.length ? "bg-amber-400/15" : ""} ${e.type === "Warning" ? "text-rose-200" : "text-slate-200"}`}
                  >
                    <td className="py-1 pr-3 font-mono">{e.involvedObject}</td>
                    <td className="py-1 pr-3">{e.type}</td>
                    <td className="py-1 pr-3 font-semibold">{e.reason}</td>
                    <td className="py-1 pr-3 font-mono break-all">{e.from}</td>
                    <td className="py-1 font-mono whitespace-pre-wrap" data-testid="event-message">
                      {e.message}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </div>
    </section>
  );
}
