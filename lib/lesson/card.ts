import { kubeStrings } from "./kubeStrings";
import type { Lifeline, ScenarioStep } from "./types";
import { DEFAULT_KUBE_VERSION, KUBE_VERSION_LABELS, type KubeVersion } from "./versions";

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

/** Shown beside the mode badge on every view: which release's output the screens reproduce, e.g. "Kubernetes 1.35 or later". */
export function versionLabel(version: KubeVersion = DEFAULT_KUBE_VERSION): string {
  return `Kubernetes ${KUBE_VERSION_LABELS[version]}`;
}

// Who prints the strings: the describe prefix is kubectl's, so the statement names the client too.
const PRINTED_BY: Record<KubeVersion, string> = {
  "1.32": "Kubernetes 1.32 and its kubectl print",
  "1.33": "Kubernetes 1.33 and its kubectl print",
  "1.34": "Kubernetes 1.34 (patch 1.34.2 or later) and its kubectl print",
  "1.35": "Kubernetes 1.35 and later, with a kubectl of the same release, print",
};

/** One sentence for every screen: which release's output it reproduces. */
export function versionStatement(version: KubeVersion = DEFAULT_KUBE_VERSION): string {
  return `Objects, events and messages are shown as ${PRINTED_BY[version]} them.`;
}

/** The default release's label and statement (kept for screens that do not pass the class's release yet). */
export const KUBERNETES_VERSION_LABEL = versionLabel(DEFAULT_KUBE_VERSION);
export const KUBERNETES_VERSION_STATEMENT = versionStatement(DEFAULT_KUBE_VERSION);

const YAML_NOTE =
  "The YAML leaves out fields the lesson does not use (creationTimestamp, resourceVersion, managedFields, IPs, container and image IDs, and the container status's volumeMounts, resources and user); what it shows is in the order kubectl get -o yaml prints it.";

/**
 * Where the other releases print something else (LESSON.md, "Version notes"). Without these,
 * someone whose cluster runs another release would think the lesson is wrong. Each note names
 * the releases it is about, so the same wording never reads as this release's when it is not.
 */
export function versionNotes(version: KubeVersion = DEFAULT_KUBE_VERSION): readonly string[] {
  return VERSION_NOTES_BY_RELEASE[version];
}

function buildVersionNotes(version: KubeVersion): readonly string[] {
  const k = kubeStrings(version);
  const legacyReason = kubeStrings("1.32").reasons.pvNodeAffinity;
  const currentReason = kubeStrings("1.33").reasons.pvNodeAffinity;
  const kubelet: Record<KubeVersion, string> = {
    "1.32": `The kubelet writes "${k.created("app")}" and "${k.started("app")}" (1.33 and 1.34: "Created container: app"; 1.35 and later: "Container created" and "Container started").`,
    "1.33": `The kubelet writes "${k.created("app")}" and "${k.started("app")}" (1.32 and older: "Created container app"; 1.35 and later: "Container created" and "Container started").`,
    "1.34": `The kubelet writes "${k.created("app")}" and "${k.started("app")}" (1.32 and older: "Created container app"; 1.35 and later: "Container created" and "Container started").`,
    "1.35": `The kubelet writes "${k.created("app")}" and "${k.started("app")}" without the container's name (1.33 and 1.34: "Created container: app" and "Started container app"; 1.32 and older: "Created container app").`,
  };
  const describe = k.describePrefixesFieldPath
    ? `kubectl describe (1.35 and later) puts the container's field path before the kubelet's container events: "spec.containers{app}: Container created". kubectl events and kubectl get events print the message alone.`
    : `kubectl describe prints the kubelet's messages as they are; from kubectl 1.35 it puts the container's field path first ("spec.containers{app}: Container created").`;
  const reason =
    version === "1.32"
      ? `The scheduler's reason reads "${legacyReason}" (1.33 and later: "${currentReason}", renamed in v1.33.0).`
      : `The scheduler's reason reads "${currentReason}" (1.32 and older: "${legacyReason}", renamed in v1.33.0).`;
  const dra = k.postFilterReasons.length
    ? `Dynamic resource allocation is on by default from 1.34, so every FailedScheduling ends "… no new claims to deallocate, preemption: …", even for a Pod without ResourceClaims (1.33 and older go straight to "preemption: …").`
    : `FailedScheduling goes straight from the nodes' reasons to "preemption: …"; from 1.34, with dynamic resource allocation on by default, it reads "… no new claims to deallocate, preemption: …".`;
  const pulled =
    version === "1.35"
      ? `When the image is already on the node, Pulled reads "${k.alreadyPresent("nginx")}" (the kubelet checks the Pod's pull credentials, on by default from 1.35; before: "… already present on machine"). With image: nginx (no tag) the pull policy is Always, so the lesson shows Pulling and "Successfully pulled".`
      : `When the image is already on the node, Pulled reads "${k.alreadyPresent("nginx")}" (1.35 and later add "and can be accessed by the pod"). With image: nginx (no tag) the pull policy is Always, so the lesson shows Pulling and "Successfully pulled".`;
  const generation: Record<KubeVersion, string> = {
    "1.32":
      "Pods have no metadata.generation and no observedGeneration (1.33 adds metadata.generation; 1.34 adds status.observedGeneration and each condition's observedGeneration).",
    "1.33":
      "Pods carry metadata.generation (new in 1.33) but no observedGeneration yet (1.34 adds status.observedGeneration and each condition's observedGeneration).",
    "1.34":
      "Pods carry metadata.generation, status.observedGeneration once the kubelet writes the status, and observedGeneration on each condition (on by default from 1.34).",
    "1.35":
      "Pods carry metadata.generation, status.observedGeneration once the kubelet writes the status, and observedGeneration on each condition (from 1.34).",
  };
  const taint =
    version === "1.34"
      ? `A tainted node (kind's control plane) is counted as "node(s) had untolerated taint(s)": the lesson shows patch 1.34.2 and later; 1.34.0 and 1.34.1 print "node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }".`
      : version === "1.35"
        ? `A tainted node (kind's control plane) is counted as "node(s) had untolerated taint(s)" (1.34.1 and older name the taint: "node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }").`
        : `A tainted node (kind's control plane) is counted as "${k.untoleratedTaint("node-role.kubernetes.io/control-plane", "")}" (1.34.2 and later: "node(s) had untolerated taint(s)").`;
  const notes = [versionStatement(version), kubelet[version], describe, reason, dra, pulled, generation[version], taint];
  if (k.nominatesBeforePreBind) {
    notes.push(
      "While the scheduler waits in PreBind for a volume (WaitForFirstConsumer and Local), the Pod shows status.nominatedNodeName, so kubectl get pod -o wide has a NOMINATED NODE; binding clears it (new in 1.35).",
    );
  }
  if (version === "1.32")
    notes.push(
      "Releases before 1.32 differ in more places than these notes list (for example the ExternalProvisioning wording before 1.28).",
    );
  notes.push(YAML_NOTE);
  return Object.freeze(notes);
}

const VERSION_NOTES_BY_RELEASE: Readonly<Record<KubeVersion, readonly string[]>> = {
  "1.32": buildVersionNotes("1.32"),
  "1.33": buildVersionNotes("1.33"),
  "1.34": buildVersionNotes("1.34"),
  "1.35": buildVersionNotes("1.35"),
};

/** The default release's notes (kept for screens that do not pass the class's release yet). */
export const VERSION_NOTES: readonly string[] = versionNotes(DEFAULT_KUBE_VERSION);

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
