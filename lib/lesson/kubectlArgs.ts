import { jsonpathError } from "./kubectlArgsJsonpath";
import {
  KIND_COMMAND_FLAGS,
  KIND_GLOBAL_FLAGS,
  KUBECTL_COMMAND_FLAGS,
  KUBECTL_GLOBAL_FLAGS,
  commandPath,
  parseFlags,
  type ParsedArgs,
} from "./kubectlArgsFlags";
import { resolveResourceType } from "./kubectlArgsResources";
import { ShellSyntaxError, splitShellLine, type ShellWord, type SimpleCommand } from "./kubectlArgsShell";

/**
 * A checker of the command lines a lab sheet prints, so a class never types
 * one that errors. It applies kubectl's own argument rules, traced to their
 * source (kubernetes/kubectl pkg/cmd/{get,describe,events,logs,apply,delete,
 * wait,debug}, k8s.io/cli-runtime pkg/resource/builder.go): pflag's flag
 * parsing, how TYPE[,TYPE] [NAME] and TYPE/NAME arguments combine, that a
 * watch takes one resource type, the output formats and their JSONPath or
 * custom-columns templates, and which resource types the lab cluster serves.
 * Errors are kubectl's own words where it has them.
 *
 * Warnings are for lines kubectl accepts that would still mislead on a lab
 * sheet (a selector's 10-line log default, an unpinned node image).
 */

export interface CheckContext {
  /** kubectl's and the cluster's minor release (the sheet's Kubernetes version), e.g. 33. */
  minor: number;
}

export interface LineVerdict {
  errors: string[];
  warnings: string[];
}

const GET_FORMATS = [
  "json",
  "yaml",
  "name",
  "go-template",
  "go-template-file",
  "template",
  "templatefile",
  "jsonpath",
  "jsonpath-as-json",
  "jsonpath-file",
  "custom-columns",
  "custom-columns-file",
  "wide",
];
const PRINT_FORMATS = GET_FORMATS.filter((f) => !f.startsWith("custom-columns") && f !== "wide");
const CUSTOM_COLUMN_PATH = /^\{\.?([^{}]+)\}$|^\.?([^{}]+)$/;

const first = (args: ParsedArgs, name: string): string | undefined => args.flags.get(name)?.[0];
const has = (args: ParsedArgs, name: string) => args.flags.has(name) && first(args, name) !== "false";
const isSelected = (args: ParsedArgs) => args.flags.has("selector") || args.flags.has("field-selector");

/** `-o`: one of the printer's formats, with a template that parses (genericclioptions PrintFlags, get_flags.go, customcolumn.go). */
function checkOutput(args: ParsedArgs, formats: readonly string[]): string[] {
  const output = first(args, "output");
  if (output === undefined || args.dynamicFlags.has("output")) return [];
  const eq = output.indexOf("=");
  const format = eq < 0 ? output : output.slice(0, eq);
  const template = eq < 0 ? (first(args, "template") ?? "") : output.slice(eq + 1);
  if (!formats.includes(format) || (eq >= 0 && ["json", "yaml", "name", "wide"].includes(format))) {
    return [`unable to match a printer suitable for the output format "${output}", allowed formats are: ${[...formats].sort().join(",")}`];
  }
  if (format === "jsonpath" || format === "jsonpath-as-json") {
    if (template === "") return ["template format specified but no template given"];
    const bad = jsonpathError(template);
    return bad ? [`error parsing jsonpath ${template}, ${bad}`] : [];
  }
  if (format === "custom-columns") {
    if (template === "") return ["custom-columns format specified but no custom columns given"];
    for (const part of template.split(",")) {
      const colon = part.indexOf(":");
      if (colon < 0) return [`unexpected custom-columns spec: ${part}, expected <header>:<json-path-expr>`];
      const path = part.slice(colon + 1);
      if (path !== "" && !CUSTOM_COLUMN_PATH.test(path)) {
        return ["unexpected path string, expected a 'name1.name2' or '.name1.name2' or '{name1.name2}' or '{.name1.name2}'"];
      }
      const bad = path === "" ? null : jsonpathError(`{.${CUSTOM_COLUMN_PATH.exec(path)!.slice(1).find(Boolean)}}`);
      if (bad) return [`error parsing jsonpath ${path}, ${bad}`];
    }
  }
  return [];
}

interface ResourceArgs {
  /**
   * How many types a watch would have to follow: for TYPE,TYPE the names as given (a category counts each of
   * its types; builder.resourceMappings counts before it resolves, so pvc,persistentvolumeclaims is two), for
   * TYPE/NAME the distinct resources they resolve to (builder.resourceTupleMappings).
   */
  typeCount: number;
  names: ShellWord[];
  /** TYPE/NAME arguments were used. */
  tuples: boolean;
  errors: string[];
}

/** How kubectl reads `TYPE[,TYPE…] [NAME…]` or `TYPE/NAME…` (builder.go ResourceTypeOrNameArgs, and mappingFor for each type). */
function resourceArgs(words: readonly ShellWord[], minor: number): ResourceArgs {
  const out: ResourceArgs = { typeCount: 0, names: [], tuples: false, errors: [] };
  const canonical = new Set<string>();
  const resolve = (type: string) => {
    const found = resolveResourceType(type, minor);
    if (found.length === 0) out.errors.push(`the server doesn't have a resource type "${type}"`);
    for (const res of found) canonical.add(`${res.name}.${res.groupVersion}`);
    return found.length;
  };
  const args = words.map((w) => w.value);
  const slashed = args.filter((a) => a.includes("/")).length;
  if (slashed > 0 && slashed !== args.length) {
    out.errors.push(
      "there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. 'kubectl get resource/<resource_name>' instead of 'kubectl get resource resource/<resource_name>'",
    );
    return out;
  }
  if (slashed > 0) {
    out.tuples = true;
    for (const word of words) {
      const parts = word.value.split("/");
      if (parts.length !== 2) out.errors.push("arguments in resource/name form may not have more than one slash");
      else if (parts[0] === "" || parts[1] === "" || parts[0].includes(",")) {
        out.errors.push("arguments in resource/name form must have a single resource and name");
      } else {
        resolve(parts[0]);
        out.names.push({ value: parts[1], dynamic: word.dynamic });
      }
    }
    out.typeCount = canonical.size;
    return out;
  }
  if (args.length === 0) return out;
  const types = [...new Set(args[0].split(","))];
  for (const type of types) out.typeCount += Math.max(1, resolve(type));
  if (types.length > 1 && words.length > 1) out.typeCount = canonical.size;
  out.names = words.slice(1);
  // a,b NAME is read as a/NAME b/NAME (normalizeMultipleResourcesArgs).
  out.tuples = types.length > 1 && out.names.length > 0;
  return out;
}

/** kubectl get, describe, delete, wait: the builder's rules for what may be combined. */
function checkBuilder(verb: string, args: ParsedArgs, minor: number): string[] {
  const res = resourceArgs(args.positionals, minor);
  if (res.errors.length > 0) return res.errors;
  const files = args.flags.has("filename") || args.flags.has("kustomize");
  if (files && args.positionals.length > 0) {
    return ["when paths, URLs, or stdin is provided as input, you may not specify resource arguments as well"];
  }
  if (!files && args.positionals.length === 0) {
    return verb === "get" && !has(args, "watch") && !has(args, "watch-only")
      ? ['You must specify the type of resource to get. Use "kubectl api-resources" for a complete list of supported resources.']
      : ["You must provide one or more resources by argument or filename."];
  }
  if (isSelected(args) || has(args, "all")) {
    if (res.tuples) return ["selectors and the all flag cannot be used when passing resource/name arguments"];
    if (res.names.length > 0) return ["name cannot be provided when a selector is specified"];
  } else if (verb !== "get" && verb !== "describe" && !files && res.names.length === 0) {
    return ["resource(s) were provided, but no name was specified"];
  }
  if ((has(args, "watch") || has(args, "watch-only")) && res.typeCount > 1) return ["you may only specify a single resource type"];
  return [];
}

function checkGet(args: ParsedArgs, minor: number): string[] {
  const errors = [...checkBuilder("get", args, minor), ...checkOutput(args, GET_FORMATS)];
  const output = first(args, "output") ?? "";
  if (has(args, "show-labels") && output !== "" && output !== "wide")
    errors.push(`--show-labels option cannot be used with ${output} printer`);
  if (has(args, "output-watch-events") && !has(args, "watch") && !has(args, "watch-only")) {
    errors.push("--output-watch-events option can only be used with --watch or --watch-only");
  }
  return errors;
}

function checkEvents(args: ParsedArgs, minor: number, warnings: string[]): string[] {
  // kubectl ignores them and lists every event of the namespace: on a sheet, a mistake for --for.
  if (args.positionals.length > 0)
    warnings.push(`kubectl events ignores its arguments (${args.positionals.map((w) => w.value).join(" ")}): use --for TYPE/NAME`);
  const errors = checkOutput(args, PRINT_FORMATS);
  const forObject = first(args, "for");
  if (forObject !== undefined && !args.dynamicFlags.has("for")) {
    const parts = forObject.split("/");
    if (parts.length === 1) errors.push("--for must be in resource/name form");
    else if (parts.length > 2) errors.push("arguments in resource/name form may not have more than one slash");
    else if (resolveResourceType(parts[0], minor).length !== 1) errors.push(`the server doesn't have a resource type "${parts[0]}"`);
  }
  for (const type of args.flags.get("types") ?? []) {
    if (!/^(normal|warning)$/i.test(type)) errors.push("valid --types are Normal or Warning");
  }
  return errors;
}

function checkLogs(args: ParsedArgs, warnings: string[]): string[] {
  const count = args.positionals.length;
  const selector = args.flags.has("selector");
  const usage = "expected 'logs [-f] [-p] (POD | TYPE/NAME) [-c CONTAINER]'.\nPOD or TYPE/NAME is a required argument for the logs command";
  if (count === 0 && !selector) return [usage];
  if (count === 1 && selector) return ["only a selector (-l) or a POD name is allowed"];
  if (count > 2) return [usage];
  if (count === 2 && args.flags.has("container")) return ["only one of -c or an inline [CONTAINER] arg is allowed"];
  if (has(args, "all-containers") && (args.flags.has("container") || count === 2)) {
    return [`--all-containers=true should not be specified with container name ${first(args, "container") ?? args.positionals[1].value}`];
  }
  if (args.flags.has("since") && args.flags.has("since-time")) return ["at most one of `sinceTime` or `sinceSeconds` may be specified"];
  const tail = Number(first(args, "tail") ?? "-1");
  if (tail < -1) return ["--tail must be greater than or equal to -1"];
  if (selector && !args.flags.has("tail"))
    warnings.push("with -l, kubectl logs prints only the last 10 lines of each container unless --tail is given");
  return [];
}

function checkApplyOrCreate(verb: "apply" | "create", args: ParsedArgs): string[] {
  if (args.positionals.length > 0) {
    return verb === "apply"
      ? [`Unexpected args: [${args.positionals.map((w) => w.value).join(" ")}]`]
      : [`unknown command "${args.positionals[0].value}" for "kubectl create"`];
  }
  const files = args.flags.get("filename") ?? [];
  if (files.length === 0 && !args.flags.has("kustomize")) return ["must specify one of -f and -k"];
  const errors = checkOutput(args, PRINT_FORMATS);
  const dryRun = first(args, "dry-run");
  if (dryRun !== undefined && !["none", "server", "client", "unchanged"].includes(dryRun)) {
    errors.push(`Invalid dry-run value (${dryRun}). Must be "none", "server", or "client".`);
  }
  const validate = first(args, "validate");
  if (validate !== undefined && !["strict", "true", "warn", "ignore", "false"].includes(validate.toLowerCase())) {
    errors.push(`invalid - validate option "${validate}"; must be one of: strict (or true), warn, ignore (or false)`);
  }
  return errors;
}

/** `--for` of kubectl wait (wait.go conditionFuncsFor, processJSONPathInput). */
function checkWaitFor(condition: string, minor: number): string | null {
  const lower = condition.toLowerCase();
  if (lower === "delete") return null;
  if (lower === "create") return minor >= 31 ? null : `unrecognized condition: "${condition}"`;
  if (condition.startsWith("condition=")) return condition.length > "condition=".length ? null : `unrecognized condition: "${condition}"`;
  if (!condition.startsWith("jsonpath=")) return `unrecognized condition: "${condition}"`;
  const parts = condition.slice("jsonpath=".length).split(/(?<!=)=(?!=)/);
  if (parts.length < 1 || parts.length > 2) {
    return "jsonpath wait format must be --for=jsonpath='{.status.readyReplicas}'=3 or --for=jsonpath='{.status.readyReplicas}'";
  }
  const path = CUSTOM_COLUMN_PATH.exec(parts[0]);
  if (!path) return "unexpected path string, expected a 'name1.name2' or '.name1.name2' or '{name1.name2}' or '{.name1.name2}'";
  const bad = jsonpathError(`{.${path.slice(1).find(Boolean)}}`);
  if (bad) return bad;
  if (parts.length === 2 && parts[1].replace(/^['"]+|['"]+$/g, "") === "") {
    return "jsonpath wait has to have a value after equal sign, like --for=jsonpath='{.status.readyReplicas}'=3";
  }
  return null;
}

function checkWait(args: ParsedArgs, minor: number): string[] {
  const errors = [...checkBuilder("wait", args, minor), ...checkOutput(args, PRINT_FORMATS)];
  const conditions = args.flags.get("for") ?? [];
  if (conditions.length === 0) errors.push('unrecognized condition: "[]"');
  if (!args.dynamicFlags.has("for"))
    for (const c of conditions) errors.push(...[checkWaitFor(c, minor)].filter((e): e is string => e !== null));
  return errors;
}

const DEBUG_PROFILES = ["legacy", "general", "baseline", "netadmin", "restricted", "sysadmin"];

function checkDebug(args: ParsedArgs): string[] {
  if (args.positionals.length === 0) return ["NAME or filename is required for debug"];
  const profile = first(args, "profile");
  if (profile !== undefined && !DEBUG_PROFILES.includes(profile)) return [`unknown profile: ${profile}`];
  if (!args.flags.has("copy-to") && !args.flags.has("image")) return ["you must specify --image when not using --copy-to."];
  return [];
}

function checkKubectl(words: readonly ShellWord[], context: CheckContext, warnings: string[]): string[] {
  const { path, rest } = commandPath(words, KUBECTL_GLOBAL_FLAGS, 1);
  const verb = path[0];
  if (verb === undefined) return ["kubectl needs a command"];
  const specs = KUBECTL_COMMAND_FLAGS[verb];
  if (!specs) return [`kubectl ${verb}: not a command the checker knows; check its arguments against kubectl's source, then add it`];
  const parsed = parseFlags(rest, [...KUBECTL_GLOBAL_FLAGS, ...specs], context.minor);
  if (typeof parsed === "string") return [parsed];
  switch (verb) {
    case "get":
      if (has(parsed, "watch") && first(parsed, "sort-by"))
        warnings.push("--watch requested, --sort-by will be ignored for watch events received");
      return checkGet(parsed, context.minor);
    case "describe":
      return checkBuilder("describe", parsed, context.minor);
    case "delete":
      return [...checkBuilder("delete", parsed, context.minor), ...checkOutput(parsed, ["name"])];
    case "wait":
      return checkWait(parsed, context.minor);
    case "events":
      return checkEvents(parsed, context.minor, warnings);
    case "logs":
      return checkLogs(parsed, warnings);
    case "apply":
    case "create":
      return checkApplyOrCreate(verb, parsed);
    case "debug":
      return checkDebug(parsed);
    case "kustomize":
      return parsed.positionals.length > 1 ? ["specify one path to kustomization.yaml"] : [];
    case "version":
      return parsed.positionals.length > 0
        ? [`extra arguments: [${parsed.positionals.map((w) => w.value).join(" ")}]`]
        : checkOutput(parsed, ["json", "yaml"]);
    default:
      return [];
  }
}

/** kind's create/delete/get cluster commands (kind v0.31.0 pkg/cmd/kind): no arguments, their own flags. */
function checkKind(words: readonly ShellWord[], warnings: string[]): string[] {
  const group = commandPath(words, KIND_GLOBAL_FLAGS, 1).path[0];
  const { path, rest } = commandPath(words, KIND_GLOBAL_FLAGS, group === "version" ? 1 : 2);
  const name = path.join(" ");
  const specs = KIND_COMMAND_FLAGS[name];
  if (!specs) return [`kind ${name}: not a command the checker knows`];
  const parsed = parseFlags(rest, [...KIND_GLOBAL_FLAGS, ...specs], 0);
  if (typeof parsed === "string") return [parsed];
  if (parsed.positionals.length > 0) return [`unknown command "${parsed.positionals[0].value}" for "kind ${name}"`];
  const image = first(parsed, "image");
  if (image !== undefined && !/^kindest\/node:v\d+\.\d+\.\d+@sha256:[0-9a-f]{64}$/.test(image)) {
    warnings.push(`kind's node image ${image} is not pinned by digest, as kind's release notes ask`);
  }
  return [];
}

/** Programs other than kubectl and kind that lab sheets use; each gets only a shape check. */
function checkOther(command: SimpleCommand): string[] {
  const [program, ...args] = command.words.map((w) => w.value);
  switch (true) {
    case program === "git":
      return args[0] === "clone" && args.length >= 2 ? [] : ["git: only git clone URL is used on lab sheets"];
    case program === "docker" || program === "podman":
      return args[0] === "exec" && args.length >= 3 ? [] : [`${program}: only ${program} exec CONTAINER COMMAND is used on lab sheets`];
    case /(^|\/)deploy\.sh$/.test(program):
    case ["sed", "grep", "printf", "echo", "sort", "head", "tail"].includes(program):
      return [];
    default:
      return [`${program}: not a program the checker knows`];
  }
}

/** Every simple command of a line, with the ones inside `$(…)`. */
function simpleCommands(line: string): SimpleCommand[] {
  const split = splitShellLine(line);
  return [...split.commands, ...split.substitutions.flatMap(simpleCommands)];
}

/** Checks one command line as a lab sheet prints it: every kubectl and kind command in it, pipes and $(…) included. */
export function checkCommandLine(line: string, context: CheckContext): LineVerdict {
  const verdict: LineVerdict = { errors: [], warnings: [] };
  let commands: SimpleCommand[];
  try {
    commands = simpleCommands(line);
  } catch (error) {
    if (error instanceof ShellSyntaxError) return { errors: [`shell: ${error.message}`], warnings: [] };
    throw error;
  }
  for (const command of commands) {
    if (command.words.length === 0) continue;
    const [program, ...rest] = command.words;
    if (program.value === "kubectl") verdict.errors.push(...checkKubectl(rest, context, verdict.warnings));
    else if (program.value === "kind") verdict.errors.push(...checkKind(rest, verdict.warnings));
    else verdict.errors.push(...checkOther(command));
  }
  return verdict;
}
