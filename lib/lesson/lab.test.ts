import { describe, expect, it } from "vitest";
import { checkCommandLine } from "./kubectlArgs";
import { splitShellLine } from "./kubectlArgsShell";
import {
  KIND_VERSION,
  LAB_NODE_IMAGES,
  LAB_SLUGS,
  labCommandLines,
  labMinor,
  labPath,
  labSheet,
  labSheets,
  labSheetsByVersion,
  scenarioIdForSlug,
  type LabSheet,
} from "./lab";
import { labSheetFileName, labSheetMarkdown } from "./labMarkdown";
import { SCENARIO_IDS, getScenario, scenarioParts } from "./index";
import { KUBE_VERSIONS, type KubeVersion } from "./versions";

const every: LabSheet[] = KUBE_VERSIONS.flatMap((v) => Object.values(labSheets(v)));
const allEvents = (sheet: LabSheet) => sheet.steps.flatMap((s) => s.events);
const stepTitled = (sheet: LabSheet, title: string) => sheet.steps.find((s) => s.title === title)!;
const text = (sheet: LabSheet) => labSheetMarkdown(sheet);

describe("every command line of every sheet, in every release, passes kubectl's argument rules", () => {
  it.each(KUBE_VERSIONS)("Kubernetes %s", (version) => {
    const lines = Object.values(labSheets(version)).flatMap((sheet) => labCommandLines(sheet).map((line) => ({ id: sheet.id, line })));
    expect(lines.length).toBeGreaterThan(60);
    const failures = lines
      .map(({ id, line }) => ({ id, line, ...checkCommandLine(line, { minor: labMinor(version) }) }))
      .filter((v) => v.errors.length > 0 || v.warnings.length > 0);
    expect(failures).toEqual([]);
  });

  it("reads only the files the sheet hands out (-f FILE, --config FILE, sed … FILE)", () => {
    for (const sheet of every) {
      const files = new Set([...sheet.manifests, ...sheet.install.flatMap((i) => i.files ?? [])].map((f) => f.file));
      for (const line of labCommandLines(sheet)) {
        for (const command of splitShellLine(line).commands) {
          const words = command.words.map((w) => w.value);
          const read = words
            .flatMap((w, i) => (["-f", "--config"].includes(words[i - 1] ?? "") ? [w] : []))
            .concat(words[0] === "sed" ? words.slice(2) : []);
          for (const file of read.filter((f) => f !== "-" && !f.startsWith("https://")))
            expect(files, `${sheet.id}: ${line}`).toContain(file);
        }
      }
    }
  });

  it("never watches several resource types in one command (the sheets once printed kubectl get pvc,pv,pod -o wide -w)", () => {
    for (const sheet of every) {
      expect(sheet.watch.map((w) => w.run)).not.toContain("kubectl get pvc,pv,pod -o wide -w");
      for (const w of sheet.watch) expect(w.run).toMatch(/^kubectl get (pvc|pv|pod)( -o wide)? -w$/);
    }
  });
});

describe("lab sheets", () => {
  it("one sheet per scenario and release, reachable by its slug, and from the console with the session's release", () => {
    expect(Object.keys(labSheets()).sort()).toEqual([...SCENARIO_IDS].sort());
    for (const id of SCENARIO_IDS) {
      expect(scenarioIdForSlug(LAB_SLUGS[id])).toBe(id);
      for (const version of KUBE_VERSIONS) expect(labSheetsByVersion(id)[version]).toEqual(labSheet(id, version));
    }
    expect(labPath("Immediate", "zone-conflict")).toBe("/lab/immediate-zone-conflict");
    expect(labPath("Local", "standard", "1.32")).toBe("/lab/local?k8s=1.32");
    expect(scenarioIdForSlug("no-such-lab")).toBeNull();
    expect(labSheet("Local/standard").version).toBe("1.35");
  });

  it("follows the diagram's track step for step", () => {
    for (const sheet of every) {
      const scenario = getScenario(...scenarioParts(sheet.id));
      expect(sheet.steps.map((s) => `${s.position} ${s.label} ${s.title}`)).toEqual(
        scenario.steps.map((s, i) => `${i + 1} ${s.label} ${s.title}`),
      );
      for (const step of sheet.steps) expect(step.check.length + step.run.length, `${sheet.id} ${step.title}`).toBeGreaterThan(0);
    }
  });

  it("hands out a StorageClass, a PVC and a Pod, plus the hand-made PV for the local case and kind's config for three nodes", () => {
    for (const sheet of every) {
      const files = sheet.manifests.map((m) => m.file);
      expect(files).toEqual(expect.arrayContaining(["storageclass.yaml", "pvc.yaml", "pod.yaml"]));
      expect(files.includes("local-pv.yaml")).toBe(sheet.id === "Local/standard");
    }
    const sheets = labSheets();
    const pv = sheets["Local/standard"].manifests.find((m) => m.file === "local-pv.yaml")!.body;
    expect(pv).toContain("path: /mnt/disks/ssd1");
    expect(pv).toContain("- pv-lab-control-plane");
    expect(sheets["WaitForFirstConsumer/standard"].manifests[0].body).toContain("provisioner: hostpath.csi.k8s.io");
    expect(sheets["Immediate/standard"].manifests[0].body).toContain("volumeBindingMode: Immediate");
    expect(sheets["Immediate/zone-conflict"].install[0].files?.[0].body).toBe(
      "apiVersion: kind.x-k8s.io/v1alpha4\nkind: Cluster\nnodes:\n- role: control-plane\n- role: worker\n- role: worker",
    );
  });

  it("pins kind's node image by digest, from the kind release that ships it, for each release", () => {
    expect(KIND_VERSION).toBe("v0.31.0");
    for (const version of KUBE_VERSIONS) {
      const { release, image } = LAB_NODE_IMAGES[version];
      expect(release.startsWith(`v${version}.`)).toBe(true);
      expect(image).toMatch(new RegExp(`^kindest/node:${release.replaceAll(".", "\\.")}@sha256:[0-9a-f]{64}$`));
      for (const sheet of Object.values(labSheets(version))) {
        expect(sheet.install[0].commands.join("\n")).toContain(`--image ${image}`);
        expect(sheet.versionStatement).toContain(`kind ${KIND_VERSION} cluster of Kubernetes ${release}`);
      }
    }
    expect(LAB_NODE_IMAGES["1.35"].image).toBe(
      "kindest/node:v1.35.0@sha256:452d707d4862f52530247495d180205e029056831160e22870e37e3f6c1ac31f",
    );
  });

  it("prints events as kubectl events does: the message trimmed, the release's own wording", () => {
    for (const sheet of every) for (const line of allEvents(sheet)) expect(line, line).toBe(line.trimEnd());
    const wffc = (v: KubeVersion) => allEvents(labSheet("WaitForFirstConsumer/standard", v));
    expect(wffc("1.35")).toContain(
      'Normal  SuccessfulAttachVolume  Pod/app  AttachVolume.Attach succeeded for volume "pvc-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"',
    );
    expect(wffc("1.32")).toContain("Normal  Created  Pod/app  Created container app");
    expect(wffc("1.33")).toContain("Normal  Created  Pod/app  Created container: app");
    expect(wffc("1.35").map((e) => e.split("  ")[1])).toEqual([
      "WaitForFirstConsumer",
      "ExternalProvisioning",
      "Provisioning",
      "ProvisioningSucceeded",
      "Scheduled",
      "SuccessfulAttachVolume",
      "Pulling",
      "Pulled",
      "Created",
      "Started",
    ]);
    // Local: no provisioning, no attach.
    expect(allEvents(labSheet("Local/standard")).map((e) => e.split("  ")[1])).toEqual([
      "WaitForFirstConsumer",
      "Scheduled",
      "Pulling",
      "Pulled",
      "Created",
      "Started",
    ]);
  });

  it("says the untagged image is pulled every time (Always), never that it may already be present", () => {
    for (const sheet of every) {
      expect(sheet.manifests.find((m) => m.file === "pod.yaml")!.body).toContain("- image: nginx\n");
      expect(text(sheet)).not.toMatch(/already present/);
      if (allEvents(sheet).some((e) => e.includes("Pulling"))) expect(sheet.limits.join(" ")).toContain("imagePullPolicy: Always");
    }
  });

  it("Immediate: ExternalProvisioning comes at the claim's first sync, step 1", () => {
    for (const id of ["Immediate/standard", "Immediate/zone-conflict"] as const) {
      const sheet = labSheet(id);
      expect(sheet.steps[0].events.map((e) => e.split("  ")[1])).toEqual(["ExternalProvisioning"]);
      expect(text(sheet)).not.toMatch(/no ExternalProvisioning/);
    }
  });

  it("zone conflict: the kind cluster's own FailedScheduling, in each release's wording", () => {
    const failure = (v: KubeVersion) => stepTitled(labSheet("Immediate/zone-conflict", v), "PICK NODE").events[0];
    expect(failure("1.32")).toBe(
      "Warning  FailedScheduling  Pod/app  0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 1 node(s) had volume node affinity conflict. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
    );
    expect(failure("1.33")).toBe(
      "Warning  FailedScheduling  Pod/app  0/3 nodes are available: 1 node(s) didn't match PersistentVolume's node affinity, 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
    );
    expect(failure("1.35")).toBe(
      "Warning  FailedScheduling  Pod/app  0/3 nodes are available: 1 node(s) didn't match PersistentVolume's node affinity, 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) had untolerated taint(s). no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
    );
    expect(failure("1.34")).toBe(failure("1.35"));
    expect(stepTitled(labSheet("Immediate/zone-conflict"), "PICK NODE").note).toMatch(
      /^The diagram's three nodes print instead: 0\/3 nodes are available: 1 node\(s\) didn't match Pod's node affinity\/selector, 2 node\(s\) didn't match PersistentVolume's node affinity\./,
    );
  });

  it("zone conflict: reads the DaemonSet's Pods by label, waits for the claim, and gives the provisioner's real delay", () => {
    for (const version of KUBE_VERSIONS) {
      const sheet = labSheet("Immediate/zone-conflict", version);
      const lines = labCommandLines(sheet).join("\n");
      expect(lines).not.toContain("csi-hostpathplugin-0");
      expect(stepTitled(sheet, "CREATE DISK").check[0].command).toBe(
        "kubectl logs -n default -l app.kubernetes.io/name=csi-hostpathplugin -c hostpath --prefix --tail=-1 | grep CreateVolume",
      );
      expect(stepTitled(sheet, "CREATE POD").run[0].run).toBe(
        "kubectl wait --for=jsonpath='{.status.phase}'=Bound pvc/data --timeout=120s",
      );
      expect(sheet.limits.join(" ")).toContain("each first waits 20 s minus a random 0 to 20 s");
      expect(sheet.limits.join(" ")).not.toContain("20 to 60 s");
      expect(sheet.cluster.name).toBe("pv-lab-zones");
    }
  });

  it("no matching PV: one kind node, so 0/1 and 1 node(s), and no hand-made PV to speak of", () => {
    const failure = (v: KubeVersion) => stepTitled(labSheet("Local/no-local-pv", v), "PICK NODE").events[0];
    expect(failure("1.33")).toBe(
      "Warning  FailedScheduling  Pod/app  0/1 nodes are available: 1 node(s) didn't find available persistent volumes to bind. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
    );
    expect(failure("1.35")).toBe(
      "Warning  FailedScheduling  Pod/app  0/1 nodes are available: 1 node(s) didn't find available persistent volumes to bind. no new claims to deallocate, preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
    );
    for (const version of KUBE_VERSIONS) {
      const sheet = labSheet("Local/no-local-pv", version);
      // Only the PICK NODE note quotes the diagram's three nodes, and says so.
      const said = [...sheet.limits, ...sheet.steps.flatMap((s) => [...s.events, ...s.check.map((c) => c.expect)])].join("\n");
      expect(said).not.toMatch(/hand-made|0\/3|3 node\(s\)/);
      expect(stepTitled(sheet, "PICK NODE").note).toMatch(
        /^The diagram's three nodes print instead: 0\/3 nodes are available: 3 node\(s\)/,
      );
      expect(sheet.limits[0]).toContain("0/1 nodes are available: 1 node(s) didn't find available persistent volumes to bind.");
      expect(allEvents(sheet).map((e) => e.split("  ")[1])).toEqual(["WaitForFirstConsumer", "FailedScheduling", "WaitForPodScheduled"]);
    }
  });

  it("custom-columns output has kubectl's header row and tabwriter's alignment", () => {
    const wffc = labSheet("WaitForFirstConsumer/standard");
    expect(stepTitled(wffc, "CREATE PV").check[0]).toEqual({
      command: "kubectl get pv -o custom-columns=NAME:.metadata.name,PHASE:.status.phase,CLAIM:.spec.claimRef.name",
      expect: "NAME                                       PHASE     CLAIM\npvc-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx   Pending   data",
      afterwards: "NAME                                       PHASE   CLAIM\npvc-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx   Bound   data",
    });
    expect(stepTitled(wffc, "MOUNT").check[2].expect).toBe(
      "ATTACHER              NODE                   ATTACHED\nhostpath.csi.k8s.io   pv-lab-control-plane   true",
    );
    for (const sheet of every) {
      for (const check of sheet.steps.flatMap((s) => s.check).filter((c) => c.command.includes("custom-columns="))) {
        const headers = /custom-columns=(\S+)/
          .exec(check.command)![1]
          .split(",")
          .map((col) => col.split(":")[0]);
        expect(check.expect.split("\n")[0].split(/\s+/)).toEqual(headers);
      }
    }
  });

  it("says what a check typed after the fact prints: the Pod already has its node, the PV is already Bound", () => {
    const wffc = labSheet("WaitForFirstConsumer/standard");
    for (const title of ["CREATE POD", "NEW POD", "PICK NODE"]) {
      const nodeName = stepTitled(wffc, title).check.find((c) => c.command.includes("{.spec.nodeName}"))!;
      expect(nodeName.expect, title).toMatch(/^\(an empty line: /);
      expect(nodeName.afterwards, title).toBe("pv-lab-control-plane");
    }
    // Where the Pod never gets a node, the empty line is what every later check prints too.
    const stuck = stepTitled(labSheet("Immediate/zone-conflict"), "CREATE POD").check.find((c) => c.command.includes("{.spec.nodeName}"))!;
    expect(stuck.afterwards).toBeUndefined();
    // Immediate binds before the student's next command: step 1's Pending is a moment.
    expect(labSheet("Immediate/standard").steps[0].check[0]).toMatchObject({ expect: "Pending", afterwards: "Bound" });
    expect(labSheet("WaitForFirstConsumer/standard").steps[0].check[0]).toEqual({
      command: `kubectl get pvc data -o jsonpath='{.status.phase}{"\\n"}'`,
      expect: "Pending",
    });
  });

  it("offers Podman's command wherever it offers Docker's", () => {
    for (const sheet of every) {
      for (const command of [...sheet.setup, ...sheet.steps.flatMap((s) => s.run), ...sheet.cleanup]) {
        if (command.run.startsWith("docker ")) expect(command.or?.run).toBe(command.run.replace(/^docker /, "podman "));
      }
    }
    expect(text(labSheet("Local/standard"))).toContain(
      "docker exec pv-lab-control-plane mkdir -p /mnt/disks/ssd1\n# With Podman instead of Docker:\n# podman exec pv-lab-control-plane mkdir -p /mnt/disks/ssd1",
    );
  });

  it("renders every part as Markdown for the download, named by its release", () => {
    const sheet = labSheet("Local/standard", "1.32");
    const md = labSheetMarkdown(sheet);
    expect(labSheetFileName(sheet)).toBe("lab-local-k8s-1.32.md");
    expect(md).toMatch(/^# Lab: Local PVs\n\nKubernetes 1\.32 or older\n/);
    expect(md).toContain("## Reproducible on a laptop: yes");
    expect(md).toContain("`local-pv.yaml`");
    expect(md).toContain("### Step 9: 12 MOUNT");
    expect(md).toContain("Normal  Created  Pod/app  Created container app");
    expect(md).toContain("Typed after the step has passed, it prints: pv-lab-control-plane");
    expect(md).toContain("kubectl get pod -o wide -w");
    expect(md).toContain("on a kind v0.31.0 cluster of Kubernetes v1.32.11.");
  });
});
