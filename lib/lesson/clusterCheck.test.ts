import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  MAX_PASTE_BYTES,
  checkCluster,
  expectedEvents,
  parseEvents,
  pasteTooLarge,
  schedulingReasons,
  type CheckResult,
} from "./clusterCheck";
import { SCENARIO_IDS } from "./kubeCluster";

// Fixtures are in the exact shape kubectl prints: JSON with kubectl's keys and wrappers, tables aligned as
// Go's tabwriter aligns them (kubectl's padding 3, describe's padding 2), prompts and all.
const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8");
const paste = (name: string) => fixture(`clusterCheck/${name}`);
const ok = (r: CheckResult) => {
  if (!r.ok) throw new Error(`expected a result, got: ${r.problem}`);
  return r;
};
const problem = (text: string) => {
  const r = checkCluster(text, "WaitForFirstConsumer", "standard");
  if (r.ok) throw new Error(`expected a problem, got: ${r.summary}`);
  return r.problem;
};
const placed = (r: Extract<CheckResult, { ok: true }>) =>
  r.steps
    .filter((s) => s.events.length > 0)
    .map((s) => `${s.position} ${s.title}: ${s.events.map((e) => (e.count > 1 ? `${e.reason} x${e.count}` : e.reason)).join(", ")}`);

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

describe("check my cluster: kubectl's tables and describe output", () => {
  it("reads kubectl events (Kind/name), with the count of a repeated event and a note that ages carry no order", () => {
    const result = ok(checkCluster(paste("wffc-1.35-kubectl-events.txt"), "WaitForFirstConsumer", "standard", "1.35"));
    expect(result.shape).toBe("table");
    expect(placed(result)).toEqual([
      "1 CREATE PVC: WaitForFirstConsumer x3",
      "6 PROVISION: ExternalProvisioning, Provisioning",
      "8 CREATE PV: ProvisioningSucceeded",
      "10 BIND POD: Scheduled",
      "12 MOUNT: SuccessfulAttachVolume, Pulled, Created, Started",
    ]);
    expect(result.missing).toEqual([]);
    expect(result.outOfOrder).toEqual([]);
    expect(result.hints).toEqual([
      "A kubectl table prints ages (“5m”), not times, so the order of the events is not checked. Paste kubectl get events -o json to check it too.",
    ]);
    expect(result.summary).toBe(
      "All 9 events of the lab's PVC and Pod are on their steps and nothing the WaitForFirstConsumer scenario expects is missing.",
    );
  });

  it("reads kubectl get events -A (NAMESPACE first, kind/name in lower case), leaving other namespaces aside", () => {
    const result = ok(checkCluster(paste("wffc-local-path-get-events-A.txt"), "WaitForFirstConsumer", "standard", "1.33"));
    expect(placed(result)).toEqual([
      "1 CREATE PVC: WaitForFirstConsumer",
      "6 PROVISION: ExternalProvisioning, Provisioning",
      "8 CREATE PV: ProvisioningSucceeded",
      "10 BIND POD: Scheduled",
      "12 MOUNT: Pulling, Pulled, Created, Started",
    ]);
    expect(result.otherObjects).toBe(5);
    const message = result.steps[5].events[0].message;
    expect(message).toBe(
      "Waiting for a volume to be created either by the external provisioner 'rancher.io/local-path' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.",
    );
  });

  it("reads kubectl describe pvc and pod together, each block's events on its own object", () => {
    const result = ok(checkCluster(paste("wffc-1.33-describe.txt"), "WaitForFirstConsumer", "standard", "1.33"));
    expect(result.shape).toBe("describe");
    expect(placed(result)).toEqual([
      "1 CREATE PVC: WaitForFirstConsumer x2",
      "6 PROVISION: ExternalProvisioning, Provisioning",
      "8 CREATE PV: ProvisioningSucceeded",
      "10 BIND POD: Scheduled",
      "12 MOUNT: SuccessfulAttachVolume, Pulling, Pulled, Created, Started",
    ]);
    const provisioning = result.steps[5].events[1];
    expect([provisioning.objectKind, provisioning.objectName, provisioning.from]).toEqual([
      "PersistentVolumeClaim",
      "data",
      "hostpath.csi.k8s.io_csi-hostpathplugin-x7k2p_6b1f4a2e-0c3d-4e5f-8a9b-1c2d3e4f5a6b",
    ]);
    expect(result.missing).toEqual([]);
    expect(result.hints[0]).toMatch(/^kubectl describe prints ages/);
  });

  it("reads describe output even when a brace in it looks like JSON (an annotation's value)", () => {
    const described = paste("wffc-1.33-describe.txt").replace(
      "Labels:           <none>\nAnnotations:      <none>",
      'Labels:           <none>\nAnnotations:      example.com/config:\n                    {"replicas":2,"tier":"web",\n                    "zone":"b"}',
    );
    expect(described).toContain('{"replicas"');
    const result = ok(checkCluster(described, "WaitForFirstConsumer", "standard"));
    expect(result.shape).toBe("describe");
    expect(result.missing).toEqual([]);
  });

  it("strips the field path kubectl 1.35's describe puts before a container event's message", () => {
    const header = "  Type    Reason   Age   From     Message\n  ----    ------   ----  ----     -------\n";
    const parsed = parseEvents(`Events:\n${header}  Normal  Created  5s    kubelet  spec.containers{app}: Container created\n`);
    expect(parsed.ok && parsed.events.map((e) => e.message)).toEqual(["Container created"]);
  });

  it("reads a table whose spaces were squeezed on the way (chat, e-mail) by its words", () => {
    const parsed = parseEvents(
      "LAST SEEN TYPE REASON OBJECT MESSAGE\n3s (x3 over 33s) Normal WaitForFirstConsumer PersistentVolumeClaim/data waiting for first consumer to be created before binding",
    );
    expect(parsed.ok && parsed.events.map((e) => `${e.objectKind}/${e.objectName} ${e.reason} x${e.count}: ${e.message}`)).toEqual([
      "PersistentVolumeClaim/data WaitForFirstConsumer x3: waiting for first consumer to be created before binding",
    ]);
  });
});

describe("check my cluster: kind's default class (rancher.io/local-path) instead of the lab's CSI class", () => {
  const result = ok(checkCluster(paste("wffc-local-path-get-events-A.txt"), "WaitForFirstConsumer", "standard", "1.33"));

  it("says the provisioner is not a CSI driver, and why SuccessfulAttachVolume never comes", () => {
    expect(result.provisioner).toMatchObject({ name: "rancher.io/local-path", notCsi: true });
    expect(result.provisioner!.advice).toMatch(
      /^Your claim was provisioned by kind's default class “standard”, rancher\.io\/local-path, not by the lab's class “zonal-wffc” \(CSI driver hostpath\.csi\.k8s\.io\)\. It is not a CSI driver: .* no VolumeAttachment and no SuccessfulAttachVolume\./,
    );
    expect(result.provisioner!.advice).toContain("apply storageclass.yaml, then the PVC and the Pod again");
    expect(result.missing.map((m) => `${m.reason}: ${m.why}`)).toEqual([
      "SuccessfulAttachVolume: rancher.io/local-path is not a CSI driver: nothing is attached, so this event never comes.",
    ]);
  });

  it("recognises local-path from the provisioner's own name in describe's From column too", () => {
    const described = paste("wffc-1.33-describe.txt")
      .replace(/'hostpath\.csi\.k8s\.io'/g, "'x'")
      .replace(
        /hostpath\.csi\.k8s\.io_csi-hostpathplugin-x7k2p_6b1f4a2e-0c3d-4e5f-8a9b-1c2d3e4f5a6b/g,
        "rancher.io/local-path_local-path-provisioner-7dc846544d-8zq4m_3c9b1e2f-5a4d-4b6c-9e8f-7a1b2c3d4e5f",
      );
    // The ExternalProvisioning message names 'x' first; the From column is read only when no message names one.
    const fromColumn = described.replace(/Waiting for a volume.*registered\./, "");
    expect(ok(checkCluster(fromColumn, "WaitForFirstConsumer", "standard")).provisioner?.name).toBe("rancher.io/local-path");
  });
});

describe("check my cluster: which Kubernetes release wrote the events", () => {
  it("1.32 or older: the old node-affinity reason, offered against a 1.35 sheet", () => {
    const result = ok(checkCluster(fixture("zone-conflict-1.32-kubectl-get-events.json"), "Immediate", "zone-conflict", "1.35"));
    expect(result.version).toEqual({
      fits: ["1.32"],
      clues: [
        { text: "node(s) had volume node affinity conflict", releases: "1.32 or older" },
        { text: "node(s) had untolerated taint {…}", releases: "1.34 or older" },
      ],
      sheet: "1.35",
      matchesSheet: false,
    });
  });

  it("1.33 or 1.34: 'Created container: app' with its colon, and the image message without the 1.35 tail", () => {
    const result = ok(checkCluster(paste("wffc-1.33-describe.txt"), "WaitForFirstConsumer", "standard", "1.35"));
    expect(result.version?.fits).toEqual(["1.33", "1.34"]);
    expect(result.version?.clues).toEqual([
      { text: "Created container: app", releases: "1.33 to 1.34" },
      { text: "Started container app", releases: "1.34 or older" },
    ]);
    expect(result.version?.matchesSheet).toBe(false);
  });

  it("1.34: the DRA plugin's 'no new claims to deallocate' with the CSI driver Pod's 'Created container: hostpath' (get events -A)", () => {
    const result = ok(checkCluster(paste("zone-conflict-1.34-get-events-A.txt"), "Immediate", "zone-conflict", "1.34"));
    expect(placed(result)).toEqual([
      "1 CREATE PVC: ExternalProvisioning",
      "2 PROVISION: Provisioning",
      "4 CREATE PV: ProvisioningSucceeded",
      "8 PICK NODE: FailedScheduling",
    ]);
    expect(result.otherObjects).toBe(5);
    expect(result.version).toEqual({
      fits: ["1.34"],
      clues: [
        { text: "node(s) didn't match PersistentVolume's node affinity", releases: "1.33 or later" },
        { text: "no new claims to deallocate", releases: "1.34 or later" },
        { text: "Created container: hostpath", releases: "1.33 to 1.34" },
        { text: "Started container hostpath", releases: "1.34 or older" },
      ],
      sheet: "1.34",
      matchesSheet: true,
    });
  });

  it("the Pod-first paste: 1.33 or 1.34 from the kubelet's wording; 'untolerated taint {…}' is 1.34 or older", () => {
    expect(ok(checkCluster(paste("immediate-pod-first-kubectl-events.txt"), "Immediate", "standard")).version?.fits).toEqual([
      "1.33",
      "1.34",
    ]);
    const zone = ok(checkCluster(paste("zone-conflict-insufficient-cpu-kubectl-get-events.json"), "Immediate", "zone-conflict", "1.35"));
    expect(zone.version).toEqual({
      fits: ["1.32", "1.33", "1.34"],
      clues: [{ text: "node(s) had untolerated taint {…}", releases: "1.34 or older" }],
      sheet: "1.35",
      matchesSheet: false,
    });
  });

  it("1.35 or later: 'Container created', 'Container started' and the image message's new tail", () => {
    const result = ok(checkCluster(paste("wffc-1.35-kubectl-events.txt"), "WaitForFirstConsumer", "standard", "1.33"));
    expect(result.version).toEqual({
      fits: ["1.35"],
      clues: [
        { text: "already present on machine and can be accessed by the pod", releases: "1.35 or later" },
        { text: "Container created", releases: "1.35 or later" },
        { text: "Container started", releases: "1.35 or later" },
      ],
      sheet: "1.33",
      matchesSheet: false,
    });
  });

  it("says nothing when no message tells the release, and fits nothing when two releases are mixed", () => {
    expect(ok(checkCluster(fixture("local-events-k8s-io.json"), "Local", "standard")).version?.fits).toEqual(["1.33", "1.34"]);
    expect(ok(checkCluster(fixture("no-local-pv-kubectl-events.json"), "Local", "no-local-pv")).version).toBeNull();
    const mixed = `${paste("wffc-1.35-kubectl-events.txt")}\n${paste("zone-conflict-1.32-describe-events-only.txt")}`;
    expect(ok(checkCluster(mixed, "WaitForFirstConsumer", "standard")).version?.fits).toEqual([]);
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

describe("check my cluster: pastes it cannot use get a plain answer", () => {
  it("empty, or kubectl events' stderr line alone (with the prompts around it)", () => {
    expect(problem("   ")).toMatch(/^Paste what kubectl printed here first/);
    expect(problem(paste("empty-kubectl-events.txt"))).toMatch(
      /^kubectl said “No events found in default namespace\.” kubectl found no events\. The API server keeps events for one hour/,
    );
    expect(problem("No events found.")).toMatch(/^kubectl said “No events found\.”/);
    expect(problem("No resources found in default namespace.\n")).toMatch(/^kubectl said “No resources found in default namespace\.”/);
  });

  it("a List without items, an empty list, describe's Events: <none>", () => {
    expect(problem('{\n    "apiVersion": "v1",\n    "kind": "List",\n    "metadata": {\n        "resourceVersion": ""\n    }\n}')).toMatch(
      /^This List has no "items" field, so it holds no events\./,
    );
    expect(
      problem(
        '{\n    "apiVersion": "v1",\n    "items": [],\n    "kind": "List",\n    "metadata": {\n        "resourceVersion": ""\n    }\n}',
      ),
    ).toMatch(/^The list is empty: kubectl found no events\./);
    expect(problem("Name:          data\nNamespace:     default\nUsed By:       <none>\nEvents:        <none>\n")).toMatch(
      /^kubectl describe printed “Events: <none>”/,
    );
  });

  it("a table or describe header with nothing under it, YAML, cut-off JSON, other objects", () => {
    expect(problem("LAST SEEN   TYPE   REASON   OBJECT   MESSAGE\n")).toMatch(/^This table has a header but no event under it/);
    expect(problem("apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Event")).toMatch(/looks like YAML/);
    expect(problem(fixture("wffc-kubectl-get-events.json").slice(0, 900))).toMatch(/not complete JSON/);
    expect(
      problem('{"apiVersion": "v1", "items": [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "app"}}], "kind": "List"}'),
    ).toBe("This is a list of Pod objects, not events. Run kubectl get events -o json and paste that.");
    expect(problem("hello")).toMatch(/^This does not look like kubectl's events/);
  });

  it("events that are all about other objects", () => {
    const others = JSON.parse(fixture("wffc-kubectl-get-events.json")) as { items: { involvedObject: { kind: string } }[] };
    others.items = others.items.filter((e) => e.involvedObject.kind === "Node");
    expect(problem(JSON.stringify(others, null, 4))).toMatch(
      /None of these 2 events is about the lab's PersistentVolumeClaim "data" or Pod "app"/,
    );
  });

  it("a paste over the size cap is refused before it is parsed, saying how to copy less", () => {
    const big = `${fixture("wffc-kubectl-get-events.json")}\n${" ".repeat(MAX_PASTE_BYTES)}`;
    expect(problem(big)).toBe(
      "This paste is 526 KiB; the check reads at most 512 KiB. Copy only the lab's two objects: kubectl events --for pvc/data and kubectl events --for pod/app (or kubectl get events -n default -o json in a namespace with nothing else in it).",
    );
    expect(pasteTooLarge("é".repeat(MAX_PASTE_BYTES / 2))).toBeNull(); // two bytes each: exactly the cap
    expect(pasteTooLarge("é".repeat(MAX_PASTE_BYTES / 2 + 1))).toMatch(/^This paste is 513 KiB/);
    expect(pasteTooLarge("x".repeat(3 * 1024 * 1024))).toMatch(/^This paste is 3\.0 MiB/);
  });
});

describe("check my cluster: a shell prompt pasted with the output", () => {
  it("a bracketed prompt before and after the JSON (bash on Fedora, RHEL)", () => {
    const pasted = `[ana@laptop pv-lab]$ kubectl get events -o json\n${fixture("wffc-kubectl-get-events.json")}[ana@laptop pv-lab]$ `;
    const result = ok(checkCluster(pasted, "WaitForFirstConsumer", "standard"));
    expect(result.shape).toBe("json");
    expect(result.summary).toMatch(/^All 10 events/);
  });

  it("a $ prompt, a bracketed prompt ending in ], and colour codes", () => {
    expect(parseEvents(`$ kubectl get events -o json\n${fixture("no-local-pv-kubectl-events.json")}`).ok).toBe(true);
    expect(parseEvents(`${fixture("no-local-pv-kubectl-events.json")}\n[ana@laptop pv-lab]`).ok).toBe(true);
    const coloured = `\u001b[01;32mana@laptop\u001b[00m:\u001b[01;34m~/pv-lab\u001b[00m$ kubectl events\n${paste("wffc-1.35-kubectl-events.txt")}`;
    expect(ok(checkCluster(coloured, "WaitForFirstConsumer", "standard")).steps[0].events[0].count).toBe(3);
  });

  it("with Windows line ends (PowerShell)", () => {
    const crlf = `PS C:\\Users\\ana> kubectl events\r\n${paste("wffc-1.35-kubectl-events.txt").replace(/\n/g, "\r\n")}`;
    expect(ok(checkCluster(crlf, "WaitForFirstConsumer", "standard")).missing).toEqual([]);
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
