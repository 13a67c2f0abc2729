import { stringAt } from "../guards";
import { PVC_NAME, SCENARIO_CASTS, type ScenarioId } from "./kubeCluster";
import { LAB_DRIVER } from "./lab";
import type { PastedEvent } from "./clusterCheckTypes";

/**
 * "Check my cluster": which provisioner answered the claim. When it is not
 * the lab's class (kind's default class took the claim), the events differ
 * from the lesson's, and the student is told why and how to start again.
 */

/** The provisioner the paste names, when it is not the lab's CSI driver. */
export interface ForeignProvisioner {
  name: string;
  /** Known not to be a CSI driver: no VolumeAttachment, no attach step. */
  notCsi: boolean;
  advice: string;
}

/**
 * Dynamic provisioners that are not CSI drivers: they create a directory and a
 * local or hostPath PV, so nothing attaches. rancher.io/local-path is kind's
 * default class "standard" (local-path-provisioner main.go
 * DefaultProvisionerName); the other two are minikube's and Docker Desktop's.
 */
const NOT_CSI = ["rancher.io/local-path", "k8s.io/minikube-hostpath", "docker.io/hostpath"];

/** The PV controller's ExternalProvisioning message names the provisioner: 'x' since v1.30, "x" before. */
const PROVISIONER_IN_MESSAGE = /external provisioner ['"]([^'"]+)['"]/;

export function foreignProvisioner(events: PastedEvent[], id: ScenarioId): ForeignProvisioner | null {
  let name: string | null = null;
  for (const e of events) {
    name = PROVISIONER_IN_MESSAGE.exec(e.message)?.[1] ?? NOT_CSI.find((p) => e.from.startsWith(`${p}_`)) ?? null;
    if (name) break;
  }
  if (!name || name === LAB_DRIVER) return null;
  const labClass = stringAt(SCENARIO_CASTS[id].storageClass, "metadata", "name");
  const notCsi = NOT_CSI.includes(name);
  const standard = name === "rancher.io/local-path" ? "kind's default class “standard”, " : "";
  return {
    name,
    notCsi,
    advice: `Your claim was provisioned by ${standard}${name}, not by the lab's class “${labClass}”${
      SCENARIO_CASTS[id].storageClass.provisioner === "kubernetes.io/no-provisioner" ? "" : ` (CSI driver ${LAB_DRIVER})`
    }.${
      notCsi
        ? " It is not a CSI driver: it makes a directory on the node and a local PV, so there is no VolumeAttachment and no SuccessfulAttachVolume."
        : ""
    } The claim got that class because storageClassName was empty or the lab's class did not exist yet: delete the Pod and the PVC, apply storageclass.yaml, then the PVC and the Pod again (kubectl get pvc ${PVC_NAME} -o jsonpath='{.spec.storageClassName}' must print ${labClass}).`,
  };
}
