/**
 * The flags kubectl and kind accept, per command, as their sources declare
 * them (kubernetes/kubectl pkg/cmd/<command>, k8s.io/cli-runtime
 * genericclioptions, kubernetes-sigs/kind pkg/cmd/kind), and pflag's parsing
 * rules: `--name=value`, `--name value`, `-x value`, `-xvalue`, `-x=value`,
 * bool shorthands combined (`-it`), `--` ending the flags. A flag that is not
 * listed is one kubectl rejects with "unknown flag".
 */

import type { ShellWord } from "./kubectlArgsShell";

export type FlagType = "bool" | "string" | "int" | "duration" | "list";

export interface FlagSpec {
  name: string;
  short?: string;
  type: FlagType;
  /** pflag's NoOptDefVal: the value when the flag is given bare (`--dry-run`, `--validate`, `--cascade`), so it never takes the next word. */
  bare?: string;
  /** First kubectl minor release that has it, when later than 1.32. */
  since?: number;
}

const flag = (name: string, type: FlagType, short?: string, extra: Pick<FlagSpec, "bare" | "since"> = {}): FlagSpec => ({
  name,
  type,
  ...(short ? { short } : {}),
  ...extra,
});

/** kubectl's persistent flags (ConfigFlags, klog, the root command). */
export const KUBECTL_GLOBAL_FLAGS: readonly FlagSpec[] = [
  flag("as", "string"),
  flag("as-group", "list"),
  flag("as-uid", "string"),
  flag("cache-dir", "string"),
  flag("certificate-authority", "string"),
  flag("client-certificate", "string"),
  flag("client-key", "string"),
  flag("cluster", "string"),
  flag("context", "string"),
  flag("disable-compression", "bool"),
  flag("insecure-skip-tls-verify", "bool"),
  flag("kubeconfig", "string"),
  flag("log-flush-frequency", "duration"),
  flag("match-server-version", "bool"),
  flag("namespace", "string", "n"),
  flag("password", "string"),
  flag("profile", "string"),
  flag("profile-output", "string"),
  flag("request-timeout", "string"),
  flag("server", "string", "s"),
  flag("tls-server-name", "string"),
  flag("token", "string"),
  flag("user", "string"),
  flag("username", "string"),
  flag("v", "int", "v"),
  flag("vmodule", "string"),
  flag("warnings-as-errors", "bool"),
];

const FILENAMES = [flag("filename", "list", "f"), flag("kustomize", "string", "k"), flag("recursive", "bool", "R")];
const SELECTOR = flag("selector", "string", "l");
const CHUNK_SIZE = flag("chunk-size", "int");
/** genericclioptions.PrintFlags: -o plus the template flags. */
const PRINT = [
  flag("output", "string", "o"),
  flag("template", "string"),
  flag("allow-missing-template-keys", "bool"),
  flag("show-managed-fields", "bool"),
];
const DRY_RUN = flag("dry-run", "string", undefined, { bare: "unchanged" });
const VALIDATE = flag("validate", "string", undefined, { bare: "strict" });

export const KUBECTL_COMMAND_FLAGS: Readonly<Record<string, readonly FlagSpec[]>> = {
  get: [
    ...PRINT,
    flag("no-headers", "bool"),
    flag("show-kind", "bool"),
    flag("show-labels", "bool"),
    flag("sort-by", "string"),
    flag("label-columns", "list", "L"),
    flag("server-print", "bool"),
    flag("raw", "string"),
    flag("watch", "bool", "w"),
    flag("watch-only", "bool"),
    flag("output-watch-events", "bool"),
    flag("ignore-not-found", "bool"),
    flag("field-selector", "string"),
    flag("all-namespaces", "bool", "A"),
    ...FILENAMES,
    CHUNK_SIZE,
    SELECTOR,
    flag("subresource", "string"),
  ],
  describe: [...FILENAMES, SELECTOR, flag("all-namespaces", "bool", "A"), flag("show-events", "bool"), CHUNK_SIZE],
  events: [
    ...PRINT,
    flag("watch", "bool", "w"),
    flag("all-namespaces", "bool", "A"),
    flag("for", "string"),
    flag("types", "list"),
    flag("no-headers", "bool"),
    CHUNK_SIZE,
  ],
  logs: [
    flag("all-pods", "bool"),
    flag("all-containers", "bool"),
    flag("follow", "bool", "f"),
    flag("timestamps", "bool"),
    flag("limit-bytes", "int"),
    flag("previous", "bool", "p"),
    flag("tail", "int"),
    flag("ignore-errors", "bool"),
    flag("since-time", "string"),
    flag("since", "duration"),
    flag("container", "string", "c"),
    flag("insecure-skip-tls-verify-backend", "bool"),
    flag("pod-running-timeout", "duration"),
    SELECTOR,
    flag("max-log-requests", "int"),
    flag("prefix", "bool"),
  ],
  apply: [
    ...FILENAMES,
    flag("cascade", "string", undefined, { bare: "background" }),
    flag("force", "bool"),
    flag("grace-period", "int"),
    flag("timeout", "duration"),
    flag("wait", "bool"),
    flag("record", "bool"),
    ...PRINT,
    VALIDATE,
    DRY_RUN,
    flag("server-side", "bool"),
    flag("force-conflicts", "bool"),
    flag("field-manager", "string"),
    SELECTOR,
    flag("prune", "bool"),
    flag("prune-allowlist", "list"),
    flag("all", "bool"),
    flag("overwrite", "bool"),
    flag("openapi-patch", "bool"),
    flag("subresource", "string"),
  ],
  create: [
    ...FILENAMES,
    ...PRINT,
    flag("edit", "bool"),
    flag("windows-line-endings", "bool"),
    flag("raw", "string"),
    flag("save-config", "bool"),
    SELECTOR,
    VALIDATE,
    DRY_RUN,
    flag("field-manager", "string"),
  ],
  delete: [
    ...FILENAMES,
    SELECTOR,
    flag("field-selector", "string"),
    flag("all", "bool"),
    flag("all-namespaces", "bool", "A"),
    flag("force", "bool"),
    flag("cascade", "string", undefined, { bare: "background" }),
    flag("now", "bool"),
    flag("grace-period", "int"),
    flag("timeout", "duration"),
    flag("ignore-not-found", "bool"),
    flag("wait", "bool"),
    flag("output", "string", "o"),
    flag("raw", "string"),
    flag("interactive", "bool", "i"),
  ],
  wait: [
    ...PRINT,
    ...FILENAMES,
    SELECTOR,
    flag("field-selector", "string"),
    flag("all", "bool"),
    flag("all-namespaces", "bool", "A"),
    flag("local", "bool"),
    flag("timeout", "duration"),
    flag("for", "list"),
  ],
  debug: [
    flag("arguments-only", "bool"),
    flag("attach", "bool"),
    flag("container", "string", "c"),
    flag("copy-to", "string"),
    flag("replace", "bool"),
    flag("env", "list"),
    flag("image", "string"),
    flag("keep-labels", "bool"),
    flag("keep-annotations", "bool"),
    flag("keep-liveness", "bool"),
    flag("keep-readiness", "bool"),
    flag("keep-startup", "bool"),
    flag("keep-init-containers", "bool"),
    flag("set-image", "list"),
    flag("image-pull-policy", "string"),
    flag("stdin", "bool", "i"),
    flag("quiet", "bool", "q"),
    flag("same-node", "bool"),
    flag("share-processes", "bool"),
    flag("target", "string"),
    flag("tty", "bool", "t"),
    flag("profile", "string"),
    flag("custom", "string"),
  ],
  kustomize: [
    flag("output", "string", "o"),
    flag("enable-helm", "bool"),
    flag("load-restrictor", "string"),
    flag("enable-alpha-plugins", "bool"),
  ],
  version: [flag("client", "bool"), flag("output", "string", "o")],
};

/** kind's persistent flags and its cluster commands' flags (kind v0.31.0). */
export const KIND_GLOBAL_FLAGS: readonly FlagSpec[] = [flag("verbosity", "int", "v"), flag("quiet", "bool", "q")];
export const KIND_COMMAND_FLAGS: Readonly<Record<string, readonly FlagSpec[]>> = {
  "create cluster": [
    flag("name", "string", "n"),
    flag("config", "string"),
    flag("image", "string"),
    flag("retain", "bool"),
    flag("wait", "duration"),
    flag("kubeconfig", "string"),
  ],
  "delete cluster": [flag("name", "string", "n"), flag("kubeconfig", "string")],
  "get clusters": [],
  version: [],
};

export interface ParsedArgs {
  /** Each flag given, by its long name, with every value in order (a bool given bare is "true"). */
  flags: Map<string, string[]>;
  /** Flags whose value depends on a variable or a command's output. */
  dynamicFlags: Set<string>;
  positionals: ShellWord[];
  /** Words after `--`: a command to run (kubectl debug, exec). */
  afterDashes: ShellWord[];
}

const BOOL = /^(1|0|t|f|T|F|true|false|TRUE|FALSE|True|False)$/;
const INT = /^[+-]?\d+$/;
// Go's time.ParseDuration.
const DURATION = /^[+-]?(0|((\d+(\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h))+)$/;

function checkValue(spec: FlagSpec, value: string, shown: string): string | null {
  const invalid = (why: string) => `invalid argument "${value}" for "${shown}" flag: ${why}`;
  if (spec.type === "bool" && !BOOL.test(value)) return invalid(`strconv.ParseBool: parsing "${value}": invalid syntax`);
  if (spec.type === "int" && !INT.test(value)) return invalid(`strconv.ParseInt: parsing "${value}": invalid syntax`);
  if (spec.type === "duration" && !DURATION.test(value)) {
    return invalid(
      /^[+-]?(\d+(\.\d*)?|\.\d+)$/.test(value) ? `time: missing unit in duration "${value}"` : `time: invalid duration "${value}"`,
    );
  }
  return null;
}

/**
 * pflag's parse of one command's words (interspersed flags and arguments).
 * Returns the parse, or the error pflag would print.
 */
export function parseFlags(words: readonly ShellWord[], specs: readonly FlagSpec[], minor: number): ParsedArgs | string {
  const parsed: ParsedArgs = { flags: new Map(), dynamicFlags: new Set(), positionals: [], afterDashes: [] };
  const byName = new Map(specs.map((s) => [s.name, s]));
  const byShort = new Map(specs.filter((s) => s.short).map((s) => [s.short!, s]));
  const set = (spec: FlagSpec, value: string, dynamic: boolean, shown: string): string | null => {
    if (spec.since !== undefined && minor < spec.since) return `unknown flag: --${spec.name} (new in kubectl 1.${spec.since})`;
    if (!dynamic) {
      const bad = checkValue(spec, value, shown);
      if (bad) return bad;
    }
    const values = parsed.flags.get(spec.name) ?? [];
    values.push(...(spec.type === "list" ? value.split(",") : [value]));
    parsed.flags.set(spec.name, values);
    if (dynamic) parsed.dynamicFlags.add(spec.name);
    return null;
  };
  for (let i = 0; i < words.length; i++) {
    const word = words[i];
    const arg = word.value;
    if (arg === "--") {
      parsed.afterDashes.push(...words.slice(i + 1));
      break;
    }
    if (arg.startsWith("--") && arg.length > 2) {
      const eq = arg.indexOf("=");
      const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
      const spec = byName.get(name);
      if (!spec) return `unknown flag: --${name}`;
      let value: string;
      let dynamic = word.dynamic;
      if (eq >= 0) value = arg.slice(eq + 1);
      else if (spec.type === "bool" || spec.bare !== undefined) value = spec.bare ?? "true";
      else if (i + 1 < words.length) {
        value = words[++i].value;
        dynamic = words[i].dynamic;
      } else return `flag needs an argument: --${name}`;
      const bad = set(spec, value, dynamic, spec.short ? `-${spec.short}, --${spec.name}` : `--${spec.name}`);
      if (bad) return bad;
    } else if (arg.startsWith("-") && arg.length > 1) {
      for (let j = 1; j < arg.length; j++) {
        const c = arg[j];
        const spec = byShort.get(c);
        if (!spec) return `unknown shorthand flag: '${c}' in ${arg}`;
        const rest = arg.slice(j + 1);
        const shown = `-${c}, --${spec.name}`;
        let bad: string | null;
        if (rest.startsWith("=")) bad = set(spec, rest.slice(1), word.dynamic, shown);
        else if (spec.type === "bool" || spec.bare !== undefined) {
          bad = set(spec, spec.bare ?? "true", false, shown);
          if (bad) return bad;
          continue;
        } else if (rest !== "") bad = set(spec, rest, word.dynamic, shown);
        else if (i + 1 < words.length) {
          i++;
          bad = set(spec, words[i].value, words[i].dynamic, shown);
        } else return `flag needs an argument: '${c}' in ${arg}`;
        if (bad) return bad;
        break;
      }
    } else parsed.positionals.push(word);
  }
  return parsed;
}

/** Where the command's name ends: the first word that is neither a global flag nor a global flag's value (cobra's stripFlags). */
export function commandPath(
  words: readonly ShellWord[],
  globals: readonly FlagSpec[],
  depth: number,
): { path: string[]; rest: ShellWord[] } {
  const path: string[] = [];
  const rest: ShellWord[] = [];
  for (let i = 0; i < words.length; i++) {
    const arg = words[i].value;
    if (path.length < depth && !arg.startsWith("-")) {
      path.push(arg);
      continue;
    }
    rest.push(words[i]);
    if (path.length >= depth || arg.includes("=") || !arg.startsWith("-")) continue;
    const spec = arg.startsWith("--") ? globals.find((s) => s.name === arg.slice(2)) : globals.find((s) => s.short === arg.slice(1));
    if (spec && spec.type !== "bool" && spec.bare === undefined && i + 1 < words.length) rest.push(words[++i]);
  }
  return { path, rest };
}
