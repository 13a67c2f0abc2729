import { describe, expect, it } from "vitest";
import { getScenario, worldAt, initialWorld, type KubeVersion, type World } from "./index";
import { PV, UID, type Obj, wffc, immediate, conflict, local, noLocal, last, at } from "../../tests/support/lessonWorld";

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
      // Set by the API server at creation from 1.33 (the default scenarios are 1.35's).
      metadata: { name: "app", namespace: "default", generation: 1 },
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

  it("failed scheduling: Pod Pending, PodScheduled=False, Unschedulable, the FitError message, still BestEffort", () => {
    expect((last(conflict).pod as Obj).status).toEqual({
      phase: "Pending",
      // Set at creation; scheduling failures do not touch it.
      qosClass: "BestEffort",
      conditions: [
        {
          lastProbeTime: null,
          lastTransitionTime: expect.stringMatching(/Z$/),
          observedGeneration: 1,
          type: "PodScheduled",
          status: "False",
          reason: "Unschedulable",
          message:
            "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 2 node(s) didn't match PersistentVolume's node affinity. no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
        },
      ],
    });
    expect((last(noLocal).pod as Obj).status.qosClass).toBe("BestEffort");
    expect(last(conflict).podNode).toBeNull();
    expect(last(noLocal).podNode).toBeNull();
  });

  it("RUN POD shows ContainerCreating; MOUNT shows Running", () => {
    expect((at(wffc, 11).pod as Obj).status.containerStatuses[0].state).toEqual({ waiting: { reason: "ContainerCreating" } });
    expect((at(wffc, 12).pod as Obj).status.containerStatuses[0].state).toEqual({ running: { startedAt: expect.stringMatching(/Z$/) } });
  });

  it("the container status names the spec's image until the container exists, then the runtime's reference", () => {
    for (const s of [wffc, immediate, local]) {
      expect((at(s, 11).pod as Obj).status.containerStatuses[0].image).toBe("nginx");
      expect((last(s).pod as Obj).status.containerStatuses[0].image).toBe("docker.io/library/nginx:latest");
      expect((last(s).pod as Obj).spec.containers[0].image).toBe("nginx");
    }
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

describe("worldAt: the Pod's fields by release", () => {
  const pod = (
    version: KubeVersion,
    mode: "WaitForFirstConsumer" | "Immediate" | "Local",
    label: number,
    variant: "standard" | "zone-conflict" = "standard",
  ) => {
    const s = getScenario(mode, variant, version);
    return worldAt(
      s,
      s.steps.findIndex((x) => x.label === label),
    ).pod as Obj;
  };
  const observed = (p: Obj) => [
    p.status.observedGeneration ?? "-",
    ...(p.status.conditions as Obj[]).map((c) => c.observedGeneration ?? "-"),
  ];

  it("metadata.generation from 1.33", () => {
    expect(pod("1.32", "WaitForFirstConsumer", 2).metadata).toEqual({ name: "app", namespace: "default" });
    for (const v of ["1.33", "1.34", "1.35"] as const) expect(pod(v, "WaitForFirstConsumer", 2).metadata.generation).toBe(1);
  });

  it("observedGeneration: none up to 1.33; from 1.34 on the status and every condition the kubelet writes", () => {
    for (const v of ["1.32", "1.33"] as const) {
      expect(observed(pod(v, "WaitForFirstConsumer", 11))).toEqual(["-", "-", "-", "-", "-", "-"]);
      expect(observed(pod(v, "WaitForFirstConsumer", 12))).toEqual(["-", "-", "-", "-", "-", "-"]);
    }
    for (const v of ["1.34", "1.35"] as const) {
      expect(observed(pod(v, "WaitForFirstConsumer", 11))).toEqual([1, 1, 1, 1, 1, 1]);
      expect(observed(pod(v, "Local", 12))).toEqual([1, 1, 1, 1, 1, 1]);
    }
  });

  it("observedGeneration from 1.34 on the scheduler's PodScheduled=False, not on the binding's PodScheduled=True", () => {
    expect(observed(pod("1.33", "Immediate", 4, "zone-conflict"))).toEqual(["-", "-"]);
    expect(observed(pod("1.34", "Immediate", 4, "zone-conflict"))).toEqual(["-", 1]);
    expect(observed(pod("1.34", "WaitForFirstConsumer", 10))).toEqual(["-", "-"]);
  });

  it("Initialized is True as soon as the kubelet writes the status (no init containers), in every release", () => {
    for (const v of ["1.32", "1.33", "1.34", "1.35"] as const) {
      const initialized = (pod(v, "WaitForFirstConsumer", 11).status.conditions as Obj[]).find((c) => c.type === "Initialized");
      expect(initialized?.status).toBe("True");
    }
  });

  it("1.35 nominates the chosen node while PreBind waits for the volume; binding clears it", () => {
    for (const label of [5, 6, 7, 8, 9]) expect(pod("1.35", "WaitForFirstConsumer", label).status.nominatedNodeName).toBe("node-b1");
    expect(pod("1.35", "Local", 5).status.nominatedNodeName).toBe("node-b1");
    expect(pod("1.35", "WaitForFirstConsumer", 4).status).not.toHaveProperty("nominatedNodeName");
    expect(pod("1.35", "WaitForFirstConsumer", 10).status).not.toHaveProperty("nominatedNodeName");
    // Immediate: every claim is bound, PreBind has nothing to do, so nothing is nominated.
    for (const label of [5, 10]) expect(pod("1.35", "Immediate", label).status).not.toHaveProperty("nominatedNodeName");
    expect(pod("1.34", "WaitForFirstConsumer", 5).status).not.toHaveProperty("nominatedNodeName");
  });
});
