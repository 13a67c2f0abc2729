import { describe, expect, it } from "vitest";
import { checkCommandLine } from "./kubectlArgs";
import { jsonpathError } from "./kubectlArgsJsonpath";
import { resolveResourceType } from "./kubectlArgsResources";
import { ShellSyntaxError, splitShellLine } from "./kubectlArgsShell";

const at33 = { minor: 33 };
const errors = (line: string, context = at33) => checkCommandLine(line, context).errors;
const warnings = (line: string, context = at33) => checkCommandLine(line, context).warnings;

describe("the shell's words", () => {
  it("removes quotes as bash does and keeps $VAR and $(…) as dynamic words", () => {
    const line = splitShellLine(
      `A=1 kubectl get pvc data -o jsonpath='{.status.phase}{"\\n"}' "$NAME" x\\ y 2>/dev/null | grep -vx "$(echo b)"`,
    );
    expect(line.commands.map((c) => c.words.map((w) => w.value))).toEqual([
      ["kubectl", "get", "pvc", "data", "-o", `jsonpath={.status.phase}{"\\n"}`, "$NAME", "x y"],
      ["grep", "-vx", "$(echo b)"],
    ]);
    expect(line.commands[0].assignments).toEqual(["A=1"]);
    expect(line.commands[0].words[6].dynamic).toBe(true);
    expect(line.substitutions).toEqual(["echo b"]);
  });

  it("finds commands inside nested $(…)", () => {
    const line = splitShellLine(`X=$(kubectl get pv "$(kubectl get pvc data -o jsonpath='{.spec.volumeName}')")`);
    expect(line.commands).toEqual([
      { assignments: [`X=$(kubectl get pv "$(kubectl get pvc data -o jsonpath='{.spec.volumeName}')")`], words: [] },
    ]);
    expect(line.substitutions).toEqual([`kubectl get pv "$(kubectl get pvc data -o jsonpath='{.spec.volumeName}')"`]);
  });

  it("refuses what it cannot read instead of guessing", () => {
    for (const bad of ["echo 'open", 'echo "open', "echo `date`", "(cd x)", "a |", "| a", "echo >"]) {
      expect(() => splitShellLine(bad), bad).toThrow(ShellSyntaxError);
    }
    expect(errors("kubectl get pods -o jsonpath='{.items}")).toEqual(["shell: a ' without its closing '"]);
  });
});

describe("kubectl's JSONPath parser (client-go util/jsonpath)", () => {
  it("accepts what kubectl accepts", () => {
    for (const ok of [
      '{.status.phase}{"\\n"}',
      "{.metadata.annotations.volume\\.kubernetes\\.io/selected-node}",
      '{range .status.conditions[*]}{.type}={.status}{"\\n"}{end}',
      '{.status.conditions[?(@.type=="PodScheduled")].reason}',
      "{.items[0:2].metadata.name}",
      "{..name}",
      "{.spec.containers['name']}",
    ]) {
      expect(jsonpathError(ok), ok).toBeNull();
    }
  });

  it("rejects with kubectl's own words", () => {
    expect(jsonpathError("{.status.phase")).toBe("unclosed action");
    expect(jsonpathError("{.items[x]}")).toBe("invalid array index x");
    expect(jsonpathError("{.items[0}")).toBe("unterminated array");
    expect(jsonpathError('{"abc}')).toBe("unterminated quoted string");
    expect(jsonpathError("{.a[?(@.b==1}")).toBe("unterminated filter");
    expect(jsonpathError("{%}")).toBe('unrecognized character in action: "%"');
  });
});

describe("the lab cluster's resource types (recorded api-resources)", () => {
  it("resolves plural, singular, short names, kinds and group-qualified names, case-insensitively", () => {
    for (const name of [
      "pvc",
      "persistentvolumeclaim",
      "PersistentVolumeClaims",
      "persistentvolumeclaims.v1.",
      "sc",
      "storageclasses.storage.k8s.io",
      "volumeattachment",
      "csistoragecapacities",
      "ds",
      "vs",
    ]) {
      expect(resolveResourceType(name, 33), name).toHaveLength(1);
    }
    expect(resolveResourceType("all", 33).length).toBeGreaterThan(1);
    expect(resolveResourceType("pvcs", 33)).toEqual([]);
  });

  it("knows what each release serves", () => {
    expect(resolveResourceType("volumeattributesclasses", 33)).toEqual([]);
    expect(resolveResourceType("volumeattributesclasses", 34)).toHaveLength(1);
    expect(errors("kubectl get vac", at33)).toEqual(['the server doesn\'t have a resource type "vac"']);
    expect(errors("kubectl get vac", { minor: 35 })).toEqual([]);
  });
});

describe("kubectl's argument rules", () => {
  it("rejects a watch of several types, as get.go does (builder.SingleResourceType)", () => {
    expect(errors("kubectl get pvc,pv,pod -o wide -w")).toEqual(["you may only specify a single resource type"]);
    expect(errors("kubectl get pvc,pv,pod --watch")).toEqual(["you may only specify a single resource type"]);
    expect(errors("kubectl get all -w")).toEqual(["you may only specify a single resource type"]);
    expect(errors("kubectl get pvc/data pod/app -w")).toEqual(["you may only specify a single resource type"]);
    // One type per watch is fine, and several types without a watch too.
    expect(errors("kubectl get pvc -w")).toEqual([]);
    expect(errors("kubectl get pod -o wide -w")).toEqual([]);
    expect(errors("kubectl get pvc,pv,pod -o wide")).toEqual([]);
    // Counted before they resolve: two names for one type are still two (builder.resourceMappings).
    expect(errors("kubectl get pvc,persistentvolumeclaims -w")).toEqual(["you may only specify a single resource type"]);
  });

  it("rejects flags kubectl does not have, with pflag's words", () => {
    expect(errors("kubectl get pods --nope")).toEqual(["unknown flag: --nope"]);
    expect(errors("kubectl get pods -z")).toEqual(["unknown shorthand flag: 'z' in -z"]);
    expect(errors("kubectl logs app --tail")).toEqual(["flag needs an argument: --tail"]);
    expect(errors("kubectl get pods -o")).toEqual(["flag needs an argument: 'o' in -o"]);
    expect(errors("kubectl logs app --tail=ten")).toEqual([
      'invalid argument "ten" for "--tail" flag: strconv.ParseInt: parsing "ten": invalid syntax',
    ]);
    expect(errors("kubectl wait pod/app --for=delete --timeout=2 minutes")).toEqual([
      'invalid argument "2" for "--timeout" flag: time: missing unit in duration "2"',
    ]);
    expect(errors("kubectl events --prefix")).toEqual(["unknown flag: --prefix"]);
  });

  it("rejects resource types the cluster does not serve, and bad TYPE/NAME mixes", () => {
    expect(errors("kubectl get pvx")).toEqual(['the server doesn\'t have a resource type "pvx"']);
    expect(errors("kubectl get pod pod/app")[0]).toMatch(/^there is no need to specify a resource type as a separate argument/);
    expect(errors("kubectl get pod/app/x")).toEqual(["arguments in resource/name form may not have more than one slash"]);
    expect(errors("kubectl get pod,pvc/app")).toEqual(["arguments in resource/name form must have a single resource and name"]);
    expect(errors("kubectl get pod app -l app=x")).toEqual(["name cannot be provided when a selector is specified"]);
    expect(errors("kubectl get")[0]).toMatch(/^You must specify the type of resource to get/);
    expect(errors("kubectl delete pod")).toEqual(["resource(s) were provided, but no name was specified"]);
  });

  it("checks -o: the formats, JSONPath and custom-columns templates", () => {
    expect(errors("kubectl get pods -o table")[0]).toMatch(/^unable to match a printer suitable for the output format "table"/);
    expect(errors("kubectl get pvc data -o jsonpath='{.status.phase'")).toEqual(["error parsing jsonpath {.status.phase, unclosed action"]);
    expect(errors("kubectl get pods -o jsonpath")).toEqual(["template format specified but no template given"]);
    expect(errors("kubectl get pv -o custom-columns=NAME:.metadata.name,PHASE")).toEqual([
      "unexpected custom-columns spec: PHASE, expected <header>:<json-path-expr>",
    ]);
    expect(errors("kubectl events -o wide")[0]).toMatch(/^unable to match a printer/);
    expect(errors("kubectl get pods -o yaml --show-labels")).toEqual(["--show-labels option cannot be used with yaml printer"]);
    expect(errors("kubectl get pods --output-watch-events")).toEqual([
      "--output-watch-events option can only be used with --watch or --watch-only",
    ]);
  });

  it("checks kubectl events (--for TYPE/NAME, --types Normal|Warning, no arguments)", () => {
    expect(errors("kubectl events --for pvc")).toEqual(["--for must be in resource/name form"]);
    expect(errors("kubectl events --for pvx/data")).toEqual(['the server doesn\'t have a resource type "pvx"']);
    expect(errors("kubectl events -w --types=Foo")).toEqual(["valid --types are Normal or Warning"]);
    // kubectl ignores arguments and lists the whole namespace: accepted, but never what a sheet means.
    expect(checkCommandLine("kubectl events pvc/data", at33)).toEqual({
      errors: [],
      warnings: ["kubectl events ignores its arguments (pvc/data): use --for TYPE/NAME"],
    });
    expect(errors("kubectl events --for pvc/data --types=Warning,normal -w")).toEqual([]);
  });

  it("checks kubectl logs (logs.go Complete and Validate)", () => {
    expect(errors("kubectl logs csi-hostpathplugin-0 -l app=x")).toEqual(["only a selector (-l) or a POD name is allowed"]);
    expect(errors("kubectl logs")[0]).toMatch(/POD or TYPE\/NAME is a required argument/);
    expect(errors("kubectl logs app c -c c")).toEqual(["only one of -c or an inline [CONTAINER] arg is allowed"]);
    expect(errors("kubectl logs app -c hostpath --all-containers")).toEqual([
      "--all-containers=true should not be specified with container name hostpath",
    ]);
    expect(errors("kubectl logs app --tail=-2")).toEqual(["--tail must be greater than or equal to -1"]);
    // Accepted, but a selector shows only the last 10 lines of each container: a grep would miss the line it wants.
    expect(warnings("kubectl logs -l app=x -c hostpath --prefix | grep CreateVolume")).toEqual([
      "with -l, kubectl logs prints only the last 10 lines of each container unless --tail is given",
    ]);
    expect(checkCommandLine("kubectl logs -n default -l app=x -c hostpath --prefix --tail=-1 | grep CreateVolume", at33)).toEqual({
      errors: [],
      warnings: [],
    });
  });

  it("checks apply, create, delete and wait", () => {
    expect(errors("kubectl apply pod.yaml")).toEqual(["Unexpected args: [pod.yaml]"]);
    expect(errors("kubectl apply")).toEqual(["must specify one of -f and -k"]);
    expect(errors("kubectl apply -f pod.yaml --dry-run=maybe")[0]).toMatch(/^Invalid dry-run value/);
    expect(errors("kubectl wait pod/app --for=ready")).toEqual(['unrecognized condition: "ready"']);
    expect(errors("kubectl wait pod/app --for=jsonpath='{.status.phase'=Running")[0]).toMatch(/^unexpected path string/);
    expect(errors("kubectl wait pod/app --for=jsonpath='{.status.phase}'=")[0]).toMatch(/^jsonpath wait has to have a value/);
    expect(errors("kubectl delete -f pod.yaml pod")).toEqual([
      "when paths, URLs, or stdin is provided as input, you may not specify resource arguments as well",
    ]);
  });

  it("accepts the forms lab sheets use", () => {
    for (const line of [
      "kubectl get pvc data -o yaml",
      "kubectl get pv -o custom-columns=NAME:.metadata.name,PHASE:.status.phase,CLAIM:.spec.claimRef.name",
      "kubectl get pods -n default -l app.kubernetes.io/name=csi-hostpathplugin --field-selector=status.phase=Running -o wide",
      "kubectl get events --sort-by=.lastTimestamp -A",
      "kubectl -n kube-system get pods",
      "kubectl describe pvc data",
      "kubectl describe pod/app",
      "kubectl events --for pod/app --types=Warning",
      "kubectl logs csi-hostpathplugin-0 --all-containers --prefix",
      "kubectl apply -f pvc.yaml",
      'sed "s/OTHER_NODE/$OTHER_NODE/" pod.yaml | kubectl apply -f -',
      "kubectl delete pod app && kubectl delete pvc data",
      "kubectl wait --for=condition=Ready pod/app --timeout=60s",
      "kubectl wait --for=jsonpath='{.status.phase}'=Bound pvc/data --timeout=120s",
      "kubectl debug node/pv-lab-control-plane -it --image=busybox:1.37 --profile=general -- chroot /host ls /mnt",
      "kubectl kustomize https://github.com/kubernetes-csi/external-snapshotter/client/config/crd | kubectl create -f -",
      "kind create cluster --name pv-lab --config kind.yaml --image kindest/node:v1.33.7@sha256:d26ef333bdb2cbe9862a0f7c3803ecc7b4303d8cea8e814b481b09949d353040",
      "kind delete cluster --name pv-lab",
    ]) {
      expect(checkCommandLine(line, at33), line).toEqual({ errors: [], warnings: [] });
    }
  });

  it("checks kind's commands and the node image's pin", () => {
    expect(errors("kind create cluster pv-lab")).toEqual(['unknown command "pv-lab" for "kind create cluster"']);
    expect(errors("kind create cluster --nodes 3")).toEqual(["unknown flag: --nodes"]);
    expect(warnings("kind create cluster --image kindest/node:v1.33.1")).toEqual([
      "kind's node image kindest/node:v1.33.1 is not pinned by digest, as kind's release notes ask",
    ]);
  });

  it("accepts only the programs it has rules for", () => {
    expect(errors("docker run busybox")).toEqual(["docker: only docker exec CONTAINER COMMAND is used on lab sheets"]);
    expect(errors("podman exec pv-lab-control-plane mkdir -p /mnt/disks/ssd1")).toEqual([]);
    expect(errors("helm install x")).toEqual(["helm: not a program the checker knows"]);
    expect(errors("kubectl exec app -- ls")[0]).toMatch(/^kubectl exec: not a command the checker knows/);
    expect(errors("kubectl debug node/x -- ls")).toEqual(["you must specify --image when not using --copy-to."]);
    expect(errors("kubectl version extra")).toEqual(["extra arguments: [extra]"]);
  });
});
