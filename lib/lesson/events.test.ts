import { describe, expect, it } from "vitest";
import {
  CONTAINER_FIELD_PATH,
  DEFAULT_KUBE_VERSION,
  EVENT_MESSAGES,
  EVENT_SOURCES,
  describeEventMessage,
  eventMessages,
  failedSchedulingMessage,
  type KubeEvent,
} from "./index";

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

describe("failedSchedulingMessage (FitError + PostFilter tail)", () => {
  const ZONE_CONFLICT_VERDICTS = [
    { node: "node-b2", fits: false, reason: "node(s) didn't match PersistentVolume's node affinity" },
    { node: "node-a", fits: false, reason: "node(s) didn't match Pod's node affinity/selector" },
    { node: "node-b1", fits: false, reason: "node(s) didn't match PersistentVolume's node affinity" },
  ];
  it("reproduces section 3's zone-conflict message (1.33: no dynamic resource allocation)", () => {
    expect(failedSchedulingMessage(ZONE_CONFLICT_VERDICTS, "1.33")).toBe(
      "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 2 node(s) didn't match PersistentVolume's node affinity. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
    );
  });
  it("from 1.34 DynamicResources' PostFilter reason comes before DefaultPreemption's, joined with a comma", () => {
    for (const version of ["1.34", "1.35"] as const) {
      expect(failedSchedulingMessage(ZONE_CONFLICT_VERDICTS, version)).toBe(
        "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 2 node(s) didn't match PersistentVolume's node affinity. no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
      );
    }
    expect(failedSchedulingMessage(ZONE_CONFLICT_VERDICTS, "1.32")).not.toContain("no new claims");
  });
  it("reproduces section 4's no-local-PV message", () => {
    const reason = "node(s) didn't find available persistent volumes to bind";
    const verdicts = ["node-a", "node-b1", "node-b2"].map((node) => ({ node, fits: false, reason }));
    expect(failedSchedulingMessage(verdicts, "1.32")).toBe(
      "0/3 nodes are available: 3 node(s) didn't find available persistent volumes to bind. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
    );
    expect(failedSchedulingMessage(verdicts)).toBe(
      "0/3 nodes are available: 3 node(s) didn't find available persistent volumes to bind. no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
    );
  });
  it("sorts 'count reason' strings, as sort.Strings does", () => {
    expect(
      failedSchedulingMessage(
        [
          { node: "x", fits: false, reason: "b" },
          { node: "y", fits: false, reason: "a" },
          { node: "z", fits: false, reason: "a" },
        ],
        "1.33",
      ),
    ).toBe("0/3 nodes are available: 1 b, 2 a. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.");
  });
});

describe("the kubelet's container events, per release", () => {
  it("Created and Started: no colon up to 1.32, a colon in 1.33 and 1.34, no name from 1.35", () => {
    const pair = (v: "1.32" | "1.33" | "1.34" | "1.35") => [eventMessages(v).created("app"), eventMessages(v).started("app")];
    expect(pair("1.32")).toEqual(["Created container app", "Started container app"]);
    expect(pair("1.33")).toEqual(["Created container: app", "Started container app"]);
    expect(pair("1.34")).toEqual(["Created container: app", "Started container app"]);
    expect(pair("1.35")).toEqual(["Container created", "Container started"]);
  });
  it("Pulled for an image already on the node: 1.35 says it checked the Pod's credentials", () => {
    expect(eventMessages("1.34").alreadyPresent("nginx")).toBe('Container image "nginx" already present on machine');
    expect(eventMessages("1.35").alreadyPresent("nginx")).toBe(
      'Container image "nginx" already present on machine and can be accessed by the pod',
    );
  });
  it("the pull messages did not change", () => {
    for (const v of ["1.32", "1.35"] as const) {
      expect(eventMessages(v).pulling("nginx")).toBe('Pulling image "nginx"');
      expect(eventMessages(v).pulled("nginx")).toBe(
        'Successfully pulled image "nginx" in 2.114s (2.114s including waiting). Image size: 72223946 bytes.',
      );
    }
  });
  it("the old single-release export is the default release's, and the default is the newest", () => {
    expect(DEFAULT_KUBE_VERSION).toBe("1.35");
    expect(EVENT_MESSAGES).toBe(eventMessages("1.35"));
    expect(EVENT_MESSAGES.created("app")).toBe("Container created");
  });
});

describe("describeEventMessage: the MESSAGE column of kubectl describe", () => {
  const created: KubeEvent & { fieldPath: string } = {
    involvedObject: "Pod/app",
    type: "Normal",
    reason: "Created",
    from: "kubelet",
    message: "Container created",
    fieldPath: CONTAINER_FIELD_PATH,
  };
  const attached: KubeEvent = {
    involvedObject: "Pod/app",
    type: "Normal",
    reason: "SuccessfulAttachVolume",
    from: "attachdetach-controller",
    message: 'AttachVolume.Attach succeeded for volume "pvc-3f1c0a52-0000-0000-0000-000000000000" ',
  };
  it("kubectl 1.35 puts the container's field path first", () => {
    expect(describeEventMessage(created, "1.35")).toBe("spec.containers{app}: Container created");
    expect(describeEventMessage(created, "1.34")).toBe("Container created");
  });
  it("trims the message, and leaves events about the whole object alone", () => {
    expect(describeEventMessage(attached, "1.35")).toBe(
      'AttachVolume.Attach succeeded for volume "pvc-3f1c0a52-0000-0000-0000-000000000000"',
    );
  });
});
