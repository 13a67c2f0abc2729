import { describe, expect, it } from "vitest";
import { KUBE_VERSIONS, kubeStrings, runtimeImageName, wordingVersions } from "./index";

describe("kubeStrings: one table of what each release prints", () => {
  it("the scheduler's node-affinity reason was renamed in 1.33", () => {
    expect(KUBE_VERSIONS.map((v) => kubeStrings(v).reasons.pvNodeAffinity)).toEqual([
      "node(s) had volume node affinity conflict",
      "node(s) didn't match PersistentVolume's node affinity",
      "node(s) didn't match PersistentVolume's node affinity",
      "node(s) didn't match PersistentVolume's node affinity",
    ]);
  });
  it("the taint reason names the taint up to 1.34.1; the 1.34 id prints patch 1.34.2's", () => {
    expect(KUBE_VERSIONS.map((v) => kubeStrings(v).untoleratedTaint("node-role.kubernetes.io/control-plane", ""))).toEqual([
      "node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }",
      "node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }",
      "node(s) had untolerated taint(s)",
      "node(s) had untolerated taint(s)",
    ]);
  });
  it("switches each field on in the release the source says", () => {
    const row = (v: (typeof KUBE_VERSIONS)[number]) => {
      const k = kubeStrings(v);
      return [k.postFilterReasons.join(), k.podGeneration, k.podObservedGeneration, k.nominatesBeforePreBind, k.describePrefixesFieldPath];
    };
    expect(row("1.32")).toEqual(["", false, false, false, false]);
    expect(row("1.33")).toEqual(["", true, false, false, false]);
    expect(row("1.34")).toEqual(["no new claims to deallocate", true, true, false, false]);
    expect(row("1.35")).toEqual(["no new claims to deallocate", true, true, true, true]);
  });
  it("defaults to the newest release and returns the same frozen object", () => {
    expect(kubeStrings()).toBe(kubeStrings("1.35"));
    expect(Object.isFrozen(kubeStrings("1.33"))).toBe(true);
  });
});

describe("runtimeImageName: the image containerd reports once the container exists", () => {
  it("normalises Docker Hub short names and adds the default tag", () => {
    expect(runtimeImageName("nginx")).toBe("docker.io/library/nginx:latest");
    expect(runtimeImageName("nginx:1.27")).toBe("docker.io/library/nginx:1.27");
    expect(runtimeImageName("bitnami/nginx")).toBe("docker.io/bitnami/nginx:latest");
  });
  it("leaves a registry host and a digest alone", () => {
    expect(runtimeImageName("registry.k8s.io/pause:3.10")).toBe("registry.k8s.io/pause:3.10");
    expect(runtimeImageName("localhost:5000/app")).toBe("localhost:5000/app:latest");
    expect(runtimeImageName("nginx@sha256:abc")).toBe("docker.io/library/nginx@sha256:abc");
  });
});

describe("wordingVersions: which releases print a pasted message", () => {
  it("reads the kubelet's container events", () => {
    expect(wordingVersions("Created container app")).toEqual(["1.32"]);
    expect(wordingVersions("Created container: app")).toEqual(["1.33", "1.34"]);
    expect(wordingVersions("Container created")).toEqual(["1.35"]);
    expect(wordingVersions("spec.containers{app}: Container created")).toEqual(["1.35"]);
    expect(wordingVersions("spec.containers{app}: Created container: app")).toEqual(["1.33", "1.34"]);
    expect(wordingVersions('Container image "nginx:1.27" already present on machine and can be accessed by the pod')).toEqual(["1.35"]);
    expect(wordingVersions('Container image "nginx:1.27" already present on machine')).toEqual(["1.32", "1.33", "1.34"]);
  });
  it("reads FailedScheduling: the reason and the PostFilter tail together", () => {
    expect(
      wordingVersions(
        "0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 node(s) had volume node affinity conflict. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
      ),
    ).toEqual(["1.32"]);
    expect(
      wordingVersions(
        "0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 node(s) didn't match PersistentVolume's node affinity. no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
      ),
    ).toEqual(["1.34"]);
    expect(
      wordingVersions(
        "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 node(s) didn't match PersistentVolume's node affinity. no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
      ),
    ).toEqual(["1.34", "1.35"]);
  });
  it("says nothing about wording every release shares", () => {
    expect(wordingVersions("waiting for first consumer to be created before binding")).toBeNull();
    expect(wordingVersions('Pulling image "nginx"')).toBeNull();
  });
});
