import { describe, expect, it } from "vitest";
import { MAX_PASTE_BYTES, checkCluster, parseEvents, pasteTooLarge } from "./clusterCheck";
import { fixture, ok, paste, placed, problem } from "../../tests/support/clusterCheckPastes";

// "Check my cluster" reads each shape kubectl prints (tables, describe, JSON with a prompt around it), and
// answers a paste it cannot use in words that say what to copy instead.

describe("check my cluster: kubectl's tables and describe output", () => {
  it("reads kubectl events (Kind/name), with the count of a repeated event and a note that ages carry no order", () => {
    const result = ok(checkCluster(paste("wffc-1.35-kubectl-events.txt"), "WaitForFirstConsumer", "standard", "1.35"));
    expect(result.shape).toBe("table");
    expect(placed(result)).toEqual([
      "1 CREATE PVC: WaitForFirstConsumer x3",
      "6 PROVISION: ExternalProvisioning, Provisioning",
      "8 CREATE PV: ProvisioningSucceeded",
      "10 BIND POD: Scheduled",
      "12 MOUNT: SuccessfulAttachVolume, Pulled, Created, Started",
    ]);
    expect(result.missing).toEqual([]);
    expect(result.outOfOrder).toEqual([]);
    expect(result.hints).toEqual([
      "A kubectl table prints ages (“5m”), not times, so the order of the events is not checked. Paste kubectl get events -o json to check it too.",
    ]);
    expect(result.summary).toBe(
      "All 9 events of the lab's PVC and Pod are on their steps and nothing the WaitForFirstConsumer scenario expects is missing.",
    );
  });

  it("reads kubectl get events -A (NAMESPACE first, kind/name in lower case), leaving other namespaces aside", () => {
    const result = ok(checkCluster(paste("wffc-local-path-get-events-A.txt"), "WaitForFirstConsumer", "standard", "1.33"));
    expect(placed(result)).toEqual([
      "1 CREATE PVC: WaitForFirstConsumer",
      "6 PROVISION: ExternalProvisioning, Provisioning",
      "8 CREATE PV: ProvisioningSucceeded",
      "10 BIND POD: Scheduled",
      "12 MOUNT: Pulling, Pulled, Created, Started",
    ]);
    expect(result.otherObjects).toBe(5);
    const message = result.steps[5].events[0].message;
    expect(message).toBe(
      "Waiting for a volume to be created either by the external provisioner 'rancher.io/local-path' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.",
    );
  });

  it("reads kubectl describe pvc and pod together, each block's events on its own object", () => {
    const result = ok(checkCluster(paste("wffc-1.33-describe.txt"), "WaitForFirstConsumer", "standard", "1.33"));
    expect(result.shape).toBe("describe");
    expect(placed(result)).toEqual([
      "1 CREATE PVC: WaitForFirstConsumer x2",
      "6 PROVISION: ExternalProvisioning, Provisioning",
      "8 CREATE PV: ProvisioningSucceeded",
      "10 BIND POD: Scheduled",
      "12 MOUNT: SuccessfulAttachVolume, Pulling, Pulled, Created, Started",
    ]);
    const provisioning = result.steps[5].events[1];
    expect([provisioning.objectKind, provisioning.objectName, provisioning.from]).toEqual([
      "PersistentVolumeClaim",
      "data",
      "hostpath.csi.k8s.io_csi-hostpathplugin-x7k2p_6b1f4a2e-0c3d-4e5f-8a9b-1c2d3e4f5a6b",
    ]);
    expect(result.missing).toEqual([]);
    expect(result.hints[0]).toMatch(/^kubectl describe prints ages/);
  });

  it("reads describe output even when a brace in it looks like JSON (an annotation's value)", () => {
    const described = paste("wffc-1.33-describe.txt").replace(
      "Labels:           <none>\nAnnotations:      <none>",
      'Labels:           <none>\nAnnotations:      example.com/config:\n                    {"replicas":2,"tier":"web",\n                    "zone":"b"}',
    );
    expect(described).toContain('{"replicas"');
    const result = ok(checkCluster(described, "WaitForFirstConsumer", "standard"));
    expect(result.shape).toBe("describe");
    expect(result.missing).toEqual([]);
  });

  it("strips the field path kubectl 1.35's describe puts before a container event's message", () => {
    const header = "  Type    Reason   Age   From     Message\n  ----    ------   ----  ----     -------\n";
    const parsed = parseEvents(`Events:\n${header}  Normal  Created  5s    kubelet  spec.containers{app}: Container created\n`);
    expect(parsed.ok && parsed.events.map((e) => e.message)).toEqual(["Container created"]);
  });

  it("reads a table whose spaces were squeezed on the way (chat, e-mail) by its words", () => {
    const parsed = parseEvents(
      "LAST SEEN TYPE REASON OBJECT MESSAGE\n3s (x3 over 33s) Normal WaitForFirstConsumer PersistentVolumeClaim/data waiting for first consumer to be created before binding",
    );
    expect(parsed.ok && parsed.events.map((e) => `${e.objectKind}/${e.objectName} ${e.reason} x${e.count}: ${e.message}`)).toEqual([
      "PersistentVolumeClaim/data WaitForFirstConsumer x3: waiting for first consumer to be created before binding",
    ]);
  });
});

describe("check my cluster: pastes it cannot use get a plain answer", () => {
  it("empty, or kubectl events' stderr line alone (with the prompts around it)", () => {
    expect(problem("   ")).toMatch(/^Paste what kubectl printed here first/);
    expect(problem(paste("empty-kubectl-events.txt"))).toMatch(
      /^kubectl said “No events found in default namespace\.” kubectl found no events\. The API server keeps events for one hour/,
    );
    expect(problem("No events found.")).toMatch(/^kubectl said “No events found\.”/);
    expect(problem("No resources found in default namespace.\n")).toMatch(/^kubectl said “No resources found in default namespace\.”/);
  });

  it("a List without items, an empty list, describe's Events: <none>", () => {
    expect(problem('{\n    "apiVersion": "v1",\n    "kind": "List",\n    "metadata": {\n        "resourceVersion": ""\n    }\n}')).toMatch(
      /^This List has no "items" field, so it holds no events\./,
    );
    expect(
      problem(
        '{\n    "apiVersion": "v1",\n    "items": [],\n    "kind": "List",\n    "metadata": {\n        "resourceVersion": ""\n    }\n}',
      ),
    ).toMatch(/^The list is empty: kubectl found no events\./);
    expect(problem("Name:          data\nNamespace:     default\nUsed By:       <none>\nEvents:        <none>\n")).toMatch(
      /^kubectl describe printed “Events: <none>”/,
    );
  });

  it("a table or describe header with nothing under it, YAML, cut-off JSON, other objects", () => {
    expect(problem("LAST SEEN   TYPE   REASON   OBJECT   MESSAGE\n")).toMatch(/^This table has a header but no event under it/);
    expect(problem("apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Event")).toMatch(/looks like YAML/);
    expect(problem(fixture("wffc-kubectl-get-events.json").slice(0, 900))).toMatch(/not complete JSON/);
    expect(
      problem('{"apiVersion": "v1", "items": [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "app"}}], "kind": "List"}'),
    ).toBe("This is a list of Pod objects, not events. Run kubectl get events -o json and paste that.");
    expect(problem("hello")).toMatch(/^This does not look like kubectl's events/);
  });

  it("events that are all about other objects", () => {
    const others = JSON.parse(fixture("wffc-kubectl-get-events.json")) as { items: { involvedObject: { kind: string } }[] };
    others.items = others.items.filter((e) => e.involvedObject.kind === "Node");
    expect(problem(JSON.stringify(others, null, 4))).toMatch(
      /None of these 2 events is about the lab's PersistentVolumeClaim "data" or Pod "app"/,
    );
  });

  it("a paste over the size cap is refused before it is parsed, saying how to copy less", () => {
    const big = `${fixture("wffc-kubectl-get-events.json")}\n${" ".repeat(MAX_PASTE_BYTES)}`;
    expect(problem(big)).toBe(
      "This paste is 526 KiB; the check reads at most 512 KiB. Copy only the lab's two objects: kubectl events --for pvc/data and kubectl events --for pod/app (or kubectl get events -n default -o json in a namespace with nothing else in it).",
    );
    expect(pasteTooLarge("é".repeat(MAX_PASTE_BYTES / 2))).toBeNull(); // two bytes each: exactly the cap
    expect(pasteTooLarge("é".repeat(MAX_PASTE_BYTES / 2 + 1))).toMatch(/^This paste is 513 KiB/);
    expect(pasteTooLarge("x".repeat(3 * 1024 * 1024))).toMatch(/^This paste is 3\.0 MiB/);
  });
});

describe("check my cluster: a shell prompt pasted with the output", () => {
  it("a bracketed prompt before and after the JSON (bash on Fedora, RHEL)", () => {
    const pasted = `[ana@laptop pv-lab]$ kubectl get events -o json\n${fixture("wffc-kubectl-get-events.json")}[ana@laptop pv-lab]$ `;
    const result = ok(checkCluster(pasted, "WaitForFirstConsumer", "standard"));
    expect(result.shape).toBe("json");
    expect(result.summary).toMatch(/^All 10 events/);
  });

  it("a $ prompt, a bracketed prompt ending in ], and colour codes", () => {
    expect(parseEvents(`$ kubectl get events -o json\n${fixture("no-local-pv-kubectl-events.json")}`).ok).toBe(true);
    expect(parseEvents(`${fixture("no-local-pv-kubectl-events.json")}\n[ana@laptop pv-lab]`).ok).toBe(true);
    const coloured = `\u001b[01;32mana@laptop\u001b[00m:\u001b[01;34m~/pv-lab\u001b[00m$ kubectl events\n${paste("wffc-1.35-kubectl-events.txt")}`;
    expect(ok(checkCluster(coloured, "WaitForFirstConsumer", "standard")).steps[0].events[0].count).toBe(3);
  });

  it("with Windows line ends (PowerShell)", () => {
    const crlf = `PS C:\\Users\\ana> kubectl events\r\n${paste("wffc-1.35-kubectl-events.txt").replace(/\n/g, "\r\n")}`;
    expect(ok(checkCluster(crlf, "WaitForFirstConsumer", "standard")).missing).toEqual([]);
  });
});
