import { describe, expect, it } from "vitest";
import { LAB_SHEETS, LAB_SLUGS, labPath, scenarioIdForSlug } from "./lab";
import { labSheetMarkdown } from "./labMarkdown";
import { SCENARIO_IDS, getScenario } from "./index";

const sheets = Object.values(LAB_SHEETS);
const allEvents = (id: keyof typeof LAB_SHEETS) => LAB_SHEETS[id].steps.flatMap((s) => s.events);

describe("lab sheets", () => {
  it("one sheet per scenario, reachable by its slug and from a mode and variant", () => {
    expect(Object.keys(LAB_SHEETS).sort()).toEqual([...SCENARIO_IDS].sort());
    for (const id of SCENARIO_IDS) expect(scenarioIdForSlug(LAB_SLUGS[id])).toBe(id);
    expect(labPath("Immediate", "zone-conflict")).toBe("/lab/immediate-zone-conflict");
    expect(labPath("Local", "standard")).toBe("/lab/local");
    expect(scenarioIdForSlug("no-such-lab")).toBeNull();
  });

  it("follows the diagram's track step for step", () => {
    for (const sheet of sheets) {
      const scenario = getScenario(...(sheet.id.split("/") as ["Local", "standard"]));
      expect(sheet.steps.map((s) => `${s.position} ${s.label} ${s.title}`)).toEqual(
        scenario.steps.map((s, i) => `${i + 1} ${s.label} ${s.title}`),
      );
      for (const step of sheet.steps) expect(step.check.length + step.run.length, `${sheet.id} ${step.title}`).toBeGreaterThan(0);
    }
  });

  it("hands out a StorageClass, a PVC and a Pod, plus the hand-made PV for the local case", () => {
    for (const sheet of sheets) {
      const files = sheet.manifests.map((m) => m.file);
      expect(files).toEqual(expect.arrayContaining(["storageclass.yaml", "pvc.yaml", "pod.yaml"]));
      expect(files.includes("local-pv.yaml")).toBe(sheet.id === "Local/standard");
    }
    const localClass = LAB_SHEETS["Local/standard"].manifests.find((m) => m.file === "storageclass.yaml")!.yaml;
    expect(localClass).toContain("provisioner: kubernetes.io/no-provisioner");
    expect(localClass).toContain("volumeBindingMode: WaitForFirstConsumer");
    const pv = LAB_SHEETS["Local/standard"].manifests.find((m) => m.file === "local-pv.yaml")!.yaml;
    expect(pv).toContain("path: /mnt/disks/ssd1");
    expect(pv).toContain("- pv-lab-control-plane");
    const wffcClass = LAB_SHEETS["WaitForFirstConsumer/standard"].manifests[0].yaml;
    expect(wffcClass).toContain("provisioner: hostpath.csi.k8s.io");
    expect(wffcClass).toContain("volumeBindingMode: WaitForFirstConsumer");
    expect(LAB_SHEETS["Immediate/standard"].manifests[0].yaml).toContain("volumeBindingMode: Immediate");
  });

  it("expects the lesson's strings, with the lab cluster's names", () => {
    expect(allEvents("WaitForFirstConsumer/standard")).toEqual([
      "Normal  WaitForFirstConsumer  PersistentVolumeClaim/data  waiting for first consumer to be created before binding",
      "Normal  ExternalProvisioning  PersistentVolumeClaim/data  Waiting for a volume to be created either by the external provisioner 'hostpath.csi.k8s.io' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.",
      'Normal  Provisioning  PersistentVolumeClaim/data  External provisioner is provisioning volume for claim "default/data"',
      "Normal  ProvisioningSucceeded  PersistentVolumeClaim/data  Successfully provisioned volume pvc-<your PVC's UID>",
      "Normal  Scheduled  Pod/app  Successfully assigned default/app to pv-lab-control-plane",
      'Normal  SuccessfulAttachVolume  Pod/app  AttachVolume.Attach succeeded for volume "pvc-<your PVC\'s UID>" ',
      'Normal  Pulling  Pod/app  Pulling image "nginx"',
      'Normal  Pulled  Pod/app  Successfully pulled image "nginx" in 2.114s (2.114s including waiting). Image size: 72223946 bytes.',
      "Normal  Created  Pod/app  Created container: app",
      "Normal  Started  Pod/app  Started container app",
    ]);
    // Local: no provisioning, no attach.
    expect(allEvents("Local/standard").map((e) => e.split("  ")[1])).toEqual([
      "WaitForFirstConsumer",
      "Scheduled",
      "Pulling",
      "Pulled",
      "Created",
      "Started",
    ]);
    expect(allEvents("Local/no-local-pv").map((e) => e.split("  ")[1])).toEqual([
      "WaitForFirstConsumer",
      "FailedScheduling",
      "WaitForPodScheduled",
    ]);
  });

  it("says plainly what a laptop cannot show", () => {
    expect(LAB_SHEETS["Immediate/zone-conflict"].reproducible).toBe("partly");
    expect(LAB_SHEETS["Immediate/zone-conflict"].limits[0]).toMatch(/^Real zones cannot be reproduced on a laptop/);
    expect(LAB_SHEETS["WaitForFirstConsumer/standard"].limits.join(" ")).toMatch(/no zones/);
    expect(LAB_SHEETS["Local/standard"].reproducible).toBe("yes");
    // The laptop's own FailedScheduling for the zone conflict: the renamed reason, plus kind's tainted control plane.
    const failed = LAB_SHEETS["Immediate/zone-conflict"].steps.find((s) => s.title === "PICK NODE")!;
    expect(failed.events[0]).toContain(
      "1 node(s) didn't match PersistentVolume's node affinity, 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) had untolerated taint",
    );
    expect(failed.note).toContain("2 node(s) didn't match PersistentVolume's node affinity");
  });

  it("names the cluster and everything to install", () => {
    for (const sheet of sheets) {
      const commands = sheet.install.flatMap((i) => i.commands).join("\n");
      expect(commands).toContain("kind create cluster --name pv-lab --image kindest/node:v1.33.1");
      expect(commands.includes("csi-driver-host-path")).toBe(!sheet.id.startsWith("Local/"));
    }
  });

  it("renders every part as Markdown for the download", () => {
    const md = labSheetMarkdown(LAB_SHEETS["Local/standard"]);
    expect(md).toMatch(/^# Lab: Local PVs\n/);
    expect(md).toContain("## Reproducible on a laptop: yes");
    expect(md).toContain("`local-pv.yaml`");
    expect(md).toContain("docker exec pv-lab-control-plane mkdir -p /mnt/disks/ssd1");
    expect(md).toContain("### Step 9: 12 MOUNT");
    expect(md).toContain("Normal  Created  Pod/app  Created container: app");
    expect(md).toContain("Objects, events and messages are shown as Kubernetes 1.33 and later print them.");
  });
});
