import { DEFAULT_KUBE_VERSION, atLeast, type KubeVersion } from "./versions";

/**
 * What each Kubernetes release prints, for every string and field of the
 * lesson's world that changed between 1.32 and 1.35. One table, so the world,
 * the notes, the lab sheets and "Check my cluster" cannot disagree. Each entry
 * names where it was read (shared/LESSON.md, "Version notes", has the list
 * with tags); strings that did not change in 1.32..1.36 stay in ./events.ts.
 */

/** The kubelet's container events and the scheduler's reasons, as one release prints them. */
export interface KubeStrings {
  readonly version: KubeVersion;
  /**
   * Created (pkg/kubelet/kuberuntime/kuberuntime_container.go, startContainer):
   * "Created container %v" up to 1.32, "Created container: %v" in 1.33 and 1.34,
   * "Container created" from 1.35 (kubernetes PR #134043).
   */
  created: (container: string) => string;
  /** Started, same function: "Started container %v" up to 1.34, "Container started" from 1.35 (PR #134043). */
  started: (container: string) => string;
  /**
   * Pulled when the image is on the node and no pull is needed (pkg/kubelet/images/image_manager.go).
   * From 1.35 KubeletEnsureSecretPulledImages is on by default and the kubelet says it checked the Pod's
   * credentials: "... already present on machine and can be accessed by the pod".
   */
  alreadyPresent: (image: string) => string;
  /** The scheduler's Filter reasons the lesson's FailedScheduling messages use. */
  readonly reasons: {
    /** NodeAffinity plugin, ErrReasonPod: unchanged. */
    readonly nodeAffinity: string;
    /** volumebinding ErrReasonNodeConflict: renamed in v1.33.0 (PR #129887). */
    readonly pvNodeAffinity: string;
    /** volumebinding ErrReasonBindConflict: unchanged. */
    readonly noPersistentVolumes: string;
    /** volumebinding ErrUnboundImmediatePVC (PreFilter): unchanged. */
    readonly unboundImmediate: string;
  };
  /**
   * TaintToleration's reason (pkg/scheduler/framework/plugins/tainttoleration): "node(s) had untolerated
   * taint {key: value}" until PR #134740 (v1.35.0, cherry-picked as #135023 into v1.34.2) made it
   * "node(s) had untolerated taint(s)". The "1.34" id prints the 1.34.2+ wording (see its version note).
   */
  untoleratedTaint: (key: string, value: string) => string;
  /**
   * What PostFilter plugins before DefaultPreemption add to every FailedScheduling: from 1.34 the
   * DynamicResources plugin is on by default (DynamicResourceAllocation GA) and, for a Pod without
   * ResourceClaims, says "no new claims to deallocate". Joined with ", " before "preemption: ...".
   */
  readonly postFilterReasons: readonly string[];
  /**
   * kubectl describe prefixes an event's involvedObject.fieldPath ("spec.containers{app}: ") from
   * kubectl 1.35 (staging/src/k8s.io/kubectl/pkg/describe/describe.go, DescribeEvents); `kubectl events`
   * and `kubectl get events` print the message alone.
   */
  readonly describePrefixesFieldPath: boolean;
  /** The API server sets a Pod's metadata.generation to 1 at creation, from 1.33 (pkg/registry/core/pod/strategy.go). */
  readonly podGeneration: boolean;
  /**
   * status.observedGeneration (kubelet) and conditions[].observedGeneration (kubelet, and the scheduler's
   * PodScheduled=False) are written from 1.34: PodObservedGenerationTracking alpha 1.33, beta 1.34, GA 1.35.
   */
  readonly podObservedGeneration: boolean;
  /**
   * From 1.35 (NominatedNodeNameForExpectation beta) the scheduler sets status.nominatedNodeName before
   * a PreBind that has work to do (VolumeBinding with an unbound claim), and the pods/binding subresource
   * clears it (ClearingNominatedNodeNameAfterBinding beta).
   */
  readonly nominatesBeforePreBind: boolean;
}

const LEGACY_PV_NODE_AFFINITY = "node(s) had volume node affinity conflict";
const PV_NODE_AFFINITY = "node(s) didn't match PersistentVolume's node affinity";
const NO_NEW_CLAIMS = "no new claims to deallocate";

function build(version: KubeVersion): KubeStrings {
  const from = (release: KubeVersion) => atLeast(version, release);
  return {
    version,
    created: (container) =>
      from("1.35") ? "Container created" : from("1.33") ? `Created container: ${container}` : `Created container ${container}`,
    started: (container) => (from("1.35") ? "Container started" : `Started container ${container}`),
    alreadyPresent: (image) =>
      from("1.35")
        ? `Container image "${image}" already present on machine and can be accessed by the pod`
        : `Container image "${image}" already present on machine`,
    reasons: {
      nodeAffinity: "node(s) didn't match Pod's node affinity/selector",
      pvNodeAffinity: from("1.33") ? PV_NODE_AFFINITY : LEGACY_PV_NODE_AFFINITY,
      noPersistentVolumes: "node(s) didn't find available persistent volumes to bind",
      unboundImmediate: "pod has unbound immediate PersistentVolumeClaims",
    },
    untoleratedTaint: (key, value) =>
      from("1.34") ? "node(s) had untolerated taint(s)" : `node(s) had untolerated taint {${key}: ${value}}`,
    postFilterReasons: from("1.34") ? [NO_NEW_CLAIMS] : [],
    describePrefixesFieldPath: from("1.35"),
    podGeneration: from("1.33"),
    podObservedGeneration: from("1.34"),
    nominatesBeforePreBind: from("1.35"),
  };
}

const TABLE: Readonly<Record<KubeVersion, KubeStrings>> = Object.freeze({
  "1.32": Object.freeze(build("1.32")),
  "1.33": Object.freeze(build("1.33")),
  "1.34": Object.freeze(build("1.34")),
  "1.35": Object.freeze(build("1.35")),
});

/** The strings `version` prints. The same frozen object on every call. */
export function kubeStrings(version: KubeVersion = DEFAULT_KUBE_VERSION): KubeStrings {
  return TABLE[version];
}

/**
 * The image reference the container runtime reports in containerStatuses[].image once the container
 * exists: containerd normalises a Docker Hub short name ("nginx" → "docker.io/library/nginx:latest",
 * "nginx:1.27" → "docker.io/library/nginx:1.27"). Before that, the kubelet reports the Pod spec's image.
 */
export function runtimeImageName(image: string): string {
  const slash = image.indexOf("/");
  const first = slash < 0 ? "" : image.slice(0, slash);
  // A first component with a dot or a colon, or "localhost", is a registry host (docker/distribution's rule).
  const hasRegistry = slash >= 0 && (first.includes(".") || first.includes(":") || first === "localhost");
  let name = hasRegistry ? image : `docker.io/${slash < 0 ? `library/${image}` : image}`;
  const lastPart = name.slice(name.lastIndexOf("/") + 1);
  if (!lastPart.includes(":") && !name.includes("@")) name = `${name}:latest`;
  return name;
}

/**
 * Wording that only some releases print, for telling from a pasted event which release a cluster runs.
 * Each marker is read off the same sources as the table above; a message that matches none says nothing
 * about the release.
 */
const WORDING_MARKERS: readonly { test: RegExp; versions: readonly KubeVersion[] }[] = [
  { test: /^Created container [^:]/, versions: ["1.32"] },
  { test: /^Created container: /, versions: ["1.33", "1.34"] },
  { test: /^Started container /, versions: ["1.32", "1.33", "1.34"] },
  { test: /^Container (created|started)$/, versions: ["1.35"] },
  { test: /already present on machine and can be accessed by the pod$/, versions: ["1.35"] },
  { test: /already present on machine$/, versions: ["1.32", "1.33", "1.34"] },
  { test: /had volume node affinity conflict/, versions: ["1.32"] },
  { test: /didn't match PersistentVolume's node affinity/, versions: ["1.33", "1.34", "1.35"] },
  { test: /had untolerated taint \{/, versions: ["1.32", "1.33", "1.34"] },
  { test: /had untolerated taint\(s\)/, versions: ["1.34", "1.35"] },
  { test: /no new claims to deallocate, preemption: /, versions: ["1.34", "1.35"] },
  { test: /^0\/\d+ nodes are available: .*\. preemption: /, versions: ["1.32", "1.33"] },
];

/**
 * The releases (lesson ids) that print `message`, or null when its wording is the same in all of them.
 * For a FailedScheduling message without "no new claims to deallocate" this says 1.32 or 1.33, which is
 * also what a 1.34 cluster with DynamicResourceAllocation turned off prints. A describe line's field path
 * ("spec.containers{app}: ") is skipped.
 */
export function wordingVersions(message: string): readonly KubeVersion[] | null {
  // kubectl 1.35's describe puts the field path first; that is the client's release, not the cluster's.
  const text = message.trim().replace(/^spec\.(?:initContainers|containers|ephemeralContainers)\{[^}]*\}: /, "");
  let versions: readonly KubeVersion[] | null = null;
  for (const marker of WORDING_MARKERS) {
    if (!marker.test.test(text)) continue;
    versions = versions === null ? marker.versions : versions.filter((v) => marker.versions.includes(v));
  }
  return versions;
}
