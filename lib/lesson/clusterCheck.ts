import { NAMESPACE, POD_NAME, PVC_NAME, scenarioId } from "./kubeCluster";
import { getScenario } from "./scenarios";
import type { BindingMode, VariantId } from "./types";
import { DEFAULT_KUBE_VERSION, type KubeVersion } from "./versions";
import { expectedEvents, lessonFailure } from "./clusterCheckExpected";
import { parseEvents } from "./clusterCheckPaste";
import { foreignProvisioner, type ForeignProvisioner } from "./clusterCheckProvisioner";
import { schedulingReasons, type SchedulingReason } from "./clusterCheckScheduling";
import { fillDescribedObjects } from "./clusterCheckTables";
import { LAB_OBJECTS, isLabKind, type ExpectedEvent, type PastedEvent, type PasteShape, type StepRef } from "./clusterCheckTypes";
import { readVersion, type VersionReading } from "./clusterCheckVersion";

/**
 * "Check my cluster": a student pastes what kubectl printed about the lab's
 * PVC and Pod, and each event is placed on the diagram step it belongs to,
 * with what is missing, unexpected or out of order for the chosen scenario,
 * and what the messages themselves say: which scheduling failure it was,
 * which provisioner answered, which Kubernetes release wrote them. Runs in
 * the browser, so it is plain TypeScript: no schema library, nothing sent
 * anywhere.
 *
 * This module matches the events to the steps and writes the report; its
 * parts: reading the paste (./clusterCheckPaste, with ./clusterCheckJson and
 * ./clusterCheckTables), what the scenario expects (./clusterCheckExpected),
 * what a FailedScheduling says (./clusterCheckScheduling), which provisioner
 * answered (./clusterCheckProvisioner) and which release wrote the messages
 * (./clusterCheckVersion). Importers use this module only.
 */

export { MAX_PASTE_BYTES, parseEvents, pasteBytes, pasteTooLarge } from "./clusterCheckPaste";
export { expectedEvents } from "./clusterCheckExpected";
export { schedulingReasons, type SchedulingReason, type SchedulingReasonKind } from "./clusterCheckScheduling";
export { readVersion, type VersionReading } from "./clusterCheckVersion";
export type { ForeignProvisioner } from "./clusterCheckProvisioner";
export type { ExpectedEvent, PastedEvent, PasteShape, StepRef } from "./clusterCheckTypes";

export interface MissingEvent extends ExpectedEvent {
  /** What the rest of the paste says about why it is missing. */
  why?: string;
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

/** An event that is not on a step but normal, and why. */
export interface ExplainedEvent {
  event: PastedEvent;
  why: string;
}

/** A FailedScheduling that failed for reasons the scenario does not show. */
export interface DifferentFailure {
  event: PastedEvent;
  reasons: SchedulingReason[];
  /** The scenario's own failure clause, or null when the scenario schedules the Pod. */
  lessonReason: string | null;
}

export type CheckResult =
  | { ok: false; problem: string }
  | {
      ok: true;
      shape: PasteShape;
      steps: PlacedStep[];
      missing: MissingEvent[];
      unexpected: PastedEvent[];
      outOfOrder: OutOfOrder[];
      /** FailedScheduling events that failed for another reason than the scenario's. */
      differentFailures: DifferentFailure[];
      /** Events that are on no step but normal for this scenario. */
      explained: ExplainedEvent[];
      /** Events about other objects (other Pods, nodes, the CSI driver's own Pods): not part of the lab. */
      otherObjects: number;
      provisioner: ForeignProvisioner | null;
      version: VersionReading | null;
      /** What the paste suggests beyond the steps: events left from an earlier run, an order a table cannot show. */
      hints: string[];
      /** One sentence for the live region: what the check found. */
      summary: string;
    };

/** The whole second an event was first seen; most event timestamps have no finer grain. */
const second = (e: PastedEvent) => (e.firstSeen === null ? Infinity : Math.floor(e.firstSeen / 1000));

const ref = (e: ExpectedEvent): StepRef => ({ position: e.position, label: e.label, title: e.title });

/** The lab's events: its two objects, in the namespace they are in ("default" unless the paste has them only elsewhere). */
function labEvents(events: PastedEvent[]): PastedEvent[] {
  const named = events.filter((e) => isLabKind(e.objectKind) && LAB_OBJECTS[e.objectKind] === e.objectName);
  const namespaces = new Map<string, number>();
  for (const e of named) if (e.namespace !== null) namespaces.set(e.namespace, (namespaces.get(e.namespace) ?? 0) + 1);
  const chosen = namespaces.has(NAMESPACE) ? NAMESPACE : [...namespaces].sort((a, b) => b[1] - a[1])[0]?.[0];
  return named.filter((e) => e.namespace === null || chosen === undefined || e.namespace === chosen);
}

function unboundImmediateWhy(bound: StepRef | null): string {
  return `Normal with Immediate binding when the Pod is created before its claim is bound: the scheduler does not place a Pod whose Immediate claim is unbound, and tries again once the PV controller binds it${
    bound ? ` (step ${bound.position}, ${bound.title})` : ""
  }. Scheduled follows.`;
}

export function checkCluster(
  text: string,
  mode: BindingMode,
  variant: VariantId,
  sheetVersion: KubeVersion = DEFAULT_KUBE_VERSION,
): CheckResult {
  const id = scenarioId(mode, variant);
  if (!id) return { ok: false, problem: `There is no ${mode} ${variant} scenario to check against.` };
  const parsed = parseEvents(text);
  if (!parsed.ok) return parsed;

  const expected = expectedEvents(id);
  if (parsed.shape === "describe") fillDescribedObjects(parsed.events, expected);
  const scenario = getScenario(mode, variant);
  const ours = labEvents(parsed.events);
  const otherObjects = parsed.events.length - ours.length;
  if (ours.length === 0) {
    return {
      ok: false,
      problem: `None of these ${parsed.events.length} events is about the lab's PersistentVolumeClaim "${PVC_NAME}" or Pod "${POD_NAME}". Use the lab's manifests unchanged, and copy the events from the namespace you applied them in (kubectl events -n ${NAMESPACE}).`,
    };
  }

  // Time order, as kubectl events sorts. Timestamps have whole seconds, so events of the same
  // second go in the lesson's order (then paste order); events without a time go last.
  const rankOf = (e: PastedEvent) => {
    const i = expected.findIndex((x) => x.reason === e.reason && x.objectKind === e.objectKind);
    return i < 0 ? expected.length : i;
  };
  const byTime = [...ours].sort(
    (a, b) => second(a) - second(b) || rankOf(a) - rankOf(b) || (a.firstSeen ?? 0) - (b.firstSeen ?? 0) || a.order - b.order,
  );

  const failure = lessonFailure(expected);
  const bindIndex = scenario.steps.findIndex((s) => s.label === 9);
  const bindStep = bindIndex < 0 ? null : { position: bindIndex + 1, label: 9, title: scenario.steps[bindIndex].title };
  const steps: PlacedStep[] = scenario.steps.map((s, i) => ({ position: i + 1, label: s.label, title: s.title, events: [] }));
  const unexpected: PastedEvent[] = [];
  const differentFailures: DifferentFailure[] = [];
  const explained: ExplainedEvent[] = [];
  const stepOf = new Map<PastedEvent, StepRef>();
  for (const event of byTime) {
    if (event.reason === "FailedScheduling" && event.objectKind === "Pod") {
      const reasons = schedulingReasons(event.message);
      const isLessons = failure !== null && reasons.some((r) => failure.kinds.has(r.kind));
      if (!isLessons) {
        if (mode === "Immediate" && reasons.length > 0 && reasons.every((r) => r.kind === "unbound-immediate")) {
          explained.push({ event, why: unboundImmediateWhy(bindStep) });
        } else {
          differentFailures.push({ event, reasons, lessonReason: failure?.text ?? null });
        }
        continue;
      }
    }
    const match = expected.find((x) => x.reason === event.reason && x.objectKind === event.objectKind);
    if (!match) {
      unexpected.push(event);
      continue;
    }
    steps[match.position - 1].events.push(event);
    stepOf.set(event, ref(match));
  }

  const provisioner = foreignProvisioner(parsed.events, id);
  const missing: MissingEvent[] = expected
    .filter((x) => !x.optional && !steps[x.position - 1].events.some((e) => e.reason === x.reason && e.objectKind === x.objectKind))
    .map((x) => {
      if (x.reason === "SuccessfulAttachVolume" && provisioner?.notCsi)
        return { ...x, why: `${provisioner.name} is not a CSI driver: nothing is attached, so this event never comes.` };
      if (x.reason === "FailedScheduling" && differentFailures.length > 0)
        return { ...x, why: "Your Pod failed to schedule for another reason (see “A different failure” below)." };
      return x;
    });

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

  const hints: string[] = [];
  if (parsed.shape !== "json") {
    hints.push(
      `${parsed.shape === "describe" ? "kubectl describe" : "A kubectl table"} prints ages (“5m”), not times, so the order of the events is not checked. Paste kubectl get events -o json to check it too.`,
    );
  }
  const reasons = ours.map((e) => e.reason);
  if (outOfOrder.length > 0 && new Set(reasons).size < reasons.length) {
    hints.push(
      "Some reasons appear twice as separate events: these look left over from an earlier run (the API server keeps events for an hour). Delete the Pod and the PVC, run the lab again in a fresh namespace, and copy the events from there.",
    );
  }

  const problems = missing.length + unexpected.length + outOfOrder.length + differentFailures.length;
  const placed = ours.length - unexpected.length - differentFailures.length - explained.length;
  const summary =
    problems === 0
      ? `${placed === 1 ? "The one event of the lab's PVC and Pod is on its step" : `All ${placed} events of the lab's PVC and Pod are on their steps`}${parsed.shape === "json" ? ", in order," : ""} and nothing the ${scenario.title} scenario expects is missing${
          explained.length ? `; ${explained.length} more ${explained.length === 1 ? "is" : "are"} normal here (see why below)` : ""
        }.`
      : `${placed} event${placed === 1 ? "" : "s"} placed on the diagram; ${[
          differentFailures.length ? `${differentFailures.length} different failure${differentFailures.length === 1 ? "" : "s"}` : "",
          missing.length ? `${missing.length} missing` : "",
          unexpected.length ? `${unexpected.length} unexpected` : "",
          outOfOrder.length ? `${outOfOrder.length} out of order` : "",
        ]
          .filter(Boolean)
          .join(", ")}.`;

  return {
    ok: true,
    shape: parsed.shape,
    steps,
    missing,
    unexpected,
    outOfOrder,
    differentFailures,
    explained,
    otherObjects,
    provisioner,
    version: readVersion(parsed.events, sheetVersion),
    hints,
    summary,
  };
}
