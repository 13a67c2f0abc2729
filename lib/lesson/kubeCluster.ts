/** The lesson's Kubernetes cluster: its names, versions and the objects every scenario shares (not the server's Redis scale-out, which is server/scaleout). */
import { kubeStrings } from "./kubeStrings";
import type { BindingMode, KubeObject, NodeVerdict, TopologyNode, VariantId } from "./types";
import { DEFAULT_KUBE_VERSION, type KubeVersion } from "./versions";

/**
 * The illustrative cluster every scenario runs in (LESSON.md sections 3 and 8).
 * Names are fixed so that YAML, events and narration agree on every screen.
 */

export const NAMESPACE = "default";
export const DRIVER = "disk.csi.example.com";
export const PVC_NAME = "data";
export const PVC_UID = "3f1c0a52-0000-0000-0000-000000000000";
export const POD_NAME = "app";
export const REQUESTED_STORAGE = "10Gi";
/** "pvc-" + the PVC's UID: external-provisioner's default --volume-name-prefix. */
export const DYNAMIC_PV_NAME = `pvc-${PVC_UID}`;
/** CreateVolumeResponse.volume.volume_id, which becomes spec.csi.volumeHandle. */
export const VOLUME_HANDLE = "vol-0abc123";
export const CSI_PROVISIONER_IDENTITY = "1700000000000-1234-disk.csi.example.com";

export const LOCAL_PV_NAME = "local-pv-node-b1-ssd1";
export const LOCAL_PATH = "/mnt/disks/ssd1";
export const LOCAL_PV_CAPACITY = "100Gi";

export const ZONE_KEY = "topology.kubernetes.io/zone";
export const HOSTNAME_KEY = "kubernetes.io/hostname";

export const NODES: readonly TopologyNode[] = [
  { name: "node-a", zone: "zone-a" },
  { name: "node-b1", zone: "zone-b" },
  { name: "node-b2", zone: "zone-b" },
];

export const ANNOTATIONS = {
  selectedNode: "volume.kubernetes.io/selected-node",
  storageProvisioner: "volume.kubernetes.io/storage-provisioner",
  storageProvisionerBeta: "volume.beta.kubernetes.io/storage-provisioner",
  bindCompleted: "pv.kubernetes.io/bind-completed",
  boundByController: "pv.kubernetes.io/bound-by-controller",
  provisionedBy: "pv.kubernetes.io/provisioned-by",
  deletionSecretName: "volume.kubernetes.io/provisioner-deletion-secret-name",
  deletionSecretNamespace: "volume.kubernetes.io/provisioner-deletion-secret-namespace",
  csiNodeId: "csi.alpha.kubernetes.io/node-id",
} as const;

export const FINALIZERS = {
  pvcProtection: "kubernetes.io/pvc-protection",
  pvProtection: "kubernetes.io/pv-protection",
  provisioner: "external-provisioner.volume.kubernetes.io/finalizer",
  /** external-attacher/<driver with every char outside [a-zA-Z0-9-] replaced by "-"> (SanitizeDriverName). */
  attacher: "external-attacher/disk-csi-example-com",
} as const;

/**
 * VolumeAttachment names: "csi-" + hex sha256(volumeHandle + driver + nodeName)
 * (csi_attacher.go getAttachmentName). Precomputed so the model needs no crypto:
 * printf '%s' 'vol-0abc123disk.csi.example.comnode-b1' | sha256sum
 */
export const VOLUME_ATTACHMENT_NAMES: Readonly<Record<string, string>> = {
  "node-a": "csi-465810198d693bc7c8501b2be72775e9c0ff1082731e53ab06518f6692a73ce3",
  "node-b1": "csi-18fd609571057fe1158b124abe3e46fec52638c9065cdc1d5b2919d172c325a9",
};

/** The scenarios that exist: every (mode, variant) pair VARIANTS_BY_MODE offers. */
export const SCENARIO_IDS = [
  "WaitForFirstConsumer/standard",
  "Immediate/standard",
  "Immediate/zone-conflict",
  "Local/standard",
  "Local/no-local-pv",
] as const;
export type ScenarioId = (typeof SCENARIO_IDS)[number];

/** The mode and variant a scenario id names. */
const SCENARIO_PARTS: Record<ScenarioId, [BindingMode, VariantId]> = {
  "WaitForFirstConsumer/standard": ["WaitForFirstConsumer", "standard"],
  "Immediate/standard": ["Immediate", "standard"],
  "Immediate/zone-conflict": ["Immediate", "zone-conflict"],
  "Local/standard": ["Local", "standard"],
  "Local/no-local-pv": ["Local", "no-local-pv"],
};

export function scenarioParts(id: ScenarioId): [BindingMode, VariantId] {
  return SCENARIO_PARTS[id];
}

export function scenarioId(mode: BindingMode, variant: VariantId): ScenarioId | null {
  const id = `${mode}/${variant}`;
  return SCENARIO_IDS.find((known) => known === id) ?? null;
}

/**
 * The release the old single-version screens print: the default one. Screens that know the class's
 * release pass it to getScenario, versionLabel and versionStatement instead.
 */
export const KUBERNETES_VERSION: KubeVersion = DEFAULT_KUBE_VERSION;

/** The FailedScheduling reasons the lesson's nodes report (binder.go / the NodeAffinity plugin), as `version` prints them. */
export function schedulingReasons(version: KubeVersion = DEFAULT_KUBE_VERSION) {
  const { nodeAffinity, pvNodeAffinity, noPersistentVolumes } = kubeStrings(version).reasons;
  return { nodeAffinity, pvNodeAffinity, noPersistentVolumes } as const;
}

/** FailedScheduling reasons used here, as v1.33 and later print them (the default release's). */
export const SCHEDULING_REASONS = schedulingReasons(DEFAULT_KUBE_VERSION);

/** What clusters on 1.32 and older print instead, for the fidelity note and the lab's "older cluster" hints. */
export const LEGACY_SCHEDULING_REASONS = {
  /** ErrReasonNodeConflict before v1.33.0 (kubernetes PR #129887). */
  pvNodeAffinity: schedulingReasons("1.32").pvNodeAffinity,
} as const;

/** What differs between scenarios: the class, where the disk lands, the Pod's constraint, who wins PICK NODE. */
export interface ScenarioCast {
  storageClass: KubeObject;
  /** Zone of the dynamically provisioned disk; null when nothing is provisioned. */
  diskZone: string | null;
  /** The Pod's nodeSelector, or null for none. */
  podNodeSelector: Record<string, string> | null;
  /** The node the Pod is bound to at step 10, or null when scheduling fails. */
  chosenNode: string | null;
  /** Whether the hand-made local PV exists from the start. */
  localPv: boolean;
  /** PICK NODE's verdict per node. */
  nodeVerdicts: NodeVerdict[];
}

// The three classes exactly as LESSON.md section 8 writes them. reclaimPolicy is
// shown on all three because the API server defaults it to Delete and `kubectl
// get -o yaml` prints it; the local PV itself is Retain (set by its author).
const WFFC_CLASS: KubeObject = {
  apiVersion: "storage.k8s.io/v1",
  kind: "StorageClass",
  metadata: { name: "zonal-wffc" },
  provisioner: DRIVER,
  volumeBindingMode: "WaitForFirstConsumer",
  reclaimPolicy: "Delete",
  parameters: { "csi.storage.k8s.io/fstype": "ext4" },
};

// No allowedTopologies: section 3's zone-mismatch scenario needs the class unpinned.
const IMMEDIATE_CLASS: KubeObject = {
  apiVersion: "storage.k8s.io/v1",
  kind: "StorageClass",
  metadata: { name: "zonal-immediate" },
  provisioner: DRIVER,
  volumeBindingMode: "Immediate",
  reclaimPolicy: "Delete",
  parameters: { "csi.storage.k8s.io/fstype": "ext4" },
};

const LOCAL_CLASS: KubeObject = {
  apiVersion: "storage.k8s.io/v1",
  kind: "StorageClass",
  metadata: { name: "local-storage" },
  provisioner: "kubernetes.io/no-provisioner",
  volumeBindingMode: "WaitForFirstConsumer",
  reclaimPolicy: "Delete",
};

const fits = (node: string): NodeVerdict => ({ node, fits: true });
const rejects = (node: string, failedFilter: NodeVerdict["failedFilter"], reason: string): NodeVerdict => ({
  node,
  fits: false,
  failedFilter,
  reason,
});

/*
 * Only the zone-conflict Pod carries a nodeSelector. The other Pods are free to
 * run anywhere: that is what lets Immediate/standard follow its zone-a disk to
 * node-a, and what makes every node reach VolumeBinding in Local/no-local-pv
 * (LESSON's "3 node(s) didn't find available persistent volumes to bind" needs
 * all three nodes to get past NodeAffinity). Both Immediate variants put the disk
 * in zone-a: same PVC name, same hash-rotated `preferred`, same zone.
 */
function buildCasts(version: KubeVersion): Readonly<Record<ScenarioId, ScenarioCast>> {
  const reasons = schedulingReasons(version);
  return {
    "WaitForFirstConsumer/standard": {
      storageClass: WFFC_CLASS,
      diskZone: "zone-b",
      podNodeSelector: null,
      chosenNode: "node-b1",
      localPv: false,
      // Every node could get a provisioned volume; scoring picks node-b1.
      nodeVerdicts: [fits("node-a"), fits("node-b1"), fits("node-b2")],
    },
    "Immediate/standard": {
      storageClass: IMMEDIATE_CLASS,
      diskZone: "zone-a",
      podNodeSelector: null,
      chosenNode: "node-a",
      localPv: false,
      nodeVerdicts: [
        fits("node-a"),
        rejects("node-b1", "VolumeBinding", reasons.pvNodeAffinity),
        rejects("node-b2", "VolumeBinding", reasons.pvNodeAffinity),
      ],
    },
    "Immediate/zone-conflict": {
      storageClass: IMMEDIATE_CLASS,
      diskZone: "zone-a",
      podNodeSelector: { [ZONE_KEY]: "zone-b" },
      chosenNode: null,
      localPv: false,
      // NodeAffinity runs before VolumeBinding, so node-a reports the selector, not the volume.
      nodeVerdicts: [
        rejects("node-a", "NodeAffinity", reasons.nodeAffinity),
        rejects("node-b1", "VolumeBinding", reasons.pvNodeAffinity),
        rejects("node-b2", "VolumeBinding", reasons.pvNodeAffinity),
      ],
    },
    "Local/standard": {
      storageClass: LOCAL_CLASS,
      diskZone: null,
      podNodeSelector: null,
      chosenNode: "node-b1",
      localPv: true,
      nodeVerdicts: [
        rejects("node-a", "VolumeBinding", reasons.noPersistentVolumes),
        fits("node-b1"),
        rejects("node-b2", "VolumeBinding", reasons.noPersistentVolumes),
      ],
    },
    "Local/no-local-pv": {
      storageClass: LOCAL_CLASS,
      diskZone: null,
      podNodeSelector: null,
      chosenNode: null,
      localPv: false,
      nodeVerdicts: [
        rejects("node-a", "VolumeBinding", reasons.noPersistentVolumes),
        rejects("node-b1", "VolumeBinding", reasons.noPersistentVolumes),
        rejects("node-b2", "VolumeBinding", reasons.noPersistentVolumes),
      ],
    },
  };
}

const CASTS: Readonly<Record<KubeVersion, Readonly<Record<ScenarioId, ScenarioCast>>>> = {
  "1.32": buildCasts("1.32"),
  "1.33": buildCasts("1.33"),
  "1.34": buildCasts("1.34"),
  "1.35": buildCasts("1.35"),
};

/** Each scenario's cast with the reasons `version`'s scheduler prints. The same object on every call. */
export function scenarioCasts(version: KubeVersion = DEFAULT_KUBE_VERSION): Readonly<Record<ScenarioId, ScenarioCast>> {
  return CASTS[version];
}

/** The default release's casts (kept for callers that do not pass a release yet). */
export const SCENARIO_CASTS: Readonly<Record<ScenarioId, ScenarioCast>> = scenarioCasts(DEFAULT_KUBE_VERSION);

export function zoneOf(node: string): string {
  const found = NODES.find((n) => n.name === node);
  if (!found) throw new Error(`unknown node ${node}`);
  return found.zone;
}
