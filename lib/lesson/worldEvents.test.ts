import { describe, expect, it } from "vitest";
import { getScenario, worldAt, eventsFor, type KubeVersion, type Scenario } from "./index";
import { wffc, immediate, conflict, local, noLocal, last } from "../../tests/support/lessonWorld";

// The default scenarios (tests/support/lessonWorld.ts) are the newest release's, 1.35: its strings are pinned here;
// the other releases' follow at the end of the file.
describe("worldAt: events verbatim from LESSON.md section 6 (1.35)", () => {
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

  // The kubelet's events are about the container: involvedObject.fieldPath names it.
  const container = { involvedObject: "Pod/app", type: "Normal", from: "kubelet", fieldPath: "spec.containers{app}" };
  const KUBELET = [
    { ...container, reason: "Pulling", message: 'Pulling image "nginx"' },
    {
      ...container,
      reason: "Pulled",
      message: 'Successfully pulled image "nginx" in 2.114s (2.114s including waiting). Image size: 72223946 bytes.',
    },
    { ...container, reason: "Created", message: "Container created" },
    { ...container, reason: "Started", message: "Container started" },
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
          "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 2 node(s) didn't match PersistentVolume's node affinity. no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
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
          "0/3 nodes are available: 3 node(s) didn't find available persistent volumes to bind. no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
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

describe("worldAt: each release's events", () => {
  const messages = (s: Scenario, reason: string) =>
    last(s)
      .events.filter((e) => e.reason === reason)
      .map((e) => e.message);
  const at = (version: KubeVersion) => ({
    wffc: getScenario("WaitForFirstConsumer", "standard", version),
    conflict: getScenario("Immediate", "zone-conflict", version),
    noLocal: getScenario("Local", "no-local-pv", version),
    local: getScenario("Local", "standard", version),
  });

  it("1.32 and older: the old node-affinity reason, no DRA tail, Created container without the colon", () => {
    const s = at("1.32");
    expect(messages(s.conflict, "FailedScheduling")).toEqual([
      "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 2 node(s) had volume node affinity conflict. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
    ]);
    expect(messages(s.wffc, "Created")).toEqual(["Created container app"]);
    expect(messages(s.local, "Started")).toEqual(["Started container app"]);
  });

  it("1.33: the renamed reason, still no DRA tail, Created container: app", () => {
    const s = at("1.33");
    expect(messages(s.conflict, "FailedScheduling")).toEqual([
      "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 2 node(s) didn't match PersistentVolume's node affinity. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
    ]);
    expect(messages(s.wffc, "Created")).toEqual(["Created container: app"]);
    expect(messages(s.wffc, "Started")).toEqual(["Started container app"]);
  });

  it("1.34: every FailedScheduling ends with DynamicResources' reason before preemption's; the kubelet still names the container", () => {
    const s = at("1.34");
    expect(messages(s.noLocal, "FailedScheduling")).toEqual([
      "0/3 nodes are available: 3 node(s) didn't find available persistent volumes to bind. no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
    ]);
    expect(messages(s.wffc, "Created")).toEqual(["Created container: app"]);
  });

  it("1.35: Container created and Container started", () => {
    const s = at("1.35");
    expect([...messages(s.wffc, "Created"), ...messages(s.wffc, "Started")]).toEqual(["Container created", "Container started"]);
    expect(messages(s.local, "Created")).toEqual(["Container created"]);
  });

  it("only the kubelet's events carry a field path; everything else is the same in every release", () => {
    const shape = (version: KubeVersion) =>
      last(at(version).wffc).events.map((e) => `${e.reason} ${"fieldPath" in e ? String(e.fieldPath) : "-"}`);
    for (const version of ["1.32", "1.33", "1.34", "1.35"] as const) {
      expect(shape(version)).toEqual([
        "WaitForFirstConsumer -",
        "ExternalProvisioning -",
        "Provisioning -",
        "ProvisioningSucceeded -",
        "Scheduled -",
        "SuccessfulAttachVolume -",
        "Pulling spec.containers{app}",
        "Pulled spec.containers{app}",
        "Created spec.containers{app}",
        "Started spec.containers{app}",
      ]);
    }
  });
});
