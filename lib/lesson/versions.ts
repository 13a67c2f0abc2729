/**
 * The Kubernetes releases whose strings the lesson can print. Event messages,
 * reasons and a few fields changed between releases (shared/LESSON.md,
 * "Version notes"); the teacher picks the release the class runs, the session
 * keeps it, and every screen prints that release's strings.
 *
 * An id stands for a range: "1.32" is 1.32 and older, "1.35" is 1.35 and later.
 */
export const KUBE_VERSIONS = ["1.32", "1.33", "1.34", "1.35"] as const;
export type KubeVersion = (typeof KUBE_VERSIONS)[number];

/** The newest release whose strings are traced to source: what a new session shows. */
export const DEFAULT_KUBE_VERSION: KubeVersion = "1.35";

/** How each id reads on a screen. */
export const KUBE_VERSION_LABELS: Record<KubeVersion, string> = {
  "1.32": "1.32 or older",
  "1.33": "1.33",
  "1.34": "1.34",
  "1.35": "1.35 or later",
};

export function isKubeVersion(value: unknown): value is KubeVersion {
  return typeof value === "string" && (KUBE_VERSIONS as readonly string[]).includes(value);
}

/** Whether `version` is at least `than` (ids compare as releases). */
export function atLeast(version: KubeVersion, than: KubeVersion): boolean {
  return KUBE_VERSIONS.indexOf(version) >= KUBE_VERSIONS.indexOf(than);
}
