import { POD_NAME, PVC_NAME } from "./kubeCluster";

/**
 * What every part of "Check my cluster" (./clusterCheck) speaks in: one
 * pasted event, the kubectl output it came in, an event a diagram step
 * expects, and the lab's two objects, the only ones whose events are checked.
 */

/** One pasted event, whichever shape it came in. */
export interface PastedEvent {
  objectKind: string;
  objectName: string;
  /** Null when the shape does not say (`kubectl events` without -A, describe). */
  namespace: string | null;
  reason: string;
  type: string;
  message: string;
  /** The component that wrote it (source.component, reportingController, describe's From); "" when not printed. */
  from: string;
  /** How many times it happened (count, series.count, deprecatedCount, or the table's "(x4 over 2m)"). */
  count: number;
  /** First occurrence, ms since the epoch; null when the paste has no usable time (every table). */
  firstSeen: number | null;
  /** Where it was in the paste, to keep ties stable. */
  order: number;
}

/** Which of kubectl's outputs the paste was. */
export type PasteShape = "json" | "table" | "describe";

export interface StepRef {
  position: number;
  label: number;
  title: string;
}

export interface ExpectedEvent extends StepRef {
  objectKind: "PersistentVolumeClaim" | "Pod";
  reason: string;
  /** The lesson's own text for it, as the diagram prints it. */
  message: string;
  /** May be absent on a real run without anything being wrong (see why). */
  optional?: string;
}

/** What reading a paste gives: its events and the shape they came in, or what is wrong with it in words. */
export type ParsedPaste = { ok: true; events: PastedEvent[]; shape: PasteShape } | { ok: false; problem: string };

/** The lab's objects by kind, as its manifests name them. */
export const LAB_OBJECTS = { PersistentVolumeClaim: PVC_NAME, Pod: POD_NAME } as const;
export const isLabKind = (kind: string): kind is keyof typeof LAB_OBJECTS => Object.hasOwn(LAB_OBJECTS, kind);
