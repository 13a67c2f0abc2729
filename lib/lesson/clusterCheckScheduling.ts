/**
 * "Check my cluster": what a FailedScheduling message says. The scheduler
 * gives one reason per group of nodes; each is named, with what it means, so
 * a failure for another reason than the lesson's (too little CPU, a taint) is
 * told apart from the lesson's own volume conflict.
 */

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

/** The reasons that are about the claim's volume: what a lesson's own failure is made of. */
export const VOLUME_REASONS: ReadonlySet<SchedulingReasonKind> = new Set([
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
