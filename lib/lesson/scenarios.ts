import { FIDELITY_NOTES, STEP_1_NOTE, STEP_9_NOTE, WFFC_STEPS, versionLabel, versionNotes, versionStatement } from "./card";
import {
  DRIVER,
  DYNAMIC_PV_NAME,
  LOCAL_PATH,
  LOCAL_PV_CAPACITY,
  LOCAL_PV_NAME,
  scenarioCasts,
  scenarioId,
  scenarioParts,
  type ScenarioCast,
  type ScenarioId,
} from "./kubeCluster";
import { eventMessages, failedSchedulingMessage, type EventMessages } from "./events";
import { kubeStrings, type KubeStrings } from "./kubeStrings";
import type { BindingMode, Scenario, ScenarioStep, UnderTheHood, VariantId } from "./types";
import { DEFAULT_KUBE_VERSION, isKubeVersion, type KubeVersion } from "./versions";

/**
 * The five scenarios as data: the card's WaitForFirstConsumer track, Immediate
 * (succeeding, and failing on a zone conflict) and Local PVs (a matching PV,
 * and none). Every word on the diagram, the teacher's console and the "under
 * the hood" expanders comes from here; LESSON.md is the reference for all of it.
 */

/** Which variants each mode offers; the first is the default. */
export const VARIANTS_BY_MODE: Record<BindingMode, readonly VariantId[]> = {
  WaitForFirstConsumer: ["standard"],
  Immediate: ["standard", "zone-conflict"],
  Local: ["standard", "no-local-pv"],
};

export function isVariantOf(mode: BindingMode, variant: VariantId): boolean {
  return VARIANTS_BY_MODE[mode].includes(variant);
}

function cardStep(label: number): ScenarioStep {
  const found = WFFC_STEPS.find((s) => s.label === label);
  if (!found) throw new Error(`the card has no step ${label}`);
  return found;
}

/**
 * A scenario as one Kubernetes release prints it. The release travels with the object, so
 * worldAt(scenario, i) renders that release's objects and events without another argument.
 */
export interface VersionedScenario extends Scenario {
  readonly kubeVersion: KubeVersion;
  /** e.g. "Kubernetes 1.35 or later". */
  readonly versionLabel: string;
  /** "Objects, events and messages are shown as …", for every screen. */
  readonly versionStatement: string;
  /** Where other releases print something else. */
  readonly versionNotes: readonly string[];
  /** The card's fidelity notes (the same for every release). */
  readonly fidelityNotes: readonly string[];
}

/** What a release changes in the scenarios' words: its strings, its casts' reasons, its event messages. */
interface Release {
  version: KubeVersion;
  k: KubeStrings;
  casts: Readonly<Record<ScenarioId, ScenarioCast>>;
  messages: EventMessages;
}

function release(version: KubeVersion): Release {
  return { version, k: kubeStrings(version), casts: scenarioCasts(version), messages: eventMessages(version) };
}

/** How the PostFilter tail of a FailedScheduling message comes about in this release. */
function postFilterExplained(r: Release): string {
  return r.k.postFilterReasons.length
    ? 'Then the PostFilter plugins add their reasons, joined with ", ": DynamicResources (on by default since 1.34) says "no new claims to deallocate" even for a Pod without ResourceClaims, and DefaultPreemption "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."'
    : 'The DefaultPreemption PostFilter appends "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling." (From 1.34 DynamicResources, on by default, puts "no new claims to deallocate, " before it.)';
}

/** The renamed node-affinity reason with the other releases' wording, for expanders. */
function pvReasonWithHistory(r: Release): string {
  return r.version === "1.32"
    ? `${r.k.reasons.pvNodeAffinity} (the 1.32 and older wording; 1.33 and later print ${kubeStrings("1.33").reasons.pvNodeAffinity})`
    : `${r.k.reasons.pvNodeAffinity} (1.32 and older print ${kubeStrings("1.32").reasons.pvNodeAffinity})`;
}

// ---------------------------------------------------------------------------
// Expanders shared by several scenarios. Each covers something the card
// simplifies (LESSON.md "Where the card simplifies" and sections 1-7).
// ---------------------------------------------------------------------------

const UTH_ADMISSION: UnderTheHood = {
  title: "What the API server adds",
  body: 'Admission adds the finalizer kubernetes.io/pvc-protection (and fills spec.storageClassName from the default class if you left it out); defaulting sets status.phase: Pending. ResourceQuota is enforced right here, at admission: over quota, kubectl apply fails with HTTP 403 (persistentvolumeclaims "data" is forbidden: exceeded quota: …) and nothing is created.',
};

const UTH_CONTROL_PLANE: UnderTheHood = {
  title: '"Control plane" is several components',
  body: "The card's Control plane lifeline is the API server with etcd, plus the PV controller (persistentvolume-controller) and, at step 12, the attach/detach controller, both inside kube-controller-manager. They never call each other: each writes through the API server and watches it.",
};

const UTH_NODE_NAME: UnderTheHood = {
  title: "Leave spec.nodeName empty",
  body: "Setting nodeName yourself bypasses the scheduler, and the docs warn that the PVC will then remain in pending state: nobody ever picks a node for the volume.",
};

const UTH_WATCH: UnderTheHood = {
  title: "A watch, not a call",
  body: 'Nobody sends the Pod to the scheduler. Its informer receives a watch notification from the API server (the dashed, open arrow: "noticed a change") and queues the Pod. Every component on the card learns of changes this way.',
};

const UTH_RESERVE: UnderTheHood = {
  title: "Reserve happens in memory only",
  body: "In Reserve, AssumePodVolumes records the decision in the scheduler's assume cache, an in-memory copy of the objects. Nothing reaches the API server until PreBind (step 5).",
};

function uthPrebindWait(r: Release, node: string): UnderTheHood {
  const nominated = r.k.nominatesBeforePreBind
    ? ` Since 1.35 the scheduler first sets the Pod's status.nominatedNodeName: ${node}, so NOMINATED NODE shows ${node} until binding clears it.`
    : "";
  return {
    title: "PreBind waits for the bind (steps 5 → 10)",
    body: `After its write, PreBind polls every 1 s, for up to bindTimeoutSeconds (default 600), until the PVC is fully bound: spec.volumeName set and the pv.kubernetes.io/bind-completed annotation present. Until then the Pod has no spec.nodeName, so kubectl get pod -o wide shows no NODE.${nominated} On timeout the Pod gets FailedScheduling (running PreBind plugin "VolumeBinding": binding volumes: context deadline exceeded; older releases: timed out waiting for the condition) and is requeued with backoff.`,
  };
}

const UTH_PROVISIONER_DOWN: UnderTheHood = {
  title: "If the provisioner is not running",
  body: 'Then ExternalProvisioning, repeated on every 15 s re-sync, is the only signal. Its wording ("please verify that the provisioner is running and correctly registered") is there for exactly this case.',
};

const UTH_PROVISION_FAILURES: UnderTheHood = {
  title: "When provisioning fails",
  body: "Failures show on the PVC as ProvisioningFailed and the PVC stays Pending. The external-provisioner retries with exponential backoff from 1 s to 5 min and never gives up; each attempt emits Provisioning then ProvisioningFailed. Under WaitForFirstConsumer a ResourceExhausted answer (or a missing Node/CSINode) makes it delete selected-node, so the scheduler picks a node again.",
};

function uthPvContents(zone: string, storageClass: string): UnderTheHood {
  return {
    title: "What the new PV carries",
    body: `Name ${DYNAMIC_PV_NAME} ("pvc-" + the PVC's UID). spec.csi: driver ${DRIVER}, volumeHandle vol-0abc123 (CreateVolume's volume_id), fsType ext4, volumeAttributes with storage.kubernetes.io/csiProvisionerIdentity. spec.nodeAffinity: one term per accessible_topology entry, here topology.kubernetes.io/zone In [${zone}]. spec.claimRef: default/data with the PVC's UID and the resourceVersion the provisioner read (GetReference). storageClassName ${storageClass}, reclaim policy Delete from the class. Annotations: pv.kubernetes.io/provisioned-by plus the two provisioner-deletion-secret annotations (both "" without secrets). Finalizers, in this order: external-provisioner.volume.kubernetes.io/finalizer (set by the provisioner), then kubernetes.io/pv-protection (appended at admission). status.phase: Pending with lastPhaseTransitionTime. The provisioner emits ProvisioningSucceeded.`,
  };
}

const UTH_PV_PHASE: UnderTheHood = {
  title: "The PV's phase before binding",
  body: "The provisioner sends no status, so API defaulting gives the new PV status.phase: Pending. The PV controller does not touch the phase of a PV whose claimRef already carries a UID; it queues the claim and binds from the claim side (step 9), where the PV becomes Bound.",
};

const UTH_BIND_WRITES: UnderTheHood = {
  title: "What bind() writes",
  body: 'The PV controller\'s bind() makes three writes: PV status.phase: Bound; PVC spec.volumeName plus the annotations pv.kubernetes.io/bound-by-controller: "yes" and pv.kubernetes.io/bind-completed: "yes"; PVC status.phase: Bound with status.capacity and status.accessModes from the PV. There is no success event.',
};

const UTH_NO_PV_BOUND_BY: UnderTheHood = {
  title: "Why the PV gets no bound-by-controller",
  body: "The provisioner already wrote a complete claimRef (with the PVC's UID), so the PV's spec is not dirty and GetBindVolumeToClaim adds nothing to it. Only the PVC is annotated. kubectl describe pv on a CSI volume lists pv.kubernetes.io/provisioned-by and the two provisioner-deletion-secret annotations (empty without secrets; external-provisioner sets them on every PV since v3.2.0), and no bound-by-controller.",
};

const UTH_ACCESS_MODES: UnderTheHood = {
  title: "Access modes are for matching",
  body: "ReadWriteOnce is how the claim matched the PV (and it is passed to CSI as volume_capabilities). Access modes do not write-protect a mounted volume, and ReadWriteOnce means one node, not one Pod: several Pods on that node can share the volume.",
};

function uthBindPod(node: string, waited: boolean): UnderTheHood {
  return {
    title: waited ? "Step 10 waits for step 9" : "No wait this time",
    body: waited
      ? `PreBind's poll (checkBindings) sees the PVC fully bound and returns. Only then does the DefaultBinder POST pods/app/binding, which sets spec.nodeName: ${node} and the PodScheduled condition; the scheduler emits Scheduled. That is why BIND POD comes after BIND PVC+PV.`
      : `All volumes were bound before the Pod existed, so PreBind returned at once. The DefaultBinder POSTs pods/app/binding, which sets spec.nodeName: ${node} and the PodScheduled condition; the scheduler emits Scheduled.`,
  };
}

function uthRunPod(r: Release, attachable: boolean): UnderTheHood {
  const generation = r.k.podObservedGeneration
    ? " Every condition carries observedGeneration: 1, as does status.observedGeneration: the kubelet has seen generation 1 of the spec."
    : "";
  return {
    title: '"RUN POD" means picked up, not running',
    body:
      "The kubelet's watch delivers Pods whose spec.nodeName is its node. It calls volumeManager.WaitForAttachAndMount before it asks the container runtime to start anything, so kubectl get pod shows ContainerCreating until MOUNT is done. " +
      `It writes the Pod's status first: Initialized is already True (the Pod has no init containers), PodReadyToStartContainers, Ready and ContainersReady are False, and the container waits in ContainerCreating.${generation} ` +
      (attachable
        ? "At the same moment the attach/detach controller notices a scheduled Pod with an attachable volume: steps 11 and 12 overlap."
        : "The in-tree local volume plugin is not attachable, so the attach/detach controller has nothing to do."),
  };
}

function uthAttach(node: string): UnderTheHood {
  return {
    title: "Attach (12a–d)",
    body: `a. The attach/detach controller (kube-controller-manager) creates a VolumeAttachment named csi-<sha256(volumeHandle+driver+node)> with spec.attacher ${DRIVER}, spec.nodeName ${node} and spec.source.persistentVolumeName; the kubelet never attaches. (Skipped when the CSIDriver has attachRequired: false.) b. The external-attacher sees it, adds the finalizer external-attacher/disk-csi-example-com to the VolumeAttachment and to the PV, plus the annotation csi.alpha.kubernetes.io/node-id (from CSINode), calls ControllerPublishVolume and sets status.attached: true, with attachmentMetadata = publish_context (left out when the driver returns none, as here). c. The attach/detach controller sees attached, emits SuccessfulAttachVolume on the Pod and records the volume in node.status.volumesAttached. d. The kubelet waits for it there, then reads the VolumeAttachment.`,
  };
}

function uthStagePublish(r: Release): UnderTheHood {
  const m = r.messages;
  const describe = r.k.describePrefixesFieldPath
    ? " kubectl describe shows them after the field path, e.g. spec.containers{app}: Container created."
    : "";
  return {
    title: "Stage and publish (12e–f)",
    body: `e. NodeStageVolume, inside MountDevice, if the driver has STAGE_UNSTAGE_VOLUME: the volume is mounted once per node at a global staging path (…/kubernetes.io/csi/<driver>/<sha256(volumeHandle)>/globalmount). f. NodePublishVolume, inside SetUp: the volume appears in the Pod's own volume directory. Success writes no event (only a log line, MountVolume.SetUp succeeded). Then the kubelet starts the containers and writes Pulling (${m.pulling("nginx")}), Pulled, Created (${m.created("app")}) and Started (${m.started("app")});${describe} PodReadyToStartContainers, Ready and ContainersReady turn True (Initialized has been True since RUN POD), next to PodScheduled.`,
  };
}

const UTH_MOUNT_FAILURES: UnderTheHood = {
  title: "When attach or mount fails",
  body: "Attach failures show on the Pod as FailedAttachVolume and in the VolumeAttachment's status.attachError, retried with backoff (1 s → 5 min); a ReadWriteOnce volume still attached to another node gives Multi-Attach error. Mount failures show as FailedMount (MountVolume.MountDevice failed … for stage, MountVolume.SetUp failed … for publish) and the Pod stays ContainerCreating.",
};

// ---------------------------------------------------------------------------
// WaitForFirstConsumer: the card's main track, with expanders.
// ---------------------------------------------------------------------------

function wffcUnderTheHood(r: Release): Record<number, UnderTheHood[]> {
  return {
    1: [
      UTH_ADMISSION,
      {
        title: "Why nothing is created",
        body: "The PV controller's syncUnboundClaim skips unbound PVs for a delay-binding class and, since the claim has no selected-node, emits WaitForFirstConsumer and stops: no storage-provisioner annotation, no PV. The CSI provisioner sees the PVC too, but its shouldProvision needs that annotation and, for WaitForFirstConsumer, a selected-node. The controller re-syncs every 15 s, so kubectl describe soon shows the event repeated, e.g. (x12 over 3m).",
      },
      UTH_CONTROL_PLANE,
    ],
    2: [
      UTH_NODE_NAME,
      {
        title: "If the PV controller looks now",
        body: "If it re-syncs the PVC before step 5, it emits WaitForPodScheduled (waiting for pod app to be scheduled) instead of WaitForFirstConsumer. Usually the scheduler is faster than the 15 s re-sync.",
      },
    ],
    3: [
      UTH_WATCH,
      {
        title: "PreFilter classifies the claim",
        body: "VolumeBinding.PreFilter sees a claim that is unbound with delayed binding: its class is WaitForFirstConsumer and spec.volumeName is empty. So for every node it will ask: is there a PV here, or could one be provisioned?",
      },
    ],
    4: [
      {
        title: "What is checked on each node",
        body: 'FindPodVolumes first tries existing PVs of the class whose nodeAffinity matches the node (smallest fit). There are none, so checkVolumeProvisions asks whether a volume could be provisioned for this node: the provisioner must not be "" or kubernetes.io/no-provisioner, the node must fit the class\'s allowedTopologies (none here), and there must be enough CSIStorageCapacity if the CSIDriver sets storageCapacity: true. The normal filters and scoring run too. All three nodes pass; scoring picks node-b1.',
      },
      UTH_RESERVE,
    ],
    5: [
      {
        title: "The one write at step 5",
        body: 'In PreBind, bindAPIUpdate PUTs the PVC with metadata.annotations["volume.kubernetes.io/selected-node"] = node-b1. The PVC keeps this annotation for good, even after binding.',
      },
      uthPrebindWait(r, "node-b1"),
    ],
    6: [
      {
        title: "The hidden hop between 5 and 6",
        body: `The provisioner does not react to selected-node alone. First the PV controller sees it and takes the provisionClaim path: it writes both volume.kubernetes.io/storage-provisioner and volume.beta.kubernetes.io/storage-provisioner = ${DRIVER} on the PVC and emits ExternalProvisioning (again on every 15 s re-sync). That update is what the provisioner's watch picks up: scheduler → PV controller → provisioner, two watch hops with a write in between.`,
      },
      {
        title: "Why the provisioner acts now",
        body: "shouldProvision passes: spec.volumeName is empty, the storage-provisioner annotation names its driver, and selected-node is set. It emits Provisioning (from disk.csi.example.com_<hostname>_<uuid>) and reads the StorageClass, node-b1's CSINode topologyKeys and node-b1's labels.",
      },
      UTH_PROVISIONER_DOWN,
    ],
    7: [
      {
        title: "Is the zone guaranteed? --strict-topology",
        body: "CreateVolume gets name pvc-<PVC UID>, capacity_range, volume_capabilities, the class parameters minus the csi.storage.k8s.io/* keys, and accessibility_requirements. By default (--strict-topology=false) requisite is the class's allowedTopologies, or else every zone where the driver is registered, and preferred is the same list rotated so node-b1's zone comes first. The CSI spec says the driver MUST attempt preferred in order, so the disk lands in zone-b if the driver honours preferred[0]. Only --strict-topology=true makes requisite = preferred = node-b1's zone alone, a guarantee.",
      },
      UTH_PROVISION_FAILURES,
    ],
    8: [uthPvContents("zone-b", "zonal-wffc"), UTH_PV_PHASE],
    9: [UTH_BIND_WRITES, UTH_NO_PV_BOUND_BY, UTH_ACCESS_MODES],
    10: [uthBindPod("node-b1", true)],
    11: [uthRunPod(r, true)],
    12: [uthAttach("node-b1"), uthStagePublish(r), UTH_MOUNT_FAILURES],
  };
}

/** Step 5's teacher's note, with the Pod's nominated node where the release writes one. */
function nominatedNote(r: Release, speakerNotes: string, node: string): string {
  return r.k.nominatesBeforePreBind
    ? `${speakerNotes} It has status.nominatedNodeName: ${node}, set just before PreBind (new in 1.35).`
    : speakerNotes;
}

function wffcSteps(r: Release): ScenarioStep[] {
  const hood = wffcUnderTheHood(r);
  return WFFC_STEPS.map((s) => ({
    ...s,
    ...(s.label === 5 ? { speakerNotes: nominatedNote(r, s.speakerNotes, "node-b1") } : {}),
    underTheHood: hood[s.label],
    ...(s.label === 4 ? { nodeVerdicts: r.casts["WaitForFirstConsumer/standard"].nodeVerdicts } : {}),
  }));
}

// ---------------------------------------------------------------------------
// Immediate: 1, 6, 7, 8, 9, 2, 3, 4, 5 (nothing to record), 10, 11, 12.
// ---------------------------------------------------------------------------

function immediateSteps(r: Release, variant: "standard" | "zone-conflict"): ScenarioStep[] {
  const conflict = variant === "zone-conflict";
  const cast = r.casts[conflict ? "Immediate/zone-conflict" : "Immediate/standard"];

  const step1: ScenarioStep = {
    ...cardStep(1),
    narration:
      "You create the PVC. The class is Immediate, so the PV controller asks for a volume at once: it writes the storage-provisioner annotations and emits ExternalProvisioning. No Pod exists yet.",
    speakerNotes:
      "syncUnboundClaim sees a class that is not delay-binding and runs provisionClaim immediately: both storage-provisioner annotations (A) and ExternalProvisioning (E). There is no WaitForFirstConsumer event and no selected-node, ever. The PVC is Pending only until step 9.",
    note: "No Pod needs it, yet provisioning starts now.",
    underTheHood: [
      UTH_ADMISSION,
      {
        title: "The 5½ hop happens here",
        body: `In WaitForFirstConsumer the PV controller holds back the storage-provisioner annotations until the scheduler has written selected-node (the hidden hop between steps 5 and 6). Under Immediate it writes volume.kubernetes.io/storage-provisioner and volume.beta.kubernetes.io/storage-provisioner = ${DRIVER} on its first sync of the claim, and emits ExternalProvisioning.`,
      },
      {
        title: "Immediate is the default",
        body: "A StorageClass that omits volumeBindingMode gets Immediate. Zonal disks and local PVs are exactly where that default bites.",
      },
      UTH_CONTROL_PLANE,
    ],
  };

  const step6: ScenarioStep = {
    ...cardStep(6),
    narration: "The CSI provisioner notices the annotated PVC and starts provisioning. There is no selected node: no Pod exists.",
    speakerNotes:
      "shouldProvision passes on the storage-provisioner annotation alone: an Immediate claim needs no selected-node. The provisioner emits Provisioning and reads the StorageClass.",
    underTheHood: [
      {
        title: "Why the provisioner acts now",
        body: "shouldProvision checks that spec.volumeName is empty and the storage-provisioner annotation names its driver; only WaitForFirstConsumer claims also need selected-node. It emits Provisioning, from disk.csi.example.com_<hostname>_<uuid>.",
      },
      UTH_PROVISIONER_DOWN,
    ],
  };

  const step7: ScenarioStep = {
    ...cardStep(7),
    narration: "The driver creates the disk in a zone picked without any knowledge of the Pod: here zone-a.",
    speakerNotes:
      "CreateVolume has no selected node. With --immediate-topology=true (the default), requisite is allowedTopologies or every zone where the driver is registered, and preferred is rotated by a hash of the PVC name. preferred[0] came out zone-a.",
    underTheHood: [
      {
        title: "How the zone is picked",
        body: "With --immediate-topology=true (default), requisite = the class's allowedTopologies flattened, or else every topology segment where the driver is registered; preferred is that list rotated by a hash of the PVC name and StatefulSet ordinal, which spreads StatefulSet volumes across zones. With --immediate-topology=false and no allowedTopologies, no topology is passed and the driver decides. Either way the zone is chosen without any knowledge of the Pod.",
      },
      {
        title: "allowedTopologies",
        body: "Pinning the class with allowedTopologies (matchLabelExpressions with key and values) makes requisite the allowed zones, so the disk lands only there. It still ignores the Pod. The key must be one the CSI driver reports (topology.kubernetes.io/zone works only if the driver reports it).",
      },
      UTH_PROVISION_FAILURES,
    ],
  };

  const step8: ScenarioStep = {
    ...cardStep(8),
    narration: "The provisioner creates the PV for the disk, already pointing at the PVC. Its nodeAffinity says zone-a.",
    speakerNotes:
      "PV pvc-<UID> with spec.csi, nodeAffinity topology.kubernetes.io/zone In [zone-a] from accessible_topology, claimRef with the PVC's UID, and provisioned-by. Emits ProvisioningSucceeded.",
    underTheHood: [uthPvContents("zone-a", "zonal-immediate"), UTH_PV_PHASE],
  };

  const step9: ScenarioStep = {
    ...cardStep(9),
    narration: "PVC and PV are now Bound, before any Pod exists.",
    speakerNotes:
      "The same bind as in WaitForFirstConsumer: PV Bound; PVC spec.volumeName plus bound-by-controller and bind-completed; PVC Bound. Nothing on the PVC looks wrong: its events are ExternalProvisioning, Provisioning and ProvisioningSucceeded.",
    note: "PVC and PV are now Bound, before any Pod exists.",
    underTheHood: [UTH_BIND_WRITES, UTH_NO_PV_BOUND_BY, UTH_ACCESS_MODES],
  };

  const step2: ScenarioStep = {
    ...cardStep(2),
    narration: conflict
      ? "You create a Pod that uses the PVC, with nodeSelector topology.kubernetes.io/zone: zone-b. Its disk already sits in zone-a."
      : "You create a Pod that uses the PVC. Its disk already exists, in zone-a.",
    speakerNotes: conflict
      ? "spec.nodeName is empty; spec.nodeSelector allows zone-b only. The PVC is already Bound to a PV whose nodeAffinity allows zone-a only."
      : "spec.nodeName is empty and there is no nodeSelector. The PVC is already Bound to a PV whose nodeAffinity allows zone-a only.",
    underTheHood: [
      {
        title: "If the Pod comes first",
        body: "Had the Pod arrived before the PVC was bound, VolumeBinding.PreFilter would fail with pod has unbound immediate PersistentVolumeClaims (UnschedulableAndUnresolvable), and the Pod would be re-queued on the PVC/PV update.",
      },
      UTH_NODE_NAME,
    ],
  };

  const step3: ScenarioStep = {
    ...cardStep(3),
    narration: "The scheduler notices the new Pod through its watch. Its claim is already bound.",
    speakerNotes:
      "VolumeBinding.PreFilter finds the claim bound (spec.volumeName is set): nothing to provision, only a PV's nodeAffinity to respect.",
    underTheHood: [UTH_WATCH],
  };

  const step4: ScenarioStep = conflict
    ? {
        ...cardStep(4),
        narration:
          "No node fits: node-a is outside the Pod's zone-b selector, and node-b1 and node-b2 cannot reach the zone-a disk. The Pod stays Pending.",
        speakerNotes: `Warning FailedScheduling default-scheduler: ${failedSchedulingMessage(cast.nodeVerdicts, r.version)} Each node reports only its first failing filter, and NodeAffinity runs before VolumeBinding. Pod: Pending, PodScheduled=False, reason Unschedulable.`,
        note: "The Pod stays Pending: FailedScheduling.",
        failed: true,
        nodeVerdicts: cast.nodeVerdicts,
        underTheHood: [
          {
            title: "Why each node got its reason",
            body: `Each node reports only its first failing filter, and the default plugin order runs NodeAffinity … NodeResourcesFit … VolumeBinding, VolumeZone. node-a (zone-a) fails NodeAffinity: the Pod's nodeSelector wants zone-b, so it is never asked about the volume. node-b1 and node-b2 match the selector but fail VolumeBinding: checkBoundClaims finds that the PV's nodeAffinity (topology.kubernetes.io/zone In [zone-a]) does not match them: ${pvReasonWithHistory(r)}. Had node-a been ruled out by CPU instead, its entry would read 1 Insufficient cpu.`,
          },
          {
            title: "How the message is built",
            body: `FitError: "0/3 nodes are available:", then each reason as "count reason", sorted and joined with ", ", the section ending in ".". ${postFilterExplained(r)} The PVC looks fine (Bound); kubectl describe pv shows Node Affinity: Required Terms: Term 0: topology.kubernetes.io/zone in [zone-a].`,
          },
          {
            title: "What fixes it (nothing moves the disk)",
            body: "The scheduler retries the Pod on Node, PV, PVC, StorageClass, CSINode and CSIStorageCapacity events, but a node would have to be in zone-a for the PV and in zone-b for the selector. Nothing moves the disk. Fix: delete the PVC (with reclaimPolicy: Delete that deletes the disk too) and recreate it with a WaitForFirstConsumer class, or pin the class with allowedTopologies to zone-b. With WaitForFirstConsumer, node-a would have been filtered out before anything was provisioned and the disk created with preferred[0] = zone-b.",
          },
        ],
      }
    : {
        ...cardStep(4),
        narration: "The scheduler picks a node the bound PV allows: only node-a, in zone-a. The disk decides where the Pod runs.",
        speakerNotes: `The claim is bound, so VolumeBinding's Filter runs checkBoundClaims: CheckNodeAffinity(pv, node.Labels). node-b1 and node-b2 fail with ${r.k.reasons.pvNodeAffinity}; node-a passes.`,
        nodeVerdicts: cast.nodeVerdicts,
        underTheHood: [
          {
            title: "checkBoundClaims",
            body: `For a bound claim there is nothing to provision: the Filter only checks the PV's nodeAffinity against each node's labels. node-a is in zone-a and passes; node-b1 and node-b2 are rejected with ${pvReasonWithHistory(r)}. Had the Pod also been restricted to zone-b, no node would pass (see the zone-conflict variant).`,
          },
        ],
      };

  const step5: ScenarioStep = {
    ...cardStep(5),
    from: "scheduler",
    to: "scheduler",
    noop: true,
    narration: "Nothing to record: the PVC is already bound, so the scheduler writes no selected-node.",
    speakerNotes: "PreBind is a no-op: all volumes are bound (allBound), so there is no API write and no wait.",
    underTheHood: [
      {
        title: "PreBind is a no-op",
        body: "In WaitForFirstConsumer, PreBind writes selected-node and then waits up to 600 s for the bind. Here every claim of the Pod is already bound, so PreBind has nothing to write and nothing to wait for.",
      },
    ],
  };

  const tail: ScenarioStep[] = [
    {
      ...cardStep(10),
      narration: "The scheduler binds the Pod to node-a straight away: there is nothing to wait for.",
      speakerNotes: "The DefaultBinder POSTs pods/app/binding, setting spec.nodeName: node-a. Event: Scheduled.",
      underTheHood: [uthBindPod("node-a", false)],
    },
    {
      ...cardStep(11),
      narration: "The kubelet on node-a picks the Pod up. Containers wait for the volume.",
      underTheHood: [uthRunPod(r, true)],
    },
    { ...cardStep(12), underTheHood: [uthAttach("node-a"), uthStagePublish(r), UTH_MOUNT_FAILURES] },
  ];

  const head = [step1, step6, step7, step8, step9, step2, step3, step4];
  return conflict ? head : [...head, step5, ...tail];
}

// ---------------------------------------------------------------------------
// Local PVs (kubernetes.io/no-provisioner, WaitForFirstConsumer): 1-5, 9-12.
// ---------------------------------------------------------------------------

function localSteps(r: Release, variant: "standard" | "no-local-pv"): ScenarioStep[] {
  const missing = variant === "no-local-pv";
  const cast = r.casts[missing ? "Local/no-local-pv" : "Local/standard"];

  const step1: ScenarioStep = {
    ...cardStep(1),
    narration:
      "You create the PVC for the local-storage class. It sits in Pending: nothing will be provisioned; a hand-made PV will be picked once the Pod is scheduled.",
    speakerNotes:
      "The PV controller skips unbound PVs for delay-binding claims and emits WaitForFirstConsumer. Nobody writes storage-provisioner annotations: kubernetes.io/no-provisioner means no dynamic provisioning.",
    note: STEP_1_NOTE,
    underTheHood: [
      {
        title: "No dynamic provisioning",
        body: `kubernetes.io/no-provisioner is NotSupportedProvisioner. The docs: local volumes do not support dynamic provisioning, but a StorageClass should still be created to delay volume binding until a Pod is scheduled to the appropriate node. An administrator (or the local static provisioner) creates the PVs by hand${missing ? "; here none exists" : `, like ${LOCAL_PV_NAME} (${LOCAL_PV_CAPACITY} at ${LOCAL_PATH} on node-b1)`}. A local PV must carry nodeAffinity, or validation rejects it: spec.nodeAffinity: Required value: Local volume requires node affinity.`,
      },
      {
        title: "Why not Immediate?",
        body: `With the same class set to Immediate: if no PV matches, the PV controller tries to provision and fails with ProvisioningFailed no volume plugin matched name: kubernetes.io/no-provisioner. If one matches, it binds at once, ignoring the Pod, which may then be pinned to a node it cannot fit on and get ${r.k.reasons.pvNodeAffinity}.`,
      },
      UTH_ADMISSION,
    ],
  };

  const step2: ScenarioStep = { ...cardStep(2), underTheHood: [UTH_NODE_NAME] };

  const step3: ScenarioStep = {
    ...cardStep(3),
    underTheHood: [
      UTH_WATCH,
      {
        title: "PreFilter classifies the claim",
        body: "Unbound with delayed binding: the class is WaitForFirstConsumer and spec.volumeName is empty. For every node the scheduler will look for a matching pre-created PV; with no-provisioner there is no fallback.",
      },
    ],
  };

  const whichPv: UnderTheHood = {
    title: "Which PV qualifies",
    body: "Per node, findMatchingVolumes calls FindMatchingVolume over the class's PVs. A PV qualifies if it is Available and not bound to another claim, its capacity is at least the request (10Gi), volumeMode matches and it is not being deleted, its nodeAffinity matches the node (CheckNodeAffinity), and it matches the claim's selector, class and access modes. The smallest qualifying PV wins. Failing that, checkVolumeProvisions rejects kubernetes.io/no-provisioner: the node fails with node(s) didn't find available persistent volumes to bind.",
  };

  const step4: ScenarioStep = missing
    ? {
        ...cardStep(4),
        narration: "No node has a matching local PV, and nothing can be provisioned: the Pod stays Pending.",
        speakerNotes: `Warning FailedScheduling default-scheduler: ${failedSchedulingMessage(cast.nodeVerdicts, r.version)} The PVC gets WaitForPodScheduled (${r.messages.waitForPodScheduled("app")}) on every PV-controller re-sync.`,
        note: "The Pod stays Pending: FailedScheduling.",
        failed: true,
        nodeVerdicts: cast.nodeVerdicts,
        underTheHood: [
          {
            title: "Why all three nodes give the same reason",
            body: "The Pod has no node selector, so every node gets past NodeAffinity and fails in VolumeBinding: no Available local-storage PV with enough capacity and matching nodeAffinity, and checkVolumeProvisions rejects kubernetes.io/no-provisioner (ErrReasonBindConflict). Three nodes, one reason: 3 node(s) didn't find available persistent volumes to bind.",
          },
          whichPv,
          {
            title: "What the PVC shows, and the fix",
            body: "The PVC stays Pending with no annotations; its events are WaitForFirstConsumer, then WaitForPodScheduled waiting for pod app to be scheduled, repeating every 15 s re-sync. Nothing is created. Fix: create a matching local PV (storageClassName local-storage, at least 10Gi, nodeAffinity for a node the Pod may use). A PV add is one of the events that re-queue the Pod, so scheduling resumes by itself.",
          },
        ],
      }
    : {
        ...cardStep(4),
        narration: "The scheduler looks for a pre-created local PV on each node. Only node-b1 has one: local-pv-node-b1-ssd1.",
        speakerNotes:
          "findMatchingVolumes per node: Available, unclaimed, at least 10Gi, same volumeMode, class and access modes, nodeAffinity matching the node; the smallest qualifying PV wins. node-a and node-b2 have none and no-provisioner cannot make one. Reserve sets the PV's claimRef and bound-by-controller in the assume cache only.",
        nodeVerdicts: cast.nodeVerdicts,
        underTheHood: [
          whichPv,
          {
            title: "Reserve happens in memory only",
            body: "GetBindVolumeToClaim sets pv.spec.claimRef (with the PVC's UID) and pv.kubernetes.io/bound-by-controller: \"yes\" on the scheduler's in-memory assume-cache copy of the PV. Nothing reaches the API server until PreBind (step 5).",
          },
        ],
      };

  if (missing) return [step1, step2, step3, step4];

  const step5: ScenarioStep = {
    ...cardStep(5),
    narration:
      "The scheduler records its choice on the PV, not the PVC: it writes spec.claimRef and pv.kubernetes.io/bound-by-controller on local-pv-node-b1-ssd1.",
    speakerNotes: nominatedNote(
      r,
      'PreBind PUTs the PV (static binding): claimRef with the PVC\'s UID plus bound-by-controller: "yes". No selected-node is written. Then it polls every 1 s, up to 600 s, until the PVC is fully bound; the Pod has no spec.nodeName yet.',
      "node-b1",
    ),
    note: "The scheduler writes the PV's claimRef, not selected-node.",
    underTheHood: [
      {
        title: "PreBind writes the PV",
        body: "For a pre-created PV, bindAPIUpdate PUTs the PV with spec.claimRef and the bound-by-controller annotation prepared in Reserve. There is nothing to provision, so there is no selected-node, no storage-provisioner annotation and no ExternalProvisioning. The PV stays Available until the PV controller binds it.",
      },
      uthPrebindWait(r, "node-b1"),
    ],
  };

  const step9: ScenarioStep = {
    ...cardStep(9),
    note: STEP_9_NOTE,
    speakerNotes:
      "The PV controller sees the PV update and queues the claim; FindMatchingVolume returns the pre-bound PV and bind() runs: PV Bound; PVC spec.volumeName local-pv-node-b1-ssd1 with bound-by-controller and bind-completed; PVC Bound with the PV's capacity, 100Gi.",
    underTheHood: [
      UTH_BIND_WRITES,
      {
        title: "The PVC reports the PV's size",
        body: `status.capacity is copied from the PV, so the claim asked for 10Gi and reports ${LOCAL_PV_CAPACITY}: the whole disk is its. The PV keeps the bound-by-controller annotation the scheduler wrote.`,
      },
      UTH_ACCESS_MODES,
    ],
  };

  const step10: ScenarioStep = {
    ...cardStep(10),
    underTheHood: [
      uthBindPod("node-b1", true),
      {
        title: "Pinned to node-b1",
        body: "Once a local PVC is bound, PreFilter narrows the candidates to the PV's kubernetes.io/hostname. If node-b1 goes away, the Pod cannot move: other nodes report node(s) didn't satisfy plugin(s) [VolumeBinding] on current schedulers.",
      },
    ],
  };

  const step11: ScenarioStep = {
    ...cardStep(11),
    narration: "The kubelet on node-b1 picks the Pod up. There is nothing to attach.",
    speakerNotes:
      "RUN POD means the kubelet picked the pod up; it waits for the mount before starting containers. The local volume plugin is not attachable: no attach/detach controller work, no VolumeAttachment.",
    underTheHood: [uthRunPod(r, false)],
  };

  const step12: ScenarioStep = {
    ...cardStep(12),
    // No CSI and no storage API: the kubelet mounts a directory on its own node.
    from: "node",
    to: "node",
    narration: "The kubelet bind-mounts /mnt/disks/ssd1 into the Pod and the containers start. No attach, no VolumeAttachment.",
    speakerNotes: `The in-tree local plugin bind-mounts local.path into the Pod (or maps the device for volumeMode: Block). No CSI calls, no VolumeAttachment, no SuccessfulAttachVolume event. The Pod's events go straight from Scheduled to the kubelet's Pulling, Pulled, Created (${r.messages.created("app")}) and Started (${r.messages.started("app")}).`,
    underTheHood: [
      {
        title: "Mount, local style",
        body: "Step 12's attach half does not exist here: the local plugin is not attachable. The kubelet bind-mounts local.path into the Pod's volume directory, or maps the device for volumeMode: Block. If local.path is a raw block device used with volumeMode: Filesystem, the kubelet first formats and mounts it through the plugin's device mounter (MountDevice) [unverified detail].",
      },
    ],
  };

  return [step1, step2, step3, step4, step5, step9, step10, step11, step12];
}

// What every release says alike: each scenario's title and summary.
const SCENARIO_TEXT: Readonly<Record<ScenarioId, { title: string; summary: string }>> = {
  "WaitForFirstConsumer/standard": {
    title: "WaitForFirstConsumer",
    summary:
      "The card's main track. The PVC waits in Pending until the scheduler picks node-b1 for the Pod; only then is the disk created in zone-b, where node-b1 can reach it, and bound.",
  },
  "Immediate/standard": {
    title: "Immediate",
    summary:
      "The disk is created and bound as soon as the PVC exists, before any Pod. It lands in zone-a, chosen without the Pod; this Pod may run anywhere, so the scheduler sends it to node-a, where the disk is.",
  },
  "Immediate/zone-conflict": {
    title: "Immediate: zone conflict",
    summary:
      "The risk the card names: the disk is provisioned in zone-a before any Pod exists, but the Pod may only run in zone-b. No node fits both, and the Pod stays Pending with FailedScheduling.",
  },
  "Local/standard": {
    title: "Local PVs",
    summary:
      "kubernetes.io/no-provisioner: nothing is provisioned. The PVC waits for scheduling, the scheduler picks node-b1 because it holds the hand-made PV local-pv-node-b1-ssd1, and binds that PV by writing its claimRef. No attach step.",
  },
  "Local/no-local-pv": {
    title: "Local PVs: no matching PV",
    summary:
      "The same class with no matching local PV on any node. Nothing can be provisioned, so scheduling fails at PICK NODE: the Pod stays Pending and the PVC waits.",
  },
};

function stepsOf(r: Release, id: ScenarioId): ScenarioStep[] {
  switch (id) {
    case "WaitForFirstConsumer/standard":
      return wffcSteps(r);
    case "Immediate/standard":
      return immediateSteps(r, "standard");
    case "Immediate/zone-conflict":
      return immediateSteps(r, "zone-conflict");
    case "Local/standard":
      return localSteps(r, "standard");
    case "Local/no-local-pv":
      return localSteps(r, "no-local-pv");
    default: {
      const unknown: never = id;
      throw new Error(`no scenario ${String(unknown)}`);
    }
  }
}

function buildScenarios(version: KubeVersion): Readonly<Record<ScenarioId, VersionedScenario>> {
  const r = release(version);
  const notes = {
    kubeVersion: version,
    versionLabel: versionLabel(version),
    versionStatement: versionStatement(version),
    versionNotes: versionNotes(version),
    fidelityNotes: FIDELITY_NOTES,
  };
  const scenario = (id: ScenarioId): VersionedScenario => {
    const [mode, variant] = scenarioParts(id);
    return { mode, variant, ...SCENARIO_TEXT[id], steps: stepsOf(r, id), ...notes };
  };
  return {
    "WaitForFirstConsumer/standard": scenario("WaitForFirstConsumer/standard"),
    "Immediate/standard": scenario("Immediate/standard"),
    "Immediate/zone-conflict": scenario("Immediate/zone-conflict"),
    "Local/standard": scenario("Local/standard"),
    "Local/no-local-pv": scenario("Local/no-local-pv"),
  };
}

// Built on first use, once per release: getScenario returns the same object for the same
// (release, mode, variant), which worldAt's cache and React's memoisation rely on.
const BUILT = new Map<KubeVersion, Readonly<Record<ScenarioId, VersionedScenario>>>();

/** The five scenarios as `version` prints them. */
export function scenariosFor(version: KubeVersion = DEFAULT_KUBE_VERSION): Readonly<Record<ScenarioId, VersionedScenario>> {
  let built = BUILT.get(version);
  if (!built) {
    built = buildScenarios(version);
    BUILT.set(version, built);
  }
  return built;
}

/** The default release's scenarios (kept for callers that do not pass a release yet). */
export const SCENARIOS: Readonly<Record<ScenarioId, VersionedScenario>> = scenariosFor(DEFAULT_KUBE_VERSION);

/**
 * The scenario for a mode and variant, as `version` prints it. Always the same object for the same
 * triple (worldAt caches by identity). A variant the mode does not offer falls back to the mode's
 * default, and an unknown release to the default one, so a stale value can never blank the screen.
 */
export function getScenario(
  mode: BindingMode,
  variant: VariantId = "standard",
  version: KubeVersion = DEFAULT_KUBE_VERSION,
): VersionedScenario {
  const id = scenarioId(mode, variant) ?? scenarioId(mode, VARIANTS_BY_MODE[mode][0]) ?? "WaitForFirstConsumer/standard";
  return scenariosFor(isKubeVersion(version) ? version : DEFAULT_KUBE_VERSION)[id];
}

/** The release a scenario prints: its own for getScenario's, the default for one built elsewhere. */
export function scenarioVersion(scenario: Scenario): KubeVersion {
  const version: unknown = "kubeVersion" in scenario ? scenario.kubeVersion : undefined;
  return isKubeVersion(version) ? version : DEFAULT_KUBE_VERSION;
}

/** The card's "Not shown" list, each summarised from LESSON.md section 7. */
export const NOT_SHOWN: readonly UnderTheHood[] = [
  {
    title: "Retries",
    body: "The PV controller re-syncs every PVC every 15 s, which is why WaitForFirstConsumer and ExternalProvisioning appear as (x12 over 3m). The external-provisioner retries a failed claim with exponential backoff from 1 s to 5 min and never gives up; every attempt emits Provisioning then ProvisioningFailed. The scheduler's PreBind gives up after 600 s and requeues the Pod with backoff. The external-attacher retries 1 s → 5 min; the kubelet retries mounts with per-volume backoff and re-emits FailedMount about every 2 min.",
  },
  {
    title: "Failures",
    body: "Each failure shows where it happens. Provisioning: on the PVC as ProvisioningFailed; the PVC stays Pending. Scheduling and volume topology: on the Pod as FailedScheduling; Pending with no node. Attach: on the Pod as FailedAttachVolume, and in the VolumeAttachment's status.attachError. Mount: on the Pod as FailedMount; the Pod stays ContainerCreating. If the external-provisioner is not running, ExternalProvisioning repeating forever is the only sign.",
  },
  {
    title: "ResourceQuota",
    body: 'Enforced by admission when the PVC is created (or resized), before any controller sees it, on requests.storage, persistentvolumeclaims and their per-class forms (<class>.storageclass.storage.k8s.io/requests.storage and …/persistentvolumeclaims). Over quota, kubectl apply fails at step 1 with HTTP 403: persistentvolumeclaims "data" is forbidden: exceeded quota: …. Nothing is provisioned. PVs are cluster-scoped and not counted against namespace quota.',
  },
  {
    title: "Access modes",
    body: "They are used to match a PVC to a PV and are passed to CSI as volume_capabilities; they do not write-protect a mounted volume. ReadWriteOnce means a single node (several Pods on it may share the volume): attaching to a second node needs ReadWriteMany or ReadOnlyMany, otherwise Multi-Attach error. ReadWriteOncePod (CSI only) is enforced by the scheduler's VolumeRestrictions plugin and by the kubelet. Local PVs are effectively ReadWriteOnce.",
  },
];
