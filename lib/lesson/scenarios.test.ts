import { describe, expect, it } from "vitest";
import {
  BINDING_MODES,
  FIDELITY_NOTES,
  NOT_SHOWN,
  SCENARIOS,
  VARIANTS_BY_MODE,
  WFFC_STEPS,
  getScenario,
  isVariantOf,
  mapPosition,
  type Scenario,
} from "./index";
import { wffc, immediate, conflict, local, noLocal } from "../../tests/support/lessonWorld";

const labels = (s: Scenario) => s.steps.map((x) => x.label);
const step = (s: Scenario, label: number) => s.steps.find((x) => x.label === label)!;
const hood = (s: Scenario, label: number) => (step(s, label).underTheHood ?? []).map((u) => `${u.title}\n${u.body}`).join("\n");

// The default scenarios are the newest release's (1.35): from 1.34 DynamicResources adds its PostFilter reason.
const ZONE_CONFLICT_MESSAGE =
  "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 2 node(s) didn't match PersistentVolume's node affinity. no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.";
const NO_LOCAL_PV_MESSAGE =
  "0/3 nodes are available: 3 node(s) didn't find available persistent volumes to bind. no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.";

describe("scenario label orders (LESSON.md sections 1, 2, 4)", () => {
  it("WaitForFirstConsumer is the card's 12 steps", () => {
    expect(labels(wffc)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(wffc.steps.map((s) => s.title)).toEqual([
      "CREATE PVC",
      "CREATE POD",
      "NEW POD",
      "PICK NODE",
      "NODE CHOSEN",
      "PROVISION",
      "CREATE DISK",
      "CREATE PV",
      "BIND PVC+PV",
      "BIND POD",
      "RUN POD",
      "MOUNT",
    ]);
  });
  it("Immediate: 1, 6, 7, 8, 9, 2, 3, 4, 5, 10, 11, 12", () => {
    expect(labels(immediate)).toEqual([1, 6, 7, 8, 9, 2, 3, 4, 5, 10, 11, 12]);
  });
  it("Immediate zone conflict stops at PICK NODE", () => {
    expect(labels(conflict)).toEqual([1, 6, 7, 8, 9, 2, 3, 4]);
  });
  it("Local skips PROVISION, CREATE DISK, CREATE PV", () => {
    expect(labels(local)).toEqual([1, 2, 3, 4, 5, 9, 10, 11, 12]);
  });
  it("Local without a PV stops at PICK NODE", () => {
    expect(labels(noLocal)).toEqual([1, 2, 3, 4]);
  });
  it("titles always match the card's caption for the label", () => {
    for (const s of Object.values(SCENARIOS)) {
      for (const x of s.steps) expect(x.title).toBe(WFFC_STEPS[x.label - 1].title);
    }
  });
});

describe("noop and failed steps", () => {
  const flagged = (s: Scenario) =>
    s.steps.filter((x) => x.noop || x.failed).map((x) => `${x.label}${x.noop ? "noop" : ""}${x.failed ? "failed" : ""}`);
  it("only Immediate's step 5 is a no-op; only the two failure variants fail, at step 4", () => {
    expect(flagged(wffc)).toEqual([]);
    expect(flagged(immediate)).toEqual(["5noop"]);
    expect(flagged(conflict)).toEqual(["4failed"]);
    expect(flagged(local)).toEqual([]);
    expect(flagged(noLocal)).toEqual(["4failed"]);
  });
  it("Immediate's step 5 writes nothing: no arrow to the API server", () => {
    expect(step(immediate, 5)).toMatchObject({ from: "scheduler", to: "scheduler" });
    expect(step(immediate, 5).speakerNotes).toContain("no-op");
  });
  it("the failing steps quote the exact FailedScheduling message", () => {
    expect(step(conflict, 4).speakerNotes).toContain(ZONE_CONFLICT_MESSAGE);
    expect(step(noLocal, 4).speakerNotes).toContain(NO_LOCAL_PV_MESSAGE);
    expect(step(noLocal, 4).speakerNotes).toContain("waiting for pod app to be scheduled");
  });
});

describe("arrows", () => {
  const arrows = (s: Scenario) => s.steps.map((x) => `${x.label}:${x.from}>${x.to}:${x.kind}`);
  it("WaitForFirstConsumer follows the card", () => {
    expect(arrows(wffc)).toEqual([
      "1:you>control:request",
      "2:you>control:request",
      "3:control>scheduler:watch",
      "4:scheduler>scheduler:request",
      "5:scheduler>control:request",
      "6:control>csi:watch",
      "7:csi>csi:storage",
      "8:csi>control:request",
      "9:control>control:binding",
      "10:scheduler>control:binding",
      "11:control>node:watch",
      "12:node>csi:storage",
    ]);
  });
  it("Local: step 5 is the scheduler's write (of the PV), step 12 never reaches CSI", () => {
    expect(arrows(local)).toEqual([
      "1:you>control:request",
      "2:you>control:request",
      "3:control>scheduler:watch",
      "4:scheduler>scheduler:request",
      "5:scheduler>control:request",
      "9:control>control:binding",
      "10:scheduler>control:binding",
      "11:control>node:watch",
      "12:node>node:storage",
    ]);
  });
});

describe("narration fits each scenario", () => {
  it("Immediate provisions at once, with no selected node", () => {
    expect(step(immediate, 1).narration).toContain("at once");
    expect(step(immediate, 1).speakerNotes).toContain("no selected-node");
    expect(step(immediate, 6).narration).toContain("no selected node");
    expect(step(immediate, 4).speakerNotes).toContain("checkBoundClaims");
    expect(step(immediate, 9).note).toBe("PVC and PV are now Bound, before any Pod exists.");
  });
  it("the card's notes stay on the card's track", () => {
    expect(step(wffc, 1).note).toBe("The PVC sits in Pending. No Pod needs it yet, so nothing is created.");
    expect(step(wffc, 9).note).toBe("PVC and PV are now Bound. Only now can the Pod start.");
    expect(step(immediate, 1).note).not.toBe(step(wffc, 1).note);
  });
  it("Local step 5 writes the PV's claimRef, not selected-node", () => {
    expect(step(local, 5).narration).toContain("spec.claimRef");
    expect(step(local, 5).speakerNotes).toContain("No selected-node is written");
    expect(step(local, 12).narration).toContain("bind-mounts /mnt/disks/ssd1");
    expect(step(local, 12).narration).toContain("No attach, no VolumeAttachment");
  });
  it("every scenario has a title and a summary", () => {
    expect(Object.values(SCENARIOS).map((s) => s.title)).toEqual([
      "WaitForFirstConsumer",
      "Immediate",
      "Immediate: zone conflict",
      "Local PVs",
      "Local PVs: no matching PV",
    ]);
    for (const s of Object.values(SCENARIOS)) expect(s.summary.length).toBeGreaterThan(40);
  });
});

describe("PICK NODE verdicts", () => {
  const verdicts = (s: Scenario) =>
    step(s, 4).nodeVerdicts!.map((v) => (v.fits ? `${v.node}:fits` : `${v.node}:${v.failedFilter}:${v.reason}`));
  it("zone conflict: node-a fails NodeAffinity first, the zone-b nodes fail VolumeBinding", () => {
    expect(verdicts(conflict)).toEqual([
      "node-a:NodeAffinity:node(s) didn't match Pod's node affinity/selector",
      "node-b1:VolumeBinding:node(s) didn't match PersistentVolume's node affinity",
      "node-b2:VolumeBinding:node(s) didn't match PersistentVolume's node affinity",
    ]);
  });
  it("Immediate standard: only node-a can reach the zone-a disk", () => {
    expect(verdicts(immediate)).toEqual([
      "node-a:fits",
      "node-b1:VolumeBinding:node(s) didn't match PersistentVolume's node affinity",
      "node-b2:VolumeBinding:node(s) didn't match PersistentVolume's node affinity",
    ]);
  });
  it("Local: only node-b1 holds a matching PV", () => {
    expect(verdicts(local)).toEqual([
      "node-a:VolumeBinding:node(s) didn't find available persistent volumes to bind",
      "node-b1:fits",
      "node-b2:VolumeBinding:node(s) didn't find available persistent volumes to bind",
    ]);
    expect(verdicts(noLocal).every((v) => v.endsWith("didn't find available persistent volumes to bind"))).toBe(true);
  });
});

describe("under the hood: what the card simplifies", () => {
  it("every step of every scenario has at least one expander", () => {
    for (const s of Object.values(SCENARIOS)) {
      for (const x of s.steps) expect(x.underTheHood?.length ?? 0, `${s.mode}/${s.variant} step ${x.label}`).toBeGreaterThan(0);
    }
  });
  it("the 5→6 hop: storage-provisioner annotations and ExternalProvisioning", () => {
    const text = hood(wffc, 6);
    expect(text).toContain("volume.kubernetes.io/storage-provisioner");
    expect(text).toContain("volume.beta.kubernetes.io/storage-provisioner");
    expect(text).toContain("ExternalProvisioning");
    expect(hood(immediate, 1)).toContain("ExternalProvisioning");
  });
  it("--strict-topology at step 7", () => {
    expect(hood(wffc, 7)).toContain("--strict-topology=true");
    expect(hood(wffc, 7)).toContain("preferred");
  });
  it("PreBind waits for the bind (600 s)", () => {
    expect(hood(wffc, 5)).toContain("bindTimeoutSeconds (default 600)");
    expect(hood(local, 5)).toContain("bindTimeoutSeconds (default 600)");
    expect(hood(wffc, 10)).toContain("Step 10 waits for step 9");
  });
  it("step 12's attach, stage and publish sub-steps", () => {
    const text = hood(wffc, 12);
    for (const word of [
      "VolumeAttachment",
      "ControllerPublishVolume",
      "SuccessfulAttachVolume",
      "NodeStageVolume",
      "NodePublishVolume",
      "attachRequired: false",
    ]) {
      expect(text).toContain(word);
    }
  });
  it("RUN POD means the kubelet picked it up", () => {
    expect(hood(wffc, 11)).toContain("picked up, not running");
    expect(hood(wffc, 11)).toContain("WaitForAttachAndMount");
  });
  it("zone conflict explains each node's reason and the fixes", () => {
    const text = hood(conflict, 4);
    expect(text).toContain("first failing filter");
    expect(text).toContain("NodeAffinity");
    expect(text).toContain("Nothing moves the disk");
    expect(text).toContain("WaitForFirstConsumer class");
    expect(text).toContain("allowedTopologies");
  });
});

describe("NOT_SHOWN", () => {
  it("covers the card's list in its order", () => {
    expect(NOT_SHOWN.map((n) => n.title)).toEqual(["Retries", "Failures", "ResourceQuota", "Access modes"]);
    expect(FIDELITY_NOTES.at(-1)).toBe("Not shown: retries, failures, ResourceQuota, access modes.");
  });
  it("states LESSON.md section 7's numbers", () => {
    const byTitle = Object.fromEntries(NOT_SHOWN.map((n) => [n.title, n.body]));
    expect(byTitle.Retries).toContain("15 s");
    expect(byTitle.Retries).toContain("600 s");
    expect(byTitle.ResourceQuota).toContain("403");
    expect(byTitle["Access modes"]).toContain("Multi-Attach error");
  });
});

describe("getScenario, VARIANTS_BY_MODE, isVariantOf", () => {
  it("offers the five scenarios", () => {
    expect(VARIANTS_BY_MODE).toEqual({
      WaitForFirstConsumer: ["standard"],
      Immediate: ["standard", "zone-conflict"],
      Local: ["standard", "no-local-pv"],
    });
    for (const mode of BINDING_MODES) {
      for (const variant of VARIANTS_BY_MODE[mode]) {
        expect(getScenario(mode, variant)).toMatchObject({ mode, variant });
        expect(isVariantOf(mode, variant)).toBe(true);
      }
    }
    expect(isVariantOf("WaitForFirstConsumer", "zone-conflict")).toBe(false);
    expect(isVariantOf("Immediate", "no-local-pv")).toBe(false);
  });
  it("returns the same object each time and falls back to the mode's default", () => {
    expect(getScenario("Immediate", "zone-conflict")).toBe(conflict);
    expect(getScenario("Immediate")).toBe(immediate);
    expect(getScenario("WaitForFirstConsumer", "no-local-pv")).toBe(wffc);
  });
});

describe("mapPosition", () => {
  it("keeps the label when the other scenario has it", () => {
    // WFFC PROVISION (index 5) is Immediate's second step.
    expect(mapPosition(wffc, 5, immediate)).toEqual({ index: 1, matched: true });
    // Immediate CREATE POD (index 5) is WFFC's index 1.
    expect(mapPosition(immediate, 5, wffc)).toEqual({ index: 1, matched: true });
    expect(mapPosition(wffc, 8, local)).toEqual({ index: 5, matched: true });
    expect(mapPosition(wffc, 11, immediate)).toEqual({ index: 11, matched: true });
  });
  it("goes to the start when the label is missing", () => {
    expect(mapPosition(wffc, 6, local)).toEqual({ index: 0, matched: false }); // CREATE DISK
    expect(mapPosition(wffc, 9, conflict)).toEqual({ index: 0, matched: false }); // BIND POD
    expect(mapPosition(local, 8, noLocal)).toEqual({ index: 0, matched: false }); // MOUNT
  });
});
