import type { ParsedPaste, PastedEvent } from "./clusterCheckTypes";

/**
 * "Check my cluster": reading kubectl's JSON. A List (`kubectl get events -o
 * json`) or EventList (`kubectl events -o json`) of core v1 Events or
 * events.k8s.io/v1 Events (`regarding`, `note`), a single Event, or a bare
 * array, found in a paste that may have a shell prompt before and after it.
 */

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
export function jsonStart(text: string): number {
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

/** Why kubectl found nothing, and what to do: said for an empty list, its stderr line, and describe's "<none>". */
export const EMPTY_LIST =
  "kubectl found no events. The API server keeps events for one hour after they last happened: run the lab's steps again, then copy the events within the hour, from the namespace you applied the manifests in (default).";

export function parseJson(text: string, start: number): ParsedPaste {
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
