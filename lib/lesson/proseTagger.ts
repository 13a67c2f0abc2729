import { parse, TYPE, type MessageFormatElement } from "@formatjs/icu-messageformat-parser";
import { WFFC_STEPS } from "./card";
import { kubeStrings } from "./kubeStrings";
import { scenariosFor } from "./scenarios";
import { KUBE_VERSIONS } from "./versions";
import { worldAt } from "./world";

/**
 * The lesson's English prose as catalog messages: Kubernetes strings wrapped
 * in `<k8s>…</k8s>` (docs/i18n.md), ICU's special characters quoted. Used to
 * write a new English sentence into messages/lesson/en.json; a person may then
 * move a tag (scripts/lessonCatalog.ts keeps their markup while the English
 * underneath is unchanged). What stays untranslated is Kubernetes as
 * Kubernetes prints it, plus the card's step captions.
 */

/** The tag's name in every lesson message. */
export const K8S_TAG = "k8s";

/** The plain text a catalog message reads as (tags dropped, ICU quoting undone). */
export function messageText(message: string): string {
  return flat(parse(message));
}

/** The contents of every `<k8s>` tag of a message, in order. */
export function k8sContents(message: string): string[] {
  const out: string[] = [];
  const walk = (elements: MessageFormatElement[]) => {
    for (const el of elements) {
      if (el.type !== TYPE.tag) continue;
      if (el.value === K8S_TAG) out.push(flat(el.children));
      else walk(el.children);
    }
  };
  walk(parse(message));
  return out;
}

function flat(elements: MessageFormatElement[]): string {
  return elements
    .map((el) => {
      if (el.type === TYPE.literal) return el.value;
      if (el.type === TYPE.tag) return flat(el.children);
      // Only the poll templates have placeholders: {title} reads as itself, so English and a translation compare alike.
      if (el.type === TYPE.argument) return `{${el.value}}`;
      throw new Error(`a lesson message has only text, tags and plain placeholders, found ${JSON.stringify(el)}`);
    })
    .join("");
}

/** Text as an ICU literal: runs of `{ } <` quoted, and an apostrophe doubled where it would start a quote. */
export function escapeIcu(text: string): string {
  return text.replace(/'(?=[{}<'])/g, "''").replace(/[{}<]+/g, (run) => `'${run}'`);
}

// Quoted words that are the card's or the lesson's own, not Kubernetes output.
const PROSE_QUOTES = new Set(["Control plane", "noticed a change"]);

// Single words that are Kubernetes values where the lesson writes them capitalized: phases, event
// reasons, condition types and statuses, policies.
const KUBE_WORDS = [
  "Pending",
  "Bound",
  "Available",
  "Immediate",
  "Provisioning",
  "Scheduled",
  "Pulling",
  "Pulled",
  "Created",
  "Started",
  "Initialized",
  "Ready",
  "True",
  "False",
  "Always",
  "Delete",
  "Retain",
  "Warning",
  "Filesystem",
  "Block",
  "nginx",
];

// Hyphenated names that are Kubernetes identifiers (annotations' short names, components, the lesson's objects).
const KUBE_HYPHENATED =
  /^(?:--[a-z-]+|(?:node|zone|vol|pvc|local-pv|kube|external|csi)-\S+|selected-node|bound-by-controller|provisioned-by|pvc-protection|pv-protection|bind-completed|storage-provisioner|provisioner-deletion-secret|no-provisioner|persistentvolume-controller|attachdetach-controller|default-scheduler)$/;

// Slash or dot words that are prose, not paths.
const PROSE_SLASHES = new Set(["stage/publish", "attach/detach", "Request/write", "e.g"]);

function isKubeToken(core: string): boolean {
  if (core.length < 2) return false;
  if (PROSE_SLASHES.has(core)) return false;
  if (KUBE_WORDS.includes(core)) return true;
  if (KUBE_HYPHENATED.test(core)) return true;
  if (/[A-Za-z][./][A-Za-z<…]|[.…]\/|[<{=]|_/.test(core)) return true; // paths, dotted fields, snake_case, templates
  if (/^[a-z]+[A-Z][A-Za-z0-9]*$/.test(core)) return true; // camelCase: nodeName, claimRef
  if (/^[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*$/.test(core)) return true; // PascalCase: PersistentVolumeClaim, PreBind
  if (/^[A-Z]{2,}[a-z]+[A-Z]?[A-Za-z]*$/.test(core) && /[a-z]/.test(core) && !/^[A-Z]+s$/.test(core)) return true; // CSINode, CSIStorageCapacity
  return false;
}

let phrases: string[] | null = null;

/** Whole phrases to keep as one: every event message and scheduler reason the lesson prints, the card's captions, commands. */
function knownPhrases(): string[] {
  if (phrases) return phrases;
  const set = new Set<string>(WFFC_STEPS.map((s) => s.title));
  for (const version of KUBE_VERSIONS) {
    const k = kubeStrings(version);
    for (const r of Object.values(k.reasons)) set.add(r);
    for (const r of k.postFilterReasons) set.add(r);
    set.add(k.created("app")).add(k.started("app")).add(k.alreadyPresent("nginx"));
    for (const scenario of Object.values(scenariosFor(version)))
      scenario.steps.forEach((_, i) => {
        for (const e of worldAt(scenario, i).events) set.add(e.message.trim());
      });
  }
  for (const p of [
    "kubectl get pod -o wide",
    "kubectl get -o yaml",
    "kubectl get pod",
    "kubectl get events",
    "kubectl describe pv",
    "kubectl describe",
    "kubectl events",
    "kubectl apply",
    "NOMINATED NODE",
    "Multi-Attach error",
    "MountVolume.SetUp succeeded",
    "MountVolume.MountDevice failed …",
    "MountVolume.SetUp failed …",
    "context deadline exceeded",
    "timed out waiting for the condition",
    "image: nginx",
    'persistentvolumeclaims "data" is forbidden: exceeded quota: …',
    "Node Affinity: Required Terms: Term 0:",
    "Required value: Local volume requires node affinity",
    "no volume plugin matched name:",
    "CheckNodeAffinity(pv, node.Labels)",
    "1 Insufficient cpu",
    "zonal-wffc",
    "zonal-immediate",
    "local-storage",
    "ext4",
    "Unschedulable",
  ])
    set.add(p);
  phrases = [...set].filter((p) => p.length > 2).sort((a, b) => b.length - a.length);
  return phrases;
}

type Span = [start: number, end: number];

function phraseSpans(text: string): Span[] {
  const spans: Span[] = [];
  const taken = (s: number, e: number) => spans.some(([a, b]) => s < b && e > a);
  const wordAt = (i: number) => i >= 0 && i < text.length && /[A-Za-z0-9]/.test(text[i]);
  for (const p of knownPhrases()) {
    for (let i = text.indexOf(p); i >= 0; i = text.indexOf(p, i + 1)) {
      const end = i + p.length;
      if (wordAt(i - 1) || wordAt(end) || taken(i, end)) continue;
      spans.push([i, end]);
    }
  }
  // Quoted output, kept whole: "no new claims to deallocate".
  for (const m of text.matchAll(/"([^"]+)"/g)) {
    const start = m.index + 1;
    const end = start + m[1].length;
    if (PROSE_QUOTES.has(m[1]) || taken(start, end)) continue;
    // Drop phrases inside it: the quote is one string.
    for (let j = spans.length - 1; j >= 0; j--) if (spans[j][0] >= start && spans[j][1] <= end) spans.splice(j, 1);
    spans.push([start, end]);
  }
  // A node selector term as kubectl prints it, and a repeated event's count.
  for (const m of text.matchAll(/[\w./-]+ In \[[^\]]+\]|\(x\d+ over \w+\)|pvc-<[^>]+>/g)) {
    if (!taken(m.index, m.index + m[0].length)) spans.push([m.index, m.index + m[0].length]);
  }
  return spans;
}

/** Kubernetes strings in a sentence of the lesson, as spans of it. */
export function kubeSpans(text: string): Span[] {
  const spans = phraseSpans(text);
  const taken = (s: number, e: number) => spans.some(([a, b]) => s < b && e > a);
  for (const m of text.matchAll(/\S+/g)) {
    const token = m[0];
    const lead = /^[(["]*/.exec(token)![0].length;
    // A possessive stays outside: node-b1's reads as node-b1 + 's in any language.
    const trail = /(?:'s)?[.,;:)"\]]*$/.exec(token.slice(lead))![0].length;
    // Keep a closing paren that belongs to the token itself: sha256(volumeHandle), node(s).
    let core = token.slice(lead, token.length - trail);
    let end = m.index + token.length - trail;
    const opens = (core.match(/\(/g) ?? []).length - (core.match(/\)/g) ?? []).length;
    if (opens > 0 && token[token.length - trail] === ")") {
      core += ")";
      end += 1;
    }
    const start = m.index + lead;
    if (!core || taken(start, end) || !isKubeToken(core)) continue;
    spans.push([start, end]);
  }
  return spans.sort((a, b) => a[0] - b[0]);
}

/** A sentence of the lesson as an English catalog message. */
export function tagKube(text: string): string {
  let out = "";
  let at = 0;
  for (const [start, end] of kubeSpans(text)) {
    out += escapeIcu(text.slice(at, start)) + `<${K8S_TAG}>${escapeIcu(text.slice(start, end))}</${K8S_TAG}>`;
    at = end;
  }
  return out + escapeIcu(text.slice(at));
}
