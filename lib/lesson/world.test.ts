import { describe, expect, it } from "vitest";
import { getScenario, worldAt, initialWorld, eventsFor, type World, type Scenario } from "./index";

// Expected values are literals copied from LESSON.md (sections 1, 2, 4, 6, 8), never imported from the model.
const DRIVER = "disk.csi.example.com";
const PV = "pvc-3f1c0a52-0000-0000-0000-000000000000";
const UID = "3f1c0a52-0000-0000-0000-000000000000";
const LOCAL_PV = "local-pv-node-b1-ssd1";

const SELECTED = { "volume.kubernetes.io/selected-node": "node-b1" };
const PROVISIONER = {
  "volume.kubernetes.io/storage-provisioner": DRIVER,
  "volume.beta.kubernetes.io/storage-provisioner": DRIVER,
};
const BOUND = { "pv.kubernetes.io/bind-completed": "yes", "pv.kubernetes.io/bound-by-controller": "yes" };
const DYNAMIC_PV_ANNOTATIONS = {
  "pv.kubernetes.io/provisioned-by": DRIVER,
  "volume.kubernetes.io/provisioner-deletion-secret-name": "",
  "volume.kubernetes.io/provisioner-deletion-secret-namespace": "",
};
// LESSON.md section 6, "Version note": the order a real PV lists them.
const DYNAMIC_FINALIZERS = ["external-provisioner.volume.kubernetes.io/finalizer", "kubernetes.io/pv-protection"];
const ATTACHED_FINALIZERS = [...DYNAMIC_FINALIZERS, "external-attacher/disk-csi-example-com"];

/** What each row pins, read off a World. */
interface Snap {
  label: number;
  pvc: null | { phase: string; annotations: Record<string, string>; volumeName: string | null };
  pv: null | {
    name: string;
    phase: string;
    annotations: Record<string, string>;
    claimRef: boolean;
    affinity: string;
    finalizers: string[];
  };
  pod: null | { nodeName: string | null; phase: string; scheduled: string | null };
  va: boolean;
  disk: string | null;
  /** Reasons of the events this step added. */
  newEvents: string[];
}

type Obj = Record<string, any>;

function snap(scenario: Scenario, index: number): Snap {
  const w = worldAt(scenario, index);
  const before = index === 0 ? initialWorld(scenario) : worldAt(scenario, index - 1);
  const pvc = w.pvc as Obj | null;
  const pv = w.pv as Obj | null;
  const pod = w.pod as Obj | null;
  const expr = pv?.spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0];
  return {
    label: scenario.steps[index].label,
    pvc: pvc && {
      phase: pvc.status.phase,
      annotations: pvc.metadata.annotations ?? {},
      volumeName: pvc.spec.volumeName ?? null,
    },
    pv: pv && {
      name: pv.metadata.name,
      phase: pv.status.phase,
      annotations: pv.metadata.annotations ?? {},
      claimRef: pv.spec.claimRef !== undefined,
      affinity: `${expr.key} ${expr.operator} ${expr.values.join(",")}`,
      finalizers: pv.metadata.finalizers,
    },
    pod: pod && {
      nodeName: pod.spec.nodeName ?? null,
      phase: pod.status.phase,
      scheduled: pod.status.conditions?.find((c: Obj) => c.type === "PodScheduled")?.status ?? null,
    },
    va: w.volumeAttachment !== null,
    disk: w.disk ? `${w.disk.id}@${w.disk.zone}` : null,
    newEvents: w.events.slice(before.events.length).map((e) => e.reason),
  };
}

const ZONE_B = "topology.kubernetes.io/zone In zone-b";
const ZONE_A = "topology.kubernetes.io/zone In zone-a";
const HOST_B1 = "kubernetes.io/hostname In node-b1";

const pvcPending = (annotations: Record<string, string>) => ({ phase: "Pending", annotations, volumeName: null });
const dynPv = (phase: string, affinity: string, finalizers = DYNAMIC_FINALIZERS) => ({
  name: PV,
  phase,
  annotations: DYNAMIC_PV_ANNOTATIONS,
  claimRef: true,
  affinity,
  finalizers,
});
const pod = (nodeName: string | null, phase = "Pending", scheduled: string | null = null) => ({ nodeName, phase, scheduled });

const WFFC: Snap[] = [
  { label: 1, pvc: pvcPending({}), pv: null, pod: null, va: false, disk: null, newEvents: ["WaitForFirstConsumer"] },
  { label: 2, pvc: pvcPending({}), pv: null, pod: pod(null), va: false, disk: null, newEvents: [] },
  { label: 3, pvc: pvcPending({}), pv: null, pod: pod(null), va: false, disk: null, newEvents: [] },
  { label: 4, pvc: pvcPending({}), pv: null, pod: pod(null), va: false, disk: null, newEvents: [] },
  { label: 5, pvc: pvcPending(SELECTED), pv: null, pod: pod(null), va: false, disk: null, newEvents: [] },
  {
    label: 6,
    pvc: pvcPending({ ...SELECTED, ...PROVISIONER }),
    pv: null,
    pod: pod(null),
    va: false,
    disk: null,
    newEvents: ["ExternalProvisioning", "Provisioning"],
  },
  {
    label: 7,
    pvc: pvcPending({ ...SELECTED, ...PROVISIONER }),
    pv: null,
    pod: pod(null),
    va: false,
    disk: "vol-0abc123@zone-b",
    newEvents: [],
  },
  {
    label: 8,
    pvc: pvcPending({ ...SELECTED, ...PROVISIONER }),
    pv: dynPv("Pending", ZONE_B),
    pod: pod(null),
    va: false,
    disk: "vol-0abc123@zone-b",
    newEvents: ["ProvisioningSucceeded"],
  },
  {
    label: 9,
    pvc: { phase: "Bound", annotations: { ...BOUND, ...SELECTED, ...PROVISIONER }, volumeName: PV },
    pv: dynPv("Bound", ZONE_B),
    pod: pod(null),
    va: false,
    disk: "vol-0abc123@zone-b",
    newEvents: [],
  },
  {
    label: 10,
    pvc: { phase: "Bound", annotations: { ...BOUND, ...SELECTED, ...PROVISIONER }, volumeName: PV },
    pv: dynPv("Bound", ZONE_B),
    pod: pod("node-b1", "Pending", "True"),
    va: false,
    disk: "vol-0abc123@zone-b",
    newEvents: ["Scheduled"],
  },
  {
    label: 11,
    pvc: { phase: "Bound", annotations: { ...BOUND, ...SELECTED, ...PROVISIONER }, volumeName: PV },
    pv: dynPv("Bound", ZONE_B),
    pod: pod("node-b1", "Pending", "True"),
    va: false,
    disk: "vol-0abc123@zone-b",
    newEvents: [],
  },
  {
    label: 12,
    pvc: { phase: "Bound", annotations: { ...BOUND, ...SELECTED, ...PROVISIONER }, volumeName: PV },
    pv: dynPv("Bound", ZONE_B, ATTACHED_FINALIZERS),
    pod: pod("node-b1", "Running", "True"),
    va: true,
    disk: "vol-0abc123@zone-b",
    newEvents: ["SuccessfulAttachVolume", "Pulling", "Pulled", "Created", "Started"],
  },
];

const IMMEDIATE_HEAD: Snap[] = [
  { label: 1, pvc: pvcPending(PROVISIONER), pv: null, pod: null, va: false, disk: null, newEvents: ["ExternalProvisioning"] },
  { label: 6, pvc: pvcPending(PROVISIONER), pv: null, pod: null, va: false, disk: null, newEvents: ["Provisioning"] },
  { label: 7, pvc: pvcPending(PROVISIONER), pv: null, pod: null, va: false, disk: "vol-0abc123@zone-a", newEvents: [] },
  {
    label: 8,
    pvc: pvcPending(PROVISIONER),
    pv: dynPv("Pending", ZONE_A),
    pod: null,
    va: false,
    disk: "vol-0abc123@zone-a",
    newEvents: ["ProvisioningSucceeded"],
  },
  {
    label: 9,
    pvc: { phase: "Bound", annotations: { ...BOUND, ...PROVISIONER }, volumeName: PV },
    pv: dynPv("Bound", ZONE_A),
    pod: null,
    va: false,
    disk: "vol-0abc123@zone-a",
    newEvents: [],
  },
  {
    label: 2,
    pvc: { phase: "Bound", annotations: { ...BOUND, ...PROVISIONER }, volumeName: PV },
    pv: dynPv("Bound", ZONE_A),
    pod: pod(null),
    va: false,
    disk: "vol-0abc123@zone-a",
    newEvents: [],
  },
  {
    label: 3,
    pvc: { phase: "Bound", annotations: { ...BOUND, ...PROVISIONER }, volumeName: PV },
    pv: dynPv("Bound", ZONE_A),
    pod: pod(null),
    va: false,
    disk: "vol-0abc123@zone-a",
    newEvents: [],
  },
];

const boundImmediate = { phase: "Bound", annotations: { ...BOUND, ...PROVISIONER }, volumeName: PV };

const IMMEDIATE: Snap[] = [
  ...IMMEDIATE_HEAD,
  { label: 4, pvc: boundImmediate, pv: dynPv("Bound", ZONE_A), pod: pod(null), va: false, disk: "vol-0abc123@zone-a", newEvents: [] },
  { label: 5, pvc: boundImmediate, pv: dynPv("Bound", ZONE_A), pod: pod(null), va: false, disk: "vol-0abc123@zone-a", newEvents: [] },
  {
    label: 10,
    pvc: boundImmediate,
    pv: dynPv("Bound", ZONE_A),
    pod: pod("node-a", "Pending", "True"),
    va: false,
    disk: "vol-0abc123@zone-a",
    newEvents: ["Scheduled"],
  },
  {
    label: 11,
    pvc: boundImmediate,
    pv: dynPv("Bound", ZONE_A),
    pod: pod("node-a", "Pending", "True"),
    va: false,
    disk: "vol-0abc123@zone-a",
    newEvents: [],
  },
  {
    label: 12,
    pvc: boundImmediate,
    pv: dynPv("Bound", ZONE_A, ATTACHED_FINALIZERS),
    pod: pod("node-a", "Running", "True"),
    va: true,
    disk: "vol-0abc123@zone-a",
    newEvents: ["SuccessfulAttachVolume", "Pulling", "Pulled", "Created", "Started"],
  },
];

const ZONE_CONFLICT: Snap[] = [
  ...IMMEDIATE_HEAD,
  {
    label: 4,
    pvc: boundImmediate,
    pv: dynPv("Bound", ZONE_A),
    pod: pod(null, "Pending", "False"),
    va: false,
    disk: "vol-0abc123@zone-a",
    newEvents: ["FailedScheduling"],
  },
];

const localPv = (phase: string, claimed: boolean): Snap["pv"] => ({
  name: LOCAL_PV,
  phase,
  annotations: claimed ? { "pv.kubernetes.io/bound-by-controller": "yes" } : ({} as Record<string, string>),
  claimRef: claimed,
  affinity: HOST_B1,
  finalizers: ["kubernetes.io/pv-protection"],
});
const LOCAL_DISK = "/mnt/disks/ssd1@zone-b";
const boundLocal = { phase: "Bound", annotations: BOUND, volumeName: LOCAL_PV };

const LOCAL: Snap[] = [
  {
    label: 1,
    pvc: pvcPending({}),
    pv: localPv("Available", false),
    pod: null,
    va: false,
    disk: LOCAL_DISK,
    newEvents: ["WaitForFirstConsumer"],
  },
  { label: 2, pvc: pvcPending({}), pv: localPv("Available", false), pod: pod(null), va: false, disk: LOCAL_DISK, newEvents: [] },
  { label: 3, pvc: pvcPending({}), pv: localPv("Available", false), pod: pod(null), va: false, disk: LOCAL_DISK, newEvents: [] },
  { label: 4, pvc: pvcPending({}), pv: localPv("Available", false), pod: pod(null), va: false, disk: LOCAL_DISK, newEvents: [] },
  { label: 5, pvc: pvcPending({}), pv: localPv("Available", true), pod: pod(null), va: false, disk: LOCAL_DISK, newEvents: [] },
  { label: 9, pvc: boundLocal, pv: localPv("Bound", true), pod: pod(null), va: false, disk: LOCAL_DISK, newEvents: [] },
  {
    label: 10,
    pvc: boundLocal,
    pv: localPv("Bound", true),
    pod: pod("node-b1", "Pending", "True"),
    va: false,
    disk: LOCAL_DISK,
    newEvents: ["Scheduled"],
  },
  {
    label: 11,
    pvc: boundLocal,
    pv: localPv("Bound", true),
    pod: pod("node-b1", "Pending", "True"),
    va: false,
    disk: LOCAL_DISK,
    newEvents: [],
  },
  {
    label: 12,
    pvc: boundLocal,
    pv: localPv("Bound", true),
    pod: pod("node-b1", "Running", "True"),
    va: false,
    disk: LOCAL_DISK,
    newEvents: ["Pulling", "Pulled", "Created", "Started"],
  },
];

const NO_LOCAL_PV: Snap[] = [
  { label: 1, pvc: pvcPending({}), pv: null, pod: null, va: false, disk: null, newEvents: ["WaitForFirstConsumer"] },
  { label: 2, pvc: pvcPending({}), pv: null, pod: pod(null), va: false, disk: null, newEvents: [] },
  { label: 3, pvc: pvcPending({}), pv: null, pod: pod(null), va: false, disk: null, newEvents: [] },
  {
    label: 4,
    pvc: pvcPending({}),
    pv: null,
    pod: pod(null, "Pending", "False"),
    va: false,
    disk: null,
    newEvents: ["FailedScheduling", "WaitForPodScheduled"],
  },
];

const TABLES: [string, Scenario, Snap[]][] = [
  ["WaitForFirstConsumer/standard", getScenario("WaitForFirstConsumer", "standard"), WFFC],
  ["Immediate/standard", getScenario("Immediate", "standard"), IMMEDIATE],
  ["Immediate/zone-conflict", getScenario("Immediate", "zone-conflict"), ZONE_CONFLICT],
  ["Local/standard", getScenario("Local", "standard"), LOCAL],
  ["Local/no-local-pv", getScenario("Local", "no-local-pv"), NO_LOCAL_PV],
];

describe("worldAt: object state at every step of every scenario", () => {
  for (const [id, scenario, table] of TABLES) {
    it(`${id} has one expected row per step`, () => {
      expect(table.map((r) => r.label)).toEqual(scenario.steps.map((s) => s.label));
    });
    table.forEach((row, index) => {
      it(`${id} after step ${row.label} (position ${index})`, () => {
        expect(snap(scenario, index)).toEqual(row);
      });
    });
  }
});

const wffc = getScenario("WaitForFirstConsumer", "standard");
const immediate = getScenario("Immediate", "standard");
const conflict = getScenario("Immediate", "zone-conflict");
const local = getScenario("Local", "standard");
const noLocal = getScenario("Local", "no-local-pv");

const last = (s: Scenario): World => worldAt(s, s.steps.length - 1);
const at = (s: Scenario, label: number): World =>
  worldAt(
    s,
    s.steps.findIndex((x) => x.label === label),
  );

describe("worldAt: details from LESSON.md section 8", () => {
  it("StorageClasses are the three from section 8", () => {
    expect(worldAt(wffc, 0).storageClass).toEqual({
      apiVersion: "storage.k8s.io/v1",
      kind: "StorageClass",
      metadata: { name: "zonal-wffc" },
      provisioner: "disk.csi.example.com",
      volumeBindingMode: "WaitForFirstConsumer",
      reclaimPolicy: "Delete",
      parameters: { "csi.storage.k8s.io/fstype": "ext4" },
    });
    expect(worldAt(immediate, 0).storageClass).toMatchObject({
      metadata: { name: "zonal-immediate" },
      provisioner: "disk.csi.example.com",
      volumeBindingMode: "Immediate",
    });
    // Section 3: the zone-mismatch class has no allowedTopologies.
    expect(worldAt(conflict, 0).storageClass).not.toHaveProperty("allowedTopologies");
    expect(worldAt(local, 0).storageClass).toMatchObject({
      metadata: { name: "local-storage" },
      provisioner: "kubernetes.io/no-provisioner",
      volumeBindingMode: "WaitForFirstConsumer",
    });
  });

  it("the PVC right after step 1 is section 8's", () => {
    expect(worldAt(wffc, 0).pvc).toEqual({
      apiVersion: "v1",
      kind: "PersistentVolumeClaim",
      metadata: { name: "data", namespace: "default", uid: UID, finalizers: ["kubernetes.io/pvc-protection"] },
      spec: {
        accessModes: ["ReadWriteOnce"],
        storageClassName: "zonal-wffc",
        volumeMode: "Filesystem",
        resources: { requests: { storage: "10Gi" } },
      },
      status: { phase: "Pending" },
    });
  });

  it("the bound PVC carries status.accessModes and capacity", () => {
    expect((at(wffc, 9).pvc as Obj).status).toEqual({ phase: "Bound", accessModes: ["ReadWriteOnce"], capacity: { storage: "10Gi" } });
    // bind() copies the PV's capacity: the local claim asked for 10Gi and reports the whole 100Gi PV.
    expect((at(local, 9).pvc as Obj).status).toEqual({ phase: "Bound", accessModes: ["ReadWriteOnce"], capacity: { storage: "100Gi" } });
  });

  it("the dynamic PV is section 8's, claimRef with the PVC's UID, no bound-by-controller", () => {
    const pv = at(wffc, 9).pv as Obj;
    expect(pv.spec).toEqual({
      accessModes: ["ReadWriteOnce"],
      capacity: { storage: "10Gi" },
      claimRef: { apiVersion: "v1", kind: "PersistentVolumeClaim", namespace: "default", name: "data", resourceVersion: "52187", uid: UID },
      csi: {
        driver: "disk.csi.example.com",
        volumeHandle: "vol-0abc123",
        fsType: "ext4",
        volumeAttributes: { "storage.kubernetes.io/csiProvisionerIdentity": "1700000000000-1234-disk.csi.example.com" },
      },
      nodeAffinity: {
        required: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: "topology.kubernetes.io/zone", operator: "In", values: ["zone-b"] }] }],
        },
      },
      persistentVolumeReclaimPolicy: "Delete",
      storageClassName: "zonal-wffc",
      volumeMode: "Filesystem",
    });
    expect(pv.metadata.annotations).not.toHaveProperty("pv.kubernetes.io/bound-by-controller");
    expect((at(immediate, 8).pv as Obj).spec.storageClassName).toBe("zonal-immediate");
    // Pending when created at step 8, Bound at step 9: each phase change restamps lastPhaseTransitionTime.
    const created = (at(wffc, 8).pv as Obj).status;
    expect(created.phase).toBe("Pending");
    expect(pv.status.phase).toBe("Bound");
    expect(created.lastPhaseTransitionTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(Date.parse(pv.status.lastPhaseTransitionTime)).toBeGreaterThan(Date.parse(created.lastPhaseTransitionTime));
  });

  it("the local PV is hand-made: Retain, local.path, hostname nodeAffinity, Available from the start", () => {
    const before = initialWorld(local).pv as Obj;
    expect(before).toEqual({
      apiVersion: "v1",
      kind: "PersistentVolume",
      metadata: { name: "local-pv-node-b1-ssd1", finalizers: ["kubernetes.io/pv-protection"] },
      spec: {
        capacity: { storage: "100Gi" },
        volumeMode: "Filesystem",
        accessModes: ["ReadWriteOnce"],
        persistentVolumeReclaimPolicy: "Retain",
        storageClassName: "local-storage",
        local: { path: "/mnt/disks/ssd1" },
        nodeAffinity: {
          required: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: "kubernetes.io/hostname", operator: "In", values: ["node-b1"] }] }],
          },
        },
      },
      status: { lastPhaseTransitionTime: "2025-06-02T09:00:00Z", phase: "Available" },
    });
    const claimed = at(local, 5).pv as Obj;
    expect(claimed.spec.claimRef).toEqual({
      apiVersion: "v1",
      kind: "PersistentVolumeClaim",
      namespace: "default",
      name: "data",
      resourceVersion: "51903",
      uid: UID,
    });
    expect(claimed.metadata.annotations).toEqual({ "pv.kubernetes.io/bound-by-controller": "yes" });
  });

  it("selected-node never appears in Immediate or Local", () => {
    for (const s of [immediate, conflict, local, noLocal]) {
      s.steps.forEach((_, i) => {
        expect((worldAt(s, i).pvc as Obj).metadata.annotations ?? {}).not.toHaveProperty("volume.kubernetes.io/selected-node");
      });
    }
  });

  it("Local never gets storage-provisioner annotations", () => {
    for (const s of [local, noLocal]) {
      s.steps.forEach((_, i) => {
        const annotations = (worldAt(s, i).pvc as Obj).metadata.annotations ?? {};
        expect(annotations).not.toHaveProperty("volume.kubernetes.io/storage-provisioner");
        expect(annotations).not.toHaveProperty("volume.beta.kubernetes.io/storage-provisioner");
      });
    }
  });

  it("the Pod is section 8's; only the zone-conflict Pod has a nodeSelector", () => {
    expect(worldAt(wffc, 1).pod).toEqual({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "app", namespace: "default" },
      spec: {
        containers: [{ name: "app", image: "nginx", volumeMounts: [{ name: "data", mountPath: "/data" }] }],
        volumes: [{ name: "data", persistentVolumeClaim: { claimName: "data" } }],
      },
      // The API server computes the QoS class when the Pod is created.
      status: { phase: "Pending", qosClass: "BestEffort" },
    });
    expect((last(conflict).pod as Obj).spec.nodeSelector).toEqual({ "topology.kubernetes.io/zone": "zone-b" });
    for (const s of [wffc, immediate, local, noLocal]) expect((last(s).pod as Obj).spec).not.toHaveProperty("nodeSelector");
  });

  it("failed scheduling: Pod Pending, PodScheduled=False, Unschedulable, the FitError message", () => {
    expect((last(conflict).pod as Obj).status).toEqual({
      phase: "Pending",
      conditions: [
        {
          lastProbeTime: null,
          lastTransitionTime: expect.stringMatching(/Z$/),
          type: "PodScheduled",
          status: "False",
          reason: "Unschedulable",
          message:
            "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 2 node(s) didn't match PersistentVolume's node affinity. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
        },
      ],
    });
    expect(last(conflict).podNode).toBeNull();
    expect(last(noLocal).podNode).toBeNull();
  });

  it("RUN POD shows ContainerCreating; MOUNT shows Running", () => {
    expect((at(wffc, 11).pod as Obj).status.containerStatuses[0].state).toEqual({ waiting: { reason: "ContainerCreating" } });
    expect((at(wffc, 12).pod as Obj).status.containerStatuses[0].state).toEqual({ running: { startedAt: expect.stringMatching(/Z$/) } });
  });

  // The kubelet's conditions in the order it writes them, beside the scheduler's PodScheduled.
  const conditions = (w: World) =>
    ((w.pod as Obj).status.conditions as Obj[]).map((c) => [c.type, c.status, c.reason ?? "", c.message ?? ""].join(" ").trim());

  it("RUN POD: the kubelet has written its conditions, none ready yet", () => {
    for (const s of [wffc, immediate, local]) {
      expect(conditions(at(s, 11))).toEqual([
        "PodReadyToStartContainers False",
        "Initialized True",
        "Ready False ContainersNotReady containers with unready status: [app]",
        "ContainersReady False ContainersNotReady containers with unready status: [app]",
        "PodScheduled True",
      ]);
    }
  });

  it("MOUNT: a Running Pod has all five conditions True", () => {
    for (const s of [wffc, immediate, local]) {
      expect(conditions(last(s))).toEqual([
        "PodReadyToStartContainers True",
        "Initialized True",
        "Ready True",
        "ContainersReady True",
        "PodScheduled True",
      ]);
      expect((last(s).pod as Obj).status.phase).toBe("Running");
    }
  });

  it("the VolumeAttachment at step 12 is section 8's, named csi-sha256(volumeHandle+driver+node)", () => {
    expect(last(wffc).volumeAttachment).toEqual({
      apiVersion: "storage.k8s.io/v1",
      kind: "VolumeAttachment",
      metadata: {
        name: "csi-18fd609571057fe1158b124abe3e46fec52638c9065cdc1d5b2919d172c325a9",
        annotations: { "csi.alpha.kubernetes.io/node-id": "node-b1" },
        finalizers: ["external-attacher/disk-csi-example-com"],
      },
      spec: { attacher: "disk.csi.example.com", nodeName: "node-b1", source: { persistentVolumeName: PV } },
      // An empty publish_context is omitted, not printed as attachmentMetadata: {}.
      status: { attached: true },
    });
    expect((last(immediate).volumeAttachment as Obj).spec.nodeName).toBe("node-a");
    expect((last(immediate).volumeAttachment as Obj).metadata.name).toBe(
      "csi-465810198d693bc7c8501b2be72775e9c0ff1082731e53ab06518f6692a73ce3",
    );
    expect(last(local).volumeAttachment).toBeNull();
  });

  it("nodes and podNode", () => {
    expect(worldAt(wffc, 0).nodes).toEqual([
      { name: "node-a", zone: "zone-a" },
      { name: "node-b1", zone: "zone-b" },
      { name: "node-b2", zone: "zone-b" },
    ]);
    expect(at(wffc, 9).podNode).toBeNull();
    expect(at(wffc, 10).podNode).toBe("node-b1");
    expect(at(immediate, 10).podNode).toBe("node-a");
    expect(at(local, 10).podNode).toBe("node-b1");
    expect(initialWorld(local).disk).toEqual({ id: "/mnt/disks/ssd1", zone: "zone-b", node: "node-b1", kind: "local" });
    expect(at(wffc, 7).disk).toEqual({ id: "vol-0abc123", zone: "zone-b", kind: "cloud" });
  });
});

describe("worldAt: events verbatim from LESSON.md section 6", () => {
  const PROVISIONER_SOURCE = "disk.csi.example.com_disk-csi-controller-0_6f1e2d3c-0000-0000-0000-000000000000";
  const WFC = {
    involvedObject: "PersistentVolumeClaim/data",
    type: "Normal",
    reason: "WaitForFirstConsumer",
    from: "persistentvolume-controller",
    message: "waiting for first consumer to be created before binding",
  };
  const EXTERNAL = {
    involvedObject: "PersistentVolumeClaim/data",
    type: "Normal",
    reason: "ExternalProvisioning",
    from: "persistentvolume-controller",
    message:
      "Waiting for a volume to be created either by the external provisioner 'disk.csi.example.com' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.",
  };
  const PROVISIONING = {
    involvedObject: "PersistentVolumeClaim/data",
    type: "Normal",
    reason: "Provisioning",
    from: PROVISIONER_SOURCE,
    message: 'External provisioner is provisioning volume for claim "default/data"',
  };
  const SUCCEEDED = {
    involvedObject: "PersistentVolumeClaim/data",
    type: "Normal",
    reason: "ProvisioningSucceeded",
    from: PROVISIONER_SOURCE,
    message: "Successfully provisioned volume pvc-3f1c0a52-0000-0000-0000-000000000000",
  };
  const scheduled = (node: string) => ({
    involvedObject: "Pod/app",
    type: "Normal",
    reason: "Scheduled",
    from: "default-scheduler",
    message: `Successfully assigned default/app to ${node}`,
  });
  const ATTACHED = {
    involvedObject: "Pod/app",
    type: "Normal",
    reason: "SuccessfulAttachVolume",
    from: "attachdetach-controller",
    message: 'AttachVolume.Attach succeeded for volume "pvc-3f1c0a52-0000-0000-0000-000000000000" ',
  };

  const KUBELET = [
    { involvedObject: "Pod/app", type: "Normal", reason: "Pulling", from: "kubelet", message: 'Pulling image "nginx"' },
    {
      involvedObject: "Pod/app",
      type: "Normal",
      reason: "Pulled",
      from: "kubelet",
      message: 'Successfully pulled image "nginx" in 2.114s (2.114s including waiting). Image size: 72223946 bytes.',
    },
    { involvedObject: "Pod/app", type: "Normal", reason: "Created", from: "kubelet", message: "Created container: app" },
    { involvedObject: "Pod/app", type: "Normal", reason: "Started", from: "kubelet", message: "Started container app" },
  ];

  it("the provisioner's event source has the <driver>_<hostname>_<uuid> shape", () => {
    expect(PROVISIONER_SOURCE).toMatch(/^disk\.csi\.example\.com_[a-z0-9-]+_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });

  it("WaitForFirstConsumer: all events after MOUNT", () => {
    expect(last(wffc).events).toEqual([WFC, EXTERNAL, PROVISIONING, SUCCEEDED, scheduled("node-b1"), ATTACHED, ...KUBELET]);
  });

  it("the attach message keeps its trailing space", () => {
    expect(
      last(wffc)
        .events.find((e) => e.reason === "SuccessfulAttachVolume")!
        .message.endsWith('" '),
    ).toBe(true);
  });

  it("Immediate: ExternalProvisioning at step 1, no WaitForFirstConsumer", () => {
    expect(worldAt(immediate, 0).events).toEqual([EXTERNAL]);
    expect(last(immediate).events).toEqual([EXTERNAL, PROVISIONING, SUCCEEDED, scheduled("node-a"), ATTACHED, ...KUBELET]);
  });

  it("Immediate zone conflict: a Bound PVC with normal events, FailedScheduling on the Pod", () => {
    expect(last(conflict).events).toEqual([
      EXTERNAL,
      PROVISIONING,
      SUCCEEDED,
      {
        involvedObject: "Pod/app",
        type: "Warning",
        reason: "FailedScheduling",
        from: "default-scheduler",
        message:
          "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 2 node(s) didn't match PersistentVolume's node affinity. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
      },
    ]);
  });

  it("Local: WaitForFirstConsumer, Scheduled and the kubelet's (no provisioning, no attach)", () => {
    expect(last(local).events).toEqual([WFC, scheduled("node-b1"), ...KUBELET]);
  });

  it("Local without a PV: FailedScheduling on the Pod, WaitForPodScheduled on the PVC", () => {
    const w = last(noLocal);
    expect(eventsFor(w, "Pod/app")).toEqual([
      {
        involvedObject: "Pod/app",
        type: "Warning",
        reason: "FailedScheduling",
        from: "default-scheduler",
        message:
          "0/3 nodes are available: 3 node(s) didn't find available persistent volumes to bind. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
      },
    ]);
    expect(eventsFor(w, "PersistentVolumeClaim/data")).toEqual([
      WFC,
      {
        involvedObject: "PersistentVolumeClaim/data",
        type: "Normal",
        reason: "WaitForPodScheduled",
        from: "persistentvolume-controller",
        message: "waiting for pod app to be scheduled",
      },
    ]);
  });
});

describe("worldAt: contract", () => {
  it("-1 is before step 1: only the StorageClass (and a local PV)", () => {
    const w = initialWorld(wffc);
    expect([w.pvc, w.pv, w.pod, w.volumeAttachment, w.disk, w.podNode]).toEqual([null, null, null, null, null, null]);
    expect(w.events).toEqual([]);
    expect(initialWorld(local).pv).not.toBeNull();
  });

  it("rejects positions outside the scenario", () => {
    expect(() => worldAt(wffc, 12)).toThrow(RangeError);
    expect(() => worldAt(wffc, -2)).toThrow(RangeError);
    expect(() => worldAt(wffc, 1.5)).toThrow(RangeError);
  });

  it("is cached, frozen, and keeps identity of unchanged objects", () => {
    expect(worldAt(wffc, 3)).toBe(worldAt(wffc, 3));
    expect(Object.isFrozen(worldAt(wffc, 3).pvc)).toBe(true);
    expect(Object.isFrozen((worldAt(wffc, 3).pvc as Obj).metadata)).toBe(true);
    // Steps 2-4 do not touch the PVC; step 5 does.
    expect(worldAt(wffc, 2).pvc).toBe(worldAt(wffc, 1).pvc);
    expect(worldAt(wffc, 4).pvc).not.toBe(worldAt(wffc, 3).pvc);
  });

  // No timing assertion here (they flake on a shared machine): calling it on every render is cheap because
  // each scenario's worlds are computed once and returned by identity.
  it("returns the same precomputed world on every call", () => {
    for (let i = 0; i < 12; i++) expect(worldAt(wffc, i)).toBe(worldAt(wffc, i));
  });
});
