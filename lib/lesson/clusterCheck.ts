import { LEGACY_SCHEDULING_REASONS, POD_NAME, PVC_NAME, scenarioId, scenarioParts, type ScenarioId } from "./kubeCluster";
import { getScenario } from "./scenarios";
import type { BindingMode, VariantId } from "./types";
import { worldAt } from "./world";

/**
 * "Check my cluster": a student pastes `kubectl get events -o json` or
 * `kubectl events -o json` from their lab cluster, and each event is placed
 * on the diagram step it belongs to, with what is missing, unexpected or out
 * of order for the chosen scenario. Runs in the browser, so it is plain
 * TypeScript: no schema library, nothing sent anywhere.
 *
 * Accepted shapes, as kubectl prints them:
 * - a List (`kubectl get events -o json`, kind "List") or EventList
 *   (`kubectl events -o json`) of core v1 Events;
 * - events.k8s.io/v1 Events (`kubectl get events.events.k8s.io -o json`),
 *   which name the object `regarding` and the text `note`;
 * - a single Event, or a bare JSON array of Events.
 */

/** One pasted event, whichever API shape it came in. */
export interface PastedEvent {
  objectKind: string;
  objectName: string;
  reason: string;
  type: string;
  message: string;
  /** How many times it happened (count, series.count or deprecatedCount). */
  count: number;
  /** First occurrence, ms since the epoch; null when the paste has no usable time. */
  firstSeen: number | null;
  /** Where it was in the paste, to keep ties stable. */
  order: number;
}

export interface StepRef {
  position: number;
  label: number;
  title: string;
}

export interface ExpectedEvent extends StepRef {
  objectKind: "PersistentVolumeClaim" | "Pod";
  reason: string;
  /** May be absent on a real run without anything being wrong (see why). */
  optional?: string;
}

export interface PlacedStep extends StepRef {
  events: PastedEvent[];
}

export interface OutOfOrder {
  event: PastedEvent;
  step: StepRef;
  /** The later step's event that was recorded before it. */
  after: PastedEvent;
  afterStep: StepRef;
}

export type CheckResult =
  | { ok: false; problem: string }
  | {
      ok: true;
      steps: PlacedStep[];
      missing: ExpectedEvent[];
      unexpected: PastedEvent[];
      outOfOrder: OutOfOrder[];
      /** Events about other objects (other Pods, nodes, the CSI driver's own Pods): not part of the lab. */
      otherObjects: number;
      /** What the paste suggests beyond the steps: an older Kubernetes, events left from an earlier run. */
      hints: string[];
      /** One sentence for the live region: what the check found. */
      summary: string;
    };

const LAB_OBJECTS = { PersistentVolumeClaim: PVC_NAME, Pod: POD_NAME } as const;
const isLabKind = (kind: string): kind is keyof typeof LAB_OBJECTS => Object.hasOwn(LAB_OBJECTS, kind);

// ---------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === "string" ? v : "");
const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

function time(...candidates: unknown[]): number | null {
  for (const c of candidates) {
    if (typeof c !== "string" || c === "") continue;
    const t = Date.parse(c);
    if (!Number.isNaN(t)) return t;
  }
  return null;
}

function isEventShape(item: Json): boolean {
  return (
    str(item.kind) === "Event" || (isObject(item.involvedObject) && "reason" in item) || (isObject(item.regarding) && "reason" in item)
  );
}

function toPasted(item: Json, order: number): PastedEvent {
  const metadata = isObject(item.metadata) ? item.metadata : {};
  const series = isObject(item.series) ? item.series : null;
  if (str(item.apiVersion) === "events.k8s.io/v1" || (isObject(item.regarding) && !isObject(item.involvedObject))) {
    const regarding = isObject(item.regarding) ? item.regarding : {};
    return {
      objectKind: str(regarding.kind),
      objectName: str(regarding.name),
      reason: str(item.reason),
      type: str(item.type),
      message: str(item.note),
      count: num(series?.count) ?? num(item.deprecatedCount) ?? 1,
      firstSeen: time(item.deprecatedFirstTimestamp, item.eventTime, metadata.creationTimestamp),
      order,
    };
  }
  const involved = isObject(item.involvedObject) ? item.involvedObject : {};
  return {
    objectKind: str(involved.kind),
    objectName: str(involved.name),
    reason: str(item.reason),
    type: str(item.type),
    message: str(item.message),
    // Events written through events.k8s.io and read as v1 have count 0 and a series instead.
    count: Math.max(num(series?.count) ?? 0, num(item.count) ?? 0, 1),
    firstSeen: time(item.firstTimestamp, item.eventTime, metadata.creationTimestamp),
    order,
  };
}

/** Why a paste that is not an event list was rejected, in words a student can act on. */
function notEvents(text: string): string | null {
  const t = text.trim();
  if (t === "") return "Paste the output of kubectl get events -o json (or kubectl events -o json) here first.";
  if (/^LAST SEEN\s+TYPE\s+REASON/m.test(t) || /^\s*(LAST SEEN|TYPE)\s{2,}/.test(t)) {
    return "This is kubectl's table output. Run the same command with -o json and paste that instead.";
  }
  if (/^Events:\s*$/m.test(t)) return "This is kubectl describe output. Run kubectl get events -o json and paste that instead.";
  if (/^(apiVersion|kind|items):/m.test(t)) return "This looks like YAML. Run the command with -o json instead of -o yaml and paste that.";
  return null;
}

export function parseEvents(text: string): { ok: true; events: PastedEvent[] } | { ok: false; problem: string } {
  const early = notEvents(text);
  if (early) return { ok: false, problem: early };
  // Tolerate a shell prompt or the command line pasted along with the output.
  const start = text.search(/[[{]/);
  const end = Math.max(text.lastIndexOf("}"), text.lastIndexOf("]"));
  if (start < 0 || end < start)
    return { ok: false, problem: "This does not look like JSON. Run kubectl get events -o json and paste all of its output." };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.slice(start, end + 1));
  } catch {
    return {
      ok: false,
      problem:
        "This is not complete JSON: part of the output may be missing. Copy everything kubectl printed, from the first { to the last }.",
    };
  }
  const items: unknown[] = Array.isArray(parsed) ? parsed : isObject(parsed) && Array.isArray(parsed.items) ? parsed.items : [parsed];
  if (items.length === 0) {
    return {
      ok: false,
      problem:
        "The list is empty: kubectl found no events. Run the lab's steps first, in the same namespace (default), then copy the events again.",
    };
  }
  const objects = items.filter(isObject);
  const events = objects.filter(isEventShape);
  if (events.length === 0) {
    const kinds = [...new Set(objects.map((o) => str(o.kind)).filter(Boolean))];
    return {
      ok: false,
      problem: kinds.length
        ? `This is a list of ${kinds.join(", ")} objects, not events. Run kubectl get events -o json and paste that.`
        : "No events found in this JSON. Run kubectl get events -o json and paste all of its output.",
    };
  }
  return { ok: true, events: events.map((e, i) => toPasted(e, i)) };
}

// ---------------------------------------------------------------------------
// What the scenario expects, from the same world model as the diagram
// ---------------------------------------------------------------------------

export function expectedEvents(id: ScenarioId): ExpectedEvent[] {
  const scenario = getScenario(...scenarioParts(id));
  const out: ExpectedEvent[] = [];
  scenario.steps.forEach((step, index) => {
    const before = index === 0 ? 0 : worldAt(scenario, index - 1).events.length;
    for (const e of worldAt(scenario, index).events.slice(before)) {
      const kind = e.involvedObject.split("/")[0];
      // The lesson's events are about the claim or the Pod; anything else is not one a student can check.
      if (!isLabKind(kind)) continue;
      const objectKind = kind;
      out.push({
        position: index + 1,
        label: step.label,
        title: step.title,
        objectKind,
        reason: e.reason,
        // The kubelet skips the pull when the image is already on the node.
        ...(e.reason === "Pulling" ? { optional: "absent when the image was already on the node" } : {}),
      });
    }
  });
  // The PV controller writes WaitForPodScheduled if it re-syncs the claim while the
  // Pod exists but is not yet scheduled (LESSON.md step 2). Legitimate, but not always seen.
  const createPod = scenario.steps.findIndex((s) => s.label === 2);
  const delayBinding = scenario.mode !== "Immediate";
  if (delayBinding && createPod >= 0 && !out.some((e) => e.reason === "WaitForPodScheduled")) {
    out.push({
      position: createPod + 1,
      label: 2,
      title: scenario.steps[createPod].title,
      objectKind: "PersistentVolumeClaim",
      reason: "WaitForPodScheduled",
      optional: "written only if the PV controller re-syncs the claim before NODE CHOSEN",
    });
  }
  return out.sort((a, b) => a.position - b.position);
}

// ---------------------------------------------------------------------------
// Matching
// ---------------------------------------------------------------------------

/** The whole second an event was first seen; most event timestamps have no finer grain. */
const second = (e: PastedEvent) => (e.firstSeen === null ? Infinity : Math.floor(e.firstSeen / 1000));

const ref = (e: ExpectedEvent): StepRef => ({ position: e.position, label: e.label, title: e.title });

function hints(events: PastedEvent[], outOfOrder: OutOfOrder[]): string[] {
  const out: string[] = [];
  if (events.some((e) => e.message.includes(LEGACY_SCHEDULING_REASONS.pvNodeAffinity))) {
    out.push(
      `Your scheduler prints "${LEGACY_SCHEDULING_REASONS.pvNodeAffinity}": that is Kubernetes 1.32 or older. The lesson shows the 1.33+ wording, "node(s) didn't match PersistentVolume's node affinity".`,
    );
  }
  if (events.some((e) => e.reason === "Created" && /^Created container [^:]/.test(e.message))) {
    out.push(
      'Your kubelet prints "Created container app" without the colon: that is Kubernetes 1.32 or older. The lesson shows the 1.33+ "Created container: app".',
    );
  }
  const reasons = events.map((e) => e.reason);
  if (outOfOrder.length > 0 && new Set(reasons).size < reasons.length) {
    out.push(
      "Some reasons appear twice as separate events: these look left over from an earlier run (the API server keeps events for an hour). Delete the Pod and the PVC, run the lab again in a fresh namespace, and copy the events from there.",
    );
  }
  return out;
}

export function checkCluster(text: string, mode: BindingMode, variant: VariantId): CheckResult {
  const id = scenarioId(mode, variant);
  if (!id) return { ok: false, problem: `There is no ${mode} ${variant} scenario to check against.` };
  const parsed = parseEvents(text);
  if (!parsed.ok) return parsed;

  const expected = expectedEvents(id);
  const scenario = getScenario(mode, variant);
  const ours = parsed.events.filter((e) => isLabKind(e.objectKind) && LAB_OBJECTS[e.objectKind] === e.objectName);
  const otherObjects = parsed.events.length - ours.length;
  if (ours.length === 0) {
    return {
      ok: false,
      problem: `None of these ${parsed.events.length} events is about the lab's PersistentVolumeClaim "${PVC_NAME}" or Pod "${POD_NAME}". Use the lab's manifests unchanged, and copy the events from the namespace you applied them in (kubectl get events -n default -o json).`,
    };
  }

  // Time order, as kubectl events sorts. Timestamps have whole seconds, so events of the same
  // second go in the lesson's order (then paste order); events without a time go last.
  const rank = (e: PastedEvent) => {
    const i = expected.findIndex((x) => x.reason === e.reason && x.objectKind === e.objectKind);
    return i < 0 ? expected.length : i;
  };
  const byTime = [...ours].sort(
    (a, b) => second(a) - second(b) || rank(a) - rank(b) || (a.firstSeen ?? 0) - (b.firstSeen ?? 0) || a.order - b.order,
  );

  const steps: PlacedStep[] = scenario.steps.map((s, i) => ({ position: i + 1, label: s.label, title: s.title, events: [] }));
  const unexpected: PastedEvent[] = [];
  const stepOf = new Map<PastedEvent, StepRef>();
  for (const event of byTime) {
    const match = expected.find((x) => x.reason === event.reason && x.objectKind === event.objectKind);
    if (!match) {
      unexpected.push(event);
      continue;
    }
    steps[match.position - 1].events.push(event);
    stepOf.set(event, ref(match));
  }

  const missing = expected.filter((x) => !x.optional && !ours.some((e) => e.reason === x.reason && e.objectKind === x.objectKind));

  // Out of order: recorded strictly later than an event of a later step. Events in the
  // same second keep no order (timestamps have whole seconds), so ties are never flagged.
  const outOfOrder: OutOfOrder[] = [];
  let latest: { event: PastedEvent; step: StepRef } | null = null;
  for (const event of byTime) {
    const step = stepOf.get(event);
    if (!step || event.firstSeen === null) continue;
    if (latest && step.position < latest.step.position && second(event) > second(latest.event)) {
      outOfOrder.push({ event, step, after: latest.event, afterStep: latest.step });
    }
    if (!latest || step.position > latest.step.position) latest = { event, step };
  }

  const problems = missing.length + unexpected.length + outOfOrder.length;
  const placed = ours.length - unexpected.length;
  const summary =
    problems === 0
      ? `All ${placed} events of the lab's PVC and Pod are on their steps, in order, and nothing the ${scenario.title} scenario expects is missing.`
      : `${placed} events placed on the diagram; ${[
          missing.length ? `${missing.length} missing` : "",
          unexpected.length ? `${unexpected.length} unexpected` : "",
          outOfOrder.length ? `${outOfOrder.length} out of order` : "",
        ]
          .filter(Boolean)
          .join(", ")}.`;

  return { ok: true, steps, missing, unexpected, outOfOrder, otherObjects, hints: hints(ours, outOfOrder), summary };
}
