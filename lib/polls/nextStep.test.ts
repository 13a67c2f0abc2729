import { describe, expect, it } from "vitest";
import { BINDING_MODES, VARIANTS_BY_MODE, getScenario } from "../lesson";
import { OPTION_COUNT, generateNextStepPoll } from "./nextStep";

const scenarios = BINDING_MODES.flatMap((mode) => VARIANTS_BY_MODE[mode].map((variant) => getScenario(mode, variant)));

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
          // Distinct options, each with a note on the misconception it stands for.
          expect(new Set(options.map((o) => o.text)).size).toBe(OPTION_COUNT);
          expect(new Set(options.map((o) => o.text.split(":")[0])).size).toBe(OPTION_COUNT);
          for (const o of options) expect(o.note.length).toBeGreaterThan(20);
          // Plausible: every wrong option is a real card step, never the current one.
          for (const o of options.filter((x) => !x.correct)) {
            const title = o.text.split(":")[0];
            expect(title).not.toBe(step.title);
            expect(["CREATE PVC", "CREATE POD", "NEW POD", "PICK NODE", "NODE CHOSEN", "PROVISION", "CREATE DISK", "CREATE PV", "BIND PVC+PV", "BIND POD", "RUN POD", "MOUNT"]).toContain(title);
          }
        });
      });
    });
  }

  it("offers WaitForFirstConsumer's classic misconception after CREATE PVC", () => {
    const poll = generateNextStepPoll(getScenario("WaitForFirstConsumer"), 0)!;
    const immediate = poll.options.find((o) => o.text.startsWith("PROVISION"))!;
    expect(immediate.correct).toBe(false);
    expect(immediate.note).toMatch(/true in Immediate, not here/);
    expect(poll.options.find((o) => o.correct)!.text).toMatch(/^CREATE POD/);
  });

  it("asks Local classes about a disk that is never created", () => {
    const local = getScenario("Local");
    const index = local.steps.findIndex((s) => s.title === "NODE CHOSEN");
    const poll = generateNextStepPoll(local, index)!;
    expect(poll.options.find((o) => o.correct)!.text).toMatch(/^BIND PVC\+PV/);
    const never = poll.options.find((o) => /CREATE DISK|PROVISION|CREATE PV/.test(o.text));
    expect(never?.note).toMatch(/never provisioned/);
  });

  it("marks the failing step as a failure in the zone-conflict variant", () => {
    const conflict = getScenario("Immediate", "zone-conflict");
    const pick = conflict.steps.findIndex((s) => s.title === "PICK NODE");
    const poll = generateNextStepPoll(conflict, pick - 1)!;
    expect(poll.options.find((o) => o.correct)!.text).toMatch(/PICK NODE: it fails, and the Pod stays Pending/);
  });
});
