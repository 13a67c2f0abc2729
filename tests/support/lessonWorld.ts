import { getScenario, worldAt, type World, type Scenario } from "../../lib/lesson";

/** Shared by the lesson model's tests (lib/lesson/world*.test.ts): LESSON.md's literals, and the scenarios by name. */

// Expected values are literals copied from LESSON.md (sections 1, 2, 4, 6, 8), never imported from the model.
const DRIVER = "disk.csi.example.com";
export const PV = "pvc-3f1c0a52-0000-0000-0000-000000000000";
export const UID = "3f1c0a52-0000-0000-0000-000000000000";
export const LOCAL_PV = "local-pv-node-b1-ssd1";

export const SELECTED = { "volume.kubernetes.io/selected-node": "node-b1" };
export const PROVISIONER = {
  "volume.kubernetes.io/storage-provisioner": DRIVER,
  "volume.beta.kubernetes.io/storage-provisioner": DRIVER,
};
export const BOUND = { "pv.kubernetes.io/bind-completed": "yes", "pv.kubernetes.io/bound-by-controller": "yes" };
export const DYNAMIC_PV_ANNOTATIONS = {
  "pv.kubernetes.io/provisioned-by": DRIVER,
  "volume.kubernetes.io/provisioner-deletion-secret-name": "",
  "volume.kubernetes.io/provisioner-deletion-secret-namespace": "",
};
// LESSON.md section 6, "Version note": the order a real PV lists them.
export const DYNAMIC_FINALIZERS = ["external-provisioner.volume.kubernetes.io/finalizer", "kubernetes.io/pv-protection"];
export const ATTACHED_FINALIZERS = [...DYNAMIC_FINALIZERS, "external-attacher/disk-csi-example-com"];

/** An object of the model's World, read field by field. */
export type Obj = Record<string, any>;

export const wffc = getScenario("WaitForFirstConsumer", "standard");
export const immediate = getScenario("Immediate", "standard");
export const conflict = getScenario("Immediate", "zone-conflict");
export const local = getScenario("Local", "standard");
export const noLocal = getScenario("Local", "no-local-pv");

export const last = (s: Scenario): World => worldAt(s, s.steps.length - 1);
export const at = (s: Scenario, label: number): World =>
  worldAt(
    s,
    s.steps.findIndex((x) => x.label === label),
  );
