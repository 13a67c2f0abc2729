import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { checkCluster, expectedEvents, parseEvents, type CheckResult } from "./clusterCheck";

// Fixtures are in the exact shape kubectl prints: 4-space JSON, sorted keys, List / EventList wrappers.
const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8");
const ok = (r: CheckResult) => {
  if (!r.ok) throw new Error(`expected a result, got: ${r.problem}`);
  return r;
};
const placed = (r: Extract<CheckResult, { ok: true }>) =>
  r.steps
    .filter((s) => s.events.length > 0)
    .map((s) => `${s.position} ${s.title}: ${s.events.map((e) => (e.count > 1 ? `${e.reason} x${e.count}` : e.reason)).join(", ")}`);

describe("check my cluster: a clean WaitForFirstConsumer run (kubectl get events -o json)", () => {
  const result = ok(checkCluster(fixture("wffc-kubectl-get-events.json"), "WaitForFirstConsumer", "standard"));

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
    expect(result.missing).toEqual([]);
    expect(result.unexpected).toEqual([]);
    expect(result.outOfOrder).toEqual([]);
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
    expect(result.otherObjects).toBe(0);
  });

  it("against the Local scenario that succeeds: FailedScheduling is unexpected, Scheduled and the kubelet's events missing", () => {
    const result = ok(checkCluster(fixture("no-local-pv-kubectl-events.json"), "Local", "standard"));
    expect(result.unexpected.map((e) => e.reason)).toEqual(["FailedScheduling"]);
    expect(result.missing.map((m) => `${m.position} ${m.reason}`)).toEqual(["7 Scheduled", "9 Pulled", "9 Created", "9 Started"]);
  });
});

describe("check my cluster: out of order and older clusters", () => {
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

  it("recognises the pre-1.33 node-affinity wording on a zone-conflict run", () => {
    const result = ok(checkCluster(fixture("zone-conflict-1.32-kubectl-get-events.json"), "Immediate", "zone-conflict"));
    expect(placed(result)).toEqual([
      "1 CREATE PVC: ExternalProvisioning",
      "2 PROVISION: Provisioning",
      "4 CREATE PV: ProvisioningSucceeded",
      "8 PICK NODE: FailedScheduling",
    ]);
    expect(result.hints[0]).toMatch(/node\(s\) had volume node affinity conflict": that is Kubernetes 1\.32 or older/);
  });
});

describe("check my cluster: pastes it cannot use get a plain answer", () => {
  const problem = (text: string) => {
    const r = checkCluster(text, "WaitForFirstConsumer", "standard");
    if (r.ok) throw new Error("expected a problem");
    return r.problem;
  };

  it("empty, table output, describe output, YAML, cut-off JSON, other objects", () => {
    expect(problem("   ")).toMatch(/^Paste the output of kubectl get events -o json/);
    expect(
      problem(
        "LAST SEEN   TYPE     REASON                 OBJECT                       MESSAGE\n5m  Normal  Scheduled  pod/app  Successfully assigned default/app to pv-lab-control-plane",
      ),
    ).toMatch(/table output.*-o json/);
    expect(problem("Name: app\nEvents:\n  Type  Reason  Age  From  Message")).toMatch(/describe output/);
    expect(problem("apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Event")).toMatch(/looks like YAML/);
    expect(problem(fixture("wffc-kubectl-get-events.json").slice(0, 900))).toMatch(/not complete JSON/);
    expect(
      problem('{"apiVersion": "v1", "items": [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "app"}}], "kind": "List"}'),
    ).toBe("This is a list of Pod objects, not events. Run kubectl get events -o json and paste that.");
    expect(problem('{"apiVersion": "v1", "items": [], "kind": "List", "metadata": {"resourceVersion": ""}}')).toMatch(/The list is empty/);
  });

  it("events that are all about other objects", () => {
    const others = JSON.parse(fixture("wffc-kubectl-get-events.json"));
    others.items = others.items.filter((e: { involvedObject: { kind: string } }) => e.involvedObject.kind === "Node");
    expect(problem(JSON.stringify(others, null, 4))).toMatch(
      /None of these 2 events is about the lab's PersistentVolumeClaim "data" or Pod "app"/,
    );
  });

  it("tolerates the command line pasted along with the output", () => {
    const pasted = `$ kubectl get events -o json\n${fixture("no-local-pv-kubectl-events.json")}`;
    expect(parseEvents(pasted).ok).toBe(true);
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
