import { POD_NAME, scenarioParts, type ScenarioId } from "./kubeCluster";
import { getScenario } from "./scenarios";
import { worldAt } from "./world";
import { isLabKind, type ExpectedEvent } from "./clusterCheckTypes";
import { VOLUME_REASONS, schedulingReasons, type SchedulingReasonKind } from "./clusterCheckScheduling";

/**
 * "Check my cluster": what the scenario expects, from the same world model
 * as the diagram, so the check and the class's screens never disagree about
 * which event belongs to which step.
 */

export function expectedEvents(id: ScenarioId): ExpectedEvent[] {
  const scenario = getScenario(...scenarioParts(id));
  const out: ExpectedEvent[] = [];
  scenario.steps.forEach((step, index) => {
    const before = index === 0 ? 0 : worldAt(scenario, index - 1).events.length;
    for (const e of worldAt(scenario, index).events.slice(before)) {
      const kind = e.involvedObject.split("/")[0];
      // The lesson's events are about the claim or the Pod; anything else is not one a student can check.
      if (!isLabKind(kind)) continue;
      out.push({
        position: index + 1,
        label: step.label,
        title: step.title,
        objectKind: kind,
        reason: e.reason,
        message: e.message,
        // The kubelet skips the pull when the image is already on the node.
        ...(e.reason === "Pulling" ? { optional: "absent when the image was already on the node" } : {}),
      });
    }
  });
  // The PV controller writes WaitForPodScheduled if it re-syncs the claim while the
  // Pod exists but is not yet scheduled (LESSON.md step 2). Legitimate, but not always seen.
  const createPod = scenario.steps.findIndex((s) => s.label === 2);
  const delayBinding = scenario.mode !== "Immediate";
  if (delayBinding && createPod >= 0 && !out.some((e) => e.reason === "WaitForPodScheduled")) {
    out.push({
      position: createPod + 1,
      label: 2,
      title: scenario.steps[createPod].title,
      objectKind: "PersistentVolumeClaim",
      reason: "WaitForPodScheduled",
      message: `waiting for pod ${POD_NAME} to be scheduled`,
      optional: "written only if the PV controller re-syncs the claim before NODE CHOSEN",
    });
  }
  return out.sort((a, b) => a.position - b.position);
}

/** The volume reasons the scenario's own FailedScheduling gives (none when the Pod is scheduled). */
export function lessonFailure(expected: ExpectedEvent[]): { kinds: Set<SchedulingReasonKind>; text: string } | null {
  const failed = expected.find((x) => x.reason === "FailedScheduling");
  if (!failed) return null;
  const reasons = schedulingReasons(failed.message).filter((r) => VOLUME_REASONS.has(r.kind));
  return { kinds: new Set(reasons.map((r) => r.kind)), text: reasons.map((r) => r.text).join(", ") };
}
