import { DYNAMIC_PV_NAME, scenarioCasts, scenarioId, type ScenarioCast } from "./kubeCluster";
import {
  externalProvisioningEvent,
  containerCreatedEvent,
  containerStartedEvent,
  failedSchedulingEvent,
  failedSchedulingMessage,
  imagePulledEvent,
  imagePullingEvent,
  provisioningEvent,
  provisioningSucceededEvent,
  scheduledEvent,
  successfulAttachVolumeEvent,
  waitForFirstConsumerEvent,
  waitForPodScheduledEvent,
} from "./events";
import { scenarioVersion } from "./scenarios";
import type { BindingMode, Scenario, ScenarioStep, World } from "./types";
import type { KubeVersion } from "./versions";
import { render, stepTime, type Facts } from "./worldObjects";

/**
 * The cluster after each step: every object as `kubectl get -o yaml` would
 * print it (LESSON.md section 8 shapes) and the Events `kubectl describe`
 * would list. Worlds are computed once per scenario, deep-frozen, and objects
 * that did not change keep their identity, so renderers can compare by reference.
 */

export { stepTime } from "./worldObjects";

const NO_FACTS: Facts = {
  now: stepTime(0),
  pvPhaseSince: null,
  podScheduledSince: null,
  kubeletSince: null,
  containersSince: null,
  pvc: false,
  selectedNode: null,
  nominatedNode: null,
  storageProvisionerAnnotations: false,
  diskCreated: false,
  dynamicPv: false,
  localPvClaimed: false,
  bound: false,
  pod: false,
  schedulingFailure: null,
  podNode: null,
  kubeletPickedUp: false,
  attached: false,
  containersRunning: false,
  events: [],
};

function impossible(mode: BindingMode, label: number): never {
  throw new Error(`${mode} has no step ${label}`);
}

function chosenNode(cast: ScenarioCast, label: number): string {
  if (!cast.chosenNode) throw new Error(`step ${label} needs a chosen node, but this scenario has none`);
  return cast.chosenNode;
}

/** One step's effect on the cluster (LESSON.md sections 1, 2 and 4), with `version`'s event messages. */
function apply(prev: Facts, step: ScenarioStep, mode: BindingMode, cast: ScenarioCast, version: KubeVersion): Facts {
  const f: Facts = { ...prev, events: [...prev.events] };
  const dynamic = mode !== "Local";
  switch (step.label) {
    case 1: // CREATE PVC
      f.pvc = true;
      if (mode === "Immediate") {
        // Not delay-binding: provisionClaim runs on the first sync (the 5½ hop, moved to step 1).
        f.storageProvisionerAnnotations = true;
        f.events.push(externalProvisioningEvent());
      } else {
        f.events.push(waitForFirstConsumerEvent());
      }
      break;
    case 2: // CREATE POD
      f.pod = true;
      break;
    case 3: // NEW POD: a watch notification, nothing written
      break;
    case 4: // PICK NODE: in memory, unless every node is rejected
      if (step.failed) {
        const verdicts = step.nodeVerdicts ?? cast.nodeVerdicts;
        f.schedulingFailure = failedSchedulingMessage(verdicts, version);
        f.podScheduledSince = f.now;
        f.events.push(failedSchedulingEvent(verdicts, version));
        // The claim is still unbound and delay-binding, so the PV controller's re-sync
        // now finds a Pod waiting for it (Local only: an Immediate claim is already bound).
        if (mode !== "Immediate") f.events.push(waitForPodScheduledEvent());
      }
      break;
    case 5: // NODE CHOSEN
      if (step.noop) break; // Immediate: all volumes bound, PreBind writes nothing
      // PreBind has work to do, so (from 1.35) the scheduler nominates the node first; render() decides by release.
      f.nominatedNode = chosenNode(cast, 5);
      if (mode === "WaitForFirstConsumer") f.selectedNode = chosenNode(cast, 5);
      else if (mode === "Local") f.localPvClaimed = true;
      else impossible(mode, 5);
      break;
    case 6: // PROVISION (WaitForFirstConsumer: preceded by the hidden 5½ hop)
      if (!dynamic) impossible(mode, 6);
      if (mode === "WaitForFirstConsumer") {
        f.storageProvisionerAnnotations = true;
        f.events.push(externalProvisioningEvent());
      }
      f.events.push(provisioningEvent());
      break;
    case 7: // CREATE DISK
      if (!dynamic) impossible(mode, 7);
      f.diskCreated = true;
      break;
    case 8: // CREATE PV
      if (!dynamic) impossible(mode, 8);
      f.dynamicPv = true;
      f.pvPhaseSince = f.now; // created Pending (PrepareForCreate stamps the transition)
      f.events.push(provisioningSucceededEvent(DYNAMIC_PV_NAME));
      break;
    case 9: // BIND PVC+PV: no event
      f.bound = true;
      f.pvPhaseSince = f.now;
      break;
    case 10: // BIND POD
      f.podNode = chosenNode(cast, 10);
      f.nominatedNode = null; // pods/binding clears it (ClearingNominatedNodeNameAfterBinding)
      f.podScheduledSince = f.now;
      f.events.push(scheduledEvent(f.podNode));
      break;
    case 11: // RUN POD: the kubelet picked it up; containers wait for the mount
      f.kubeletPickedUp = true;
      f.kubeletSince = f.now;
      break;
    case 12: // MOUNT
      if (dynamic) {
        f.attached = true;
        f.events.push(successfulAttachVolumeEvent(DYNAMIC_PV_NAME));
      }
      // Only after the mount does the kubelet start containers (LESSON.md section 6, Pulling/Pulled/Created/Started).
      f.events.push(imagePullingEvent(version), imagePulledEvent(version), containerCreatedEvent(version), containerStartedEvent(version));
      f.containersRunning = true;
      f.containersSince = f.now;
      break;
    default:
      throw new Error(`no step ${step.label} on the card`);
  }
  return f;
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Keep the previous world's object when nothing in it changed. */
function isWorldKey(key: string, world: World): key is keyof World {
  return Object.hasOwn(world, key);
}

function share(prev: World | undefined, next: World): World {
  if (!prev) return next;
  const out = { ...next };
  for (const key of Object.keys(next)) {
    if (isWorldKey(key, next) && same(prev[key], next[key])) Object.assign(out, { [key]: prev[key] });
  }
  return out;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as object)) deepFreeze(v);
  }
  return value;
}

function castOf(scenario: Scenario, version: KubeVersion): ScenarioCast {
  const id = scenarioId(scenario.mode, scenario.variant);
  if (!id) throw new Error(`no scenario ${scenario.mode}/${scenario.variant}`);
  return scenarioCasts(version)[id];
}

/** worlds[0] is before step 1; worlds[i + 1] is after scenario.steps[i]. */
function computeWorlds(scenario: Scenario): readonly World[] {
  // The release travels with the scenario (getScenario's third argument).
  const version = scenarioVersion(scenario);
  const cast = castOf(scenario, version);
  let facts = NO_FACTS;
  const worlds: World[] = [share(undefined, render(facts, cast, version))];
  scenario.steps.forEach((step, index) => {
    facts = apply({ ...facts, now: stepTime(index + 1) }, step, scenario.mode, cast, version);
    worlds.push(share(worlds[worlds.length - 1], render(facts, cast, version)));
  });
  return deepFreeze(worlds);
}

// getScenario returns one object per (release, mode, variant), so this cache is hit
// on every render after the first.
const cache = new WeakMap<Scenario, readonly World[]>();

function worldsOf(scenario: Scenario): readonly World[] {
  let worlds = cache.get(scenario);
  if (!worlds) {
    worlds = computeWorlds(scenario);
    cache.set(scenario, worlds);
  }
  return worlds;
}

/**
 * The cluster after the step at 0-based `index` of `scenario.steps`; index -1
 * is the cluster before step 1 (just the StorageClass, and the local PV if
 * any). The result is deep-frozen and shared: do not mutate it.
 */
export function worldAt(scenario: Scenario, index: number): World {
  const worlds = worldsOf(scenario);
  if (!Number.isInteger(index) || index < -1 || index >= scenario.steps.length) {
    throw new RangeError(`step index ${index} is outside 0..${scenario.steps.length - 1}`);
  }
  return worlds[index + 1];
}

/** The cluster before the first step. */
export function initialWorld(scenario: Scenario): World {
  return worldAt(scenario, -1);
}
