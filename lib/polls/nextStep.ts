import { getScenario, mapPosition } from "../lesson";
import type { BindingMode, Scenario, ScenarioStep } from "../lesson/types";

/**
 * "What happens next?" polls, generated from the lesson model: the true next
 * step plus three wrong options that stand for real misconceptions: a step
 * that happens later, what would happen next in the other binding mode, a
 * step this mode never has, or one already done. The server shuffles them.
 */

export interface GeneratedOption {
  text: string;
  note: string;
  correct: boolean;
}

export interface GeneratedPoll {
  question: string;
  options: GeneratedOption[];
  /** The card label of the right answer. */
  answerLabel: number;
}

export const OPTION_COUNT = 4;

/** What each card step does, in a few words, for option texts. */
const SHORT: Record<number, string> = {
  1: "you create the PVC",
  2: "you create the Pod",
  3: "the scheduler notices the new Pod",
  4: "the scheduler picks a node",
  5: "the scheduler records the chosen node on the PVC",
  6: "the CSI provisioner starts provisioning",
  7: "the driver creates the disk",
  8: "the provisioner creates the PV",
  9: "the PVC and PV are bound",
  10: "the Pod is bound to its node",
  11: "the kubelet picks up the Pod",
  12: "the volume is attached and mounted",
};

const TITLES: Record<number, string> = {
  1: "CREATE PVC",
  2: "CREATE POD",
  3: "NEW POD",
  4: "PICK NODE",
  5: "NODE CHOSEN",
  6: "PROVISION",
  7: "CREATE DISK",
  8: "CREATE PV",
  9: "BIND PVC+PV",
  10: "BIND POD",
  11: "RUN POD",
  12: "MOUNT",
};

/** The mode a class most often confuses this one with. */
const CONTRAST: Record<BindingMode, BindingMode> = {
  WaitForFirstConsumer: "Immediate",
  Immediate: "WaitForFirstConsumer",
  Local: "WaitForFirstConsumer",
};

function optionText(step: ScenarioStep, scenario: Scenario): string {
  if (step.failed) return `${step.title}: it fails, and the Pod stays Pending`;
  if (step.noop) return `${step.title}: nothing to record, the PVC is already bound`;
  if (scenario.mode === "Local" && step.label === 5) return `${step.title}: the scheduler claims a local PV for the PVC`;
  return `${step.title}: ${SHORT[step.label] ?? step.narration}`;
}

function labelText(label: number): string {
  return `${TITLES[label]}: ${SHORT[label]}`;
}

export function generateNextStepPoll(scenario: Scenario, index: number): GeneratedPoll | null {
  const current = scenario.steps[index];
  const answer = scenario.steps[index + 1];
  if (!current || !answer) return null;

  const options: GeneratedOption[] = [
    { text: optionText(answer, scenario), note: `Right: ${answer.narration}`, correct: true },
  ];
  const used = new Set<number>([answer.label]);
  const add = (label: number, text: string, note: string) => {
    if (options.length >= OPTION_COUNT || used.has(label)) return;
    used.add(label);
    options.push({ text, note, correct: false });
  };

  // 1. What the contrasting mode would do next from the same moment.
  const otherMode = CONTRAST[scenario.mode];
  const other = getScenario(otherMode, "standard");
  const mapped = mapPosition(scenario, index, other);
  if (mapped.matched) {
    const otherNext = other.steps[mapped.index + 1];
    if (otherNext && !otherNext.noop && !used.has(otherNext.label)) {
      add(
        otherNext.label,
        scenario.steps.some((s) => s.label === otherNext.label)
          ? optionText(scenario.steps.find((s) => s.label === otherNext.label)!, scenario)
          : labelText(otherNext.label),
        contrastNote(scenario.mode, otherMode, otherNext, answer),
      );
    }
  }

  // 2. A step this mode never has (Local provisions nothing).
  for (const label of [7, 6, 8]) {
    if (!scenario.steps.some((s) => s.label === label) && scenario.mode === "Local") {
      add(label, labelText(label), `Local PVs are never provisioned: with kubernetes.io/no-provisioner there is no ${TITLES[label]} step. The scheduler picks a pre-created PV on the chosen node instead.`);
      break;
    }
  }

  // 3. Later steps of this scenario: right event, wrong time.
  for (const later of scenario.steps.slice(index + 2)) {
    add(later.label, optionText(later, scenario), `Not yet: ${later.title} comes later. First ${answer.title.toLowerCase()} has to happen.`);
  }

  // 4. Steps already done (not the one just shown), for the end of a track.
  for (const earlier of [...scenario.steps.slice(0, index)].reverse()) {
    add(earlier.label, optionText(earlier, scenario), `Already done: ${earlier.title} happened earlier in this sequence.`);
  }

  // 5. Short tracks (a failing scenario): card steps this track never reaches.
  used.add(current.label);
  const failsLater = scenario.steps.some((s) => s.failed);
  for (let label = 12; label >= 1 && options.length < OPTION_COUNT; label--) {
    if (scenario.steps.some((s) => s.label === label)) continue;
    add(
      label,
      labelText(label),
      failsLater
        ? `It never gets that far: scheduling fails first, so ${TITLES[label]} does not happen in this scenario.`
        : `${TITLES[label]} does not happen in this scenario.`,
    );
  }

  return { question: `What happens next, after ${current.title}?`, options, answerLabel: answer.label };
}

function contrastNote(mode: BindingMode, otherMode: BindingMode, otherNext: ScenarioStep, answer: ScenarioStep): string {
  if (mode === "WaitForFirstConsumer" && otherNext.label === 6) {
    return "\"The disk is created as soon as the PVC exists\": true in Immediate, not here. With WaitForFirstConsumer nothing is provisioned until the scheduler has picked a node for a Pod.";
  }
  if (mode === "Local" && [6, 7, 8].includes(otherNext.label)) {
    return `That is what a CSI provisioner does next in WaitForFirstConsumer. Local PVs are never provisioned: with kubernetes.io/no-provisioner the scheduler claims a pre-created PV on the chosen node, so there is no ${otherNext.title} step.`;
  }
  if (mode === "Immediate" && otherNext.label === 2) {
    return "That is WaitForFirstConsumer's order. In Immediate the PV controller starts provisioning as soon as the PVC exists, before any Pod.";
  }
  return `That is what happens next in ${otherMode}. Here ${answer.title} comes first.`;
}
