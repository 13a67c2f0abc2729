import { describe, expect, it } from "vitest";
import { BINDING_MODES, VARIANTS_BY_MODE, WFFC_STEPS, getScenario, type Scenario } from "../lesson";
import { OPTION_COUNT, everyNextStepPoll, generateNextStepPoll, type GeneratedOption } from "./nextStep";

const scenarios = BINDING_MODES.flatMap((mode) => VARIANTS_BY_MODE[mode].map((variant) => getScenario(mode, variant)));
const TITLES = WFFC_STEPS.map((s) => s.title);
const titleOf = (o: GeneratedOption) => o.text.split(":")[0];
const labelOf = (title: string) => TITLES.indexOf(title) + 1;
const sentences = (note: string) => note.split(/(?<=\.)\s+/).filter((s) => s.length > 0);
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Where a card label sits in a track: its 1-based on-screen step, or 0 when the track never has it. */
const positionOf = (scenario: Scenario, label: number) => scenario.steps.findIndex((s) => s.label === label) + 1;

describe("'what happens next?' options", () => {
  for (const scenario of scenarios) {
    describe(`${scenario.mode}/${scenario.variant}`, () => {
      scenario.steps.forEach((step, index) => {
        const next = scenario.steps[index + 1];
        it(`after ${step.label} ${step.title}`, () => {
          const poll = generateNextStepPoll(scenario, index);
          if (!next) {
            // Nothing comes after the last step: no poll to ask.
            expect(poll).toBeNull();
            return;
          }
          expect(poll).not.toBeNull();
          const { options, answerLabel, question } = poll!;
          expect(question).toContain(step.title);
          expect(options).toHaveLength(OPTION_COUNT);
          // Exactly one right answer, and it is the real next step.
          const correct = options.filter((o) => o.correct);
          expect(correct).toHaveLength(1);
          expect(answerLabel).toBe(next.label);
          expect(correct[0].text.startsWith(next.title)).toBe(true);
          // Distinct options, each a real card step, never the current one.
          expect(new Set(options.map(titleOf)).size).toBe(OPTION_COUNT);
          for (const o of options.filter((x) => !x.correct)) {
            expect(titleOf(o)).not.toBe(step.title);
            expect(TITLES).toContain(titleOf(o));
          }
        });
      });
    });
  }
});

/*
 * The review a teacher would do, made mechanical: every wrong option of every
 * poll must say which misconception it is, and say it truthfully for this
 * scenario at this step. The expected kind is worked out here from the track
 * alone, independently of the generator.
 */
describe("every distractor note names its misconception, for this case", () => {
  const all = everyNextStepPoll();

  it("walks every mode x variant x step poll", () => {
    const expected = scenarios.reduce((n, s) => n + s.steps.length - 1, 0);
    expect(all).toHaveLength(expected);
  });

  for (const { scenario, index, poll } of all) {
    const where = `${scenario.mode}/${scenario.variant} after ${scenario.steps[index].title}`;
    it(where, () => {
      for (const option of poll.options.filter((o) => !o.correct)) {
        const title = titleOf(option);
        const label = labelOf(title);
        const position = positionOf(scenario, label);
        const what = `${where}: ${option.text} — ${option.note}`;
        const kind = position === 0 ? "never" : position <= index + 1 ? "already" : "later";
        expect(option.misconception, what).toBeDefined();

        if (option.misconception === "other-mode") {
          // What the other mode does here: it must name that mode, and it cannot be a step that already happened here.
          expect(kind, what).not.toBe("already");
          const otherMode = scenario.mode === "WaitForFirstConsumer" ? "Immediate" : "WaitForFirstConsumer";
          expect(option.note, what).toMatch(new RegExp(`^That is ${otherMode}`));
          // And it says what happens here instead.
          expect(option.note, what).toMatch(/\bHere\b|In Immediate/);
          if (kind === "never") expect(option.note, what).toMatch(/never|instead/);
          continue;
        }

        expect(option.misconception, what).toBe(kind);
        switch (kind) {
          case "already": {
            expect(option.note, what).toMatch(new RegExp(`^Already happened: ${escape(title)} was step ${position}\\b`));
            expect(option.note, what).toMatch(/ It left /); // what it left behind
            expect(option.note, what).not.toMatch(/Not yet|later|never happens/);
            break;
          }
          case "later": {
            expect(option.note, what).toMatch(new RegExp(`^Not yet: ${escape(title)} comes later, at step ${position}\\b`));
            expect(option.note, what).not.toMatch(/Already|never happens/);
            // What must come first: a step named in the note that has not happened yet and comes before this one.
            const named = [...option.note.matchAll(/\(([A-Z+ ]+)\)/g)].map((m) => positionOf(scenario, labelOf(m[1])));
            expect(
              named.some((p) => p > index + 1 && p < position),
              what,
            ).toBe(true);
            break;
          }
          case "never": {
            expect(option.note, what).toMatch(new RegExp(`^${escape(title)} never happens in this scenario\\. `));
            expect(option.note, what).not.toMatch(/Not yet|Already/);
            break;
          }
        }
      }

      // No sentence shared between two options of one poll: each note is written for its own case.
      const seen = new Map<string, string>();
      for (const option of poll.options) {
        for (const sentence of sentences(option.note)) {
          expect(seen.get(sentence), `${where}: "${sentence}" used for ${seen.get(sentence)} and ${option.text}`).toBeUndefined();
          seen.set(sentence, option.text);
        }
      }
    });
  }

  it("never uses one sentence for two different distractors of a scenario", () => {
    const owner = new Map<string, string>();
    for (const { scenario, poll } of all) {
      for (const option of poll.options.filter((o) => !o.correct)) {
        const who = `${scenario.mode}/${scenario.variant} ${titleOf(option)}`;
        for (const sentence of sentences(option.note)) {
          const key = `${scenario.mode}/${scenario.variant}|${sentence}`;
          const first = owner.get(key);
          if (first) expect(first, `"${sentence}"`).toBe(who);
          else owner.set(key, who);
        }
      }
    }
  });

  it("never pastes a lower-cased step title into a sentence (the old template)", () => {
    for (const { poll } of all) {
      for (const option of poll.options) {
        for (const title of TITLES) expect(option.note).not.toContain(` ${title.toLowerCase()} `);
      }
    }
  });
});

describe("the cases issue 12 found wrong", () => {
  const poll = (mode: Parameters<typeof getScenario>[0], variant: Parameters<typeof getScenario>[1], title: string) => {
    const scenario = getScenario(mode, variant);
    return generateNextStepPoll(
      scenario,
      scenario.steps.findIndex((s) => s.title === title),
    )!;
  };
  const everyOption = (mode: Parameters<typeof getScenario>[0], variant: Parameters<typeof getScenario>[1]) => {
    const scenario = getScenario(mode, variant);
    return scenario.steps.flatMap((_, i) => generateNextStepPoll(scenario, i)?.options ?? []);
  };

  it("Local's MOUNT does not claim an attach", () => {
    const right = poll("Local", "standard", "RUN POD").options.find((o) => o.correct)!;
    expect(right.text).toMatch(/^MOUNT/);
    expect(right.text).not.toMatch(/attached/);
    expect(right.text).toMatch(/nothing to attach/);
  });

  it("WaitForFirstConsumer after BIND PVC+PV: CREATE POD, done at step 2, is never called 'comes first' or 'later'", () => {
    for (const o of everyOption("WaitForFirstConsumer", "standard").filter((x) => titleOf(x) === "CREATE POD" && !x.correct)) {
      expect(o.note).not.toMatch(/comes first|later/);
    }
    const afterBind = poll("WaitForFirstConsumer", "standard", "BIND PVC+PV");
    expect(afterBind.options.find((o) => titleOf(o) === "CREATE POD")?.note ?? "Already happened").toMatch(/^Already happened/);
  });

  it("Immediate after NODE CHOSEN: PROVISION, done at step 2, is not offered as what comes next elsewhere", () => {
    const p = poll("Immediate", "standard", "NODE CHOSEN");
    for (const o of p.options.filter((x) => titleOf(x) === "PROVISION")) expect(o.note).toMatch(/^Already happened: PROVISION was step 2/);
  });

  it("zone conflict: BIND POD is never told to wait for CREATE POD; it never happens", () => {
    for (const o of everyOption("Immediate", "zone-conflict").filter((x) => titleOf(x) === "BIND POD")) {
      expect(o.note).not.toMatch(/CREATE POD comes first|Not yet/);
      expect(o.note).toMatch(/never (bound|happens)/);
    }
  });

  it("Local with no matching PV: no note says the scheduler picks a pre-created PV", () => {
    for (const o of everyOption("Local", "no-local-pv")) {
      expect(o.note).not.toMatch(/picks a pre-created PV|claims a pre-created PV|claimed a hand-made PV/);
    }
  });

  it("WaitForFirstConsumer after CREATE PVC: the classic Immediate misconception", () => {
    const p = poll("WaitForFirstConsumer", "standard", "CREATE PVC");
    const provision = p.options.find((o) => o.text.startsWith("PROVISION"))!;
    expect(provision.correct).toBe(false);
    expect(provision.misconception).toBe("other-mode");
    expect(provision.note).toMatch(/^That is Immediate/);
    expect(p.options.find((o) => o.correct)!.text).toMatch(/^CREATE POD/);
  });

  it("Local after NODE CHOSEN: provisioning is what WaitForFirstConsumer with CSI would do, never Local", () => {
    const p = poll("Local", "standard", "NODE CHOSEN");
    expect(p.options.find((o) => o.correct)!.text).toMatch(/^BIND PVC\+PV/);
    const provision = p.options.find((o) => /^(CREATE DISK|PROVISION|CREATE PV)/.test(o.text))!;
    expect(provision.note).toMatch(/hand-made PV/);
  });

  it("the failing step reads as a failure in the zone-conflict variant", () => {
    const p = poll("Immediate", "zone-conflict", "NEW POD");
    expect(p.options.find((o) => o.correct)!.text).toMatch(/PICK NODE: it fails, and the Pod stays Pending/);
  });
});
