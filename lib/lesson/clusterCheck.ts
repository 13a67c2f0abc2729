import { stringAt } from "../guards";
import { NAMESPACE, POD_NAME, PVC_NAME, SCENARIO_CASTS, scenarioId, scenarioParts, type ScenarioId } from "./kubeCluster";
import { LAB_DRIVER } from "./lab";
import { getScenario } from "./scenarios";
import type { BindingMode, VariantId } from "./types";
import { DEFAULT_KUBE_VERSION, KUBE_VERSIONS, KUBE_VERSION_LABELS, type KubeVersion } from "./versions";
import { worldAt } from "./world";

/**
 * "Check my cluster": a student pastes what kubectl printed about the lab's
 * PVC and Pod, and each event is placed on the diagram step it belongs to,
 * with what is missing, unexpected or out of order for the chosen scenario,
 * and what the messages themselves say: which scheduling failure it was,
 * which provisioner answered, which Kubernetes release wrote them. Runs in
 * the browser, so it is plain TypeScript: no schema library, nothing sent
 * anywhere.
 *
 * Accepted shapes, exactly as kubectl prints them:
 * - JSON: a List (`kubectl get events -o json`) or EventList (`kubectl events
 *   -o json`) of core v1 Events, events.k8s.io/v1 Events (`regarding`,
 *   `note`), a single Event, or a bare array;
 * - tables: `kubectl events` (OBJECT is `Kind/name`), `kubectl get events`
 *   (`kind/name` in lower case, `-o wide` too), either with `-A` (a NAMESPACE
 *   column first);
 * - the Events section of `kubectl describe pvc data` / `kubectl describe pod app`.
 * A shell prompt or the command line pasted along is ignored.
 */

/** One pasted event, whichever shape it came in. */
export interface PastedEvent {
  objectKind: string;
  objectName: string;
  /** Null when the shape does not say (`kubectl events` without -A, describe). */
  namespace: string | null;
  reason: string;
  type: string;
  message: string;
  /** The component that wrote it (source.component, reportingController, describe's From); "" when not printed. */
  from: string;
  /** How many times it happened (count, series.count, deprecatedCount, or the table's "(x4 over 2m)"). */
  count: number;
  /** First occurrence, ms since the epoch; null when the paste has no usable time (every table). */
  firstSeen: number | null;
  /** Where it was in the paste, to keep ties stable. */
  order: number;
}

/** Which of kubectl's outputs the paste was. */
export type PasteShape = "json" | "table" | "describe";

export interface StepRef {
  position: number;
  label: number;
  title: string;
}

export interface ExpectedEvent extends StepRef {
  objectKind: "PersistentVolumeClaim" | "Pod";
  reason: string;
  /** The lesson's own text for it, as the diagram prints it. */
  message: string;
  /** May be absent on a real run without anything being wrong (see why). */
  optional?: string;
}

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

/** What a FailedScheduling message gave as the reason for some nodes (one clause of "0/3 nodes are available: ..."). */
export interface SchedulingReason {
  /** How many nodes gave it; null for a reason about the Pod itself ("pod has unbound immediate PersistentVolumeClaims"). */
  nodes: number | null;
  /** The clause as the scheduler printed it, without the count. */
  text: string;
  kind: SchedulingReasonKind;
  /** What it means, in one sentence. */
  meaning: string;
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

/** The Kubernetes release the paste's wording comes from. */
export interface VersionReading {
  /** Releases whose strings fit every clue, oldest first; empty when the clues contradict (two clusters in one paste). */
  fits: KubeVersion[];
  /** The strings that told, each with the releases that print it. */
  clues: { text: string; releases: string }[];
  /** The release this sheet shows. */
  sheet: KubeVersion;
  /** Whether the sheet's release is one the wording fits. */
  matchesSheet: boolean;
}

/** The provisioner the paste names, when it is not the lab's CSI driver. */
export interface ForeignProvisioner {
  name: string;
  /** Known not to be a CSI driver: no VolumeAttachment, no attach step. */
  notCsi: boolean;
  advice: string;
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

const LAB_OBJECTS = { PersistentVolumeClaim: PVC_NAME, Pod: POD_NAME } as const;
const isLabKind = (kind: string): kind is keyof typeof LAB_OBJECTS => Object.hasOwn(LAB_OBJECTS, kind);

// ---------------------------------------------------------------------------
// Size cap: checked before anything is parsed, here and in the UI
// ---------------------------------------------------------------------------

/**
 * The most a paste may weigh. A lab namespace's events as JSON are 15-40 KiB;
 * a busy cluster's `kubectl get events -A -o json` runs to megabytes, which
 * would freeze a phone's tab while parsing and is not about the lab anyway.
 */
export const MAX_PASTE_BYTES = 512 * 1024;

/** UTF-8 size of a paste. A UTF-16 unit is never less than one UTF-8 byte, so a long string is rejected without encoding it. */
export function pasteBytes(text: string): number {
  if (text.length > MAX_PASTE_BYTES) return text.length;
  return new TextEncoder().encode(text).length;
}

const formatSize = (bytes: number) =>
  bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MiB` : `${Math.ceil(bytes / 1024)} KiB`;

/** The message for a paste over the cap, or null when it fits. */
export function pasteTooLarge(text: string): string | null {
  const bytes = pasteBytes(text);
  if (bytes <= MAX_PASTE_BYTES) return null;
  return `This paste is ${formatSize(bytes)}; the check reads at most ${formatSize(MAX_PASTE_BYTES)}. Copy only the lab's two objects: kubectl events --for pvc/${PVC_NAME} and kubectl events --for pod/${POD_NAME} (or kubectl get events -n ${NAMESPACE} -o json in a namespace with nothing else in it).`;
}

// ---------------------------------------------------------------------------
// Parsing: JSON
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

function fromJson(item: Json, order: number): PastedEvent {
  const metadata = isObject(item.metadata) ? item.metadata : {};
  const series = isObject(item.series) ? item.series : null;
  if (str(item.apiVersion) === "events.k8s.io/v1" || (isObject(item.regarding) && !isObject(item.involvedObject))) {
    const regarding = isObject(item.regarding) ? item.regarding : {};
    return {
      objectKind: str(regarding.kind),
      objectName: str(regarding.name),
      namespace: str(regarding.namespace) || str(metadata.namespace) || null,
      reason: str(item.reason),
      type: str(item.type),
      message: str(item.note),
      from: str(item.reportingController),
      count: num(series?.count) ?? num(item.deprecatedCount) ?? 1,
      firstSeen: time(item.deprecatedFirstTimestamp, item.eventTime, metadata.creationTimestamp),
      order,
    };
  }
  const involved = isObject(item.involvedObject) ? item.involvedObject : {};
  const source = isObject(item.source) ? item.source : {};
  return {
    objectKind: str(involved.kind),
    objectName: str(involved.name),
    namespace: str(involved.namespace) || str(metadata.namespace) || null,
    reason: str(item.reason),
    type: str(item.type),
    message: str(item.message),
    from: str(source.component) || str(item.reportingComponent),
    // Events written through events.k8s.io and read as v1 have count 0 and a series instead.
    count: Math.max(num(series?.count) ?? 0, num(item.count) ?? 0, 1),
    firstSeen: time(item.firstTimestamp, item.eventTime, metadata.creationTimestamp),
    order,
  };
}

/**
 * Where the JSON starts: the first line that opens an object or an array. A
 * bracketed shell prompt ("[ana@laptop lab]$ kubectl get events -o json")
 * also starts with "[", so an array must open with "[" alone, "[{" or "[]".
 */
function jsonStart(text: string): number {
  const opener = /^[ \t]*(\{|\[(?=[ \t]*(?:$|[{\]"[])))/gm;
  const match = opener.exec(text);
  return match ? match.index + match[0].length - match[1].length : -1;
}

/** Where the JSON may end, last first: a closing bracket at the end of a line (a prompt after the output is not one). */
function jsonEnds(text: string, start: number): number[] {
  const ends: number[] = [];
  const closer = /[}\]][ \t]*$/gm;
  for (let m = closer.exec(text); m; m = closer.exec(text)) if (m.index > start) ends.push(m.index);
  return ends.reverse().slice(0, 8);
}

/** The JSON from `start` to the last closing bracket that makes it parse; undefined when none does. */
function firstJson(text: string, start: number): unknown {
  for (const end of jsonEnds(text, start)) {
    try {
      return JSON.parse(text.slice(start, end + 1)) as unknown;
    } catch {
      // A closing bracket inside the output, or a cut-off paste: try the next candidate.
    }
  }
  return undefined;
}

type Parsed = { ok: true; events: PastedEvent[]; shape: PasteShape } | { ok: false; problem: string };

const EMPTY_LIST =
  "kubectl found no events. The API server keeps events for one hour after they last happened: run the lab's steps again, then copy the events within the hour, from the namespace you applied the manifests in (default).";

function parseJson(text: string, start: number): Parsed {
  const parsed = firstJson(text, start);
  if (parsed === undefined) {
    return {
      ok: false,
      problem:
        "This is not complete JSON: part of the output may be missing. Copy everything kubectl printed, from the first { to the last }.",
    };
  }
  const isList = isObject(parsed) && /List$/.test(str(parsed.kind));
  if (isList && !Array.isArray(parsed.items)) {
    return {
      ok: false,
      problem: `This ${str(parsed.kind)} has no "items" field, so it holds no events. kubectl always prints "items" (empty when there are none): copy its whole output. If it printed "items": [], ${EMPTY_LIST}`,
    };
  }
  const items: unknown[] = Array.isArray(parsed) ? parsed : isObject(parsed) && Array.isArray(parsed.items) ? parsed.items : [parsed];
  if (items.length === 0) return { ok: false, problem: `The list is empty: ${EMPTY_LIST}` };
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
  return { ok: true, events: events.map((e, i) => fromJson(e, i)), shape: "json" };
}

// ---------------------------------------------------------------------------
// Parsing: kubectl's tables
// ---------------------------------------------------------------------------

/**
 * Column layouts kubectl prints (tabwriter-aligned, so every cell starts under
 * its header): `kubectl events` (kubectl pkg/cmd/events/event_printer.go),
 * `kubectl get events` and its -o wide (the server's table,
 * pkg/printers/internalversion/printers.go), each with NAMESPACE first under
 * -A, and describe's Events (kubectl pkg/describe/describe.go DescribeEvents).
 */
const TABLE_HEADER = /^(\s*)(NAMESPACE\s+)?LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+/;
const DESCRIBE_HEADER = /^(\s*)Type\s+Reason\s+Age\s+From\s+Message\s*$/;

/** Kinds as `kubectl get events` prints them (lower case) mapped back to the API's. */
const KINDS: Record<string, string> = {
  pod: "Pod",
  persistentvolumeclaim: "PersistentVolumeClaim",
  persistentvolume: "PersistentVolume",
  node: "Node",
  volumeattachment: "VolumeAttachment",
  storageclass: "StorageClass",
};
const canonicalKind = (kind: string) => KINDS[kind.toLowerCase()] ?? kind;

interface Column {
  name: string;
  start: number;
}

function columns(header: string): Column[] {
  const out: Column[] = [];
  // Header names are upper case words, some of two words ("LAST SEEN", "FIRST SEEN"); cells are padded by at least 2 spaces.
  const name = /\S+(?: \S+)*/g;
  for (let m = name.exec(header); m; m = name.exec(header)) out.push({ name: m[0].toUpperCase(), start: m.index });
  return out;
}

function cells(line: string, cols: Column[]): Record<string, string> {
  const out: Record<string, string> = {};
  cols.forEach((c, i) => {
    const end = i + 1 < cols.length ? cols[i + 1].start : line.length;
    out[c.name] = line.slice(c.start, end).trim();
  });
  return out;
}

/** "3m (x4 over 10m)" → 4. */
const countOf = (interval: string) => Number(/\(x(\d+) over /.exec(interval)?.[1] ?? 1);

/** kubectl 1.35+ describe prefixes a container event's message with its field path. */
const stripFieldPath = (message: string) => message.replace(/^spec\.(?:containers|initContainers|ephemeralContainers)\{[^}]*\}: /, "");

const EVENT_TYPE = /^(Normal|Warning)$/;

/** One row of `kubectl events` / `kubectl get events`, or null when the line is not one (a prompt, a wrapped message). */
function tableRow(line: string, cols: Column[], namespaced: boolean, order: number): PastedEvent | null {
  let c = cells(line, cols);
  if (!EVENT_TYPE.test(c.TYPE ?? "") || !(c.OBJECT ?? "").includes("/")) {
    // Not aligned (the paste went through something that squeezes spaces): read the narrow layout by its words.
    const m = (
      namespaced
        ? /^\s*(\S+)\s+(.+?)\s+(Normal|Warning)\s+(\S+)\s+(\S+\/\S+)\s*(.*)$/
        : /^\s*()(.+?)\s+(Normal|Warning)\s+(\S+)\s+(\S+\/\S+)\s*(.*)$/
    ).exec(line);
    if (!m) return null;
    c = { NAMESPACE: m[1], "LAST SEEN": m[2], TYPE: m[3], REASON: m[4], OBJECT: m[5], MESSAGE: m[6] };
  }
  const [kind, ...name] = c.OBJECT.split("/");
  return {
    objectKind: canonicalKind(kind),
    objectName: name.join("/"),
    namespace: namespaced ? c.NAMESPACE || null : null,
    reason: c.REASON,
    type: c.TYPE,
    message: c.MESSAGE ?? "",
    from: c.SOURCE ?? "",
    count: c.COUNT ? Number(c.COUNT) || 1 : countOf(c["LAST SEEN"] ?? ""),
    firstSeen: null,
    order,
  };
}

/** The object a describe block is about, from the lines above its Events section. */
function describedObject(lines: string[], header: number): { kind: string; name: string } {
  let name = "";
  let kind = "";
  // Start above the section's "Events:" line; stop at the object's "Name:", or at the previous object's Events.
  const from = /^Events:/.test(lines[header - 1] ?? "") ? header - 2 : header - 1;
  for (let i = from; i >= 0; i--) {
    const line = lines[i];
    if (/^Events:/.test(line)) break;
    if (!kind) {
      if (/^(Claim|Reclaim Policy):/.test(line)) kind = "PersistentVolume";
      else if (/^Used By:/.test(line)) kind = "PersistentVolumeClaim";
      else if (/^(Containers|Node|IP|QoS Class):/.test(line)) kind = "Pod";
    }
    const named = /^Name:\s+(\S+)/.exec(line);
    if (named) {
      name = named[1];
      break;
    }
  }
  return { kind, name };
}

function describeRow(line: string, cols: Column[], object: { kind: string; name: string }, order: number): PastedEvent | null {
  let c = cells(line, cols);
  if (!EVENT_TYPE.test(c.TYPE ?? "")) {
    const m = /^\s+(Normal|Warning)\s+(\S+)\s+(.+?)\s{2,}(\S+(?:, \S+)?)\s{2,}(.*)$/.exec(line);
    if (!m) return null;
    c = { TYPE: m[1], REASON: m[2], AGE: m[3], FROM: m[4], MESSAGE: m[5] };
  }
  return {
    objectKind: object.kind,
    objectName: object.name,
    namespace: null,
    reason: c.REASON,
    type: c.TYPE,
    message: stripFieldPath(c.MESSAGE ?? ""),
    from: c.FROM ?? "",
    count: countOf(c.AGE ?? ""),
    firstSeen: null,
    order,
  };
}

/** Every table and describe Events section in the paste, in paste order; null when there is none. */
function parseTables(text: string): { events: PastedEvent[]; shape: PasteShape } | null {
  const lines = text.split("\n");
  const events: PastedEvent[] = [];
  let shape: PasteShape | null = null;
  let layout:
    | { kind: "table"; cols: Column[]; namespaced: boolean }
    | { kind: "describe"; cols: Column[]; object: { kind: string; name: string } }
    | null = null;
  lines.forEach((line, i) => {
    const table = TABLE_HEADER.exec(line);
    if (table && /MESSAGE/.test(line)) {
      layout = { kind: "table", cols: columns(line), namespaced: Boolean(table[2]) };
      shape ??= "table";
      return;
    }
    if (DESCRIBE_HEADER.test(line)) {
      layout = { kind: "describe", cols: columns(line), object: describedObject(lines, i) };
      shape ??= "describe";
      return;
    }
    if (!layout || /^\s*-{4,}(\s|$)/.test(line)) return;
    // A table ends at a blank line; a describe section also ends at its object's next unindented line ("Name:").
    if (line.trim() === "" || (layout.kind === "describe" && /^\S/.test(line))) {
      layout = null;
      return;
    }
    const row =
      layout.kind === "table"
        ? tableRow(line, layout.cols, layout.namespaced, events.length)
        : describeRow(line, layout.cols, layout.object, events.length);
    if (row) events.push(row);
  });
  return shape ? { events, shape } : null;
}

/** Describe blocks whose object could not be told (only the Events section was copied): the reason tells the lab's object. */
function fillDescribedObjects(events: PastedEvent[], expected: ExpectedEvent[]): void {
  for (const e of events) {
    if (e.objectKind === "")
      e.objectKind = expected.find((x) => x.reason === e.reason)?.objectKind ?? (POD_REASONS.has(e.reason) ? "Pod" : "");
    if (e.objectName === "" && isLabKind(e.objectKind)) e.objectName = LAB_OBJECTS[e.objectKind];
  }
}

/** Reasons only a Pod gets, for a describe section pasted without its header. */
const POD_REASONS = new Set([
  "FailedScheduling",
  "Scheduled",
  "Pulling",
  "Pulled",
  "Created",
  "Started",
  "FailedMount",
  "FailedAttachVolume",
  "SuccessfulAttachVolume",
  "BackOff",
  "Failed",
]);

// ---------------------------------------------------------------------------
// Parsing: the whole paste
// ---------------------------------------------------------------------------

/** What `kubectl events` prints on stderr when there is nothing (kubectl pkg/cmd/events/events.go), and `kubectl get`'s equivalent. */
const NOTHING_FOUND = /^(No events found( in \S+ namespace)?\.|No resources found( in \S+ namespace)?\.)$/m;

/** Lines that are only a prompt or a command: what remains when kubectl printed nothing on stdout. */
const isPromptOrCommand = (line: string) => /^\s*$/.test(line) || /(^|[$#>%]\s*)(kubectl|k)\s/.test(line) || /[$#>%]\s*$/.test(line);

export function parseEvents(input: string): Parsed {
  const tooLarge = pasteTooLarge(input);
  if (tooLarge) return { ok: false, problem: tooLarge };
  // Colour codes from a fancy prompt, and Windows line ends, would break both the JSON and the column positions.
  // eslint-disable-next-line no-control-regex
  const text = input.replace(/\r\n?/g, "\n").replace(/\u001b\[[0-9;?]*[A-Za-z]/g, "");
  if (text.trim() === "")
    return {
      ok: false,
      problem:
        "Paste what kubectl printed here first: kubectl events, kubectl get events -o json, or the Events of kubectl describe pvc data and kubectl describe pod app. (If kubectl events printed nothing at all, it said why on stderr: there are no events in that namespace.)",
    };
  const nothing = NOTHING_FOUND.exec(text);
  if (nothing && text.split("\n").every((line) => line.trim() === nothing[0] || isPromptOrCommand(line))) {
    return { ok: false, problem: `kubectl said “${nothing[0]}” ${EMPTY_LIST}` };
  }

  const start = jsonStart(text);
  const tables = parseTables(text);
  if (tables && tables.events.length > 0) {
    // A table comes first, or JSON that does not parse sits before it (a brace in a describe's annotation,
    // a bracketed prompt): the table is the paste. JSON before a table is tried first.
    const tableFirst = start < 0 || text.search(/^(\s*(NAMESPACE\s+)?LAST SEEN\s|\s*Type\s+Reason\s+Age\s)/m) < start;
    const json = tableFirst ? null : parseJson(text, start);
    return json?.ok ? json : { ok: true, ...tables };
  }
  if (tables && start < 0) {
    return {
      ok: false,
      problem:
        tables.shape === "describe"
          ? "This describe output has an Events header but no event under it. Copy the lines under Type, Reason, Age, From, Message too."
          : "This table has a header but no event under it. Copy the lines under LAST SEEN, TYPE, REASON too.",
    };
  }
  if (/^Events:\s*<none>\s*$/m.test(text) && start < 0) {
    return { ok: false, problem: `kubectl describe printed “Events: <none>”: ${EMPTY_LIST}` };
  }
  if (start >= 0) return parseJson(text, start);
  if (/^(apiVersion|kind|items):/m.test(text))
    return { ok: false, problem: "This looks like YAML. Run the command with -o json instead of -o yaml and paste that." };
  return {
    ok: false,
    problem:
      "This does not look like kubectl's events. Paste the output of kubectl events, kubectl get events -o json, or the Events section of kubectl describe.",
  };
}

// ---------------------------------------------------------------------------
// What a FailedScheduling message says
// ---------------------------------------------------------------------------

export type SchedulingReasonKind =
  | "pv-node-affinity"
  | "no-matching-pv"
  | "unbound-immediate"
  | "not-enough-storage"
  | "pv-missing"
  | "insufficient-resource"
  | "taint"
  | "node-selector"
  | "unschedulable-node"
  | "other";

/**
 * The scheduler's reasons, as printed. Volume reasons: ErrReasonNodeConflict,
 * ErrReasonBindConflict, ErrReasonNotEnoughSpace, ErrReasonPVNotExist
 * (pkg/scheduler/framework/plugins/volumebinding/binder.go; the first renamed
 * in v1.33.0, kubernetes PR #129887) and volume_binding.go's PreFilter
 * message. Others: NodeResourcesFit "Insufficient <resource>", TaintToleration
 * ("untolerated taint {k: v}", 1.35 "untolerated taint(s)", older "taint ...
 * that the pod didn't tolerate"), NodeAffinity, NodeUnschedulable.
 */
const REASON_KINDS: { kind: SchedulingReasonKind; test: RegExp; meaning: (m: RegExpExecArray) => string }[] = [
  {
    kind: "pv-node-affinity",
    test: /didn't match PersistentVolume's node affinity|had volume node affinity conflict/,
    meaning: () => "the claim's PersistentVolume is pinned (spec.nodeAffinity) to other nodes than these",
  },
  {
    kind: "no-matching-pv",
    test: /didn't find available persistent volumes to bind/,
    meaning: () => "no free PersistentVolume that fits the claim can be used on these nodes, and the class provisions none",
  },
  {
    kind: "unbound-immediate",
    test: /pod has unbound immediate PersistentVolumeClaims/,
    meaning: () => "the Pod's claim has Immediate binding and is not bound yet, so the scheduler waits for the PV controller",
  },
  {
    kind: "not-enough-storage",
    test: /did not have enough free storage/,
    meaning: () => "the driver's CSIStorageCapacity says too little space is left where these nodes can reach",
  },
  {
    kind: "pv-missing",
    test: /bound to non-existent pv/,
    meaning: () => "the claim is bound to a PersistentVolume that no longer exists",
  },
  {
    kind: "insufficient-resource",
    test: /^Insufficient (\S+)|^Too many pods/,
    meaning: (m) =>
      m[1]
        ? `these nodes lack the free ${m[1]} the Pod requests: a capacity problem, not a storage one`
        : "these nodes already run as many Pods as they allow",
  },
  {
    kind: "taint",
    test: /untolerated taint|that the pod didn't tolerate/,
    meaning: () => "these nodes carry a taint the Pod does not tolerate (a control-plane node, a cordoned or NotReady node)",
  },
  {
    kind: "node-selector",
    test: /didn't match Pod's node affinity\/selector/,
    meaning: () => "the Pod's nodeSelector or node affinity rules these nodes out",
  },
  {
    kind: "unschedulable-node",
    test: /were unschedulable/,
    meaning: () => "these nodes are cordoned (spec.unschedulable)",
  },
];

const VOLUME_REASONS: ReadonlySet<SchedulingReasonKind> = new Set([
  "pv-node-affinity",
  "no-matching-pv",
  "not-enough-storage",
  "pv-missing",
]);

/**
 * The reasons of "0/3 nodes are available: 1 node(s) ..., 2 Insufficient cpu.
 * preemption: ..." (FitError.Error in pkg/scheduler/framework/types.go): the
 * first sentence after the colon, split on ", ". What follows it (the
 * preemption summary, the DRA plugin's "no new claims to deallocate") is not
 * a reason.
 */
export function schedulingReasons(message: string): SchedulingReason[] {
  const body = /nodes are available: (.*?)\.(?: |$)/.exec(message)?.[1] ?? message;
  return body
    .split(", ")
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const counted = /^(\d+) (.*)$/.exec(part);
      const text = counted ? counted[2] : part;
      for (const k of REASON_KINDS) {
        const m = k.test.exec(text);
        if (m) return { nodes: counted ? Number(counted[1]) : null, text, kind: k.kind, meaning: k.meaning(m) };
      }
      return { nodes: counted ? Number(counted[1]) : null, text, kind: "other" as const, meaning: "a reason the lesson does not cover" };
    });
}

// ---------------------------------------------------------------------------
// Which provisioner answered
// ---------------------------------------------------------------------------

/**
 * Dynamic provisioners that are not CSI drivers: they create a directory and a
 * local or hostPath PV, so nothing attaches. rancher.io/local-path is kind's
 * default class "standard" (local-path-provisioner main.go
 * DefaultProvisionerName); the other two are minikube's and Docker Desktop's.
 */
const NOT_CSI = ["rancher.io/local-path", "k8s.io/minikube-hostpath", "docker.io/hostpath"];

/** The PV controller's ExternalProvisioning message names the provisioner: 'x' since v1.30, "x" before. */
const PROVISIONER_IN_MESSAGE = /external provisioner ['"]([^'"]+)['"]/;

function foreignProvisioner(events: PastedEvent[], id: ScenarioId): ForeignProvisioner | null {
  let name: string | null = null;
  for (const e of events) {
    name = PROVISIONER_IN_MESSAGE.exec(e.message)?.[1] ?? NOT_CSI.find((p) => e.from.startsWith(`${p}_`)) ?? null;
    if (name) break;
  }
  if (!name || name === LAB_DRIVER) return null;
  const labClass = stringAt(SCENARIO_CASTS[id].storageClass, "metadata", "name");
  const notCsi = NOT_CSI.includes(name);
  const standard = name === "rancher.io/local-path" ? "kind's default class “standard”, " : "";
  return {
    name,
    notCsi,
    advice: `Your claim was provisioned by ${standard}${name}, not by the lab's class “${labClass}”${
      SCENARIO_CASTS[id].storageClass.provisioner === "kubernetes.io/no-provisioner" ? "" : ` (CSI driver ${LAB_DRIVER})`
    }.${
      notCsi
        ? " It is not a CSI driver: it makes a directory on the node and a local PV, so there is no VolumeAttachment and no SuccessfulAttachVolume."
        : ""
    } The claim got that class because storageClassName was empty or the lab's class did not exist yet: delete the Pod and the PVC, apply storageclass.yaml, then the PVC and the Pod again (kubectl get pvc ${PVC_NAME} -o jsonpath='{.spec.storageClassName}' must print ${labClass}).`,
  };
}

// ---------------------------------------------------------------------------
// Which Kubernetes release wrote the messages
// ---------------------------------------------------------------------------

interface VersionClue {
  /** What to quote: the matched text, or a fixed label. */
  quote: (e: PastedEvent) => string | null;
  from: KubeVersion;
  to: KubeVersion;
}

const messageIs = (reason: string, test: RegExp) => (e: PastedEvent) => (e.reason === reason && test.test(e.message) ? e.message : null);
const messageHas = (reason: string, text: string) => (e: PastedEvent) => (e.reason === reason && e.message.includes(text) ? text : null);

/**
 * Strings that changed between the releases the lesson can show (versions.ts):
 * - scheduler: ErrReasonNodeConflict reworded in v1.33.0 (PR #129887); the DRA
 *   plugin, on by default from v1.34 (DRA GA), adds "no new claims to
 *   deallocate" to every FailedScheduling;
 * - kubelet: "Created container %s" became "Created container: %s" in v1.33
 *   (LESSON.md version note), and v1.35 dropped the name: "Container created",
 *   "Container started" (PR #134043, CHANGELOG-1.35 "Remove container name
 *   from messages for container created and started events"); v1.35's image
 *   manager says "already present on machine and can be accessed by the pod".
 * Each clue bounds the release; together they narrow it. The absence of the DRA
 * tail is no clue: real 1.34+ pastes without it exist (DRA switched off).
 */
const VERSION_CLUES: VersionClue[] = [
  { quote: messageHas("FailedScheduling", "node(s) had volume node affinity conflict"), from: "1.32", to: "1.32" },
  { quote: messageHas("FailedScheduling", "node(s) didn't match PersistentVolume's node affinity"), from: "1.33", to: "1.35" },
  { quote: messageHas("FailedScheduling", "no new claims to deallocate"), from: "1.34", to: "1.35" },
  // TaintToleration named the taint until PR #134740 (v1.35.0; cherry-picked into v1.34.2 as #135023). The newer
  // "untolerated taint(s)" is no clue: the cherry-picks may reach older branches too.
  {
    quote: (e) =>
      e.reason === "FailedScheduling" && /had untolerated taint \{/.test(e.message) ? "node(s) had untolerated taint {…}" : null,
    from: "1.32",
    to: "1.34",
  },
  { quote: messageIs("Created", /^Created container [^:\s]+$/), from: "1.32", to: "1.32" },
  { quote: messageIs("Created", /^Created container: \S+$/), from: "1.33", to: "1.34" },
  { quote: messageIs("Started", /^Started container \S+$/), from: "1.32", to: "1.34" },
  { quote: messageIs("Created", /^Container created$/), from: "1.35", to: "1.35" },
  { quote: messageIs("Started", /^Container started$/), from: "1.35", to: "1.35" },
  { quote: messageHas("Pulled", "already present on machine and can be accessed by the pod"), from: "1.35", to: "1.35" },
  {
    quote: (e) => (e.reason === "Pulled" && /already present on machine$/.test(e.message) ? "already present on machine" : null),
    from: "1.32",
    to: "1.34",
  },
];

const rank = (v: KubeVersion) => KUBE_VERSIONS.indexOf(v);
const rangeLabel = (from: KubeVersion, to: KubeVersion) =>
  from === to ? KUBE_VERSION_LABELS[from] : to === "1.35" ? `${from} or later` : from === "1.32" ? `${to} or older` : `${from} to ${to}`;

export function readVersion(events: PastedEvent[], sheet: KubeVersion): VersionReading | null {
  let low = 0;
  let high = KUBE_VERSIONS.length - 1;
  const clues = new Map<string, string>();
  for (const e of events) {
    for (const clue of VERSION_CLUES) {
      const quote = clue.quote(e);
      if (!quote || clues.has(quote)) continue;
      clues.set(quote, rangeLabel(clue.from, clue.to));
      low = Math.max(low, rank(clue.from));
      high = Math.min(high, rank(clue.to));
    }
  }
  if (clues.size === 0) return null;
  const fits = low <= high ? KUBE_VERSIONS.slice(low, high + 1) : [];
  return {
    fits: [...fits],
    clues: [...clues].map(([text, releases]) => ({ text, releases })),
    sheet,
    matchesSheet: fits.includes(sheet),
  };
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
      out.push({
        position: index + 1,
        label: step.label,
        title: step.title,
        objectKind: kind,
        reason: e.reason,
        message: e.message,
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
      message: `waiting for pod ${POD_NAME} to be scheduled`,
      optional: "written only if the PV controller re-syncs the claim before NODE CHOSEN",
    });
  }
  return out.sort((a, b) => a.position - b.position);
}

/** The volume reasons the scenario's own FailedScheduling gives (none when the Pod is scheduled). */
function lessonFailure(expected: ExpectedEvent[]): { kinds: Set<SchedulingReasonKind>; text: string } | null {
  const failed = expected.find((x) => x.reason === "FailedScheduling");
  if (!failed) return null;
  const reasons = schedulingReasons(failed.message).filter((r) => VOLUME_REASONS.has(r.kind));
  return { kinds: new Set(reasons.map((r) => r.kind)), text: reasons.map((r) => r.text).join(", ") };
}

// ---------------------------------------------------------------------------
// Matching
// ---------------------------------------------------------------------------

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
