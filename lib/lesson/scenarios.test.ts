import { describe, expect, it } from "vitest";
import {
  BINDING_MODES,
  FIDELITY_NOTES,
  VERSION_NOTES,
  NOT_SHOWN,
  SCENARIOS,
  VARIANTS_BY_MODE,
  WFFC_STEPS,
  KUBE_VERSIONS,
  getScenario,
  isVariantOf,
  mapPosition,
  scenarioVersion,
  scenariosFor,
  versionLabel,
  versionNotes,
  versionStatement,
  type KubeVersion,
  type Scenario,
} from "./index";

const wffc = getScenario("WaitForFirstConsumer", "standard");
const immediate = getScenario("Immediate", "standard");
const conflict = getScenario("Immediate", "zone-conflict");
const local = getScenario("Local", "standard");
const noLocal = getScenario("Local", "no-local-pv");

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

describe("getScenario follows the class's release", () => {
  it("returns one object per (release, mode, variant), and the default release's when none is given", () => {
    expect(getScenario("Immediate", "zone-conflict", "1.32")).toBe(getScenario("Immediate", "zone-conflict", "1.32"));
    expect(getScenario("Immediate", "zone-conflict", "1.32")).not.toBe(conflict);
    expect(getScenario("Immediate", "zone-conflict", "1.35")).toBe(conflict);
    expect(scenarioVersion(conflict)).toBe("1.35");
    expect(scenarioVersion(getScenario("Local", "standard", "1.33"))).toBe("1.33");
    expect(SCENARIOS).toBe(scenariosFor("1.35"));
  });
  it("carries its release's label, statement and notes", () => {
    const s = getScenario("WaitForFirstConsumer", "standard", "1.32");
    expect(s.kubeVersion).toBe("1.32");
    expect(s.versionLabel).toBe("Kubernetes 1.32 or older");
    expect(s.versionStatement).toBe(versionStatement("1.32"));
    expect(s.versionNotes).toBe(versionNotes("1.32"));
    expect(s.fidelityNotes).toBe(FIDELITY_NOTES);
  });
  it("every release has the same steps, arrows and notes on the card; only words inside them differ", () => {
    const shape = (x: Scenario) => x.steps.map((st) => `${st.label}:${st.title}:${st.from}>${st.to}:${st.note ?? ""}`);
    for (const version of KUBE_VERSIONS) {
      for (const [id, s] of Object.entries(scenariosFor(version)))
        expect(shape(s), `${version} ${id}`).toEqual(shape(SCENARIOS[id as keyof typeof SCENARIOS]));
    }
  });
  it("quotes each release's FailedScheduling message at the failing step", () => {
    const quoted = (version: KubeVersion) => step(getScenario("Immediate", "zone-conflict", version), 4).speakerNotes;
    expect(quoted("1.32")).toContain(
      "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 2 node(s) had volume node affinity conflict. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
    );
    expect(quoted("1.33")).toContain("2 node(s) didn't match PersistentVolume's node affinity. preemption: 0/3");
    expect(quoted("1.34")).toContain(
      "2 node(s) didn't match PersistentVolume's node affinity. no new claims to deallocate, preemption: 0/3",
    );
  });
  it("names the kubelet's Created and Started messages of its release", () => {
    const stage = (version: KubeVersion) => hood(getScenario("WaitForFirstConsumer", "standard", version), 12);
    expect(stage("1.32")).toContain("Created (Created container app) and Started (Started container app)");
    expect(stage("1.34")).toContain("Created (Created container: app) and Started (Started container app)");
    expect(stage("1.35")).toContain("Created (Container created) and Started (Container started)");
    expect(stage("1.35")).toContain("spec.containers{app}: Container created");
    expect(step(getScenario("Local", "standard", "1.33"), 12).speakerNotes).toContain("Created (Created container: app)");
  });
  it("says Initialized is True from RUN POD, and which releases write observedGeneration", () => {
    expect(hood(wffc, 11)).toContain("Initialized is already True");
    expect(hood(wffc, 12)).not.toMatch(/PodReadyToStartContainers, Initialized/);
    expect(hood(getScenario("WaitForFirstConsumer", "standard", "1.34"), 11)).toContain("observedGeneration: 1");
    expect(hood(getScenario("WaitForFirstConsumer", "standard", "1.33"), 11)).not.toContain("observedGeneration");
  });
  it("1.35's PreBind wait names the nominated node; 1.34's does not", () => {
    expect(hood(wffc, 5)).toContain("status.nominatedNodeName: node-b1");
    expect(step(wffc, 5).speakerNotes).toContain("status.nominatedNodeName: node-b1");
    expect(step(local, 5).speakerNotes).toContain("status.nominatedNodeName: node-b1");
    expect(hood(getScenario("WaitForFirstConsumer", "standard", "1.34"), 5)).not.toContain("nominatedNodeName");
  });
  it("the PV's describe text lists the two deletion-secret annotations", () => {
    expect(hood(wffc, 9)).toContain("the two provisioner-deletion-secret annotations");
    expect(hood(wffc, 9)).not.toContain("shows just pv.kubernetes.io/provisioned-by");
  });
});

describe("each release's wording", () => {
  const everyText = (s: Scenario) => [
    s.title,
    s.summary,
    ...s.steps.flatMap((x) => [
      x.narration,
      x.speakerNotes,
      x.note ?? "",
      ...(x.underTheHood ?? []).flatMap((u) => [u.title, u.body]),
      ...(x.nodeVerdicts ?? []).map((v) => v.reason ?? ""),
    ]),
  ];

  it("1.33 and later use the renamed scheduler reason; the old one only where it is labelled as 1.32 and older", () => {
    for (const version of ["1.33", "1.34", "1.35"] as const) {
      for (const s of Object.values(scenariosFor(version))) {
        for (const text of everyText(s)) {
          if (text.includes("volume node affinity conflict")) expect(text, text).toMatch(/1\.32 and older/);
        }
      }
      expect(everyText(scenariosFor(version)["Immediate/zone-conflict"]).join("\n")).toContain(
        "node(s) didn't match PersistentVolume's node affinity",
      );
    }
  });

  it("1.32 uses the old reason, and the new one only where it is labelled as 1.33 and later", () => {
    for (const s of Object.values(scenariosFor("1.32"))) {
      for (const text of everyText(s)) {
        if (text.includes("didn't match PersistentVolume's node affinity")) expect(text, text).toMatch(/1\.33 and later/);
      }
    }
    expect(step(getScenario("Immediate", "standard", "1.32"), 4).nodeVerdicts?.map((v) => v.reason ?? "fits")).toEqual([
      "fits",
      "node(s) had volume node affinity conflict",
      "node(s) had volume node affinity conflict",
    ]);
  });

  it("no text claims a release range the scenario does not print", () => {
    for (const version of KUBE_VERSIONS) {
      for (const s of Object.values(scenariosFor(version))) expect(everyText(s).join("\n")).not.toContain("1.33+");
    }
  });
});

describe("version label, statement and notes", () => {
  it("labels each release as the session's switch does", () => {
    expect(KUBE_VERSIONS.map(versionLabel)).toEqual([
      "Kubernetes 1.32 or older",
      "Kubernetes 1.33",
      "Kubernetes 1.34",
      "Kubernetes 1.35 or later",
    ]);
  });
  it("states which release (and kubectl) the screens follow; the old export is the default release's", () => {
    expect(versionStatement("1.35")).toBe(
      "Objects, events and messages are shown as Kubernetes 1.35 and later, with a kubectl of the same release, print them.",
    );
    expect(versionStatement("1.32")).toBe("Objects, events and messages are shown as Kubernetes 1.32 and its kubectl print them.");
    expect(VERSION_NOTES).toBe(versionNotes("1.35"));
    expect(VERSION_NOTES[0]).toBe(versionStatement("1.35"));
  });
  it("gives the other releases' wording for every string that differs", () => {
    const notes = (version: KubeVersion) => versionNotes(version).join("\n");
    expect(notes("1.35")).toContain('"Container created"');
    expect(notes("1.35")).toContain('"Created container: app"');
    expect(notes("1.35")).toContain('"node(s) had volume node affinity conflict"');
    expect(notes("1.35")).toContain("spec.containers{app}: Container created");
    expect(notes("1.35")).toContain("no new claims to deallocate");
    expect(notes("1.35")).toContain("and can be accessed by the pod");
    expect(notes("1.35")).toContain("nominatedNodeName");
    expect(notes("1.32")).toContain('The kubelet writes "Created container app" and "Started container app"');
    expect(notes("1.32")).toContain("(1.33 and later: \"node(s) didn't match PersistentVolume's node affinity\", renamed in v1.33.0)");
    expect(notes("1.33")).toContain("1.34 adds status.observedGeneration");
    expect(notes("1.34")).not.toContain("nominatedNodeName");
  });
  it("says how the 1.34 id treats the taint wording that changed in patch 1.34.2", () => {
    expect(versionNotes("1.34").join("\n")).toContain(
      'the lesson shows patch 1.34.2 and later; 1.34.0 and 1.34.1 print "node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }"',
    );
    expect(versionStatement("1.34")).toContain("patch 1.34.2 or later");
  });
});
