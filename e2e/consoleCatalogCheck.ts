import { expect, type Page } from "@playwright/test";
import { BINDING_MODES } from "@/lib/lesson/types";
import { KUBE_VERSIONS } from "@/lib/lesson/versions";
import { NOT_SHOWN, VARIANTS_BY_MODE, getScenario } from "@/lib/lesson/scenarios";
import { everyNextStepPoll } from "@/lib/polls/nextStep";
import { LIFELINES } from "@/lib/lesson/card";
import { settle } from "./layout";
import { unmarkedText } from "./pseudo";

/** The console's pseudo-locale check (e2e/consoleLanguages.spec.ts): what is the console's own text, and what is not. */

/**
 * The built-in lesson's own words (step titles, narration, speaker notes, deep dives, the generated polls): another
 * area's catalogs, not the console's. Until they come from a catalog they are English on every screen; a text that is
 * made only of them (and of accented catalog words around them) is not the console's interface.
 */
function lessonWords(): string[] {
  const words = new Set<string>();
  const walk = (value: unknown) => {
    if (typeof value === "string") {
      if (/[A-Za-z]/.test(value)) words.add(value.trim());
    } else if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === "object") Object.values(value).forEach(walk);
  };
  for (const mode of BINDING_MODES)
    for (const variant of VARIANTS_BY_MODE[mode]) for (const version of KUBE_VERSIONS) walk(getScenario(mode, variant, version));
  walk(NOT_SHOWN);
  walk(LIFELINES);
  walk(everyNextStepPoll().map(({ poll }) => poll));
  // Longest first, so a title inside a longer sentence is not cut out of it first.
  return [...words].sort((a, b) => b.length - a.length);
}

const LESSON = lessonWords();

/** Whether an unmarked text from `unmarkedText` is only the lesson's words (and the accented words of a catalog). */
export function onlyLesson(entry: string): boolean {
  const quoted = /: "([^]*)"$/.exec(entry)?.[1];
  if (quoted === undefined) return false;
  // unmarkedText keeps 80 characters: the start of the lesson's words is the lesson's too.
  if (LESSON.some((words) => words.startsWith(quoted))) return true;
  let rest = quoted;
  for (const words of LESSON) if (rest.includes(words)) rest = rest.split(words).join(" ");
  return !/[A-Za-z]/.test(rest);
}

/**
 * What is on the console but not the console's to translate, each with the file that owns it:
 * - the sequence diagram's drawing (components/diagram) is its own area's;
 * - the binding-mode badge's Kubernetes field names and values (components/classroom/StepHeader.tsx) are shown
 *   left to right but not yet marked translate="no";
 * - a Kubernetes kind inside an accessible name (an attribute has no element to mark translate="no").
 */
const KINDS = /\b(PersistentVolumeClaim|PersistentVolume|StorageClass|VolumeAttachment|Pod|PVC|PV)\b/g;
const KUBERNETES_BADGE = new Set(["volumeBindingMode", "provisioner", "WaitForFirstConsumer", "Immediate", "kubernetes.io/no-provisioner"]);
function elsewhere(entry: string): boolean {
  const attribute = /^[^:"]*@[a-z-]+: "([^]*)"$/.exec(entry)?.[1];
  if (attribute !== undefined && !/[A-Za-z]/.test(attribute.replace(KINDS, ""))) return true;
  if (/^(text|tspan)(\[[^\]]*\])?[:@]/.test(entry)) return true;
  const quoted = /^span(\[binding-mode\])?: "([^]*)"$/.exec(entry)?.[2];
  return quoted !== undefined && KUBERNETES_BADGE.has(quoted);
}

/** Every text on the console that did not come from a catalog, the lesson's own words and other areas' left out. */
export async function expectConsoleFromCatalogs(page: Page, state: string) {
  await settle(page);
  const found = (await unmarkedText(page)).filter((entry) => !onlyLesson(entry) && !elsewhere(entry));
  // Soft: one run names what is wrong in every state.
  expect.soft(found, `text not from a catalog on the console, ${state}`).toEqual([]);
}
