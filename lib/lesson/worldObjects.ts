import {
  ANNOTATIONS,
  DRIVER,
  CSI_PROVISIONER_IDENTITY,
  DYNAMIC_PV_NAME,
  FINALIZERS,
  HOSTNAME_KEY,
  LOCAL_PATH,
  LOCAL_PV_CAPACITY,
  LOCAL_PV_NAME,
  NAMESPACE,
  NODES,
  POD_NAME,
  PVC_NAME,
  PVC_UID,
  REQUESTED_STORAGE,
  VOLUME_ATTACHMENT_NAMES,
  VOLUME_HANDLE,
  ZONE_KEY,
  zoneOf,
  type ScenarioCast,
} from "./kubeCluster";

import { CONTAINER } from "./events";
import { kubeStrings, runtimeImageName, type KubeStrings } from "./kubeStrings";
import type { Disk, KubeEvent, KubeObject, World } from "./types";
import type { KubeVersion } from "./versions";
import { stringAt } from "../guards";

/**
 * Every Kubernetes object of the lesson's cluster as `kubectl get -o yaml`
 * would print it (LESSON.md section 8 shapes), rendered from the facts of
 * what has happened so far (./world.ts applies the steps).
 */

/**
 * The lesson's illustrative clock: the local PV exists at CLUSTER_START and
 * each step happens STEP_SECONDS after the one before. Only fields kubectl
 * prints with a time (lastPhaseTransitionTime, lastTransitionTime, startTime)
 * use it; real clusters take anything from milliseconds to minutes per step.
 */
const CLUSTER_START_MS = Date.UTC(2025, 5, 2, 9, 0, 0);
const STEP_SECONDS = 3;
export const CLUSTER_START = new Date(CLUSTER_START_MS).toISOString().replace(".000Z", "Z");

/** RFC 3339 in UTC without fractions, as the API server writes metav1.Time. */
export function stepTime(position: number): string {
  return new Date(CLUSTER_START_MS + position * STEP_SECONDS * 1000).toISOString().replace(".000Z", "Z");
}

/**
 * claimRef.resourceVersion: GetReference copies the claim's resourceVersion at
 * the moment the provisioner (dynamic) or the scheduler (local) read it.
 * Illustrative values; the inspector leaves metadata.resourceVersion out.
 */
const CLAIM_RESOURCE_VERSION = { dynamic: "52187", local: "51903" } as const;

/** What has happened so far; the objects are rendered from these facts. */
export interface Facts {
  /** When the step being applied happened (stepTime of its position). */
  now: string;
  pvPhaseSince: string | null;
  podScheduledSince: string | null;
  kubeletSince: string | null;
  containersSince: string | null;
  pvc: boolean;
  selectedNode: string | null;
  /** The node the scheduler chose once PreBind has work to do (WaitForFirstConsumer, Local), until binding. */
  nominatedNode: string | null;
  storageProvisionerAnnotations: boolean;
  diskCreated: boolean;
  dynamicPv: boolean;
  /** Local only: the scheduler's PreBind wrote claimRef + bound-by-controller on the PV. */
  localPvClaimed: boolean;
  bound: boolean;
  pod: boolean;
  schedulingFailure: string | null;
  podNode: string | null;
  kubeletPickedUp: boolean;
  attached: boolean;
  containersRunning: boolean;
  events: KubeEvent[];
}

function storageClassName(cast: ScenarioCast): string {
  return stringAt(cast.storageClass, "metadata", "name");
}

function pvName(cast: ScenarioCast): string {
  return cast.localPv ? LOCAL_PV_NAME : DYNAMIC_PV_NAME;
}

function pvCapacity(cast: ScenarioCast): string {
  return cast.localPv ? LOCAL_PV_CAPACITY : REQUESTED_STORAGE;
}

const claimRef = (resourceVersion: string) => ({
  apiVersion: "v1",
  kind: "PersistentVolumeClaim",
  name: PVC_NAME,
  namespace: NAMESPACE,
  resourceVersion,
  uid: PVC_UID,
});

function renderPvc(f: Facts, cast: ScenarioCast): KubeObject | null {
  if (!f.pvc) return null;
  // Order as in LESSON.md section 8's "PVC after step 9".
  const annotations: Record<string, string> = {};
  if (f.bound) {
    annotations[ANNOTATIONS.bindCompleted] = "yes";
    annotations[ANNOTATIONS.boundByController] = "yes";
  }
  if (f.selectedNode) annotations[ANNOTATIONS.selectedNode] = f.selectedNode;
  if (f.storageProvisionerAnnotations) {
    annotations[ANNOTATIONS.storageProvisioner] = DRIVER;
    annotations[ANNOTATIONS.storageProvisionerBeta] = DRIVER;
  }
  return {
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: {
      name: PVC_NAME,
      namespace: NAMESPACE,
      // Shown because the PV's name is "pvc-" + this UID and its claimRef carries it.
      uid: PVC_UID,
      ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
      finalizers: [FINALIZERS.pvcProtection],
    },
    spec: {
      accessModes: ["ReadWriteOnce"],
      storageClassName: storageClassName(cast),
      volumeMode: "Filesystem",
      resources: { requests: { storage: REQUESTED_STORAGE } },
      ...(f.bound ? { volumeName: pvName(cast) } : {}),
    },
    // bind() copies the PV's capacity into the claim's status (100Gi for the local PV).
    status: f.bound ? { phase: "Bound", accessModes: ["ReadWriteOnce"], capacity: { storage: pvCapacity(cast) } } : { phase: "Pending" },
  };
}

function renderDynamicPv(f: Facts, cast: ScenarioCast): KubeObject | null {
  if (!f.dynamicPv) return null;
  // The provisioner creates the PV with its own finalizer; PV-protection admission
  // appends kubernetes.io/pv-protection; the attacher appends its own at step 12.
  const finalizers: string[] = [FINALIZERS.provisioner, FINALIZERS.pvProtection];
  if (f.attached) finalizers.push(FINALIZERS.attacher);
  return {
    apiVersion: "v1",
    kind: "PersistentVolume",
    metadata: {
      name: DYNAMIC_PV_NAME,
      // No bound-by-controller, ever: the provisioner's claimRef is already complete.
      annotations: {
        [ANNOTATIONS.provisionedBy]: DRIVER,
        [ANNOTATIONS.deletionSecretName]: "",
        [ANNOTATIONS.deletionSecretNamespace]: "",
      },
      finalizers,
    },
    spec: {
      accessModes: ["ReadWriteOnce"],
      capacity: { storage: REQUESTED_STORAGE },
      claimRef: claimRef(CLAIM_RESOURCE_VERSION.dynamic),
      csi: {
        driver: DRIVER,
        volumeHandle: VOLUME_HANDLE,
        fsType: "ext4",
        volumeAttributes: { "storage.kubernetes.io/csiProvisionerIdentity": CSI_PROVISIONER_IDENTITY },
      },
      nodeAffinity: {
        required: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: ZONE_KEY, operator: "In", values: [cast.diskZone] }] }],
        },
      },
      persistentVolumeReclaimPolicy: "Delete",
      storageClassName: storageClassName(cast),
      volumeMode: "Filesystem",
    },
    // LESSON.md only says the phase "becomes Bound in step 9". Before that: Pending,
    // because the provisioner sends no status (API defaulting sets Pending) and the
    // PV controller leaves the phase of a PV whose claimRef has a UID untouched
    // (syncVolume). "Available" is what a PV *without* claimRef, or pre-bound
    // without a UID, would show.
    status: { lastPhaseTransitionTime: f.pvPhaseSince, phase: f.bound ? "Bound" : "Pending" },
  };
}

function renderLocalPv(f: Facts): KubeObject {
  return {
    apiVersion: "v1",
    kind: "PersistentVolume",
    metadata: {
      name: LOCAL_PV_NAME,
      ...(f.localPvClaimed ? { annotations: { [ANNOTATIONS.boundByController]: "yes" } } : {}),
      finalizers: [FINALIZERS.pvProtection], // added at admission
    },
    spec: {
      capacity: { storage: LOCAL_PV_CAPACITY },
      volumeMode: "Filesystem",
      accessModes: ["ReadWriteOnce"],
      ...(f.localPvClaimed ? { claimRef: claimRef(CLAIM_RESOURCE_VERSION.local) } : {}),
      // No in-tree deleter for local volumes: cleanup is manual or by the local static provisioner.
      persistentVolumeReclaimPolicy: "Retain",
      storageClassName: "local-storage",
      local: { path: LOCAL_PATH },
      nodeAffinity: {
        required: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: HOSTNAME_KEY, operator: "In", values: ["node-b1"] }] }],
        },
      },
    },
    // Available from the start (claimRef nil); the scheduler's claimRef does not change it, bind() does.
    // Created by the administrator before the lesson starts: Available since then.
    status: { lastPhaseTransitionTime: f.pvPhaseSince ?? CLUSTER_START, phase: f.bound ? "Bound" : "Available" },
  };
}

/**
 * A Pod condition with the keys kubectl prints (lastProbeTime is always null for these), and
 * observedGeneration where the release writes it (the Pod's generation stays 1: nothing edits its spec).
 */
function condition(k: KubeStrings, type: string, status: "True" | "False", since: string | null, reason?: string, message?: string) {
  return {
    lastProbeTime: null,
    lastTransitionTime: since,
    ...(message ? { message } : {}),
    ...(k.podObservedGeneration ? { observedGeneration: POD_GENERATION } : {}),
    ...(reason ? { reason } : {}),
    status,
    type,
  };
}

/** metadata.generation: 1 at creation (from 1.33); no step edits the Pod's spec, so it stays 1. */
const POD_GENERATION = 1;

const UNREADY_MESSAGE = `containers with unready status: [${CONTAINER.name}]`;

function renderPod(f: Facts, cast: ScenarioCast, k: KubeStrings): KubeObject | null {
  if (!f.pod) return null;
  // The API server computes the QoS class when it creates the Pod (PrepareForCreate); it never changes.
  const created = { qosClass: "BestEffort" };
  let status: Record<string, unknown>;
  if (f.schedulingFailure) {
    // The scheduler's failure handler writes PodScheduled=False (with observedGeneration from 1.34).
    status = {
      conditions: [condition(k, "PodScheduled", "False", f.podScheduledSince, "Unschedulable", f.schedulingFailure)],
      phase: "Pending",
      ...created,
    };
  } else if (f.kubeletPickedUp) {
    // The kubelet owns every condition but PodScheduled and writes them in this order
    // (generateAPIPodStatus): PodReadyToStartContainers, Initialized, Ready,
    // ContainersReady, PodScheduled. It writes them before it waits for the volume,
    // so RUN POD already shows them, not yet ready; Initialized is True at once
    // because the Pod has no init containers.
    const running = f.containersRunning;
    const since = running ? f.containersSince : f.kubeletSince;
    status = {
      conditions: [
        condition(k, "PodReadyToStartContainers", running ? "True" : "False", since),
        condition(k, "Initialized", "True", f.kubeletSince),
        running ? condition(k, "Ready", "True", since) : condition(k, "Ready", "False", since, "ContainersNotReady", UNREADY_MESSAGE),
        running
          ? condition(k, "ContainersReady", "True", since)
          : condition(k, "ContainersReady", "False", since, "ContainersNotReady", UNREADY_MESSAGE),
        condition(k, "PodScheduled", "True", f.podScheduledSince),
      ],
      containerStatuses: [
        {
          // The spec's image while the container does not exist yet; then the runtime's normalised reference.
          image: running ? runtimeImageName(CONTAINER.image) : CONTAINER.image,
          lastState: {},
          name: CONTAINER.name,
          ready: running,
          restartCount: 0,
          started: running,
          state: running ? { running: { startedAt: f.containersSince } } : { waiting: { reason: "ContainerCreating" } },
        },
      ],
      ...(k.podObservedGeneration ? { observedGeneration: POD_GENERATION } : {}),
      phase: running ? "Running" : "Pending",
      ...created,
      startTime: f.kubeletSince,
    };
  } else if (f.podNode) {
    // pods/binding sets PodScheduled=True along with spec.nodeName (the binding subresource writes no observedGeneration).
    status = {
      conditions: [{ lastProbeTime: null, lastTransitionTime: f.podScheduledSince, status: "True", type: "PodScheduled" }],
      phase: "Pending",
      ...created,
    };
  } else {
    status = {
      ...(f.nominatedNode && k.nominatesBeforePreBind ? { nominatedNodeName: f.nominatedNode } : {}),
      phase: "Pending",
      ...created,
    };
  }
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: POD_NAME, namespace: NAMESPACE, ...(k.podGeneration ? { generation: POD_GENERATION } : {}) },
    spec: {
      containers: [{ image: CONTAINER.image, name: CONTAINER.name, volumeMounts: [{ mountPath: "/data", name: "data" }] }],
      ...(f.podNode ? { nodeName: f.podNode } : {}),
      ...(cast.podNodeSelector ? { nodeSelector: { ...cast.podNodeSelector } } : {}),
      volumes: [{ name: "data", persistentVolumeClaim: { claimName: PVC_NAME } }],
    },
    status,
  };
}

function renderVolumeAttachment(f: Facts): KubeObject | null {
  if (!f.attached || !f.podNode) return null;
  const name = VOLUME_ATTACHMENT_NAMES[f.podNode];
  if (!name) throw new Error(`no VolumeAttachment name precomputed for ${f.podNode}`);
  return {
    apiVersion: "storage.k8s.io/v1",
    kind: "VolumeAttachment",
    metadata: {
      name,
      // CSINode.spec.drivers[].nodeID: driver-specific; this illustrative driver uses the node name.
      annotations: { [ANNOTATIONS.csiNodeId]: f.podNode },
      finalizers: [FINALIZERS.attacher],
    },
    spec: { attacher: DRIVER, nodeName: f.podNode, source: { persistentVolumeName: DYNAMIC_PV_NAME } },
    // publish_context is empty for this driver, and an empty map is omitted (omitempty), not printed as {}.
    status: { attached: true },
  };
}

function renderDisk(f: Facts, cast: ScenarioCast): Disk | null {
  if (cast.localPv) return { id: LOCAL_PATH, zone: zoneOf("node-b1"), node: "node-b1", kind: "local" };
  if (!f.diskCreated || !cast.diskZone) return null;
  return { id: VOLUME_HANDLE, zone: cast.diskZone, kind: "cloud" };
}

/** The cluster as `version` shows it, after what `f` says has happened. */
export function render(f: Facts, cast: ScenarioCast, version: KubeVersion): World {
  return {
    storageClass: cast.storageClass,
    pvc: renderPvc(f, cast),
    pv: cast.localPv ? renderLocalPv(f) : renderDynamicPv(f, cast),
    pod: renderPod(f, cast, kubeStrings(version)),
    volumeAttachment: renderVolumeAttachment(f),
    disk: renderDisk(f, cast),
    nodes: NODES.map((n) => ({ ...n })),
    podNode: f.podNode,
    events: f.events,
  };
}
