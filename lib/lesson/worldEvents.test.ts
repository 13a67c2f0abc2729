import { describe, expect, it } from "vitest";
import { worldAt, eventsFor } from "./index";
import { wffc, immediate, conflict, local, noLocal, last } from "../../tests/support/lessonWorld";

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
