import { DRIVER, NAMESPACE, PVC_NAME, POD_NAME } from "./kubeCluster";
import { kubeStrings } from "./kubeStrings";
import type { KubeEvent, NodeVerdict, World } from "./types";
import { DEFAULT_KUBE_VERSION, type KubeVersion } from "./versions";

/**
 * The Event catalogue (LESSON.md section 6): reasons, sources and message
 * formats exactly as the Kubernetes and CSI sidecar code writes them, filled
 * in with the lesson's illustrative names.
 */

export const PVC_REF = `PersistentVolumeClaim/${PVC_NAME}`;
export const POD_REF = `Pod/${POD_NAME}`;

/**
 * The provisioner's event source is provisionerName + "_" + id, where id is the
 * controller's hostname + "_" + a UUID. One fixed, illustrative value.
 */
export const PROVISIONER_EVENT_SOURCE = `${DRIVER}_disk-csi-controller-0_6f1e2d3c-0000-0000-0000-000000000000`;

export const EVENT_SOURCES = {
  pvController: "persistentvolume-controller",
  provisioner: PROVISIONER_EVENT_SOURCE,
  scheduler: "default-scheduler",
  attachDetach: "attachdetach-controller",
  kubelet: "kubelet",
} as const;

/** The container the lesson's Pod runs; the kubelet's events name it and its image. */
export const CONTAINER = { name: "app", image: "nginx" } as const;

/**
 * The Pulled message's figures are illustrative: kubelet prints the pull time
 * truncated to milliseconds, the time including queueing, and the image size.
 */
const IMAGE_PULL = { pullDuration: "2.114s", includingWaiting: "2.114s", sizeBytes: 72_223_946 } as const;

/** The messages of the events the lesson shows, as one Kubernetes release writes them. */
export interface EventMessages {
  waitForFirstConsumer: string;
  waitForPodScheduled: (pod: string) => string;
  externalProvisioning: (driver: string) => string;
  provisioning: (namespace: string, claim: string) => string;
  provisioningSucceeded: (pv: string) => string;
  scheduled: (namespace: string, pod: string, node: string) => string;
  successfulAttachVolume: (pv: string) => string;
  pulling: (image: string) => string;
  pulled: (image: string) => string;
  /** Pulled when no pull was needed (not on the lesson's track: its image has no tag, so the policy is Always). */
  alreadyPresent: (image: string) => string;
  created: (container: string) => string;
  started: (container: string) => string;
}

// Messages that read the same in 1.32..1.36 (LESSON.md section 6 has each source).
const STABLE_MESSAGES = {
  waitForFirstConsumer: "waiting for first consumer to be created before binding",
  waitForPodScheduled: (pod: string) => `waiting for pod ${pod} to be scheduled`,
  /** The v1.28+ wording (kubernetes PR #118262). */
  externalProvisioning: (driver: string) =>
    `Waiting for a volume to be created either by the external provisioner '${driver}' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.`,
  /** %q of "namespace/name": plain names need no escaping. */
  provisioning: (namespace: string, claim: string) => `External provisioner is provisioning volume for claim "${namespace}/${claim}"`,
  provisioningSucceeded: (pv: string) => `Successfully provisioned volume ${pv}`,
  scheduled: (namespace: string, pod: string, node: string) => `Successfully assigned ${namespace}/${pod} to ${node}`,
  /** generateVolumeMsg "%v for volume %q %v" with an empty detail: note the trailing space. */
  successfulAttachVolume: (pv: string) => `AttachVolume.Attach succeeded for volume "${pv}" `,
  /** pkg/kubelet/images/image_manager.go; %q of the image as the Pod spec writes it. */
  pulling: (image: string) => `Pulling image "${image}"`,
  pulled: (image: string) =>
    `Successfully pulled image "${image}" in ${IMAGE_PULL.pullDuration} (${IMAGE_PULL.includingWaiting} including waiting). Image size: ${IMAGE_PULL.sizeBytes} bytes.`,
};

function buildMessages(version: KubeVersion): EventMessages {
  const k = kubeStrings(version);
  return Object.freeze({ ...STABLE_MESSAGES, alreadyPresent: k.alreadyPresent, created: k.created, started: k.started });
}

const MESSAGES: Readonly<Record<KubeVersion, EventMessages>> = {
  "1.32": buildMessages("1.32"),
  "1.33": buildMessages("1.33"),
  "1.34": buildMessages("1.34"),
  "1.35": buildMessages("1.35"),
};

/** Every event message of the lesson, as `version` writes it. */
export function eventMessages(version: KubeVersion = DEFAULT_KUBE_VERSION): EventMessages {
  return MESSAGES[version];
}

/** The default release's messages (kept for callers that do not pass a release yet). */
export const EVENT_MESSAGES: EventMessages = eventMessages(DEFAULT_KUBE_VERSION);

/**
 * The scheduler's FitError text plus the PostFilter tail. Each node counts once (its first failing
 * filter); "count reason" entries are sorted (sort.Strings) and joined with ", "; every section ends
 * with ".". The PostFilter plugins' reasons are joined with ", ": from 1.34 DynamicResources'
 * "no new claims to deallocate" comes before DefaultPreemption's "preemption: ...".
 */
export function failedSchedulingMessage(verdicts: readonly NodeVerdict[], version: KubeVersion = DEFAULT_KUBE_VERSION): string {
  const total = verdicts.length;
  const histogram = new Map<string, number>();
  for (const v of verdicts) {
    if (v.fits) continue;
    if (!v.reason) throw new Error(`node ${v.node} was rejected without a reason`);
    histogram.set(v.reason, (histogram.get(v.reason) ?? 0) + 1);
  }
  // Plain code-unit order matches Go's byte-wise sort.Strings for ASCII text.
  const reasons = [...histogram].map(([reason, count]) => `${count} ${reason}`).sort();
  const preemption = `preemption: 0/${total} nodes are available: ${total} Preemption is not helpful for scheduling.`;
  const postFilter = [...kubeStrings(version).postFilterReasons, preemption].join(", ");
  return `0/${total} nodes are available: ${reasons.join(", ")}. ${postFilter}`;
}

export const waitForFirstConsumerEvent = (): KubeEvent => ({
  involvedObject: PVC_REF,
  type: "Normal",
  reason: "WaitForFirstConsumer",
  from: EVENT_SOURCES.pvController,
  message: EVENT_MESSAGES.waitForFirstConsumer,
});

export const waitForPodScheduledEvent = (): KubeEvent => ({
  involvedObject: PVC_REF,
  type: "Normal",
  reason: "WaitForPodScheduled",
  from: EVENT_SOURCES.pvController,
  message: EVENT_MESSAGES.waitForPodScheduled(POD_NAME),
});

export const externalProvisioningEvent = (): KubeEvent => ({
  involvedObject: PVC_REF,
  type: "Normal",
  reason: "ExternalProvisioning",
  from: EVENT_SOURCES.pvController,
  message: EVENT_MESSAGES.externalProvisioning(DRIVER),
});

export const provisioningEvent = (): KubeEvent => ({
  involvedObject: PVC_REF,
  type: "Normal",
  reason: "Provisioning",
  from: EVENT_SOURCES.provisioner,
  message: EVENT_MESSAGES.provisioning(NAMESPACE, PVC_NAME),
});

export const provisioningSucceededEvent = (pv: string): KubeEvent => ({
  involvedObject: PVC_REF,
  type: "Normal",
  reason: "ProvisioningSucceeded",
  from: EVENT_SOURCES.provisioner,
  message: EVENT_MESSAGES.provisioningSucceeded(pv),
});

export const failedSchedulingEvent = (verdicts: readonly NodeVerdict[], version: KubeVersion = DEFAULT_KUBE_VERSION): KubeEvent => ({
  involvedObject: POD_REF,
  type: "Warning",
  reason: "FailedScheduling",
  from: EVENT_SOURCES.scheduler,
  message: failedSchedulingMessage(verdicts, version),
});

export const scheduledEvent = (node: string): KubeEvent => ({
  involvedObject: POD_REF,
  type: "Normal",
  reason: "Scheduled",
  from: EVENT_SOURCES.scheduler,
  message: EVENT_MESSAGES.scheduled(NAMESPACE, POD_NAME, node),
});

export const successfulAttachVolumeEvent = (pv: string): KubeEvent => ({
  involvedObject: POD_REF,
  type: "Normal",
  reason: "SuccessfulAttachVolume",
  from: EVENT_SOURCES.attachDetach,
  message: EVENT_MESSAGES.successfulAttachVolume(pv),
});

/** The field path the kubelet's container events carry (involvedObject.fieldPath, GenerateContainerRef). */
export const CONTAINER_FIELD_PATH = `spec.containers{${CONTAINER.name}}`;

/** An event about one container of the Pod: it names the container in involvedObject.fieldPath. */
export interface ContainerEvent extends KubeEvent {
  fieldPath: string;
}

// The kubelet's container events (kuberuntime_container.go, image_manager.go), in the
// order it writes them once the volume is mounted.
const kubeletEvent = (reason: string, message: string): ContainerEvent => ({
  involvedObject: POD_REF,
  type: "Normal",
  reason,
  from: EVENT_SOURCES.kubelet,
  message,
  fieldPath: CONTAINER_FIELD_PATH,
});
export const imagePullingEvent = (version: KubeVersion = DEFAULT_KUBE_VERSION): ContainerEvent =>
  kubeletEvent("Pulling", eventMessages(version).pulling(CONTAINER.image));
export const imagePulledEvent = (version: KubeVersion = DEFAULT_KUBE_VERSION): ContainerEvent =>
  kubeletEvent("Pulled", eventMessages(version).pulled(CONTAINER.image));
export const containerCreatedEvent = (version: KubeVersion = DEFAULT_KUBE_VERSION): ContainerEvent =>
  kubeletEvent("Created", eventMessages(version).created(CONTAINER.name));
export const containerStartedEvent = (version: KubeVersion = DEFAULT_KUBE_VERSION): ContainerEvent =>
  kubeletEvent("Started", eventMessages(version).started(CONTAINER.name));

/** The event's involvedObject.fieldPath, or "" when it is about the whole object. */
export function eventFieldPath(event: KubeEvent): string {
  return "fieldPath" in event && typeof event.fieldPath === "string" ? event.fieldPath : "";
}

/**
 * The MESSAGE column of `kubectl describe` for `event` with `version`'s kubectl: trimmed (so the
 * attach message loses its trailing space) and, from kubectl 1.35, prefixed with the field path
 * ("spec.containers{app}: Container created"). `kubectl events` prints the trimmed message alone.
 */
export function describeEventMessage(event: KubeEvent, version: KubeVersion = DEFAULT_KUBE_VERSION): string {
  const message = event.message.trim();
  const fieldPath = eventFieldPath(event);
  return kubeStrings(version).describePrefixesFieldPath && fieldPath ? `${fieldPath}: ${message}` : message;
}

/** The Events section of `kubectl describe <object>`: that object's events, oldest first. */
export function eventsFor(world: World, involvedObject: string): KubeEvent[] {
  return world.events.filter((e) => e.involvedObject === involvedObject);
}
