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
import { failedSchedulingMessage } from "./events";
import { kubeStrings } from "./kubeStrings";
import { getScenario } from "./scenarios";
import type { BindingMode, KubeEvent, KubeObject, NodeVerdict, Scenario, VariantId, World } from "./types";
import { DEFAULT_KUBE_VERSION, KUBE_VERSION_LABELS, type KubeVersion } from "./versions";
import { worldAt } from "./world";
import { toYaml } from "./yaml";
import { isRecord, stringAt } from "../guards";

/**
 * Lab sheets: the lesson's scenarios on a laptop cluster, for the Kubernetes
 * release the class runs. Everything a student types or should see is derived
 * from the same scenario and world data the diagram uses, with the lesson's
 * illustrative names swapped for the lab cluster's, so the strings match the
 * screen the class saw. What only a laptop prints (kind's node names, its
 * tainted control plane, the hostpath driver's logs) is written here, each
 * traced to its source. Every command line is checked against kubectl's
 * argument rules (kubectlArgs.ts) by lab.test.ts.
 */

/** URL segment for each scenario: /lab/<slug>. */
export const LAB_SLUGS: Readonly<Record<ScenarioId, string>> = {
  "WaitForFirstConsumer/standard": "wait-for-first-consumer",
  "Immediate/standard": "immediate",
  "Immediate/zone-conflict": "immediate-zone-conflict",
  "Local/standard": "local",
  "Local/no-local-pv": "local-no-matching-pv",
};

/** The query parameter that carries the sheet's Kubernetes version: /lab/immediate?k8s=1.32. */
export const LAB_VERSION_PARAM = "k8s";

/** A scenario's sheet; with a version, that release's sheet (the console passes the session's). */
export function labPath(mode: BindingMode, variant: VariantId, version?: KubeVersion): string {
  const id = scenarioId(mode, variant) ?? scenarioId(mode, "standard")!;
  return `/lab/${LAB_SLUGS[id]}${version ? `?${LAB_VERSION_PARAM}=${version}` : ""}`;
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
  /** The same step for another tool (Podman instead of Docker), printed as a comment under the command. */
  or?: { when: string; run: string };
}

export interface LabCheck {
  command: string;
  /** What it prints at this step. */
  expect: string;
  /**
   * What it prints once the scenario has moved on, when that differs: steps
   * that follow by themselves pass in seconds, so a check typed afterwards
   * reads this. The watches show the moment itself.
   */
  afterwards?: string;
}

export interface LabStep {
  /** 1-based position in the scenario's track, as the diagram numbers it. */
  position: number;
  label: number;
  title: string;
  /** What to run at this step (often nothing: the step happens by itself). */
  run: LabCommand[];
  /** Commands that show the step's traces, each with the output to expect. */
  check: LabCheck[];
  /** The events this step adds, as `kubectl events` prints TYPE, REASON, OBJECT and MESSAGE. */
  events: string[];
  note?: string;
}

export interface LabFile {
  file: string;
  /** "yaml" for manifests and kind's config. */
  body: string;
}

export interface LabInstall {
  what: string;
  why: string;
  /** Files the commands read, written out before them (kind's cluster config). */
  files?: LabFile[];
  commands: string[];
  note?: string;
}

export interface LabSheet {
  id: ScenarioId;
  slug: string;
  version: KubeVersion;
  /** One sentence: the release, kind and node image the sheet's strings are for. */
  versionStatement: string;
  title: string;
  summary: string;
  reproducible: Reproducible;
  /** Said plainly: what a laptop cannot show, and what differs from the diagram. */
  limits: string[];
  cluster: { name: string; tool: "kind"; nodes: string };
  install: LabInstall[];
  manifests: LabFile[];
  /** Run once before step 1. */
  setup: LabCommand[];
  /** Keep each running in a terminal of its own: kubectl watches one resource type per command. */
  watch: LabCommand[];
  /** How to read the steps' events: the claim's and the Pod's only (the driver's own Pods share the namespace). */
  events: LabCommand[];
  steps: LabStep[];
  cleanup: LabCommand[];
}

// ---------------------------------------------------------------------------
// The lab cluster, per Kubernetes release, and how its names map onto the lesson's.
// ---------------------------------------------------------------------------

/**
 * One kind release for every version: v0.31.0 ships a node image for each
 * (its release notes, github.com/kubernetes-sigs/kind/releases/tag/v0.31.0;
 * the v1.35.0 digest is also its default, pkg/apis/config/defaults/image.go at
 * the v0.31.0 tag). kind asks for images pinned by digest: a tag alone can
 * move to a build for another kind release.
 */
export const KIND_VERSION = "v0.31.0";
export const LAB_NODE_IMAGES: Readonly<Record<KubeVersion, { release: string; image: string }>> = {
  "1.32": { release: "v1.32.11", image: "kindest/node:v1.32.11@sha256:5fc52d52a7b9574015299724bd68f183702956aa4a2116ae75a63cb574b35af8" },
  "1.33": { release: "v1.33.7", image: "kindest/node:v1.33.7@sha256:d26ef333bdb2cbe9862a0f7c3803ecc7b4303d8cea8e814b481b09949d353040" },
  "1.34": { release: "v1.34.3", image: "kindest/node:v1.34.3@sha256:08497ee19eace7b4b5348db5c6a1591d7752b164530a36f855cb0f2bdcbadd48" },
  "1.35": { release: "v1.35.0", image: "kindest/node:v1.35.0@sha256:452d707d4862f52530247495d180205e029056831160e22870e37e3f6c1ac31f" },
};

/** The minor release a version id stands for on the lab cluster ("1.32" is 1.32.11). */
export function labMinor(version: KubeVersion): number {
  return Number(version.split(".")[1]);
}

export const LAB_CLUSTER = "pv-lab";
/** kind names a cluster's only node <cluster>-control-plane. */
export const LAB_NODE = `${LAB_CLUSTER}-control-plane`;
/** The zone-conflict sheet's three-node cluster has a name of its own, so it never collides with the one-node cluster. */
export const ZONES_CLUSTER = "pv-lab-zones";
export const ZONES_CONTROL_PLANE = `${ZONES_CLUSTER}-control-plane`;
export const ZONES_WORKERS = [`${ZONES_CLUSTER}-worker`, `${ZONES_CLUSTER}-worker2`] as const;
/** The CSI driver that runs on a laptop: kubernetes-csi/csi-driver-host-path. */
export const LAB_DRIVER = "hostpath.csi.k8s.io";
/** A provisioned PV is pvc-<the PVC's UID>; a UID-shaped stand-in keeps kubectl's columns as wide as on the student's screen. */
export const LAB_PV_NAME = "pvc-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx";
/** The labels on every csi-hostpathplugin Pod, StatefulSet or DaemonSet (deploy/kubernetes-*\/hostpath/csi-hostpath-plugin.yaml). */
const HOSTPATH_POD_SELECTOR = "app.kubernetes.io/name=csi-hostpathplugin";

const kindCreate = (cluster: string, version: KubeVersion, extra = "") =>
  `kind create cluster --name ${cluster} --image ${LAB_NODE_IMAGES[version].image}${extra}`;

/** Text swaps from the lesson's illustrative cluster to the lab's. */
function labText(text: string, node: string): string {
  return text
    .replaceAll(DYNAMIC_PV_NAME, LAB_PV_NAME)
    .replaceAll(DRIVER, LAB_DRIVER)
    .replaceAll("node-b1", node)
    .replaceAll("node-a", node);
}

/**
 * One line of `kubectl events`: TYPE  REASON  OBJECT  MESSAGE (LAST SEEN left
 * out). kubectl trims the message (events/event_printer.go: strings.TrimSpace),
 * so the attach message's trailing space never shows.
 */
export function eventLine(e: KubeEvent, node: string): string {
  return `${e.type}  ${e.reason}  ${e.involvedObject}  ${labText(e.message, node).trim()}`;
}

/**
 * A table as kubectl prints it (custom-columns, get): a header row, then one
 * row per object, aligned by cli-runtime's tabwriter (printers/tabwriter.go:
 * minimum width 6, padding 3); the last column is not padded.
 */
export function kubectlTable(rows: readonly (readonly string[])[]): string {
  const widths = rows[0].slice(0, -1).map((_, col) => Math.max(6, ...rows.map((row) => row[col].length + 3)));
  return rows.map((row) => row.map((cell, col) => (col < widths.length ? cell.padEnd(widths[col]) : cell)).join("")).join("\n");
}

// ---------------------------------------------------------------------------
// FailedScheduling on the lab's own clusters (not the lesson's three nodes).
// ---------------------------------------------------------------------------

/**
 * The scheduler's message on a lab cluster: its own nodes, each with its first
 * failing filter, in the release's wording and tail (events.ts builds the text,
 * kubeStrings.ts holds what each release prints).
 */
function labFailedScheduling(version: KubeVersion, verdicts: readonly NodeVerdict[]): string {
  return failedSchedulingMessage(verdicts, version);
}

/** kind keeps the control-plane taint when a cluster has workers (kind v0.31.0, actions/kubeadminit/init.go). */
const taintedControlPlane = (version: KubeVersion, node: string): NodeVerdict => ({
  node,
  fits: false,
  reason: kubeStrings(version).untoleratedTaint("node-role.kubernetes.io/control-plane", ""),
});

const failedSchedulingLine = (message: string) => `Warning  FailedScheduling  Pod/app  ${message}`;

// ---------------------------------------------------------------------------
// Manifests: the lesson's objects, reduced to what you apply, with lab names.
// ---------------------------------------------------------------------------

function storageClassManifest(id: ScenarioId): KubeObject {
  const cast = SCENARIO_CASTS[id].storageClass;
  const provisioner = stringAt(cast, "provisioner");
  // No fstype parameter: the hostpath driver hands out directories, not block devices to format.
  return {
    apiVersion: "storage.k8s.io/v1",
    kind: "StorageClass",
    metadata: { name: stringAt(cast, "metadata", "name") },
    provisioner: provisioner === "kubernetes.io/no-provisioner" ? provisioner : LAB_DRIVER,
    reclaimPolicy: stringAt(cast, "reclaimPolicy"),
    volumeBindingMode: stringAt(cast, "volumeBindingMode"),
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

// `image: nginx`, as on the lesson's Pod: no tag means :latest, which defaults imagePullPolicy to Always.
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

const KIND_THREE_NODES: LabFile = {
  file: "kind-3-nodes.yaml",
  body: toYaml({
    kind: "Cluster",
    apiVersion: "kind.x-k8s.io/v1alpha4",
    nodes: [{ role: "control-plane" }, { role: "worker" }, { role: "worker" }],
  }),
};

// ---------------------------------------------------------------------------
// What to run and what to see at each step.
// ---------------------------------------------------------------------------

const jsonpath = (target: string, path: string) => `kubectl get ${target} -o jsonpath='${path}{"\\n"}'`;
const SELECTED_NODE_PATH = "{.metadata.annotations.volume\\.kubernetes\\.io/selected-node}";

/** A check whose output is read from the lesson's world, so the sheet can tell the moment from what follows it. */
interface WorldCheck {
  command: string;
  read: (world: World) => string;
}

const annotation = (obj: KubeObject | null, key: string) => {
  const annotations = isRecord(obj) && isRecord(obj.metadata) ? obj.metadata.annotations : undefined;
  const value = isRecord(annotations) ? annotations[key] : undefined;
  return typeof value === "string" ? value : "";
};
const orEmpty = (value: string, why: string) => (value === "" ? `(an empty line: ${why})` : value);

function podConditions(world: World): string {
  const conditions = isRecord(world.pod) && isRecord(world.pod.status) ? world.pod.status.conditions : undefined;
  return Array.isArray(conditions) ? conditions.map((c) => `${stringAt(c, "type")}=${stringAt(c, "status")}`).join("\n") : "";
}

function containerWaiting(world: World): string {
  const statuses = isRecord(world.pod) && isRecord(world.pod.status) ? world.pod.status.containerStatuses : undefined;
  return Array.isArray(statuses) ? stringAt(statuses[0], "state", "waiting", "reason") : "";
}

/** The checks of one card step, as read from a world; the lab's node and PV names stand in for the lesson's. */
function worldChecks(scenario: Scenario, index: number, node: string): WorldCheck[] {
  const step = scenario.steps[index];
  const pvcPhase = { command: jsonpath("pvc data", "{.status.phase}"), read: (w: World) => stringAt(w.pvc, "status", "phase") };
  const podNode = {
    command: jsonpath("pod app", "{.spec.nodeName}"),
    read: (w: World) => (w.podNode ? node : orEmpty("", step.label === 4 ? "the choice is only in the scheduler's memory" : "no node yet")),
  };
  const podPhase = { command: jsonpath("pod app", "{.status.phase}"), read: (w: World) => stringAt(w.pod, "status", "phase") };
  switch (step.label) {
    case 1:
      return [pvcPhase];
    case 2:
    case 3:
      return [podNode, podPhase];
    case 4:
      return step.failed
        ? [
            podPhase,
            {
              command: jsonpath("pod app", '{.status.conditions[?(@.type=="PodScheduled")].reason}'),
              read: () => "Unschedulable",
            },
          ]
        : [podNode];
    case 5:
      return scenario.mode === "Local"
        ? [{ command: jsonpath(`pv ${LOCAL_PV_NAME}`, "{.spec.claimRef.name}"), read: (w) => stringAt(w.pv, "spec", "claimRef", "name") }]
        : [
            {
              command: jsonpath("pvc data", SELECTED_NODE_PATH),
              read: (w) =>
                annotation(w.pvc, "volume.kubernetes.io/selected-node") === "" ? orEmpty("", "Immediate never writes selected-node") : node,
            },
          ];
    case 6:
      return [
        {
          command: jsonpath("pvc data", "{.metadata.annotations.volume\\.kubernetes\\.io/storage-provisioner}"),
          read: (w) => labText(annotation(w.pvc, "volume.kubernetes.io/storage-provisioner"), node),
        },
      ];
    case 8:
      return [
        {
          command: "kubectl get pv -o custom-columns=NAME:.metadata.name,PHASE:.status.phase,CLAIM:.spec.claimRef.name",
          read: (w) =>
            kubectlTable([
              ["NAME", "PHASE", "CLAIM"],
              [LAB_PV_NAME, stringAt(w.pv, "status", "phase"), stringAt(w.pv, "spec", "claimRef", "name")],
            ]),
        },
      ];
    case 9:
      return [
        pvcPhase,
        { command: jsonpath("pvc data", "{.spec.volumeName}"), read: (w) => labText(stringAt(w.pvc, "spec", "volumeName"), node) },
      ];
    case 10:
      return [podNode];
    case 11:
      return [
        {
          command: jsonpath("pod app", "{.status.containerStatuses[0].state.waiting.reason}"),
          read: (w) => orEmpty(containerWaiting(w), "the container is running, not waiting"),
        },
      ];
    case 12:
      return [
        podPhase,
        { command: `kubectl get pod app -o jsonpath='{range .status.conditions[*]}{.type}={.status}{"\\n"}{end}'`, read: podConditions },
        ...(worldAt(scenario, index).volumeAttachment
          ? [
              {
                command:
                  "kubectl get volumeattachment -o custom-columns=ATTACHER:.spec.attacher,NODE:.spec.nodeName,ATTACHED:.status.attached",
                read: (w: World) =>
                  kubectlTable([
                    ["ATTACHER", "NODE", "ATTACHED"],
                    [
                      LAB_DRIVER,
                      node,
                      String(isRecord(w.volumeAttachment) && isRecord(w.volumeAttachment.status) && w.volumeAttachment.status.attached),
                    ],
                  ]),
              },
            ]
          : []),
      ];
    default:
      return [];
  }
}

/** CREATE DISK leaves no Kubernetes object, only the driver's log (hostpath's logGRPC and logGRPCJson, pkg/hostpath/server.go, at --v=5). */
function createDiskCheck(distributed: boolean): LabCheck {
  const source = distributed
    ? `kubectl logs -n default -l ${HOSTPATH_POD_SELECTOR} -c hostpath --prefix --tail=-1`
    : "kubectl logs -n default csi-hostpathplugin-0 -c hostpath";
  return {
    command: `${source} | grep CreateVolume`,
    expect: `two lines per call, after klog's "I… server.go:…]" header${distributed ? " and the [pod/csi-hostpathplugin-…/hostpath] prefix of the node that took the claim" : ""}: GRPC call: /csi.v1.Controller/CreateVolume, then gRPCCall: {"Method":"/csi.v1.Controller/CreateVolume","Request":{…"name":"pvc-…"…},"Response":{"volume":{…}},…} (no Kubernetes object yet)`,
  };
}

/** Where the scenario stands when the student next acts (or at its end): what a check typed "late" prints. */
function settledIndex(scenario: Scenario, index: number, runs: (label: number) => LabCommand[]): number {
  const next = scenario.steps.findIndex((s, i) => i > index && runs(s.label).length > 0);
  return next < 0 ? scenario.steps.length - 1 : next - 1;
}

function labChecks(
  scenario: Scenario,
  index: number,
  node: string,
  runs: (label: number) => LabCommand[],
  distributed: boolean,
): LabCheck[] {
  if (scenario.steps[index].label === 7) return [createDiskCheck(distributed)];
  const now = worldAt(scenario, index);
  const later = worldAt(scenario, settledIndex(scenario, index, runs));
  return worldChecks(scenario, index, node).map(({ command, read }) => {
    const expect = read(now);
    const afterwards = read(later);
    return { command, expect, ...(afterwards !== expect ? { afterwards } : {}) };
  });
}

const HAPPENS_BY_ITSELF =
  "Nothing to run: this step follows by itself, within seconds. The watches show the state below as it passes; the events stay, in order.";

interface StepOptions {
  node: string;
  runs: (label: number) => LabCommand[];
  distributed: boolean;
  /** The FailedScheduling message this lab cluster prints, in place of the lesson's three-node one. */
  failedScheduling?: string;
}

function labSteps(scenario: Scenario, options: StepOptions): LabStep[] {
  const { node, runs } = options;
  return scenario.steps.map((step, index) => {
    const before = index === 0 ? [] : worldAt(scenario, index - 1).events;
    const added = worldAt(scenario, index).events.slice(before.length);
    const lessonFailure = added.find((e) => e.reason === "FailedScheduling");
    const run = runs(step.label);
    const note =
      lessonFailure && options.failedScheduling
        ? `The diagram's three nodes print instead: ${lessonFailure.message}`
        : run.length === 0
          ? HAPPENS_BY_ITSELF
          : undefined;
    return {
      position: index + 1,
      label: step.label,
      title: step.title,
      run,
      check: labChecks(scenario, index, node, runs, options.distributed),
      events: added.map((e) =>
        e === lessonFailure && options.failedScheduling ? failedSchedulingLine(options.failedScheduling) : eventLine(e, node),
      ),
      ...(note ? { note } : {}),
    };
  });
}

const createPvc = (label: number): LabCommand[] => (label === 1 ? [{ why: "Create the PVC", run: "kubectl apply -f pvc.yaml" }] : []);
const standardRuns = (label: number): LabCommand[] =>
  label === 2 ? [{ why: "Create the Pod", run: "kubectl apply -f pod.yaml" }] : createPvc(label);

// ---------------------------------------------------------------------------
// The parts every sheet shares.
// ---------------------------------------------------------------------------

function versionStatement(version: KubeVersion): string {
  return `Commands, objects, events and messages are shown as Kubernetes ${KUBE_VERSION_LABELS[version]} prints them, on a kind ${KIND_VERSION} cluster of Kubernetes ${LAB_NODE_IMAGES[version].release}.`;
}

function tools(version: KubeVersion, cluster: string, files?: LabFile[]): LabInstall {
  const minor = labMinor(version);
  return {
    what: `kind ${KIND_VERSION}, kubectl 1.${minor - 1} to 1.${minor + 1}, and Docker or Podman`,
    why: `kind runs each Kubernetes node in a container. The node image is the one kind ${KIND_VERSION}'s release notes list for Kubernetes ${LAB_NODE_IMAGES[version].release}, pinned by its digest as kind asks. kubectl may be one minor version older or newer than the cluster (kubectl events needs 1.26 or later). With only Podman installed, kind finds it by itself; with both, set KIND_EXPERIMENTAL_PROVIDER=podman to use Podman.`,
    ...(files ? { files } : {}),
    commands: [
      "kind version",
      kindCreate(cluster, version, files ? ` --config ${files[0].file}` : ""),
      "kubectl version",
      "kubectl get nodes",
    ],
    note: `If the cluster already exists from another sheet, kind stops with: ERROR: failed to create cluster: node(s) already exist for a cluster with the name "${cluster}". Use it as it is, or delete it first with the last line of "Clean up".`,
  };
}

const HOSTPATH_INSTALL: LabInstall = {
  what: "csi-driver-host-path (kubernetes-csi), with its provisioner and attacher sidecars",
  why: "A real CSI driver with the external-provisioner and external-attacher, so PROVISION, CREATE PV and the attach in MOUNT happen as on the diagram. Its CSIDriver leaves attachRequired at its default, true, so a VolumeAttachment appears. Its deploy script needs the snapshot CRDs and controller first (the driver ships a snapshotter sidecar).",
  commands: [
    "kubectl kustomize https://github.com/kubernetes-csi/external-snapshotter/client/config/crd | kubectl create -f -",
    "kubectl -n kube-system kustomize https://github.com/kubernetes-csi/external-snapshotter/deploy/kubernetes/snapshot-controller | kubectl create -f -",
    "git clone https://github.com/kubernetes-csi/csi-driver-host-path.git",
    "csi-driver-host-path/deploy/kubernetes-latest/deploy.sh",
    "kubectl get csidriver hostpath.csi.k8s.io",
  ],
  note: 'On a cluster that already has them, the first two lines stop with AlreadyExists errors ("… already exists"): that is fine.',
};

const PULL_LIMIT =
  'The Pod\'s image is nginx with no tag, which means :latest, and a :latest image gets imagePullPolicy: Always: the kubelet asks the registry every time, so Pulling and "Successfully pulled" appear on every run, even when the image is already on the node. Pulled prints your own pull time and image size.';

const WATCH_PVC: LabCommand = { why: "The claim: STATUS Pending, then Bound, with its VOLUME", run: "kubectl get pvc -w" };
const WATCH_POD: LabCommand = {
  why: "The Pod: NODE <none> until BIND POD, then ContainerCreating, then Running",
  run: "kubectl get pod -o wide -w",
};
const watchPv = (local: boolean): LabCommand => ({
  why: local ? "The hand-made volume: STATUS Available, then Bound" : "The volume: STATUS Pending for a moment at CREATE PV, then Bound",
  run: "kubectl get pv -w",
});

// kubectl events --for takes one object (events.go, decodeResourceTypeName): one line each.
const READ_EVENTS: LabCommand[] = [
  { why: "The claim's events, oldest first", run: "kubectl events --for pvc/data" },
  { why: "The Pod's events", run: "kubectl events --for pod/app" },
];

const TRANSIENT_LIMIT =
  "Steps that follow by themselves pass in seconds, so a check you type afterwards prints the later state: the sheet gives both, and the watches (one terminal each: kubectl watches one resource type per command) show each moment as it passes.";

// ---------------------------------------------------------------------------
// The five sheets.
// ---------------------------------------------------------------------------

/** The lesson's scenario as the release prints it: its world's objects and events carry that release's strings. */
function scenarioFor(id: ScenarioId, version: KubeVersion): Scenario {
  const [mode, variant] = scenarioParts(id);
  return getScenario(mode, variant, version);
}

function dynamicSheet(id: "WaitForFirstConsumer/standard" | "Immediate/standard", version: KubeVersion): LabSheet {
  const scenario = scenarioFor(id, version);
  return {
    id,
    slug: LAB_SLUGS[id],
    version,
    versionStatement: versionStatement(version),
    title: scenario.title,
    summary: scenario.summary,
    reproducible: "partly",
    limits: [
      `One node (${LAB_NODE}) and no zones: the scheduler has only one choice, and the hostpath driver reports its topology as topology.hostpath.csi/node, not topology.kubernetes.io/zone. Where the diagram says node-b1, node-a or zone-b, read ${LAB_NODE}.`,
      `The driver is ${LAB_DRIVER}, not the lesson's placeholder ${DRIVER}; the PV's name is pvc- plus your PVC's own UID (${LAB_PV_NAME} here), and the volumeHandle is a UUID.`,
      TRANSIENT_LIMIT,
      PULL_LIMIT,
    ],
    cluster: { name: LAB_CLUSTER, tool: "kind", nodes: `one node, ${LAB_NODE}` },
    install: [tools(version, LAB_CLUSTER), HOSTPATH_INSTALL],
    manifests: [
      { file: "storageclass.yaml", body: toYaml(storageClassManifest(id)) },
      { file: "pvc.yaml", body: toYaml(pvcManifest(id)) },
      { file: "pod.yaml", body: toYaml(podManifest(null)) },
    ],
    setup: [{ why: "Create the StorageClass", run: "kubectl apply -f storageclass.yaml" }],
    watch: [WATCH_PVC, watchPv(false), WATCH_POD],
    events: READ_EVENTS,
    steps: labSteps(scenario, { node: LAB_NODE, runs: standardRuns, distributed: false }),
    cleanup: [
      {
        why: "Delete the Pod and the PVC (reclaimPolicy Delete removes the PV and the volume)",
        run: "kubectl delete pod app && kubectl delete pvc data",
      },
      { why: "When you are done with the sheets that use this cluster, delete it", run: `kind delete cluster --name ${LAB_CLUSTER}` },
    ],
  };
}

/** Immediate's zone conflict, one level down: the distributed hostpath deployment makes each node its own topology domain. */
function zoneConflictSheet(version: KubeVersion): LabSheet {
  const id = "Immediate/zone-conflict" as const;
  const scenario = scenarioFor(id, version);
  const disk = "<the worker that holds the disk>";
  const reasons = kubeStrings(version).reasons;
  // TaintToleration runs before NodeAffinity, and NodeAffinity before VolumeBinding: each node reports the first that fails.
  const failed = labFailedScheduling(version, [
    taintedControlPlane(version, ZONES_CONTROL_PLANE),
    { node: disk, fits: false, failedFilter: "NodeAffinity", reason: reasons.nodeAffinity },
    { node: "<the other worker>", fits: false, failedFilter: "VolumeBinding", reason: reasons.pvNodeAffinity },
  ]);
  const runs = (label: number): LabCommand[] =>
    label !== 2
      ? createPvc(label)
      : [
          {
            why: "Wait until a node's provisioner has taken the claim and it is Bound (up to about 20 s)",
            run: "kubectl wait --for=jsonpath='{.status.phase}'=Bound pvc/data --timeout=120s",
          },
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
  const steps = labSteps(scenario, { node: disk, runs, distributed: true, failedScheduling: failed }).map((step) =>
    step.label === 6
      ? {
          ...step,
          check: [
            ...step.check,
            {
              command: jsonpath("pvc data", SELECTED_NODE_PATH),
              expect: `the worker whose provisioner took the claim, ${ZONES_WORKERS.join(" or ")}`,
            },
          ],
        }
      : step,
  );
  return {
    id,
    slug: LAB_SLUGS[id],
    version,
    versionStatement: versionStatement(version),
    title: scenario.title,
    summary: scenario.summary,
    reproducible: "partly",
    limits: [
      "Real zones cannot be reproduced on a laptop: no laptop CSI driver creates disks per zone. What a laptop can show is the same failure one level down, with each node as its own topology domain: the hostpath driver's distributed deployment runs a provisioner on every worker (a DaemonSet) and reports topology.hostpath.csi/node.",
      "With Immediate binding no node is chosen for the claim, so every worker's provisioner tries to take it (external-provisioner, becomeOwner): each first waits 20 s minus a random 0 to 20 s (--node-deployment-base-delay, 20 s by default, less a jitter of up to that much), so the claim is usually taken within 20 s. The first to wake writes selected-node with its own node, unlike the diagram, and creates the disk there; the others see the claim taken and stand down. One whose write collides with the winner's tries again after a longer wait (40 s, then at most 60 s, each less the same jitter) and then finds the claim taken. Which worker wins is chance; step 6 reads it back.",
      `The Pod is pinned to the other worker with nodeSelector kubernetes.io/hostname instead of a zone. kind's control plane keeps its NoSchedule taint when the cluster has workers, so the message counts three nodes and one more reason than the diagram: ${failed}`,
      "That expected message is derived from the scheduler's rules (each node's first failing filter, the reasons sorted), not copied from a run.",
      "As on the diagram, the PV controller emits ExternalProvisioning on its first sync of the Immediate claim, before any provisioner has taken it; Provisioning and ProvisioningSucceeded come from the node that took it. The distributed deployment's CSIDriver sets attachRequired: false, so this cluster would attach nothing at MOUNT.",
      TRANSIENT_LIMIT,
    ],
    cluster: {
      name: ZONES_CLUSTER,
      tool: "kind",
      nodes: `three nodes: ${ZONES_CONTROL_PLANE} (control plane, tainted), ${ZONES_WORKERS.join(" and ")}`,
    },
    install: [
      tools(version, ZONES_CLUSTER, [KIND_THREE_NODES]),
      {
        what: "csi-driver-host-path, distributed deployment (one provisioner per node)",
        why: "Each node becomes its own topology segment, so a volume created without knowing the Pod can land on a node the Pod may not use: the zone conflict, with nodes for zones.",
        commands: [
          "git clone https://github.com/kubernetes-csi/csi-driver-host-path.git",
          "csi-driver-host-path/deploy/kubernetes-distributed/deploy.sh",
          `kubectl get pods -n default -l ${HOSTPATH_POD_SELECTOR} -o wide`,
        ],
      },
    ],
    manifests: [
      { file: "storageclass.yaml", body: toYaml(storageClassManifest(id)) },
      { file: "pvc.yaml", body: toYaml(pvcManifest(id)) },
      { file: "pod.yaml", body: toYaml(podManifest({ "kubernetes.io/hostname": "OTHER_NODE" })) },
    ],
    setup: [{ why: "Create the StorageClass", run: "kubectl apply -f storageclass.yaml" }],
    watch: [WATCH_PVC, watchPv(false), WATCH_POD],
    events: READ_EVENTS,
    steps,
    cleanup: [
      { why: "Delete the Pod and the PVC", run: "kubectl delete pod app && kubectl delete pvc data" },
      { why: "Delete the three-node cluster", run: `kind delete cluster --name ${ZONES_CLUSTER}` },
    ],
  };
}

function localSheet(id: "Local/standard" | "Local/no-local-pv", version: KubeVersion): LabSheet {
  const scenario = scenarioFor(id, version);
  const missing = id === "Local/no-local-pv";
  const failed = labFailedScheduling(version, [
    { node: LAB_NODE, fits: false, failedFilter: "VolumeBinding", reason: kubeStrings(version).reasons.noPersistentVolumes },
  ]);
  const manifests: LabFile[] = [
    { file: "storageclass.yaml", body: toYaml(storageClassManifest(id)) },
    ...(missing ? [] : [{ file: "local-pv.yaml", body: toYaml(localPvManifest(LAB_NODE)) }]),
    { file: "pvc.yaml", body: toYaml(pvcManifest(id)) },
    { file: "pod.yaml", body: toYaml(podManifest(null)) },
  ];
  const mkdir = `exec ${LAB_NODE} mkdir -p ${LOCAL_PATH}`;
  return {
    id,
    slug: LAB_SLUGS[id],
    version,
    versionStatement: versionStatement(version),
    title: scenario.title,
    summary: scenario.summary,
    reproducible: "yes",
    limits: missing
      ? [
          `One node (${LAB_NODE}), and no local PV at all: where the diagram says node-a, node-b1 or node-b2, read ${LAB_NODE}. kind removes the control-plane taint from a one-node cluster, so the scheduler's message counts one node, not the diagram's three: ${failed}`,
          "No CSI driver is needed: kubernetes.io/no-provisioner and the in-tree local volume plugin are part of Kubernetes.",
          "WaitForPodScheduled repeats on every PV-controller re-sync (every 15 s): kubectl events shows it with a growing count.",
        ]
      : [
          `One node (${LAB_NODE}), which holds the hand-made PV: where the diagram says node-b1, read ${LAB_NODE}. With one node there is no other node to reject; the diagram's node-a and node-b2 have no counterpart.`,
          "No CSI driver is needed: kubernetes.io/no-provisioner and the in-tree local volume plugin are part of Kubernetes.",
          TRANSIENT_LIMIT,
          PULL_LIMIT,
        ],
    cluster: { name: LAB_CLUSTER, tool: "kind", nodes: `one node, ${LAB_NODE}` },
    install: [tools(version, LAB_CLUSTER)],
    manifests,
    setup: [
      ...(missing
        ? []
        : [
            {
              why: "Make the directory the PV points at, inside the kind node (a container)",
              run: `docker ${mkdir}`,
              or: { when: "With Podman instead of Docker", run: `podman ${mkdir}` },
            },
            { why: "Create the hand-made local PV", run: "kubectl apply -f local-pv.yaml" },
          ]),
      { why: "Create the StorageClass", run: "kubectl apply -f storageclass.yaml" },
    ],
    watch: missing ? [WATCH_PVC, WATCH_POD] : [WATCH_PVC, watchPv(true), WATCH_POD],
    events: READ_EVENTS,
    steps: labSteps(scenario, { node: LAB_NODE, runs: standardRuns, distributed: false, ...(missing ? { failedScheduling: failed } : {}) }),
    cleanup: [
      {
        why: missing ? "Delete the Pod and the PVC" : "Delete the Pod, the PVC and the PV (Retain: the PV is not deleted for you)",
        run: missing
          ? "kubectl delete pod app && kubectl delete pvc data"
          : `kubectl delete pod app && kubectl delete pvc data && kubectl delete pv ${LOCAL_PV_NAME}`,
      },
      { why: "When you are done with the sheets that use this cluster, delete it", run: `kind delete cluster --name ${LAB_CLUSTER}` },
    ],
  };
}

/** The sheet of a scenario for a Kubernetes release (the newest traced one unless the reader picks another). */
export function labSheet(id: ScenarioId, version: KubeVersion = DEFAULT_KUBE_VERSION): LabSheet {
  switch (id) {
    case "WaitForFirstConsumer/standard":
    case "Immediate/standard":
      return dynamicSheet(id, version);
    case "Immediate/zone-conflict":
      return zoneConflictSheet(version);
    case "Local/standard":
    case "Local/no-local-pv":
      return localSheet(id, version);
  }
}

/** Every scenario's sheet for one release. */
export function labSheets(version: KubeVersion = DEFAULT_KUBE_VERSION): Readonly<Record<ScenarioId, LabSheet>> {
  return {
    "WaitForFirstConsumer/standard": labSheet("WaitForFirstConsumer/standard", version),
    "Immediate/standard": labSheet("Immediate/standard", version),
    "Immediate/zone-conflict": labSheet("Immediate/zone-conflict", version),
    "Local/standard": labSheet("Local/standard", version),
    "Local/no-local-pv": labSheet("Local/no-local-pv", version),
  };
}

/** One scenario's sheet in every release the lesson traces: what the lab page carries, so the reader can switch. */
export function labSheetsByVersion(id: ScenarioId): Readonly<Record<KubeVersion, LabSheet>> {
  return { "1.32": labSheet(id, "1.32"), "1.33": labSheet(id, "1.33"), "1.34": labSheet(id, "1.34"), "1.35": labSheet(id, "1.35") };
}

/** Every command line a sheet prints, for the argument checker: install, setup, watches, steps, checks and clean-up. */
export function labCommandLines(sheet: LabSheet): string[] {
  const commands = (list: readonly LabCommand[]) => list.flatMap((c) => [c.run, ...(c.or ? [c.or.run] : [])]);
  return [
    ...sheet.install.flatMap((i) => [...i.commands]),
    ...commands(sheet.setup),
    ...commands(sheet.watch),
    ...commands(sheet.events),
    ...sheet.steps.flatMap((s) => [...commands(s.run), ...s.check.map((c) => c.command)]),
    ...commands(sheet.cleanup),
  ];
}
