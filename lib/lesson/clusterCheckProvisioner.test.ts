import { describe, expect, it } from "vitest";
import { checkCluster } from "./clusterCheck";
import { ok, paste } from "../../tests/support/clusterCheckPastes";

// "Check my cluster" names the provisioner that answered when it is not the lab's, and why events are missing then.

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
