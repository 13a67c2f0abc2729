import { LAB_OBJECTS, isLabKind, type ExpectedEvent, type PastedEvent, type PasteShape } from "./clusterCheckTypes";

/**
 * "Check my cluster": reading kubectl's tables, `kubectl events` (OBJECT is
 * `Kind/name`) and `kubectl get events` (`kind/name` in lower case, `-o wide`
 * too), either with `-A`, and the Events section of `kubectl describe pvc
 * data` / `kubectl describe pod app`, by the columns of their header line.
 */

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
export function parseTables(text: string): { events: PastedEvent[]; shape: PasteShape } | null {
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
export function fillDescribedObjects(events: PastedEvent[], expected: ExpectedEvent[]): void {
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
