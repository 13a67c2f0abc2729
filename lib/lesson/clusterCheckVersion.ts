import { KUBE_VERSIONS, KUBE_VERSION_LABELS, type KubeVersion } from "./versions";
import type { PastedEvent } from "./clusterCheckTypes";

/**
 * "Check my cluster": which Kubernetes release wrote the messages, read from
 * the strings that changed between the releases a lab sheet can show, so a
 * student on another release than the sheet's is offered the right sheet.
 */

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
