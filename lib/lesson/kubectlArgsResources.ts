/**
 * The resource types a lab cluster serves, as `kubectl api-resources` lists
 * them on a kind v0.31.0 cluster (Kubernetes 1.32 to 1.35) with
 * csi-driver-host-path and the external-snapshotter CRDs installed. kubectl
 * resolves a type argument against this discovery (plural, singular, short
 * name or Kind, optionally with `.group` or `.version.group`); a name it cannot
 * resolve fails with `the server doesn't have a resource type "…"`
 * (k8s.io/cli-runtime pkg/resource/builder.go, mappingFor).
 *
 * Recorded from: kubernetes/website content/en/docs/reference/kubectl/_index.md
 * ("Resource types", the api-resources table), minus what 1.25 removed
 * (podsecuritypolicies) and flowcontrol's move to v1 (1.29), plus what became
 * GA later: ValidatingAdmissionPolicy (1.30), ServiceCIDR and IPAddress (1.33),
 * VolumeAttributesClass and resource.k8s.io (1.34); the snapshot CRDs from
 * kubernetes-csi/external-snapshotter client/config/crd.
 */

export interface ApiResource {
  /** Plural, as the API path spells it. */
  name: string;
  singular: string;
  shortNames: readonly string[];
  kind: string;
  /** group/version, or "v1" for the core group. */
  groupVersion: string;
  namespaced: boolean;
  categories?: readonly string[];
  /** First Kubernetes minor release that serves it by default, when later than 1.32. */
  since?: number;
}

const r = (
  name: string,
  kind: string,
  groupVersion: string,
  namespaced: boolean,
  shortNames: readonly string[] = [],
  extra: Pick<ApiResource, "categories" | "since"> = {},
): ApiResource => ({ name, singular: kind.toLowerCase(), shortNames, kind, groupVersion, namespaced, ...extra });

const ALL = { categories: ["all"] } as const;

export const API_RESOURCES: readonly ApiResource[] = [
  r("componentstatuses", "ComponentStatus", "v1", false, ["cs"]),
  r("configmaps", "ConfigMap", "v1", true, ["cm"]),
  r("endpoints", "Endpoints", "v1", true, ["ep"]),
  r("events", "Event", "v1", true, ["ev"]),
  r("limitranges", "LimitRange", "v1", true, ["limits"]),
  r("namespaces", "Namespace", "v1", false, ["ns"]),
  r("nodes", "Node", "v1", false, ["no"]),
  r("persistentvolumeclaims", "PersistentVolumeClaim", "v1", true, ["pvc"]),
  r("persistentvolumes", "PersistentVolume", "v1", false, ["pv"]),
  r("pods", "Pod", "v1", true, ["po"], ALL),
  r("podtemplates", "PodTemplate", "v1", true),
  r("replicationcontrollers", "ReplicationController", "v1", true, ["rc"], ALL),
  r("resourcequotas", "ResourceQuota", "v1", true, ["quota"]),
  r("secrets", "Secret", "v1", true),
  r("serviceaccounts", "ServiceAccount", "v1", true, ["sa"]),
  r("services", "Service", "v1", true, ["svc"], ALL),
  r("mutatingwebhookconfigurations", "MutatingWebhookConfiguration", "admissionregistration.k8s.io/v1", false),
  r("validatingadmissionpolicies", "ValidatingAdmissionPolicy", "admissionregistration.k8s.io/v1", false),
  r("validatingadmissionpolicybindings", "ValidatingAdmissionPolicyBinding", "admissionregistration.k8s.io/v1", false),
  r("validatingwebhookconfigurations", "ValidatingWebhookConfiguration", "admissionregistration.k8s.io/v1", false),
  r("customresourcedefinitions", "CustomResourceDefinition", "apiextensions.k8s.io/v1", false, ["crd", "crds"]),
  r("apiservices", "APIService", "apiregistration.k8s.io/v1", false),
  r("controllerrevisions", "ControllerRevision", "apps/v1", true),
  r("daemonsets", "DaemonSet", "apps/v1", true, ["ds"], ALL),
  r("deployments", "Deployment", "apps/v1", true, ["deploy"], ALL),
  r("replicasets", "ReplicaSet", "apps/v1", true, ["rs"], ALL),
  r("statefulsets", "StatefulSet", "apps/v1", true, ["sts"], ALL),
  r("horizontalpodautoscalers", "HorizontalPodAutoscaler", "autoscaling/v2", true, ["hpa"], ALL),
  r("cronjobs", "CronJob", "batch/v1", true, ["cj"], ALL),
  r("jobs", "Job", "batch/v1", true, [], ALL),
  r("certificatesigningrequests", "CertificateSigningRequest", "certificates.k8s.io/v1", false, ["csr"]),
  r("leases", "Lease", "coordination.k8s.io/v1", true),
  r("endpointslices", "EndpointSlice", "discovery.k8s.io/v1", true),
  r("events", "Event", "events.k8s.io/v1", true, ["ev"]),
  r("flowschemas", "FlowSchema", "flowcontrol.apiserver.k8s.io/v1", false),
  r("prioritylevelconfigurations", "PriorityLevelConfiguration", "flowcontrol.apiserver.k8s.io/v1", false),
  r("ingressclasses", "IngressClass", "networking.k8s.io/v1", false),
  r("ingresses", "Ingress", "networking.k8s.io/v1", true, ["ing"]),
  r("ipaddresses", "IPAddress", "networking.k8s.io/v1", false, ["ip"], { since: 33 }),
  r("networkpolicies", "NetworkPolicy", "networking.k8s.io/v1", true, ["netpol"]),
  r("servicecidrs", "ServiceCIDR", "networking.k8s.io/v1", false, [], { since: 33 }),
  r("runtimeclasses", "RuntimeClass", "node.k8s.io/v1", false),
  r("poddisruptionbudgets", "PodDisruptionBudget", "policy/v1", true, ["pdb"]),
  r("clusterrolebindings", "ClusterRoleBinding", "rbac.authorization.k8s.io/v1", false),
  r("clusterroles", "ClusterRole", "rbac.authorization.k8s.io/v1", false),
  r("rolebindings", "RoleBinding", "rbac.authorization.k8s.io/v1", true),
  r("roles", "Role", "rbac.authorization.k8s.io/v1", true),
  r("deviceclasses", "DeviceClass", "resource.k8s.io/v1", false, [], { since: 34 }),
  r("resourceclaims", "ResourceClaim", "resource.k8s.io/v1", true, [], { since: 34 }),
  r("resourceclaimtemplates", "ResourceClaimTemplate", "resource.k8s.io/v1", true, [], { since: 34 }),
  r("resourceslices", "ResourceSlice", "resource.k8s.io/v1", false, [], { since: 34 }),
  r("priorityclasses", "PriorityClass", "scheduling.k8s.io/v1", false, ["pc"]),
  r("volumesnapshotclasses", "VolumeSnapshotClass", "snapshot.storage.k8s.io/v1", false, ["vsclass", "vsclasses"]),
  r("volumesnapshotcontents", "VolumeSnapshotContent", "snapshot.storage.k8s.io/v1", false, ["vsc", "vscs"]),
  r("volumesnapshots", "VolumeSnapshot", "snapshot.storage.k8s.io/v1", true, ["vs"]),
  r("csidrivers", "CSIDriver", "storage.k8s.io/v1", false),
  r("csinodes", "CSINode", "storage.k8s.io/v1", false),
  r("csistoragecapacities", "CSIStorageCapacity", "storage.k8s.io/v1", true),
  r("storageclasses", "StorageClass", "storage.k8s.io/v1", false, ["sc"]),
  r("volumeattachments", "VolumeAttachment", "storage.k8s.io/v1", false),
  r("volumeattributesclasses", "VolumeAttributesClass", "storage.k8s.io/v1", false, ["vac"], { since: 34 }),
];

const groupOf = (resource: ApiResource) => (resource.groupVersion.includes("/") ? resource.groupVersion.split("/")[0] : "");
const versionOf = (resource: ApiResource) => resource.groupVersion.split("/").pop()!;

/**
 * The resources a type argument names on a cluster of the given minor release:
 * one for a resource, several for a category (`all`), none when the server
 * has no such type. Matching is case-insensitive, as kubectl's RESTMapper is.
 */
export function resolveResourceType(arg: string, minor: number): ApiResource[] {
  const served = API_RESOURCES.filter((res) => (res.since ?? 0) <= minor);
  const lower = arg.toLowerCase();
  const category = served.filter((res) => res.categories?.includes(lower));
  if (category.length > 0) return category;
  const [head, ...rest] = lower.split(".");
  const qualifier = rest.join(".");
  const matches = served.filter((res) => {
    const names = [res.name, res.singular, res.kind.toLowerCase(), ...res.shortNames];
    if (!names.includes(head)) return false;
    if (qualifier === "") return true;
    // TYPE.GROUP or TYPE.VERSION.GROUP (the core group's version alone: pods.v1.)
    return qualifier === groupOf(res) || qualifier === `${versionOf(res)}.${groupOf(res)}`;
  });
  // Unqualified names that two groups serve (events) resolve to the preferred one, as kubectl does: core first.
  return qualifier === "" && matches.length > 1 ? matches.slice(0, 1) : matches;
}
