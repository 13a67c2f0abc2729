import { NAMESPACE, POD_NAME, PVC_NAME } from "./kubeCluster";
import { EMPTY_LIST, jsonStart, parseJson } from "./clusterCheckJson";
import { parseTables } from "./clusterCheckTables";
import type { ParsedPaste } from "./clusterCheckTypes";

/**
 * "Check my cluster": a student's whole paste, read into events, or a plain
 * answer saying why it cannot be. Accepted shapes, exactly as kubectl prints
 * them:
 * - JSON: a List (`kubectl get events -o json`) or EventList (`kubectl events
 *   -o json`) of core v1 Events, events.k8s.io/v1 Events (`regarding`,
 *   `note`), a single Event, or a bare array;
 * - tables: `kubectl events` (OBJECT is `Kind/name`), `kubectl get events`
 *   (`kind/name` in lower case, `-o wide` too), either with `-A` (a NAMESPACE
 *   column first);
 * - the Events section of `kubectl describe pvc data` / `kubectl describe pod app`.
 * A shell prompt or the command line pasted along is ignored, and so are
 * colour codes and Windows line ends. The size cap is checked first, here and
 * in the UI.
 */

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

/** What `kubectl events` prints on stderr when there is nothing (kubectl pkg/cmd/events/events.go), and `kubectl get`'s equivalent. */
const NOTHING_FOUND = /^(No events found( in \S+ namespace)?\.|No resources found( in \S+ namespace)?\.)$/m;

/** Lines that are only a prompt or a command: what remains when kubectl printed nothing on stdout. */
const isPromptOrCommand = (line: string) => /^\s*$/.test(line) || /(^|[$#>%]\s*)(kubectl|k)\s/.test(line) || /[$#>%]\s*$/.test(line);

export function parseEvents(input: string): ParsedPaste {
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
