import { describe, expect, it } from "vitest";
import { checkCluster } from "./clusterCheck";
import { fixture, ok, paste, placed } from "../../tests/support/clusterCheckPastes";

// "Check my cluster" tells which Kubernetes release wrote the events, from the strings that changed between releases.

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
