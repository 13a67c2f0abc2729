import { describe, expect, it } from "vitest";
import { getScenario, worldAt, initialWorld, type Scenario } from "./index";
import {
  DYNAMIC_FINALIZERS,
  DYNAMIC_PV_ANNOTATIONS,
  PV,
  LOCAL_PV,
  SELECTED,
  PROVISIONER,
  BOUND,
  ATTACHED_FINALIZERS,
  type Obj,
} from "../../tests/support/lessonWorld";

// The lesson's object state, row by row: each scenario's PVC, PV, Pod, attachment, disk and new events after every
// step, as LESSON.md's tables give them. Details of single objects are in worldDetails.test.ts, events in
// worldEvents.test.ts, worldAt's contract in worldContract.test.ts.

/** What each row pins, read off a World. */
interface Snap {
  label: number;
  pvc: null | { phase: string; annotations: Record<string, string>; volumeName: string | null };
  pv: null | {
    name: string;
    phase: string;
    annotations: Record<string, string>;
    claimRef: boolean;
    affinity: string;
    finalizers: string[];
  };
  pod: null | { nodeName: string | null; phase: string; scheduled: string | null };
  va: boolean;
  disk: string | null;
  /** Reasons of the events this step added. */
  newEvents: string[];
}

function snap(scenario: Scenario, index: number): Snap {
  const w = worldAt(scenario, index);
  const before = index === 0 ? initialWorld(scenario) : worldAt(scenario, index - 1);
  const pvc = w.pvc as Obj | null;
  const pv = w.pv as Obj | null;
  const pod = w.pod as Obj | null;
  const expr = pv?.spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0];
  return {
    label: scenario.steps[index].label,
    pvc: pvc && {
      phase: pvc.status.phase,
      annotations: pvc.metadata.annotations ?? {},
      volumeName: pvc.spec.volumeName ?? null,
    },
    pv: pv && {
      name: pv.metadata.name,
      phase: pv.status.phase,
      annotations: pv.metadata.annotations ?? {},
      claimRef: pv.spec.claimRef !== undefined,
      affinity: `${expr.key} ${expr.operator} ${expr.values.join(",")}`,
      finalizers: pv.metadata.finalizers,
    },
    pod: pod && {
      nodeName: pod.spec.nodeName ?? null,
      phase: pod.status.phase,
      scheduled: pod.status.conditions?.find((c: Obj) => c.type === "PodScheduled")?.status ?? null,
    },
    va: w.volumeAttachment !== null,
    disk: w.disk ? `${w.disk.id}@${w.disk.zone}` : null,
    newEvents: w.events.slice(before.events.length).map((e) => e.reason),
  };
}

const ZONE_B = "topology.kubernetes.io/zone In zone-b";
const ZONE_A = "topology.kubernetes.io/zone In zone-a";
const HOST_B1 = "kubernetes.io/hostname In node-b1";

const pvcPending = (annotations: Record<string, string>) => ({ phase: "Pending", annotations, volumeName: null });
const dynPv = (phase: string, affinity: string, finalizers = DYNAMIC_FINALIZERS) => ({
  name: PV,
  phase,
  annotations: DYNAMIC_PV_ANNOTATIONS,
  claimRef: true,
  affinity,
  finalizers,
});
const pod = (nodeName: string | null, phase = "Pending", scheduled: string | null = null) => ({ nodeName, phase, scheduled });

const WFFC: Snap[] = [
  { label: 1, pvc: pvcPending({}), pv: null, pod: null, va: false, disk: null, newEvents: ["WaitForFirstConsumer"] },
  { label: 2, pvc: pvcPending({}), pv: null, pod: pod(null), va: false, disk: null, newEvents: [] },
  { label: 3, pvc: pvcPending({}), pv: null, pod: pod(null), va: false, disk: null, newEvents: [] },
  { label: 4, pvc: pvcPending({}), pv: null, pod: pod(null), va: false, disk: null, newEvents: [] },
  { label: 5, pvc: pvcPending(SELECTED), pv: null, pod: pod(null), va: false, disk: null, newEvents: [] },
  {
    label: 6,
    pvc: pvcPending({ ...SELECTED, ...PROVISIONER }),
    pv: null,
    pod: pod(null),
    va: false,
    disk: null,
    newEvents: ["ExternalProvisioning", "Provisioning"],
  },
  {
    label: 7,
    pvc: pvcPending({ ...SELECTED, ...PROVISIONER }),
    pv: null,
    pod: pod(null),
    va: false,
    disk: "vol-0abc123@zone-b",
    newEvents: [],
  },
  {
    label: 8,
    pvc: pvcPending({ ...SELECTED, ...PROVISIONER }),
    pv: dynPv("Pending", ZONE_B),
    pod: pod(null),
    va: false,
    disk: "vol-0abc123@zone-b",
    newEvents: ["ProvisioningSucceeded"],
  },
  {
    label: 9,
    pvc: { phase: "Bound", annotations: { ...BOUND, ...SELECTED, ...PROVISIONER }, volumeName: PV },
    pv: dynPv("Bound", ZONE_B),
    pod: pod(null),
    va: false,
    disk: "vol-0abc123@zone-b",
    newEvents: [],
  },
  {
    label: 10,
    pvc: { phase: "Bound", annotations: { ...BOUND, ...SELECTED, ...PROVISIONER }, volumeName: PV },
    pv: dynPv("Bound", ZONE_B),
    pod: pod("node-b1", "Pending", "True"),
    va: false,
    disk: "vol-0abc123@zone-b",
    newEvents: ["Scheduled"],
  },
  {
    label: 11,
    pvc: { phase: "Bound", annotations: { ...BOUND, ...SELECTED, ...PROVISIONER }, volumeName: PV },
    pv: dynPv("Bound", ZONE_B),
    pod: pod("node-b1", "Pending", "True"),
    va: false,
    disk: "vol-0abc123@zone-b",
    newEvents: [],
  },
  {
    label: 12,
    pvc: { phase: "Bound", annotations: { ...BOUND, ...SELECTED, ...PROVISIONER }, volumeName: PV },
    pv: dynPv("Bound", ZONE_B, ATTACHED_FINALIZERS),
    pod: pod("node-b1", "Running", "True"),
    va: true,
    disk: "vol-0abc123@zone-b",
    newEvents: ["SuccessfulAttachVolume", "Pulling", "Pulled", "Created", "Started"],
  },
];

const IMMEDIATE_HEAD: Snap[] = [
  { label: 1, pvc: pvcPending(PROVISIONER), pv: null, pod: null, va: false, disk: null, newEvents: ["ExternalProvisioning"] },
  { label: 6, pvc: pvcPending(PROVISIONER), pv: null, pod: null, va: false, disk: null, newEvents: ["Provisioning"] },
  { label: 7, pvc: pvcPending(PROVISIONER), pv: null, pod: null, va: false, disk: "vol-0abc123@zone-a", newEvents: [] },
  {
    label: 8,
    pvc: pvcPending(PROVISIONER),
    pv: dynPv("Pending", ZONE_A),
    pod: null,
    va: false,
    disk: "vol-0abc123@zone-a",
    newEvents: ["ProvisioningSucceeded"],
  },
  {
    label: 9,
    pvc: { phase: "Bound", annotations: { ...BOUND, ...PROVISIONER }, volumeName: PV },
    pv: dynPv("Bound", ZONE_A),
    pod: null,
    va: false,
    disk: "vol-0abc123@zone-a",
    newEvents: [],
  },
  {
    label: 2,
    pvc: { phase: "Bound", annotations: { ...BOUND, ...PROVISIONER }, volumeName: PV },
    pv: dynPv("Bound", ZONE_A),
    pod: pod(null),
    va: false,
    disk: "vol-0abc123@zone-a",
    newEvents: [],
  },
  {
    label: 3,
    pvc: { phase: "Bound", annotations: { ...BOUND, ...PROVISIONER }, volumeName: PV },
    pv: dynPv("Bound", ZONE_A),
    pod: pod(null),
    va: false,
    disk: "vol-0abc123@zone-a",
    newEvents: [],
  },
];

const boundImmediate = { phase: "Bound", annotations: { ...BOUND, ...PROVISIONER }, volumeName: PV };

const IMMEDIATE: Snap[] = [
  ...IMMEDIATE_HEAD,
  { label: 4, pvc: boundImmediate, pv: dynPv("Bound", ZONE_A), pod: pod(null), va: false, disk: "vol-0abc123@zone-a", newEvents: [] },
  { label: 5, pvc: boundImmediate, pv: dynPv("Bound", ZONE_A), pod: pod(null), va: false, disk: "vol-0abc123@zone-a", newEvents: [] },
  {
    label: 10,
    pvc: boundImmediate,
    pv: dynPv("Bound", ZONE_A),
    pod: pod("node-a", "Pending", "True"),
    va: false,
    disk: "vol-0abc123@zone-a",
    newEvents: ["Scheduled"],
  },
  {
    label: 11,
    pvc: boundImmediate,
    pv: dynPv("Bound", ZONE_A),
    pod: pod("node-a", "Pending", "True"),
    va: false,
    disk: "vol-0abc123@zone-a",
    newEvents: [],
  },
  {
    label: 12,
    pvc: boundImmediate,
    pv: dynPv("Bound", ZONE_A, ATTACHED_FINALIZERS),
    pod: pod("node-a", "Running", "True"),
    va: true,
    disk: "vol-0abc123@zone-a",
    newEvents: ["SuccessfulAttachVolume", "Pulling", "Pulled", "Created", "Started"],
  },
];

const ZONE_CONFLICT: Snap[] = [
  ...IMMEDIATE_HEAD,
  {
    label: 4,
    pvc: boundImmediate,
    pv: dynPv("Bound", ZONE_A),
    pod: pod(null, "Pending", "False"),
    va: false,
    disk: "vol-0abc123@zone-a",
    newEvents: ["FailedScheduling"],
  },
];

const localPv = (phase: string, claimed: boolean): Snap["pv"] => ({
  name: LOCAL_PV,
  phase,
  annotations: claimed ? { "pv.kubernetes.io/bound-by-controller": "yes" } : ({} as Record<string, string>),
  claimRef: claimed,
  affinity: HOST_B1,
  finalizers: ["kubernetes.io/pv-protection"],
});
const LOCAL_DISK = "/mnt/disks/ssd1@zone-b";
const boundLocal = { phase: "Bound", annotations: BOUND, volumeName: LOCAL_PV };

const LOCAL: Snap[] = [
  {
    label: 1,
    pvc: pvcPending({}),
    pv: localPv("Available", false),
    pod: null,
    va: false,
    disk: LOCAL_DISK,
    newEvents: ["WaitForFirstConsumer"],
  },
  { label: 2, pvc: pvcPending({}), pv: localPv("Available", false), pod: pod(null), va: false, disk: LOCAL_DISK, newEvents: [] },
  { label: 3, pvc: pvcPending({}), pv: localPv("Available", false), pod: pod(null), va: false, disk: LOCAL_DISK, newEvents: [] },
  { label: 4, pvc: pvcPending({}), pv: localPv("Available", false), pod: pod(null), va: false, disk: LOCAL_DISK, newEvents: [] },
  { label: 5, pvc: pvcPending({}), pv: localPv("Available", true), pod: pod(null), va: false, disk: LOCAL_DISK, newEvents: [] },
  { label: 9, pvc: boundLocal, pv: localPv("Bound", true), pod: pod(null), va: false, disk: LOCAL_DISK, newEvents: [] },
  {
    label: 10,
    pvc: boundLocal,
    pv: localPv("Bound", true),
    pod: pod("node-b1", "Pending", "True"),
    va: false,
    disk: LOCAL_DISK,
    newEvents: ["Scheduled"],
  },
  {
    label: 11,
    pvc: boundLocal,
    pv: localPv("Bound", true),
    pod: pod("node-b1", "Pending", "True"),
    va: false,
    disk: LOCAL_DISK,
    newEvents: [],
  },
  {
    label: 12,
    pvc: boundLocal,
    pv: localPv("Bound", true),
    pod: pod("node-b1", "Running", "True"),
    va: false,
    disk: LOCAL_DISK,
    newEvents: ["Pulling", "Pulled", "Created", "Started"],
  },
];

const NO_LOCAL_PV: Snap[] = [
  { label: 1, pvc: pvcPending({}), pv: null, pod: null, va: false, disk: null, newEvents: ["WaitForFirstConsumer"] },
  { label: 2, pvc: pvcPending({}), pv: null, pod: pod(null), va: false, disk: null, newEvents: [] },
  { label: 3, pvc: pvcPending({}), pv: null, pod: pod(null), va: false, disk: null, newEvents: [] },
  {
    label: 4,
    pvc: pvcPending({}),
    pv: null,
    pod: pod(null, "Pending", "False"),
    va: false,
    disk: null,
    newEvents: ["FailedScheduling", "WaitForPodScheduled"],
  },
];

const TABLES: [string, Scenario, Snap[]][] = [
  ["WaitForFirstConsumer/standard", getScenario("WaitForFirstConsumer", "standard"), WFFC],
  ["Immediate/standard", getScenario("Immediate", "standard"), IMMEDIATE],
  ["Immediate/zone-conflict", getScenario("Immediate", "zone-conflict"), ZONE_CONFLICT],
  ["Local/standard", getScenario("Local", "standard"), LOCAL],
  ["Local/no-local-pv", getScenario("Local", "no-local-pv"), NO_LOCAL_PV],
];

describe("worldAt: object state at every step of every scenario", () => {
  for (const [id, scenario, table] of TABLES) {
    it(`${id} has one expected row per step`, () => {
      expect(table.map((r) => r.label)).toEqual(scenario.steps.map((s) => s.label));
    });
    table.forEach((row, index) => {
      it(`${id} after step ${row.label} (position ${index})`, () => {
        expect(snap(scenario, index)).toEqual(row);
      });
    });
  }
});
