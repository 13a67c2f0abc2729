import { describe, expect, it } from "vitest";
import { changedLines, getScenario, toYaml, worldAt } from "./index";

describe("toYaml", () => {
  it("writes kubectl-style block YAML, keys sorted as kubectl sorts them", () => {
    const yaml = toYaml({
      apiVersion: "v1",
      kind: "PersistentVolumeClaim",
      metadata: {
        name: "data",
        annotations: { "pv.kubernetes.io/bind-completed": "yes", "volume.kubernetes.io/provisioner-deletion-secret-name": "" },
        finalizers: ["kubernetes.io/pvc-protection"],
      },
      spec: {
        accessModes: ["ReadWriteOnce"],
        resources: { requests: { storage: "10Gi" } },
        terms: [{ matchExpressions: [{ key: "topology.kubernetes.io/zone", operator: "In", values: ["zone-b"] }] }],
      },
      status: { phase: "Pending", attached: true, count: 3, metadata: {}, list: [], nothing: null },
    });
    expect(yaml).toBe(
      [
        "apiVersion: v1",
        "kind: PersistentVolumeClaim",
        "metadata:",
        "  annotations:",
        '    pv.kubernetes.io/bind-completed: "yes"',
        '    volume.kubernetes.io/provisioner-deletion-secret-name: ""',
        "  finalizers:",
        "  - kubernetes.io/pvc-protection",
        "  name: data",
        "spec:",
        "  accessModes:",
        "  - ReadWriteOnce",
        "  resources:",
        "    requests:",
        "      storage: 10Gi",
        "  terms:",
        "  - matchExpressions:",
        "    - key: topology.kubernetes.io/zone",
        "      operator: In",
        "      values:",
        "      - zone-b",
        "status:",
        "  attached: true",
        "  count: 3",
        "  list: []",
        "  metadata: {}",
        "  nothing: null",
        "  phase: Pending",
      ].join("\n"),
    );
  });

  it("quotes strings that would change type or cannot be plain", () => {
    const cases: [string, string][] = [
      ["yes", '"yes"'],
      ["True", '"True"'],
      ["off", '"off"'],
      ["null", '"null"'],
      ["~", '"~"'],
      ["10", '"10"'],
      ["1.5", '"1.5"'],
      ["0x1F", '"0x1F"'],
      ["1e3", '"1e3"'],
      ["2024-01-02", '"2024-01-02"'],
      ["", '""'],
      ["a: b", "'a: b'"],
      ["didn't: x", "'didn''t: x'"],
      ["- x", "'- x'"],
      ["*star", "'*star'"],
      ["#hash", "'#hash'"],
      ["trailing ", "'trailing '"],
      ["a #b", "'a #b'"],
      ["line\nbreak", '"line\\nbreak"'],
      ["10Gi", "10Gi"],
      ["node-b1", "node-b1"],
      ["3f1c0a52-0000-0000-0000-000000000000", "3f1c0a52-0000-0000-0000-000000000000"],
      ["/mnt/disks/ssd1", "/mnt/disks/ssd1"],
      ["didn't", "didn't"],
    ];
    for (const [input, expected] of cases) expect(toYaml({ k: input }), input).toBe(`k: ${expected}`);
  });

  it("orders keys like go-yaml: non-letters before letters, digit runs as numbers, upper case before lower", () => {
    const keys = (obj: Record<string, number>) =>
      toYaml(obj)
        .split("\n")
        .map((l) => l.split(":")[0]);
    expect(keys({ ab: 1, "a-b": 2, a_b: 3, aB: 4 })).toEqual(["a-b", "a_b", "aB", "ab"]);
    expect(keys({ x10: 1, x9: 2, x1: 3 })).toEqual(["x1", "x9", "x10"]);
    expect(keys({ status: 1, spec: 2, metadata: 3, kind: 4, apiVersion: 5 })).toEqual(["apiVersion", "kind", "metadata", "spec", "status"]);
  });

  it("renders a world object and memoises frozen ones", () => {
    const w = worldAt(getScenario("Immediate", "zone-conflict", "1.33"), 7);
    const yaml = toYaml(w.pod!);
    expect(yaml).toContain(
      "    message: '0/3 nodes are available: 1 node(s) didn''t match Pod''s node affinity/selector, 2 node(s) didn''t match PersistentVolume''s node affinity. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.'",
    );
    expect(yaml).toContain('    status: "False"');
    expect(toYaml(w.pod!)).toBe(yaml);
  });

  it("prints a 1.35 unschedulable Pod as kubectl get -o yaml does, observedGeneration among the condition's keys", () => {
    const yaml = toYaml(worldAt(getScenario("Immediate", "zone-conflict", "1.35"), 7).pod!);
    expect(yaml.split("\n").slice(0, 4)).toEqual(["apiVersion: v1", "kind: Pod", "metadata:", "  generation: 1"]);
    expect(yaml).toContain(
      [
        "status:",
        "  conditions:",
        "  - lastProbeTime: null",
        '    lastTransitionTime: "2025-06-02T09:00:24Z"',
        "    message: '0/3 nodes are available: 1 node(s) didn''t match Pod''s node affinity/selector, 2 node(s) didn''t match PersistentVolume''s node affinity. no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.'",
        "    observedGeneration: 1",
        "    reason: Unschedulable",
        '    status: "False"',
        "    type: PodScheduled",
        "  phase: Pending",
        "  qosClass: BestEffort",
      ].join("\n"),
    );
  });
});

describe("changedLines", () => {
  it("marks every line when there is no previous text", () => {
    expect([...changedLines(null, "a\nb\nc")]).toEqual([0, 1, 2]);
  });
  it("marks nothing when the text is unchanged", () => {
    expect(changedLines("a\nb", "a\nb").size).toBe(0);
  });
  it("marks inserted and changed lines of the new text only", () => {
    expect([...changedLines("a\nb\nc\nd", "a\nx\nb\nd\ne")].sort((x, y) => x - y)).toEqual([1, 4]);
    expect([...changedLines("a\nb\nc", "a\nB\nc")]).toEqual([1]); // changed in place
    expect([...changedLines("a\nb\nc", "a\nc")]).toEqual([]); // pure deletion
  });
  it("highlights step 5's selected-node on the PVC", () => {
    const s = getScenario("WaitForFirstConsumer", "standard");
    const before = toYaml(worldAt(s, 3).pvc!);
    const after = toYaml(worldAt(s, 4).pvc!);
    const lines = after.split("\n");
    expect([...changedLines(before, after)].map((i) => lines[i])).toEqual([
      "  annotations:",
      "    volume.kubernetes.io/selected-node: node-b1",
    ]);
  });
  it("highlights binding at step 9 in the PVC", () => {
    const s = getScenario("WaitForFirstConsumer", "standard");
    const after = toYaml(worldAt(s, 8).pvc!);
    const lines = after.split("\n");
    expect([...changedLines(toYaml(worldAt(s, 7).pvc!), after)].map((i) => lines[i])).toEqual([
      '    pv.kubernetes.io/bind-completed: "yes"',
      '    pv.kubernetes.io/bound-by-controller: "yes"',
      "  volumeName: pvc-3f1c0a52-0000-0000-0000-000000000000",
      "  accessModes:",
      "  - ReadWriteOnce",
      "  capacity:",
      "    storage: 10Gi",
      "  phase: Bound",
    ]);
  });
});
