import {
  DRIVER,
  DYNAMIC_PV_NAME,
  LOCAL_PATH,
  LOCAL_PV_CAPACITY,
  LOCAL_PV_NAME,
  SCENARIO_CASTS,
  SCENARIO_IDS,
  scenarioId,
  scenarioParts,
  type ScenarioId,
} from "./kubeCluster";
import { getScenario } from "./scenarios";
import type { BindingMode, KubeEvent, KubeObject, Scenario, VariantId } from "./types";
import { worldAt } from "./world";
import { toYaml } from "./yaml";
import { stringAt } from "../guards";

/**
 * Lab sheets: the lesson's scenarios on a laptop cluster. Everything a
 * student types or should see is derived from the same scenario and world
 * data the diagram uses, with the lesson's illustrative names swapped for the
 * lab cluster's (LAB_NAMES), so the strings match the screen the class saw.
 * Pure data and functions: the lab page, the Markdown download and the tests
 * all read these.
 */

/** URL segment for each scenario: /lab/<slug>. */
export const LAB_SLUGS: Readonly<Record<ScenarioId, string>> = {
  "WaitForFirstConsumer/standard": "wait-for-first-consumer",
  "Immediate/standard": "immediate",
  "Immediate/zone-conflict": "immediate-zone-conflict",
  "Local/standard": "local",
  "Local/no-local-pv": "local-no-matching-pv",
};

export function labPath(mode: BindingMode, variant: VariantId): string {
  const id = scenarioId(mode, variant) ?? scenarioId(mode, "standard")!;
  return `/lab/${LAB_SLUGS[id]}`;
}

export function scenarioIdForSlug(slug: string): ScenarioId | null {
  return SCENARIO_IDS.find((id) => LAB_SLUGS[id] === slug) ?? null;
}

/** How much of the scenario a laptop cluster shows. */
export type Reproducible = "yes" | "partly";

export interface LabCommand {
  /** What the command is for, in one line. */
  why: string;
  run: string;
}

export interface LabStep {
  /** 1-based position in the scenario's track, as the diagram numbers it. */
  position: number;
  label: number;
  title: string;
  /** What to run at this step (often nothing: the step happens by itself). */
  run: LabCommand[];
  /** Commands that show the step's traces, each with the output to expect. */
  check: { command: string; expect: string }[];
  /** The events this step adds, as `kubectl events` prints TYPE, REASON, OBJECT and MESSAGE. */
  events: string[];
  note?: string;
}

export interface LabManifest {
  file: string;
  yaml: string;
}

export interface LabSheet {
  id: ScenarioId;
  slug: string;
  title: string;
  summary: string;
  reproducible: Reproducible;
  /** Said plainly: what a laptop cannot show, and what differs from the diagram. */
  limits: string[];
  cluster: { name: string; tool: "kind"; nodes: string };
  install: { what: string; why: string; commands: string[] }[];
  manifests: LabManifest[];
  /** Run once before step 1. */
  setup: LabCommand[];
  /** Keep running in a second terminal: steps that follow by themselves pass in seconds, and the watch shows each state. */
  watch: string;
  steps: LabStep[];
  cleanup: LabCommand[];
}

// ---------------------------------------------------------------------------
// The lab cluster and how its names map onto the lesson's.
// ---------------------------------------------------------------------------

export const LAB_CLUSTER = "pv-lab";
/** kind names a cluster's only node <cluster>-control-plane. */
export const LAB_NODE = `${LAB_CLUSTER}-control-plane`;
export const LAB_WORKERS = [`${LAB_CLUSTER}-worker`, `${LAB_CLUSTER}-worker2`] as const;
/** The CSI driver that runs on a laptop: kubernetes-csi/csi-driver-host-path. */
export const LAB_DRIVER = "hostpath.csi.k8s.io";
/** Any kind node image of Kubernetes 1.33 or later prints the lesson's strings. */
export const LAB_NODE_IMAGE = "kindest/node:v1.33.1";

const KIND_CREATE = `kind create cluster --name ${LAB_CLUSTER} --image ${LAB_NODE_IMAGE}`;

/** Text swaps from the lesson's illustrative cluster to the lab's. */
function labText(text: string, node: string): string {
  return text
    .replaceAll(DYNAMIC_PV_NAME, "pvc-<your PVC's UID>")
    .replaceAll(DRIVER, LAB_DRIVER)
    .replaceAll("node-b1", node)
    .replaceAll("node-a", node);
}

/** One line of `kubectl events`: TYPE  REASON  OBJECT  MESSAGE (LAST SEEN left out). */
export function eventLine(e: KubeEvent, node: string): string {
  return `${e.type}  ${e.reason}  ${e.involvedObject}  ${labText(e.message, node)}`;
}

// ---------------------------------------------------------------------------
// Manifests: the lesson's objects, reduced to what you apply, with lab names.
// ---------------------------------------------------------------------------

function storageClassManifest(id: ScenarioId): KubeObject {
  const cast = SCENARIO_CASTS[id].storageClass;
  const sc = {
    name: stringAt(cast, "metadata", "name"),
    provisioner: stringAt(cast, "provisioner"),
    reclaimPolicy: stringAt(cast, "reclaimPolicy"),
    volumeBindingMode: stringAt(cast, "volumeBindingMode"),
  };
  const local = sc.provisioner === "kubernetes.io/no-provisioner";
  // No fstype parameter: the hostpath driver hands out directories, not block devices to format.
  return {
    apiVersion: "storage.k8s.io/v1",
    kind: "StorageClass",
    metadata: { name: sc.name },
    provisioner: local ? sc.provisioner : LAB_DRIVER,
    reclaimPolicy: sc.reclaimPolicy,
    volumeBindingMode: sc.volumeBindingMode,
  };
}

function pvcManifest(id: ScenarioId): KubeObject {
  const storageClassName = stringAt(SCENARIO_CASTS[id].storageClass, "metadata", "name");
  return {
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: { name: "data", namespace: "default" },
    spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "10Gi" } }, storageClassName },
  };
}

function podManifest(nodeSelector: Record<string, string> | null): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "app", namespace: "default" },
    spec: {
      containers: [{ image: "nginx", name: "app", volumeMounts: [{ mountPath: "/data", name: "data" }] }],
      ...(nodeSelector ? { nodeSelector } : {}),
      volumes: [{ name: "data", persistentVolumeClaim: { claimName: "data" } }],
    },
  };
}

function localPvManifest(node: string): KubeObject {
  return {
    apiVersion: "v1",
    kind: "PersistentVolume",
    metadata: { name: LOCAL_PV_NAME },
    spec: {
      accessModes: ["ReadWriteOnce"],
      capacity: { storage: LOCAL_PV_CAPACITY },
      local: { path: LOCAL_PATH },
      nodeAffinity: {
        required: { nodeSelectorTerms: [{ matchExpressions: [{ key: "kubernetes.io/hostname", operator: "In", values: [node] }] }] },
      },
      persistentVolumeReclaimPolicy: "Retain",
      storageClassName: "local-storage",
      volumeMode: "Filesystem",
    },
  };
}

// ---------------------------------------------------------------------------
// What to run and what to see at each step.
// ---------------------------------------------------------------------------

const jsonpath = (kind: string, name: string, path: string) => `kubectl get ${kind} ${name} -o jsonpath='${path}{"\\n"}'`;
const PVC_PHASE = jsonpath("pvc", "data", "{.status.phase}");
const POD_NODE = jsonpath("pod", "app", "{.spec.nodeName}");
const POD_PHASE = jsonpath("pod", "app", "{.status.phase}");
const SELECTED_NODE = jsonpath("pvc", "data", "{.metadata.annotations.volume\\.kubernetes\\.io/selected-node}");
const PV_OF_PVC = jsonpath("pvc", "data", "{.spec.volumeName}");

function phaseOf(obj: KubeObject | null): string {
  return stringAt(obj, "status", "phase");
}

function stepChecks(scenario: Scenario, index: number, node: string): LabStep["check"] {
  const step = scenario.steps[index];
  const world = worldAt(scenario, index);
  const local = scenario.mode === "Local";
  const podNode = world.podNode ? node : "(empty: no node yet)";
  switch (step.label) {
    case 1:
      return [{ command: PVC_PHASE, expect: phaseOf(world.pvc) }];
    case 2:
    case 3:
      return [
        { command: POD_NODE, expect: podNode },
        { command: POD_PHASE, expect: phaseOf(world.pod) },
      ];
    case 4:
      return step.failed
        ? [
            { command: POD_PHASE, expect: "Pending" },
            { command: jsonpath("pod", "app", "{.status.conditions[0].reason}"), expect: "Unschedulable" },
          ]
        : [{ command: POD_NODE, expect: "(empty: the choice is only in the scheduler's memory)" }];
    case 5:
      if (step.noop) return [{ command: SELECTED_NODE, expect: "(empty: Immediate never writes selected-node)" }];
      return local
        ? [{ command: jsonpath("pv", LOCAL_PV_NAME, "{.spec.claimRef.name}"), expect: "data" }]
        : [{ command: SELECTED_NODE, expect: node }];
    case 6:
      return [
        { command: jsonpath("pvc", "data", "{.metadata.annotations.volume\\.kubernetes\\.io/storage-provisioner}"), expect: LAB_DRIVER },
      ];
    case 7:
      return [
        {
          command: "kubectl logs -n default csi-hostpathplugin-0 -c hostpath | grep CreateVolume",
          expect: "the driver's CreateVolume request and response (no Kubernetes object yet)",
        },
      ];
    case 8:
      return [
        {
          command: "kubectl get pv -o custom-columns=NAME:.metadata.name,PHASE:.status.phase,CLAIM:.spec.claimRef.name",
          expect: `pvc-<your PVC's UID>   ${phaseOf(world.pv)}   data`,
        },
      ];
    case 9:
      return [
        { command: PVC_PHASE, expect: "Bound" },
        { command: PV_OF_PVC, expect: local ? LOCAL_PV_NAME : "pvc-<your PVC's UID>" },
      ];
    case 10:
      return [{ command: POD_NODE, expect: node }];
    case 11:
      return [
        {
          command: jsonpath("pod", "app", "{.status.containerStatuses[0].state.waiting.reason}"),
          expect: "ContainerCreating (for a moment; it may already be Running)",
        },
      ];
    case 12:
      return [
        { command: POD_PHASE, expect: "Running" },
        {
          command: jsonpath("pod", "app", "{range .status.conditions[*]}{.type}={.status} {end}"),
          expect: "PodReadyToStartContainers=True Initialized=True Ready=True ContainersReady=True PodScheduled=True",
        },
        ...(world.volumeAttachment
          ? [
              {
                command:
                  "kubectl get volumeattachment -o custom-columns=ATTACHER:.spec.attacher,NODE:.spec.nodeName,ATTACHED:.status.attached",
                expect: `${LAB_DRIVER}   ${node}   true`,
              },
            ]
          : []),
      ];
    default:
      return [];
  }
}

function stepRuns(label: number, id: ScenarioId): LabCommand[] {
  if (label === 1) return [{ why: "Create the PVC", run: "kubectl apply -f pvc.yaml" }];
  if (label === 2) {
    if (id === "Immediate/zone-conflict") {
      return [
        {
          why: "Find the node that holds the disk",
          run: `DISK_NODE=$(kubectl get pv "$(kubectl get pvc data -o jsonpath='{.spec.volumeName}')" -o jsonpath='{.spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values[0]}')`,
        },
        {
          why: "Pick the other worker",
          run: `OTHER_NODE=$(kubectl get nodes -l '!node-role.kubernetes.io/control-plane' -o name | sed 's|node/||' | grep -vx "$DISK_NODE")`,
        },
        { why: "Create the Pod, pinned away from its disk", run: `sed "s/OTHER_NODE/$OTHER_NODE/" pod.yaml | kubectl apply -f -` },
      ];
    }
    return [{ why: "Create the Pod", run: "kubectl apply -f pod.yaml" }];
  }
  return [];
}

const WATCH = "kubectl get pvc,pv,pod -o wide -w";
const HAPPENS_BY_ITSELF =
  "Nothing to run: this step follows by itself, within seconds. The watch shows the state below as it passes; the events stay, in order.";

function labSteps(id: ScenarioId, node: string): LabStep[] {
  const scenario = getScenario(...scenarioParts(id));
  return scenario.steps.map((step, index) => {
    const before = index === 0 ? [] : worldAt(scenario, index - 1).events;
    const added = worldAt(scenario, index).events.slice(before.length);
    const run = stepRuns(step.label, id);
    return {
      position: index + 1,
      label: step.label,
      title: step.title,
      run,
      check: stepChecks(scenario, index, node),
      events: added.map((e) => eventLine(e, node)),
      ...(run.length === 0 ? { note: HAPPENS_BY_ITSELF } : {}),
    };
  });
}

// ---------------------------------------------------------------------------
// The five sheets.
// ---------------------------------------------------------------------------

const HOSTPATH_INSTALL = {
  what: "csi-driver-host-path (kubernetes-csi), with its provisioner and attacher sidecars",
  why: "A real CSI driver with the external-provisioner and external-attacher, so PROVISION, CREATE PV and the attach in MOUNT happen as on the diagram. Its CSIDriver leaves attachRequired at its default, true, so a VolumeAttachment appears.",
  commands: [
    "kubectl kustomize https://github.com/kubernetes-csi/external-snapshotter/client/config/crd | kubectl create -f -",
    "kubectl -n kube-system kustomize https://github.com/kubernetes-csi/external-snapshotter/deploy/kubernetes/snapshot-controller | kubectl create -f -",
    "git clone https://github.com/kubernetes-csi/csi-driver-host-path.git",
    "csi-driver-host-path/deploy/kubernetes-latest/deploy.sh",
    "kubectl get csidriver hostpath.csi.k8s.io",
  ],
};

const TOOLS = {
  what: "Docker (or Podman), kind, and kubectl 1.33 or later",
  why: "kind runs a whole Kubernetes node in a container; kubectl events needs kubectl 1.26+, and a 1.33+ client matches the server's version.",
  commands: [KIND_CREATE, "kubectl version"],
};

const SINGLE_NODE_DYNAMIC_LIMITS = [
  `One node (${LAB_NODE}) and no zones: the scheduler has only one choice, and the hostpath driver reports its topology as topology.hostpath.csi/node, not topology.kubernetes.io/zone. Where the diagram says node-b1, node-a or zone-b, read ${LAB_NODE}.`,
  `The driver is ${LAB_DRIVER}, not the lesson's placeholder ${DRIVER}; the PV's name is pvc- plus your PVC's own UID, and the volumeHandle is a UUID.`,
  "Steps 3 to 12 take seconds on a laptop, so you read each step's trace after the fact rather than watching it live. kubectl get pvc,pod -w in a second terminal shows the changes as they happen.",
  'Pulled prints your own pull time and image size; Pulling is absent when the image is already on the node (Pulled then says: Container image "nginx" already present on machine).',
];

function dynamicSheet(id: "WaitForFirstConsumer/standard" | "Immediate/standard"): LabSheet {
  const scenario = getScenario(...scenarioParts(id));
  return {
    id,
    slug: LAB_SLUGS[id],
    title: scenario.title,
    summary: scenario.summary,
    reproducible: "partly",
    limits: SINGLE_NODE_DYNAMIC_LIMITS,
    cluster: { name: LAB_CLUSTER, tool: "kind", nodes: `one node, ${LAB_NODE}` },
    install: [TOOLS, HOSTPATH_INSTALL],
    manifests: [
      { file: "storageclass.yaml", yaml: toYaml(storageClassManifest(id)) },
      { file: "pvc.yaml", yaml: toYaml(pvcManifest(id)) },
      { file: "pod.yaml", yaml: toYaml(podManifest(null)) },
    ],
    setup: [{ why: "Create the StorageClass", run: "kubectl apply -f storageclass.yaml" }],
    watch: WATCH,
    steps: labSteps(id, LAB_NODE),
    cleanup: [
      {
        why: "Delete the Pod and the PVC (reclaimPolicy Delete removes the PV and the volume)",
        run: "kubectl delete pod app && kubectl delete pvc data",
      },
    ],
  };
}

function zoneConflictSheet(): LabSheet {
  const id = "Immediate/zone-conflict" as const;
  const scenario = getScenario("Immediate", "zone-conflict");
  const disk = "<the worker that holds the disk>";
  return {
    id,
    slug: LAB_SLUGS[id],
    title: scenario.title,
    summary: scenario.summary,
    reproducible: "partly",
    limits: [
      "Real zones cannot be reproduced on a laptop: no laptop CSI driver creates disks per zone. What a laptop can show is the same failure one level down, with each node as its own topology domain: the hostpath driver's distributed deployment puts a provisioner on every node and reports topology.hostpath.csi/node.",
      `With Immediate binding each node's provisioner waits 20 to 60 s, then one of them takes the claim (it writes selected-node itself, unlike the diagram) and creates the disk on its own node. Which worker wins is chance; step 6 reads it back.`,
      `The Pod is pinned to the other worker with nodeSelector kubernetes.io/hostname instead of a zone. kind also has a control-plane node with a NoSchedule taint, so the message counts three nodes and one more reason than the diagram: 0/3 nodes are available: 1 node(s) didn't match PersistentVolume's node affinity, 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.`,
      "That expected message is derived from the scheduler's rules (first failing filter per node, sorted reasons), not copied from a run; on 1.32 and older the PV reason reads node(s) had volume node affinity conflict.",
      `The distributed deployment sets attachRequired: false, and provisioning there also emits no ExternalProvisioning until the claim is taken. The exact PVC events are the driver's; the Pod's FailedScheduling is Kubernetes' own.`,
    ],
    cluster: { name: LAB_CLUSTER, tool: "kind", nodes: `three nodes: ${LAB_NODE} (control plane, tainted), ${LAB_WORKERS.join(" and ")}` },
    install: [
      {
        ...TOOLS,
        commands: [
          `printf 'kind: Cluster\\napiVersion: kind.x-k8s.io/v1alpha4\\nnodes:\\n- role: control-plane\\n- role: worker\\n- role: worker\\n' > kind-3-nodes.yaml`,
          `${KIND_CREATE} --config kind-3-nodes.yaml`,
          "kubectl get nodes",
        ],
      },
      {
        what: "csi-driver-host-path, distributed deployment (one provisioner per node)",
        why: "Each node becomes its own topology segment, so a volume created without knowing the Pod can land on a node the Pod may not use: the zone conflict, with nodes for zones.",
        commands: [
          "git clone https://github.com/kubernetes-csi/csi-driver-host-path.git",
          "csi-driver-host-path/deploy/kubernetes-distributed/deploy.sh",
          "kubectl get csistoragecapacities -A",
        ],
      },
    ],
    manifests: [
      { file: "storageclass.yaml", yaml: toYaml(storageClassManifest(id)) },
      { file: "pvc.yaml", yaml: toYaml(pvcManifest(id)) },
      { file: "pod.yaml", yaml: toYaml(podManifest({ "kubernetes.io/hostname": "OTHER_NODE" })) },
    ],
    setup: [{ why: "Create the StorageClass", run: "kubectl apply -f storageclass.yaml" }],
    watch: WATCH,
    steps: labSteps(id, disk).map((s) =>
      s.label === 4
        ? {
            ...s,
            events: [
              "Warning  FailedScheduling  Pod/app  0/3 nodes are available: 1 node(s) didn't match PersistentVolume's node affinity, 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
            ],
            note: `On the diagram: ${s.events[0]?.replace(/^Warning {2}FailedScheduling {2}Pod\/app {2}/, "") ?? ""}`,
          }
        : s,
    ),
    cleanup: [
      {
        why: "Delete everything, then the cluster",
        run: `kubectl delete pod app && kubectl delete pvc data && kind delete cluster --name ${LAB_CLUSTER}`,
      },
    ],
  };
}

function localSheet(id: "Local/standard" | "Local/no-local-pv"): LabSheet {
  const scenario = getScenario(...scenarioParts(id));
  const missing = id === "Local/no-local-pv";
  const manifests: LabManifest[] = [
    { file: "storageclass.yaml", yaml: toYaml(storageClassManifest(id)) },
    ...(missing ? [] : [{ file: "local-pv.yaml", yaml: toYaml(localPvManifest(LAB_NODE)) }]),
    { file: "pvc.yaml", yaml: toYaml(pvcManifest(id)) },
    { file: "pod.yaml", yaml: toYaml(podManifest(null)) },
  ];
  return {
    id,
    slug: LAB_SLUGS[id],
    title: scenario.title,
    summary: scenario.summary,
    reproducible: "yes",
    limits: [
      `One node (${LAB_NODE}), which holds the hand-made PV: where the diagram says node-b1, read ${LAB_NODE}.${missing ? " With no PV the message counts one node: 0/1 nodes are available: 1 node(s) didn't find available persistent volumes to bind. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling." : " With one node there is no other node to reject; the diagram's node-a and node-b2 have no counterpart."}`,
      "No CSI driver is needed: kubernetes.io/no-provisioner and the in-tree local volume plugin are part of Kubernetes.",
      ...(missing
        ? ["WaitForPodScheduled repeats on every PV-controller re-sync (every 15 s): kubectl events shows it with a growing count."]
        : []),
    ],
    cluster: { name: LAB_CLUSTER, tool: "kind", nodes: `one node, ${LAB_NODE}` },
    install: [TOOLS],
    manifests,
    setup: [
      ...(missing
        ? []
        : [
            { why: `Make the directory the PV points at, inside the kind node`, run: `docker exec ${LAB_NODE} mkdir -p ${LOCAL_PATH}` },
            { why: "Create the hand-made local PV", run: "kubectl apply -f local-pv.yaml" },
          ]),
      { why: "Create the StorageClass", run: "kubectl apply -f storageclass.yaml" },
    ],
    watch: WATCH,
    steps: labSteps(id, LAB_NODE),
    cleanup: [
      {
        why: missing ? "Delete the Pod and the PVC" : "Delete the Pod, the PVC and the PV (Retain: the PV is not deleted for you)",
        run: missing
          ? "kubectl delete pod app && kubectl delete pvc data"
          : `kubectl delete pod app && kubectl delete pvc data && kubectl delete pv ${LOCAL_PV_NAME}`,
      },
    ],
  };
}

export const LAB_SHEETS: Readonly<Record<ScenarioId, LabSheet>> = {
  "WaitForFirstConsumer/standard": dynamicSheet("WaitForFirstConsumer/standard"),
  "Immediate/standard": dynamicSheet("Immediate/standard"),
  "Immediate/zone-conflict": zoneConflictSheet(),
  "Local/standard": localSheet("Local/standard"),
  "Local/no-local-pv": localSheet("Local/no-local-pv"),
};
