import type { KubeObject } from "./types";
import { isRecord } from "../guards";

/**
 * A small, deterministic YAML emitter in kubectl's block style: two-space
 * indents, sequences not indented under their key, "{}"/"[]" for empty
 * collections. Map keys are sorted the way kubectl's YAML printer sorts them
 * (the screen claims to show `kubectl get -o yaml`, so apiVersion, kind,
 * metadata, spec, status, and inside them alphabetical). Unlike kubectl it
 * never folds long strings, so one value is always one line.
 */

// YAML 1.1 words that a parser would read as booleans or null (yaml.v2, which kubectl uses).
const RESERVED_WORDS = new Set([
  "y",
  "Y",
  "yes",
  "Yes",
  "YES",
  "n",
  "N",
  "no",
  "No",
  "NO",
  "true",
  "True",
  "TRUE",
  "false",
  "False",
  "FALSE",
  "on",
  "On",
  "ON",
  "off",
  "Off",
  "OFF",
  "null",
  "Null",
  "NULL",
  "~",
  "<<",
  "=",
]);

const NUMBER_LIKE = [
  /^[-+]?(\d[\d_]*)?\.?\d[\d_]*([eE][-+]?\d+)?$/, // 10, 1.5, .5, 1e3, 1_000
  /^[-+]?0x[0-9a-fA-F_]+$/,
  /^[-+]?0o?[0-7_]+$/,
  /^[-+]?0b[01_]+$/,
  /^[-+]?\d+(:[0-5]?\d)+(\.\d*)?$/, // YAML 1.1 sexagesimal, e.g. 1:30
  /^[-+]?\.(inf|Inf|INF)$/,
  /^\.(nan|NaN|NAN)$/,
  /^\d{4}-\d{1,2}-\d{1,2}([Tt ].*)?$/, // timestamps
];

/** Would a YAML parser read this plain scalar as something other than the same string? */
function resolvesToNonString(s: string): boolean {
  return RESERVED_WORDS.has(s) || NUMBER_LIKE.some((re) => re.test(s));
}

/** Can this string be written plain without changing its meaning or breaking the line? */
function plainIsSafe(s: string): boolean {
  if (s === "") return false;
  if (/^[\s]|[\s]$/.test(s)) return false;
  if (/^[-?:,[\]{}#&*!|>'"%@`]/.test(s)) return false;
  if (s.includes(": ") || s.includes(" #") || s.endsWith(":")) return false;
  // Control characters and line breaks need escapes.
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  if (/[\u0000-\u001f\u007f\u0085\u2028\u2029]/.test(s)) return false;
  return true;
}

function formatString(s: string): string {
  // kubectl's choice: double quotes for values that would change type ("yes", "10", ""),
  // single quotes for text that merely cannot be plain ("a: b"), plain otherwise.
  if (s === "" || resolvesToNonString(s)) return JSON.stringify(s);
  if (plainIsSafe(s)) return s;
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  if (/[\u0000-\u001f\u007f\u0085\u2028\u2029]/.test(s)) return JSON.stringify(s);
  return `'${s.replace(/'/g, "''")}'`;
}

function formatScalar(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "string") return formatString(value);
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") {
    if (Number.isNaN(value)) return ".nan";
    if (!Number.isFinite(value)) return value > 0 ? ".inf" : "-.inf";
    return String(value);
  }
  if (typeof value === "bigint") return value.toString();
  throw new TypeError(`cannot write ${typeof value} as YAML`);
}

type Collection = Record<string, unknown> | unknown[];

function isCollection(value: unknown): value is Collection {
  return typeof value === "object" && value !== null;
}

function isEmpty(value: Collection): boolean {
  return Array.isArray(value) ? value.length === 0 : Object.keys(value).length === 0;
}

/** A scalar or an empty collection: fits on the same line as its key or dash. */
function inline(value: unknown): string | null {
  if (!isCollection(value)) return formatScalar(value);
  if (isEmpty(value)) return Array.isArray(value) ? "[]" : "{}";
  return null;
}

const isLetter = (c: string) => /\p{L}/u.test(c);
const isDigit = (c: string) => c >= "0" && c <= "9";

/**
 * kubectl prints YAML through sigs.k8s.io/yaml, whose go-yaml v2 sorts map keys
 * with keyList.Less: rune by rune, letters after non-letters, runs of digits
 * compared as numbers. Plain code-unit order differs for keys such as "a-b"
 * vs "ab" and "x10" vs "x9", so this is a port, not localeCompare.
 */
export function compareYamlKeys(a: string, b: string): number {
  const ar = [...a];
  const br = [...b];
  for (let i = 0; i < ar.length && i < br.length; i++) {
    if (ar[i] === br[i]) continue;
    const al = isLetter(ar[i]);
    const bl = isLetter(br[i]);
    if (al && bl) return ar[i] < br[i] ? -1 : 1;
    if (al || bl) return bl ? -1 : 1;
    let an = 0;
    let bn = 0;
    if (ar[i] === "0" || br[i] === "0") {
      for (let j = i - 1; j >= 0 && isDigit(ar[j]); j--) {
        if (ar[j] !== "0") {
          an = 1;
          bn = 1;
          break;
        }
      }
    }
    let ai = i;
    let bi = i;
    for (; ai < ar.length && isDigit(ar[ai]); ai++) an = an * 10 + Number(ar[ai]);
    for (; bi < br.length && isDigit(br[bi]); bi++) bn = bn * 10 + Number(br[bi]);
    if (an !== bn) return an < bn ? -1 : 1;
    if (ai !== bi) return ai < bi ? -1 : 1;
    return ar[i] < br[i] ? -1 : 1;
  }
  return ar.length - br.length;
}

function emitMap(map: Record<string, unknown>, indent: number, out: string[]): void {
  const pad = " ".repeat(indent);
  const entries = Object.entries(map).sort(([a], [b]) => compareYamlKeys(a, b));
  for (const [rawKey, value] of entries) {
    if (value === undefined) continue; // JSON semantics: absent
    const key = formatString(rawKey);
    const simple = inline(value);
    if (simple !== null) {
      out.push(`${pad}${key}: ${simple}`);
    } else if (Array.isArray(value)) {
      out.push(`${pad}${key}:`);
      emitList(value, indent, out); // kubectl style: "- " at the key's indent
    } else {
      out.push(`${pad}${key}:`);
      emitMap(isRecord(value) ? value : {}, indent + 2, out);
    }
  }
}

function emitList(list: unknown[], indent: number, out: string[]): void {
  const pad = " ".repeat(indent);
  for (const item of list) {
    const simple = inline(item === undefined ? null : item);
    if (simple !== null) {
      out.push(`${pad}- ${simple}`);
      continue;
    }
    // Emit the nested collection two columns in, then put the dash on its first line.
    const nested: string[] = [];
    if (Array.isArray(item)) emitList(item, indent + 2, nested);
    else emitMap(isRecord(item) ? item : {}, indent + 2, nested);
    nested[0] = `${pad}- ${nested[0].slice(indent + 2)}`;
    out.push(...nested);
  }
}

// World objects are deep-frozen and shared between steps, so their YAML can be memoised by identity.
const memo = new WeakMap<object, string>();

/** The object as block-style YAML, lines joined with "\n" and no trailing newline. */
export function toYaml(obj: KubeObject): string {
  const cached = memo.get(obj);
  if (cached !== undefined) return cached;
  const out: string[] = [];
  emitMap(obj, 0, out);
  const text = out.join("\n");
  if (Object.isFrozen(obj)) memo.set(obj, text);
  return text;
}

function splitLines(text: string): string[] {
  return text === "" ? [] : text.split("\n");
}

/**
 * 0-based indices of the lines of `nextYaml` that are new or changed compared
 * with `prevYaml` (every line when there is no previous text). A plain LCS
 * line diff: objects here are tens of lines, so O(n·m) is nothing.
 */
export function changedLines(prevYaml: string | null, nextYaml: string): Set<number> {
  const next = splitLines(nextYaml);
  if (prevYaml === null) return new Set(next.map((_, i) => i));
  const prev = splitLines(prevYaml);
  const n = prev.length;
  const m = next.length;
  // lcs[i][j] = LCS length of prev[i..] and next[j..]
  const lcs: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i][j] = prev[i] === next[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const changed = new Set<number>();
  let i = 0;
  let j = 0;
  while (j < m) {
    if (i < n && prev[i] === next[j]) {
      i++;
      j++;
    } else if (i < n && lcs[i + 1][j] >= lcs[i][j + 1]) {
      i++;
    } else {
      changed.add(j);
      j++;
    }
  }
  return changed;
}
