import { KUBERNETES_VERSION, LEGACY_SCHEDULING_REASONS, SCHEDULING_REASONS } from "./kubeCluster";
import type { Lifeline, ScenarioStep } from "./types";

/**
 * The card the teacher presents from (shared/seed/dynamic-provisioning-sequence.txt):
 * its lifelines, its 12 WaitForFirstConsumer steps and its notes, verbatim where
 * the card has words. LESSON.md section 1 is the reference for what each step does.
 */

export const LIFELINES: readonly Lifeline[] = [
  { id: "you", badge: "YOU", name: "You", role: "kubectl apply" },
  { id: "control", badge: "API", name: "Control plane", role: "API server + controllers" },
  { id: "scheduler", badge: "SCHED", name: "Scheduler", role: "kube-scheduler" },
  { id: "csi", badge: "CSI", name: "CSI", role: "Provisioner sidecar + CSI driver" },
  { id: "node", badge: "NODE", name: "Kubelet", role: "agent on the node" },
];

export const ARROW_LEGEND = {
  request: "Request / write",
  watch: "Noticed via watch",
  storage: "Calls storage API",
  binding: "Binding (headline)",
} as const;

export const CARD_TITLE = "Dynamic provisioning, step by step";
export const CARD_INTRO =
  "Time runs top to bottom. The StorageClass here uses volumeBindingMode: WaitForFirstConsumer, so the disk is not created when the PVC appears. It is created only after the scheduler has picked a node for the Pod that uses it.";

/** The card's fidelity notes: shown as teaching notes on every view. */
export const FIDELITY_NOTES: readonly string[] = [
  '"Control plane" combines the API server, etcd and the PV controller into one lifeline.',
  'Components really watch the API server. The dashed open arrows show "noticed a change", not a direct call.',
  'Step 12 "MOUNT" covers attach (the attach/detach controller plus the CSI attacher) and the kubelet\'s stage/publish mount.',
  "Not shown: retries, failures, ResourceQuota, access modes.",
];

/** Shown beside the mode badge on every view: which release's output the screens reproduce. */
export const KUBERNETES_VERSION_LABEL = `Kubernetes ${KUBERNETES_VERSION}+`;
export const KUBERNETES_VERSION_STATEMENT = `Objects, events and messages are shown as Kubernetes ${KUBERNETES_VERSION} and later print them.`;

/**
 * Where older or differently configured clusters print something else
 * (LESSON.md section 6, "Version note"). Without these, someone on 1.32 would
 * think the lesson is wrong when their cluster prints the old reason.
 */
export const VERSION_NOTES: readonly string[] = [
  KUBERNETES_VERSION_STATEMENT,
  `On 1.32 and older the scheduler's reason reads "${LEGACY_SCHEDULING_REASONS.pvNodeAffinity}" instead of "${SCHEDULING_REASONS.pvNodeAffinity}" (renamed in v1.33.0), and the kubelet writes "Created container app" without the colon.`,
  'With dynamic resource allocation enabled (GA in 1.34) a FailedScheduling message can end in "… no new claims to deallocate, preemption: …"; the lesson shows the plain tail.',
  "The YAML leaves out fields the lesson does not use (creationTimestamp, resourceVersion, managedFields, IPs, container IDs); what it shows is in the order kubectl get -o yaml prints it.",
];

export const STEP_1_NOTE = "The PVC sits in Pending. No Pod needs it yet, so nothing is created.";
export const STEP_9_NOTE = "PVC and PV are now Bound. Only now can the Pod start.";

/** The card's main track: WaitForFirstConsumer with a CSI provisioner. */
export const WFFC_STEPS: readonly ScenarioStep[] = [
  {
    label: 1,
    title: "CREATE PVC",
    from: "you",
    to: "control",
    kind: "request",
    narration: "You create the PVC. It sits in Pending: no Pod needs it yet, so nothing is created. Pending here is normal, not an error.",
    speakerNotes:
      "The PV controller sees the new claim, finds no PV (it skips unbound PVs for delay-binding claims) and, because selected-node is not set, emits WaitForFirstConsumer and stops. No storage-provisioner annotation, no PV. The CSI provisioner sees the PVC too but ignores it.",
    note: STEP_1_NOTE,
  },
  {
    label: 2,
    title: "CREATE POD",
    from: "you",
    to: "control",
    kind: "request",
    narration: "You create a Pod that uses the PVC. It has no node yet.",
    speakerNotes:
      "spec.nodeName is empty. Setting nodeName by hand would bypass the scheduler and the PVC would stay Pending. If the PV controller syncs now it emits WaitForPodScheduled.",
  },
  {
    label: 3,
    title: "NEW POD",
    from: "control",
    to: "scheduler",
    kind: "watch",
    narration: "The scheduler notices the new Pod through its watch.",
    speakerNotes:
      "VolumeBinding.PreFilter classifies the claim as unbound with delayed binding (WaitForFirstConsumer and spec.volumeName empty).",
  },
  {
    label: 4,
    title: "PICK NODE",
    from: "scheduler",
    to: "scheduler",
    kind: "request",
    narration: "The scheduler picks a node for the Pod, checking that a volume could be provisioned there.",
    speakerNotes:
      "Per node: static PVs are tried first; otherwise checkVolumeProvisions checks the provisioner, allowedTopologies and CSIStorageCapacity. Reserve writes selected-node into the scheduler's in-memory assume cache only.",
  },
  {
    label: 5,
    title: "NODE CHOSEN",
    from: "scheduler",
    to: "control",
    kind: "request",
    narration: "The scheduler records its choice on the PVC: the volume.kubernetes.io/selected-node annotation.",
    speakerNotes:
      "In PreBind the scheduler PUTs the annotation, then polls every second (up to 600 s) until the PVC is fully bound. The Pod still has no spec.nodeName.",
  },
  {
    label: 6,
    title: "PROVISION",
    from: "control",
    to: "csi",
    kind: "watch",
    narration: "The CSI provisioner notices the PVC now has a selected node and starts provisioning.",
    speakerNotes:
      "Hidden hop: the PV controller first writes the storage-provisioner annotations and emits ExternalProvisioning; only then does the provisioner's shouldProvision pass. It emits Provisioning and reads the selected node's topology.",
  },
  {
    label: 7,
    title: "CREATE DISK",
    from: "csi",
    to: "csi",
    kind: "storage",
    narration: "The driver creates the disk where the chosen node can reach it, for example in the same zone.",
    speakerNotes:
      "gRPC CreateVolume named pvc-<PVC UID>. accessibility_requirements put the selected node's zone first in preferred; only --strict-topology makes it the only choice.",
  },
  {
    label: 8,
    title: "CREATE PV",
    from: "csi",
    to: "control",
    kind: "request",
    narration: "The provisioner creates a PV for the new disk, already pointing at the PVC.",
    speakerNotes:
      "PV pvc-<UID> with spec.csi, nodeAffinity from accessible_topology, claimRef with the PVC's UID, and provisioned-by. Emits ProvisioningSucceeded.",
  },
  {
    label: 9,
    title: "BIND PVC+PV",
    from: "control",
    to: "control",
    kind: "binding",
    narration: "PVC and PV are now Bound. Only now can the Pod start.",
    speakerNotes:
      "The PV controller binds: PV Bound; PVC spec.volumeName plus bound-by-controller and bind-completed; PVC Bound. The PV gets no bound-by-controller because its claimRef was already complete. No success event.",
    note: STEP_9_NOTE,
  },
  {
    label: 10,
    title: "BIND POD",
    from: "scheduler",
    to: "control",
    kind: "binding",
    narration: "The scheduler's wait ends: it binds the Pod to the chosen node.",
    speakerNotes:
      "PreBind returns once the PVC is fully bound; the binder POSTs pods/app/binding, setting spec.nodeName. Event: Scheduled.",
  },
  {
    label: 11,
    title: "RUN POD",
    from: "control",
    to: "node",
    kind: "watch",
    narration: "The kubelet on that node picks the Pod up. Containers wait for the volume.",
    speakerNotes:
      "RUN POD means the kubelet picked the pod up; it waits for attach and mount before starting containers. The attach/detach controller notices the scheduled pod at the same moment.",
  },
  {
    label: 12,
    title: "MOUNT",
    from: "node",
    to: "csi",
    kind: "storage",
    narration: "The volume is attached and mounted into the Pod, and the containers start.",
    speakerNotes:
      "Attach: the attach/detach controller creates a VolumeAttachment, the CSI attacher calls ControllerPublishVolume. Mount: the kubelet calls NodeStageVolume then NodePublishVolume, then starts containers.",
  },
];
