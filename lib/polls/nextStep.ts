import { BINDING_MODES, VARIANTS_BY_MODE, getScenario, mapPosition, scenarioId, type ScenarioId } from "../lesson";
import type { BindingMode, Scenario, ScenarioStep } from "../lesson/types";

/**
 * "What happens next?" polls, generated from the lesson model: the true next
 * step plus three wrong options. Each wrong option stands for one named
 * misconception, and its note says which one, in words written for that
 * scenario and step:
 *
 *   already  - it happened at step N, and this is what it left behind;
 *   never    - it does not happen in this scenario, and why;
 *   later    - it happens, but something else must come first, and why;
 *   other-mode - it is what another binding mode does at this moment.
 *
 * The notes are tables keyed by scenario and card label, not one template
 * with the title pasted in: a template cannot tell "already happened" from
 * "later", which is how the old notes came to call a finished step "later".
 * The server shuffles the options.
 */

export const MISCONCEPTIONS = ["already", "never", "later", "other-mode"] as const;
export type Misconception = (typeof MISCONCEPTIONS)[number];

export interface GeneratedOption {
  text: string;
  note: string;
  correct: boolean;
  /** For a wrong option, the misconception it stands for; absent on the right answer. */
  misconception?: Misconception;
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

type Notes = Partial<Record<number, string>>;

// ---------------------------------------------------------------------------
// "Already happened": what each step left behind, per scenario.
// ---------------------------------------------------------------------------

const WFFC_LEFT: Notes = {
  1: "It left the PVC in Pending with a WaitForFirstConsumer event, and nothing provisioned.",
  2: "It left a Pod with an empty spec.nodeName, waiting for the scheduler.",
  3: "It left the Pod in the scheduler's queue, its claim classified as unbound with delayed binding.",
  4: "It left node-b1 chosen, but only in the scheduler's in-memory assume cache.",
  5: "It left volume.kubernetes.io/selected-node: node-b1 on the PVC.",
  6: "It left the storage-provisioner annotations on the PVC and the ExternalProvisioning and Provisioning events.",
  7: "It left the disk vol-0abc123 in zone-b, where node-b1 can reach it.",
  8: "It left a new PV, pvc-3f1c0a52-…, whose claimRef already points at the PVC; it was Pending only until the PV controller bound the two (BIND PVC+PV).",
  9: "It left the PVC and the PV both Bound.",
  10: "It left the Pod with spec.nodeName: node-b1 and a Scheduled event.",
  11: "It left the Pod in ContainerCreating on node-b1, waiting for its volume.",
};

const IMMEDIATE_LEFT: Notes = {
  1: "It left the PVC with both storage-provisioner annotations and an ExternalProvisioning event, written at once, with no selected-node.",
  6: "It left a Provisioning event: the provisioner took the claim with no node to guide it.",
  7: "It left the disk vol-0abc123 in zone-a, placed without knowing any Pod.",
  8: "It left the PV pvc-3f1c0a52-… with nodeAffinity topology.kubernetes.io/zone In [zone-a].",
  9: "It left the PVC and the PV Bound before any Pod existed.",
  2: "It left a Pod with no node yet, whose claim was already bound.",
  3: "It left the Pod in the scheduler's queue with an already bound claim: only the PV's zone-a affinity constrains it.",
  4: "It left node-a chosen: the only node the zone-a PV allows.",
  5: "It left nothing: PreBind had nothing to write and nothing to wait for, the claim being bound already.",
  10: "It left the Pod with spec.nodeName: node-a and a Scheduled event.",
  11: "It left the Pod in ContainerCreating on node-a, waiting for its volume.",
};

const ZONE_CONFLICT_LEFT: Notes = {
  ...IMMEDIATE_LEFT,
  2: "It left a Pod restricted to zone-b by its nodeSelector, whose claim was already bound to the zone-a PV.",
};

const LOCAL_LEFT: Notes = {
  1: "It left the PVC in Pending with a WaitForFirstConsumer event and no storage-provisioner annotation: nothing will be provisioned.",
  2: "It left a Pod with an empty spec.nodeName, waiting for the scheduler.",
  3: "It left the Pod in the scheduler's queue; for each node the scheduler will look for a matching hand-made PV.",
  4: "It left local-pv-node-b1-ssd1 reserved for the claim, in the scheduler's assume cache only.",
  5: "It left spec.claimRef and pv.kubernetes.io/bound-by-controller on local-pv-node-b1-ssd1, and no selected-node on the PVC.",
  9: "It left the PVC Bound to local-pv-node-b1-ssd1, reporting the PV's 100Gi.",
  10: "It left the Pod with spec.nodeName: node-b1, the node that holds the local directory /mnt/disks/ssd1.",
  11: "It left the Pod in ContainerCreating on node-b1; there was nothing to attach.",
};

const NO_LOCAL_PV_LEFT: Notes = {
  1: LOCAL_LEFT[1],
  2: LOCAL_LEFT[2],
  3: "It left the Pod in the scheduler's queue, about to look for a matching local PV on every node, and there is none.",
};

// ---------------------------------------------------------------------------
// "Later": what must come first, and why.
// ---------------------------------------------------------------------------

const WFFC_NEEDS: Notes = {
  2: "You create the Pod after the PVC in this lesson; with WaitForFirstConsumer the PVC waits for it either way.",
  3: "The Pod has to exist first (CREATE POD): the scheduler only ever notices Pods.",
  4: "The scheduler has to notice the Pod first (NEW POD): it only picks nodes for Pods in its queue.",
  5: "The scheduler has to pick a node first (PICK NODE): NODE CHOSEN is where it writes that choice onto the PVC.",
  6: "The PVC must carry selected-node first (NODE CHOSEN): with WaitForFirstConsumer the provisioner ignores a claim without it.",
  7: "The provisioner has to take the claim first (PROVISION): it puts the selected node's zone first among the request's preferred topologies (without --strict-topology other zones stay allowed), and the driver creates the disk there.",
  8: "The disk has to exist first (CREATE DISK): the PV records its volumeHandle and the zone CreateVolume returned.",
  9: "There has to be a PV to bind to first (CREATE PV).",
  10: "The scheduler's PreBind holds the Pod until the PVC is fully bound (BIND PVC+PV); only then does the Pod get its node.",
  11: "The kubelet only sees Pods whose spec.nodeName is its node, and that is set by the binding (BIND POD).",
  12: "Attach needs the Pod's node: the attach/detach controller attaches once the binding (BIND POD) sets spec.nodeName, alongside the kubelet picking the Pod up (RUN POD), and the kubelet mounts only an attached disk.",
};

const IMMEDIATE_NEEDS: Notes = {
  2: 'In this lesson you create the Pod once the volume is bound (BIND PVC+PV). Immediate does not wait for a Pod; a Pod applied earlier would wait in the scheduler with "pod has unbound immediate PersistentVolumeClaims" until the bind.',
  3: "The Pod has to exist first (CREATE POD), and here you create it only after the volume is bound.",
  4: "The scheduler has to notice the Pod first (NEW POD), before it can check nodes against the bound PV.",
  5: "A node has to be picked first (PICK NODE); NODE CHOSEN is PreBind's moment after that, and here it writes nothing.",
  7: "The provisioner has to take the claim first (PROVISION); in Immediate it does so with no node to aim for, which is why the zone is a guess.",
  8: "The disk has to exist first (CREATE DISK): the PV records its volumeHandle and its zone-a topology.",
  9: "There has to be a PV to bind first (CREATE PV).",
  10: "PreBind has to run first (NODE CHOSEN); with the claim already bound it returns at once, and only then does the binder set spec.nodeName: node-a.",
  11: "The Pod needs spec.nodeName first: the kubelet on node-a only sees it after the binding (BIND POD).",
  12: "The attach/detach controller needs the Pod's node first: it attaches once the binding (BIND POD) sets spec.nodeName: node-a, alongside the kubelet picking the Pod up (RUN POD), which mounts the disk only once it is attached.",
};

const ZONE_CONFLICT_NEEDS: Notes = {
  ...IMMEDIATE_NEEDS,
  4: "The scheduler has to notice the Pod first (NEW POD); only then does it try the nodes, and here every one of them will fail.",
};

const LOCAL_NEEDS: Notes = {
  3: "The Pod has to exist first (CREATE POD): the scheduler only ever notices Pods.",
  4: "The scheduler has to notice the Pod first (NEW POD) before it looks for a hand-made PV on each node.",
  5: "The scheduler has to find a node with a matching local PV first (PICK NODE): NODE CHOSEN is where it writes that PV's claimRef.",
  9: "The PV must first carry the claimRef the scheduler writes in PreBind (NODE CHOSEN); only then does the PV controller complete the bind.",
  10: "The scheduler's PreBind holds the Pod until the PVC is bound to the local PV (BIND PVC+PV).",
  11: "The kubelet on node-b1 only sees the Pod once the binding (BIND POD) sets spec.nodeName: node-b1.",
  12: "The kubelet on node-b1 has to have the Pod first (RUN POD) before it can bind-mount /mnt/disks/ssd1 into it.",
};

const NO_LOCAL_PV_NEEDS: Notes = {
  3: LOCAL_NEEDS[3],
  4: "The scheduler has to notice the Pod first (NEW POD) before it looks for a local PV on each node, and here it will find none.",
};

// ---------------------------------------------------------------------------
// "Never": why the step does not happen in this scenario.
// ---------------------------------------------------------------------------

const ZONE_CONFLICT_NEVER: Notes = {
  5: "Scheduling fails at PICK NODE, so there is no chosen node for PreBind to record.",
  10: "No node satisfies both the Pod's zone-b selector and the PV's zone-a affinity, so the Pod is never bound and stays Pending.",
  11: "No kubelet ever gets the Pod: without a spec.nodeName no node's watch delivers it.",
  12: "Nothing is attached or mounted: the Pod never leaves Pending, and a zone-a disk could not be attached to a zone-b node anyway.",
};

const LOCAL_NEVER: Notes = {
  6: "With kubernetes.io/no-provisioner no provisioner watches this class and the PV controller writes no storage-provisioner annotation.",
  7: "No disk is created: the storage is the directory /mnt/disks/ssd1 an administrator prepared on node-b1.",
  8: "The PV was made by hand before the lesson (local-pv-node-b1-ssd1); nothing creates one during it.",
};

const NO_LOCAL_PV_NEVER: Notes = {
  5: "PICK NODE fails on every node, so there is no node to record and no PV to claim.",
  6: "With kubernetes.io/no-provisioner nothing is provisioned, which is exactly why the missing PV cannot be made up for.",
  7: "No disk is created: local storage has to be on a node already, and no node has one that matches.",
  8: "Nobody creates PVs for this class during the lesson; until an administrator adds a matching one, the Pod waits.",
  9: "There is no PV to bind: no hand-made local PV matches the claim, and none can be provisioned.",
  10: "Every node fails VolumeBinding, so the Pod is never bound and stays Pending.",
  11: "No kubelet gets the Pod: it never gets a node.",
  12: "There is nothing to mount: no PV, and no node for the Pod.",
};

// ---------------------------------------------------------------------------
// "Another mode": what the contrasting mode does at this moment, and why not here.
// Keyed by this scenario and the other mode's next label. A contrast without a
// note written for it is not offered.
// ---------------------------------------------------------------------------

const OTHER_MODE: Partial<Record<ScenarioId, Notes>> = {
  "WaitForFirstConsumer/standard": {
    6: "That is Immediate, where the PV controller hands the claim to the provisioner as soon as it exists. Here, with WaitForFirstConsumer, nothing is provisioned until the scheduler has picked a node for a Pod (NODE CHOSEN).",
    10: "That is Immediate, where the claim was bound before the Pod existed, so the scheduler binds the Pod at once. Here PreBind waits until the new disk is provisioned and bound (BIND PVC+PV).",
  },
  "Immediate/standard": {
    2: "That is WaitForFirstConsumer's order, where the PVC waits for a Pod. In Immediate the PV controller starts provisioning as soon as the PVC exists, before any Pod.",
    10: "That is WaitForFirstConsumer, where the Pod already waits in PreBind and the bind releases it. In Immediate no Pod exists yet: you create it next.",
  },
  "Immediate/zone-conflict": {
    2: "That is WaitForFirstConsumer's order, where the PVC waits for a Pod and its zone. In Immediate the PV controller starts provisioning at once, before any Pod, which is how the disk ends up in the wrong zone.",
    10: "That is WaitForFirstConsumer, where the Pod already waits in PreBind. Here no Pod exists yet, and once it does it is never bound: no node fits both its zone-b selector and the zone-a disk.",
  },
  "Local/standard": {
    6: "That is WaitForFirstConsumer with a CSI driver, where selected-node on the PVC sends the provisioner off to make a disk. Here the scheduler claimed a hand-made PV instead, so the PV controller can bind at once.",
  },
};

interface ScenarioNotes {
  left: Notes;
  needs: Notes;
  never: Notes;
}

const NOTES: Record<ScenarioId, ScenarioNotes> = {
  "WaitForFirstConsumer/standard": { left: WFFC_LEFT, needs: WFFC_NEEDS, never: {} },
  "Immediate/standard": { left: IMMEDIATE_LEFT, needs: IMMEDIATE_NEEDS, never: {} },
  "Immediate/zone-conflict": { left: ZONE_CONFLICT_LEFT, needs: ZONE_CONFLICT_NEEDS, never: ZONE_CONFLICT_NEVER },
  "Local/standard": { left: LOCAL_LEFT, needs: LOCAL_NEEDS, never: LOCAL_NEVER },
  "Local/no-local-pv": { left: NO_LOCAL_PV_LEFT, needs: NO_LOCAL_PV_NEEDS, never: NO_LOCAL_PV_NEVER },
};

function notesOf(scenario: Scenario): { id: ScenarioId; notes: ScenarioNotes } {
  const id = scenarioId(scenario.mode, scenario.variant);
  if (!id) throw new Error(`no scenario ${scenario.mode}/${scenario.variant}`);
  return { id, notes: NOTES[id] };
}

function required(text: string | undefined, what: string): string {
  if (!text) throw new Error(`no note written for ${what}`);
  return text;
}

/** "step 6 here (card step 2)" when the track's numbering differs from the card's. */
function whereInTrack(scenario: Scenario, label: number): string {
  const position = scenario.steps.findIndex((s) => s.label === label) + 1;
  return position === label ? `step ${position}` : `step ${position} here (card step ${label})`;
}

function optionText(step: ScenarioStep, scenario: Scenario): string {
  if (step.failed) return `${step.title}: it fails, and the Pod stays Pending`;
  if (step.noop) return `${step.title}: nothing to record, the PVC is already bound`;
  if (scenario.mode === "Local" && step.label === 5) return `${step.title}: the scheduler claims a local PV for the PVC`;
  // The local plugin is not attachable: saying "attached" here would contradict the step's own note.
  if (scenario.mode === "Local" && step.label === 12)
    return `${step.title}: the kubelet bind-mounts the local directory, nothing to attach`;
  return `${step.title}: ${SHORT[step.label] ?? step.narration}`;
}

function labelText(label: number): string {
  return `${TITLES[label]}: ${SHORT[label]}`;
}

/** Which misconception a wrong option stands for, from the track alone. */
export function classify(scenario: Scenario, index: number, label: number): Exclude<Misconception, "other-mode"> {
  const position = scenario.steps.findIndex((s) => s.label === label);
  if (position < 0) return "never";
  return position <= index ? "already" : "later";
}

function noteFor(scenario: Scenario, index: number, label: number): string {
  const { id, notes } = notesOf(scenario);
  const title = TITLES[label];
  switch (classify(scenario, index, label)) {
    case "already":
      return `Already happened: ${title} was ${whereInTrack(scenario, label)}. ${required(notes.left[label], `${id} already ${label}`)}`;
    case "later":
      return `Not yet: ${title} comes later, at ${whereInTrack(scenario, label)}. ${required(notes.needs[label], `${id} later ${label}`)}`;
    case "never":
      return `${title} never happens in this scenario. ${required(notes.never[label], `${id} never ${label}`)}`;
  }
}

export function generateNextStepPoll(scenario: Scenario, index: number): GeneratedPoll | null {
  const current = scenario.steps[index];
  const answer = scenario.steps[index + 1];
  if (!current || !answer) return null;
  const { id } = notesOf(scenario);

  const options: GeneratedOption[] = [{ text: optionText(answer, scenario), note: `Right: ${answer.narration}`, correct: true }];
  // The current step is not offered: "what happens next" never has "this again" as a sensible guess.
  const used = new Set<number>([answer.label, current.label]);
  const textOf = (label: number) => {
    const step = scenario.steps.find((s) => s.label === label);
    return step ? optionText(step, scenario) : labelText(label);
  };
  const add = (label: number, misconception: Misconception, note: string) => {
    if (options.length >= OPTION_COUNT || used.has(label)) return;
    used.add(label);
    options.push({ text: textOf(label), note, correct: false, misconception });
  };

  // 1. What the contrasting mode does next from the same moment, unless that already happened
  //    here (then it is no contrast at all) or there is no note written for it.
  const otherMode = CONTRAST[scenario.mode];
  const other = getScenario(otherMode, "standard");
  const mapped = mapPosition(scenario, index, other);
  const otherNext = mapped.matched ? other.steps[mapped.index + 1] : undefined;
  const contrastNote = otherNext && OTHER_MODE[id]?.[otherNext.label];
  if (otherNext && contrastNote && !otherNext.noop && classify(scenario, index, otherNext.label) !== "already") {
    add(otherNext.label, "other-mode", contrastNote);
  }

  // 2. Local: the provisioning steps it never has, the most common wrong guess for it.
  //    Rotated by step, so the class meets all three across the lesson.
  if (scenario.mode === "Local") {
    const label = [7, 6, 8][index % 3];
    if (!scenario.steps.some((s) => s.label === label)) add(label, "never", noteFor(scenario, index, label));
  }

  // 3. Later steps of this scenario: right event, wrong time.
  for (const later of scenario.steps.slice(index + 2)) add(later.label, "later", noteFor(scenario, index, later.label));

  // 4. Steps already done, most recent first, and 5. card steps a failing track never
  //    reaches. A failing track offers one "already" before its "never"s: "the Pod gets
  //    bound anyway" is the misconception worth asking about there, not a second look back.
  const already = scenario.steps.slice(0, index).reverse();
  // Binding the Pod and the volume are the tempting wrong guesses on a failing track, so they come first.
  const never = [10, 9, 5, 12, 11, 6, 7, 8, 4, 3, 2, 1].filter((label) => !scenario.steps.some((s) => s.label === label));
  const addAlready = (steps: ScenarioStep[]) => steps.forEach((s) => add(s.label, "already", noteFor(scenario, index, s.label)));
  const addNever = () => never.forEach((label) => add(label, "never", noteFor(scenario, index, label)));
  if (scenario.steps.some((s) => s.failed)) {
    addAlready(already.slice(0, 1));
    addNever();
  }
  addAlready(already);
  addNever();

  return { question: `What happens next, after ${current.title}?`, options, answerLabel: answer.label };
}

/** Every poll the lesson can ask, for the distractor review table and its test. */
export function everyNextStepPoll(): { scenario: Scenario; index: number; poll: GeneratedPoll }[] {
  const out: { scenario: Scenario; index: number; poll: GeneratedPoll }[] = [];
  for (const mode of BINDING_MODES) {
    for (const variant of VARIANTS_BY_MODE[mode]) {
      const scenario = getScenario(mode, variant);
      scenario.steps.forEach((_, index) => {
        const poll = generateNextStepPoll(scenario, index);
        if (poll) out.push({ scenario, index, poll });
      });
    }
  }
  return out;
}
