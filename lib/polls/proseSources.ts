import { ARROW_LEGEND, FIDELITY_NOTES } from "../lesson/card";
import { COMPARE_SENTENCES } from "../lesson/compare";
import { NOT_SHOWN, scenariosFor } from "../lesson/scenarios";
import { proseKey } from "../lesson/proseKey";
import type { Scenario } from "../lesson/types";
import { KUBE_VERSIONS } from "../lesson/versions";
import { everyPollText } from "./pollProse";

/**
 * Every English prose string of the built-in lesson, by the key its
 * translations are filed under: what messages/lesson/en.json must hold, no
 * more and no less (tests/i18n/lessonProse.test.ts; scripts/lessonCatalog.ts
 * writes it). Each release's scenarios are walked, so a sentence that only one
 * release says is in the catalog too.
 *
 * Step titles (the card's captions: CREATE PVC, PICK NODE, …) are not prose:
 * they are the card's own labels, printed on the card the teacher presents
 * from, drawn on the diagram and quoted verbatim by the prose and the poll
 * options ("BIND POD comes after BIND PVC+PV"), so they stay as the card has
 * them, like a Kubernetes string. Scenario titles ("Immediate: zone conflict",
 * "Local PVs") are names with one spelling everywhere (components/theme.ts
 * scenarioName: mode list, switch notice, badge), written inside <k8s> by the
 * interface's own messages, so they stay too; summaries are prose. The release notes ("Objects, events and
 * messages are shown as …") are not here either: they are almost all
 * Kubernetes output and stay English, marked so.
 */

/** The prose of one scenario, in a fixed order: what `localizeScenario` translates. */
export function scenarioProse(scenario: Scenario): string[] {
  const out = [scenario.summary];
  for (const step of scenario.steps) {
    out.push(step.narration, step.speakerNotes);
    if (step.note) out.push(step.note);
    for (const u of step.underTheHood ?? []) out.push(u.title, u.body);
  }
  return out.filter((s) => s !== "");
}

/** The prose shown beside every scenario: the card's legend, its fidelity notes, its "Not shown" list and the comparison's fixed sentences. */
export function sharedProse(): string[] {
  return [...Object.values(ARROW_LEGEND), ...FIDELITY_NOTES, ...NOT_SHOWN.flatMap((u) => [u.title, u.body]), ...COMPARE_SENTENCES];
}

/** key → English, for every prose string any screen of the built-in lesson can show. */
export function lessonProseSources(): Map<string, string> {
  const out = new Map<string, string>();
  const add = (text: string) => {
    const key = proseKey(text);
    const had = out.get(key);
    if (had !== undefined && had !== text) throw new Error(`two lesson strings share the key ${key}: "${had}" and "${text}"`);
    out.set(key, text);
  };
  for (const version of KUBE_VERSIONS) for (const scenario of Object.values(scenariosFor(version))) scenarioProse(scenario).forEach(add);
  sharedProse().forEach(add);
  everyPollText().bodies.forEach(add);
  return out;
}
