import { DRIVER, NAMESPACE, PVC_NAME, POD_NAME } from "./kubeCluster";
import type { KubeEvent, NodeVerdict, World } from "./types";

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

export const EVENT_MESSAGES = {
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
  /** With a colon since v1.33; 1.32 and older print "Created container %s". */
  created: (container: string) => `Created container: ${container}`,
  started: (container: string) => `Started container ${container}`,
} as const;

/**
 * The scheduler's FitError text plus the DefaultPreemption tail. Each node
 * counts once (its first failing filter); "count reason" entries are sorted
 * (sort.Strings) and joined with ", "; every section ends with ".".
 */
export function failedSchedulingMessage(verdicts: readonly NodeVerdict[]): string {
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
  return `0/${total} nodes are available: ${reasons.join(", ")}. ${preemption}`;
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

export const failedSchedulingEvent = (verdicts: readonly NodeVerdict[]): KubeEvent => ({
  involvedObject: POD_REF,
  type: "Warning",
  reason: "FailedScheduling",
  from: EVENT_SOURCES.scheduler,
  message: failedSchedulingMessage(verdicts),
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

// The kubelet's container events (kuberuntime_container.go, image_manager.go), in the
// order it writes them once the volume is mounted.
const kubeletEvent = (reason: string, message: string): KubeEvent => ({
  involvedObject: POD_REF,
  type: "Normal",
  reason,
  from: EVENT_SOURCES.kubelet,
  message,
});
export const imagePullingEvent = (): KubeEvent => kubeletEvent("Pulling", EVENT_MESSAGES.pulling(CONTAINER.image));
export const imagePulledEvent = (): KubeEvent => kubeletEvent("Pulled", EVENT_MESSAGES.pulled(CONTAINER.image));
export const containerCreatedEvent = (): KubeEvent => kubeletEvent("Created", EVENT_MESSAGES.created(CONTAINER.name));
export const containerStartedEvent = (): KubeEvent => kubeletEvent("Started", EVENT_MESSAGES.started(CONTAINER.name));

/** The Events section of `kubectl describe <object>`: that object's events, oldest first. */
export function eventsFor(world: World, involvedObject: string): KubeEvent[] {
  return world.events.filter((e) => e.involvedObject === involvedObject);
}
