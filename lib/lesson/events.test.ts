import { describe, expect, it } from "vitest";
import { EVENT_MESSAGES, EVENT_SOURCES, failedSchedulingMessage } from "./index";

// Each expected string is copied from LESSON.md section 6 (format) or sections 3/4 (whole messages).
describe("event catalogue", () => {
  it("PV controller messages", () => {
    expect(EVENT_MESSAGES.waitForFirstConsumer).toBe("waiting for first consumer to be created before binding");
    expect(EVENT_MESSAGES.waitForPodScheduled("app")).toBe("waiting for pod app to be scheduled");
    expect(EVENT_MESSAGES.externalProvisioning("disk.csi.example.com")).toBe(
      "Waiting for a volume to be created either by the external provisioner 'disk.csi.example.com' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.",
    );
    expect(EVENT_SOURCES.pvController).toBe("persistentvolume-controller");
  });
  it("external-provisioner messages", () => {
    expect(EVENT_MESSAGES.provisioning("default", "data")).toBe('External provisioner is provisioning volume for claim "default/data"');
    expect(EVENT_MESSAGES.provisioningSucceeded("pvc-3f1c0a52-0000-0000-0000-000000000000")).toBe(
      "Successfully provisioned volume pvc-3f1c0a52-0000-0000-0000-000000000000",
    );
    expect(EVENT_SOURCES.provisioner.startsWith("disk.csi.example.com_")).toBe(true);
  });
  it("scheduler and attach/detach controller messages", () => {
    expect(EVENT_MESSAGES.scheduled("default", "app", "node-b1")).toBe("Successfully assigned default/app to node-b1");
    expect(EVENT_MESSAGES.successfulAttachVolume("pvc-3f1c0a52-0000-0000-0000-000000000000")).toBe(
      'AttachVolume.Attach succeeded for volume "pvc-3f1c0a52-0000-0000-0000-000000000000" ',
    );
    expect(EVENT_SOURCES.scheduler).toBe("default-scheduler");
    expect(EVENT_SOURCES.attachDetach).toBe("attachdetach-controller");
  });
});

describe("failedSchedulingMessage (FitError + preemption tail)", () => {
  it("reproduces section 3's zone-conflict message", () => {
    expect(
      failedSchedulingMessage([
        { node: "node-b2", fits: false, reason: "node(s) didn't match PersistentVolume's node affinity" },
        { node: "node-a", fits: false, reason: "node(s) didn't match Pod's node affinity/selector" },
        { node: "node-b1", fits: false, reason: "node(s) didn't match PersistentVolume's node affinity" },
      ]),
    ).toBe(
      "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 2 node(s) didn't match PersistentVolume's node affinity. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
    );
  });
  it("reproduces section 4's no-local-PV message", () => {
    const reason = "node(s) didn't find available persistent volumes to bind";
    expect(failedSchedulingMessage(["node-a", "node-b1", "node-b2"].map((node) => ({ node, fits: false, reason })))).toBe(
      "0/3 nodes are available: 3 node(s) didn't find available persistent volumes to bind. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
    );
  });
  it("sorts 'count reason' strings, as sort.Strings does", () => {
    expect(
      failedSchedulingMessage([
        { node: "x", fits: false, reason: "b" },
        { node: "y", fits: false, reason: "a" },
        { node: "z", fits: false, reason: "a" },
      ]),
    ).toBe("0/3 nodes are available: 1 b, 2 a. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.");
  });
});
