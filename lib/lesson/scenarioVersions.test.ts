import { describe, expect, it } from "vitest";
import {
  FIDELITY_NOTES,
  VERSION_NOTES,
  SCENARIOS,
  KUBE_VERSIONS,
  getScenario,
  scenarioVersion,
  scenariosFor,
  versionLabel,
  versionNotes,
  versionStatement,
  type KubeVersion,
  type Scenario,
} from "./index";
import { wffc, conflict, local } from "../../tests/support/lessonWorld";

// Each Kubernetes release the lesson can show (versions.ts) gets its own scenarios: the same steps, arrows and
// card, with the words its scheduler, kubelet and kubectl print. The scenarios themselves: scenarios.test.ts.

const step = (s: Scenario, label: number) => s.steps.find((x) => x.label === label)!;
const hood = (s: Scenario, label: number) => (step(s, label).underTheHood ?? []).map((u) => `${u.title}\n${u.body}`).join("\n");

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
