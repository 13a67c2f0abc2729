/**
 * The lesson's vocabulary. Everything here is plain data: the renderer, the
 * inspector, the poll generator and the server all read the same shapes.
 */

/** The StorageClass binding modes the class can compare. `Local` is WaitForFirstConsumer with `kubernetes.io/no-provisioner`. */
export const BINDING_MODES = ["WaitForFirstConsumer", "Immediate", "Local"] as const;
export type BindingMode = (typeof BINDING_MODES)[number];

/** A teacher-selectable variant of a mode's scenario. */
export const VARIANTS = ["standard", "zone-conflict", "no-local-pv"] as const;
export type VariantId = (typeof VARIANTS)[number];

/** The five lifelines of the card, left to right. */
export const LIFELINE_IDS = ["you", "control", "scheduler", "csi", "node"] as const;
export type LifelineId = (typeof LIFELINE_IDS)[number];

/** Whether an id (from a client, a log or a teacher's lesson) is one of the card's five lifelines. */
export function isLifelineId(id: string): id is LifelineId {
  return (LIFELINE_IDS as readonly string[]).includes(id);
}

export interface Lifeline {
  id: LifelineId;
  /** The short badge on the card ("YOU", "API", "SCHED", "CSI", "NODE"). */
  badge: string;
  name: string;
  role: string;
}

/**
 * The card's legend: request / write (solid), noticed via watch (dashed, open
 * head), calls storage API, binding (the headline moments).
 */
export const ARROW_KINDS = ["request", "watch", "storage", "binding"] as const;
export type ArrowKind = (typeof ARROW_KINDS)[number];

/** The Kubernetes objects the inspector shows, in its tab order. */
export const OBJECT_KINDS = ["PersistentVolumeClaim", "PersistentVolume", "Pod", "StorageClass", "VolumeAttachment"] as const;
export type ObjectKind = (typeof OBJECT_KINDS)[number];

export interface UnderTheHood {
  title: string;
  body: string;
}

/** The scheduler filters the lesson names as a node's first failing filter. */
export const SCHEDULER_FILTERS = ["NodeAffinity", "VolumeBinding"] as const;
export type SchedulerFilter = (typeof SCHEDULER_FILTERS)[number];

/**
 * How one node fared in PICK NODE. A node reports only its first failing
 * filter, which is why FailedScheduling counts each node exactly once.
 */
export interface NodeVerdict {
  node: string;
  fits: boolean;
  /** The first filter that rejected the node (absent when it fits). */
  failedFilter?: SchedulerFilter;
  /** The reason as FailedScheduling prints it, e.g. "node(s) didn't match PersistentVolume's node affinity". */
  reason?: string;
}

export interface ScenarioStep {
  /** The card's step number (1..12): the "moment" that a mode switch keeps. */
  label: number;
  /** The card's caption, e.g. "CREATE PVC". */
  title: string;
  from: LifelineId;
  to: LifelineId;
  kind: ArrowKind;
  /** One line for the class: what just happened. */
  narration: string;
  /** For the teacher's console only. */
  speakerNotes: string;
  /** A note drawn on the diagram at this step (the card's step 1 and step 9 notes). */
  note?: string;
  /** The step happens in name only (Immediate's step 5 records nothing). */
  noop?: boolean;
  /** The step is where the scenario fails (e.g. FailedScheduling). */
  failed?: boolean;
  /** Expanders for what the card simplifies at this step. */
  underTheHood?: UnderTheHood[];
  /** PICK NODE only: each node's verdict, in node order. */
  nodeVerdicts?: NodeVerdict[];
}

export interface Scenario {
  mode: BindingMode;
  variant: VariantId;
  /** Short title for menus, e.g. "Immediate: zone conflict". */
  title: string;
  /** One or two sentences on what this scenario shows. */
  summary: string;
  steps: ScenarioStep[];
}

/** An Event as `kubectl describe` prints it. */
export interface KubeEvent {
  /** The object the event is recorded on, e.g. "PersistentVolumeClaim/data". */
  involvedObject: string;
  type: "Normal" | "Warning";
  reason: string;
  from: string;
  message: string;
}

/** A Kubernetes object as `kubectl get -o yaml` would print it (a plain JSON tree). */
export type KubeObject = { [key: string]: unknown };

export interface TopologyNode {
  name: string;
  zone: string;
}

export interface Disk {
  /** The storage backend's volume id, e.g. "vol-0abc123"; for local PVs the path on the node. */
  id: string;
  zone: string;
  /** For local disks: the node that holds it. */
  node?: string;
  kind: "cloud" | "local";
}

/** The whole cluster as far as the lesson is concerned, after a given step. */
export interface World {
  storageClass: KubeObject;
  pvc: KubeObject | null;
  pv: KubeObject | null;
  pod: KubeObject | null;
  volumeAttachment: KubeObject | null;
  disk: Disk | null;
  nodes: TopologyNode[];
  /** Node the Pod is bound to (`spec.nodeName`), or null while Pending without a node. */
  podNode: string | null;
  /** Every Event written so far, oldest first. */
  events: KubeEvent[];
}
