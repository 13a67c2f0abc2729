import { describe, expect, it } from "vitest";
import { checkCluster, expectedEvents, schedulingReasons } from "./clusterCheck";
import { SCENARIO_IDS } from "./kubeCluster";
import { fixture, ok, paste, placed } from "../../tests/support/clusterCheckPastes";

// "Check my cluster" against each scenario: where each event lands, what is missing, unexpected or out of order.
// How pastes are read: clusterCheckPaste.test.ts; what the messages tell beyond the steps: clusterCheckProvisioner.test.ts,
// clusterCheckVersion.test.ts.

describe("check my cluster: a clean WaitForFirstConsumer run (kubectl get events -o json)", () => {
  const result = ok(checkCluster(fixture("wffc-kubectl-get-events.json"), "WaitForFirstConsumer", "standard", "1.33"));

  it("places every event of the PVC and the Pod on its diagram step, repeated events once with their count", () => {
    expect(placed(result)).toEqual([
      "1 CREATE PVC: WaitForFirstConsumer x2",
      "6 PROVISION: ExternalProvisioning, Provisioning",
      "8 CREATE PV: ProvisioningSucceeded",
      "10 BIND POD: Scheduled",
      "12 MOUNT: SuccessfulAttachVolume, Pulling, Pulled, Created, Started",
    ]);
  });

  it("finds nothing missing, unexpected or out of order, and leaves other objects aside", () => {
    expect(result.shape).toBe("json");
    expect(result.missing).toEqual([]);
    expect(result.unexpected).toEqual([]);
    expect(result.outOfOrder).toEqual([]);
    expect(result.differentFailures).toEqual([]);
    expect(result.provisioner).toBeNull();
    expect(result.otherObjects).toBe(3); // the node's two events and the CSI driver's own Pod
    expect(result.hints).toEqual([]);
    expect(result.summary).toMatch(/^All 10 events of the lab's PVC and Pod are on their steps, in order/);
  });

  it("reads the scheduler's event, which has eventTime and no firstTimestamp, in its place in time", () => {
    const bindPod = result.steps.find((s) => s.title === "BIND POD")!;
    expect(bindPod.events[0].firstSeen).toBe(Date.parse("2025-06-02T10:14:33.104518Z"));
  });

  it("the same run checked against Immediate: WaitForFirstConsumer is unexpected there", () => {
    const immediate = ok(checkCluster(fixture("wffc-kubectl-get-events.json"), "Immediate", "standard"));
    expect(immediate.unexpected.map((e) => e.reason)).toEqual(["WaitForFirstConsumer"]);
    expect(immediate.summary).toContain("1 unexpected");
  });

  it("checked against Local: the provisioning and attach events are unexpected", () => {
    const local = ok(checkCluster(fixture("wffc-kubectl-get-events.json"), "Local", "standard"));
    expect(local.unexpected.map((e) => e.reason)).toEqual([
      "ExternalProvisioning",
      "Provisioning",
      "ProvisioningSucceeded",
      "SuccessfulAttachVolume",
    ]);
  });
});

describe("check my cluster: Local, events.k8s.io/v1 shape", () => {
  const result = ok(checkCluster(fixture("local-events-k8s-io.json"), "Local", "standard"));

  it("reads regarding, note and deprecatedCount", () => {
    expect(placed(result)).toEqual([
      "1 CREATE PVC: WaitForFirstConsumer x3",
      "2 CREATE POD: WaitForPodScheduled",
      "7 BIND POD: Scheduled",
      "9 MOUNT: Pulled, Created, Started",
    ]);
  });

  it("does not call Pulling missing when the image was already on the node, nor the optional WaitForPodScheduled", () => {
    expect(result.missing).toEqual([]);
    expect(result.unexpected).toEqual([]);
    expect(result.outOfOrder).toEqual([]);
  });
});

describe("check my cluster: no matching local PV (kubectl events -o json, an EventList)", () => {
  it("places the failure at PICK NODE, with the series count of a repeated FailedScheduling", () => {
    const result = ok(checkCluster(fixture("no-local-pv-kubectl-events.json"), "Local", "no-local-pv"));
    expect(placed(result)).toEqual(["1 CREATE PVC: WaitForFirstConsumer", "4 PICK NODE: FailedScheduling x4, WaitForPodScheduled x16"]);
    expect(result.missing).toEqual([]);
    expect(result.differentFailures).toEqual([]);
    expect(result.otherObjects).toBe(0);
  });

  it("against the Local scenario that succeeds: the failure is a different one, Scheduled and the kubelet's events missing", () => {
    const result = ok(checkCluster(fixture("no-local-pv-kubectl-events.json"), "Local", "standard"));
    expect(result.differentFailures.map((f) => f.reasons.map((r) => `${r.nodes} ${r.kind}`))).toEqual([["1 no-matching-pv"]]);
    expect(result.differentFailures[0].lessonReason).toBeNull();
    expect(result.missing.map((m) => `${m.position} ${m.reason}`)).toEqual(["7 Scheduled", "9 Pulled", "9 Created", "9 Started"]);
  });
});

describe("check my cluster: a FailedScheduling is placed by what its message says", () => {
  const result = ok(checkCluster(paste("zone-conflict-insufficient-cpu-kubectl-get-events.json"), "Immediate", "zone-conflict", "1.33"));

  it("does not take 'Insufficient cpu' for the lesson's zone conflict: PICK NODE stays empty and FailedScheduling is missing", () => {
    expect(placed(result)).toEqual([
      "1 CREATE PVC: ExternalProvisioning",
      "2 PROVISION: Provisioning",
      "4 CREATE PV: ProvisioningSucceeded",
    ]);
    expect(result.missing.map((m) => `${m.position} ${m.reason}: ${m.why}`)).toEqual([
      "8 FailedScheduling: Your Pod failed to schedule for another reason (see “A different failure” below).",
    ]);
    expect(result.summary).toBe("3 events placed on the diagram; 1 different failure, 1 missing.");
  });

  it("names each reason the scheduler gave, with what it means, and the lesson's own reason", () => {
    const [failure] = result.differentFailures;
    expect(failure.event.count).toBe(3);
    expect(failure.reasons.map((r) => `${r.nodes} × ${r.text} (${r.kind})`)).toEqual([
      "1 × node(s) had untolerated taint {node-role.kubernetes.io/control-plane: } (taint)",
      "2 × Insufficient cpu (insufficient-resource)",
    ]);
    expect(failure.reasons[1].meaning).toBe("these nodes lack the free cpu the Pod requests: a capacity problem, not a storage one");
    expect(failure.lessonReason).toBe("node(s) didn't match PersistentVolume's node affinity");
  });

  it("the 1.32 wording of the zone conflict is the lesson's failure too (describe's Events only, kubectl 1.35)", () => {
    const old = ok(checkCluster(paste("zone-conflict-1.32-describe-events-only.txt"), "Immediate", "zone-conflict", "1.35"));
    expect(old.shape).toBe("describe");
    expect(placed(old)).toEqual(["8 PICK NODE: FailedScheduling x2"]);
    expect(old.differentFailures).toEqual([]);
    expect(old.summary).toBe("1 event placed on the diagram; 3 missing."); // the PVC's events were not in the paste
    const json = ok(checkCluster(fixture("zone-conflict-1.32-kubectl-get-events.json"), "Immediate", "zone-conflict", "1.32"));
    expect(json.summary).toBe(
      "All 4 events of the lab's PVC and Pod are on their steps, in order, and nothing the Immediate: zone conflict scenario expects is missing.",
    );
  });

  it("splits the message only in its first sentence: the preemption and DRA tails are not reasons", () => {
    expect(
      schedulingReasons(
        "0/3 nodes are available: 3 Insufficient cpu. no new claims to deallocate, preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.",
      ).map((r) => `${r.nodes} ${r.text}`),
    ).toEqual(["3 Insufficient cpu"]);
    expect(
      schedulingReasons(
        "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 node(s) didn't match Pod's node affinity/selector.",
      ).map((r) => r.kind),
    ).toEqual(["taint", "node-selector"]);
    expect(
      schedulingReasons(
        "0/1 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
      ),
    ).toEqual([
      {
        nodes: null,
        text: "pod has unbound immediate PersistentVolumeClaims",
        kind: "unbound-immediate",
        meaning: "the Pod's claim has Immediate binding and is not bound yet, so the scheduler waits for the PV controller",
      },
    ]);
  });

  it("every failing scenario's own FailedScheduling names a volume reason the check recognises", () => {
    for (const id of SCENARIO_IDS) {
      for (const x of expectedEvents(id).filter((e) => e.reason === "FailedScheduling")) {
        expect(
          schedulingReasons(x.message).some((r) => ["pv-node-affinity", "no-matching-pv"].includes(r.kind)),
          id,
        ).toBe(true);
      }
    }
  });
});

describe("check my cluster: 'pod has unbound immediate PersistentVolumeClaims' when the Pod comes first", () => {
  const result = ok(checkCluster(paste("immediate-pod-first-kubectl-events.txt"), "Immediate", "standard", "1.33"));

  it("is explained as normal for Immediate, pointing at the step where the claim binds, not marked unexpected", () => {
    expect(result.unexpected).toEqual([]);
    expect(result.differentFailures).toEqual([]);
    expect(result.explained.map((x) => x.event.reason)).toEqual(["FailedScheduling"]);
    expect(result.explained[0].why).toMatch(
      /^Normal with Immediate binding when the Pod is created before its claim is bound: .* once the PV controller binds it \(step 5, BIND PVC\+PV\)\. Scheduled follows\.$/,
    );
    expect(result.missing).toEqual([]);
    expect(result.summary).toBe(
      "All 9 events of the lab's PVC and Pod are on their steps and nothing the Immediate scenario expects is missing; 1 more is normal here (see why below).",
    );
  });

  it("is a different failure on WaitForFirstConsumer, whose claim never binds Immediately", () => {
    const wffc = ok(checkCluster(paste("immediate-pod-first-kubectl-events.txt"), "WaitForFirstConsumer", "standard"));
    expect(wffc.differentFailures.map((f) => f.reasons[0].kind)).toEqual(["unbound-immediate"]);
  });
});

describe("check my cluster: out of order", () => {
  it("flags events left from an earlier run as out of order", () => {
    const result = ok(checkCluster(fixture("wffc-rerun-kubectl-get-events.json"), "WaitForFirstConsumer", "standard"));
    expect(
      result.outOfOrder.map((o) => `${o.event.reason} (step ${o.step.position}) after ${o.after.reason} (step ${o.afterStep.position})`),
    ).toEqual([
      "WaitForFirstConsumer (step 1) after SuccessfulAttachVolume (step 12)",
      "ExternalProvisioning (step 6) after SuccessfulAttachVolume (step 12)",
      "Provisioning (step 6) after SuccessfulAttachVolume (step 12)",
      "ProvisioningSucceeded (step 8) after SuccessfulAttachVolume (step 12)",
      "Scheduled (step 10) after SuccessfulAttachVolume (step 12)",
    ]);
    expect(result.summary).toContain("5 out of order");
    expect(result.hints.join(" ")).toMatch(/left over from an earlier run/);
  });
});

describe("expected events come from the diagram's own world model", () => {
  it("WaitForFirstConsumer: the lesson's events, Pulling and WaitForPodScheduled optional", () => {
    expect(expectedEvents("WaitForFirstConsumer/standard").map((e) => `${e.position} ${e.reason}${e.optional ? "?" : ""}`)).toEqual([
      "1 WaitForFirstConsumer",
      "2 WaitForPodScheduled?",
      "6 ExternalProvisioning",
      "6 Provisioning",
      "8 ProvisioningSucceeded",
      "10 Scheduled",
      "12 SuccessfulAttachVolume",
      "12 Pulling?",
      "12 Pulled",
      "12 Created",
      "12 Started",
    ]);
  });
});
