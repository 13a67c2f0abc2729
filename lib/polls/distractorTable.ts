import { everyNextStepPoll, type Misconception } from "./nextStep";

/**
 * docs/distractors.md: every "what happens next?" poll with each option and
 * its note, so a teacher can review the wording without opening a session.
 * Generated (npm run docs:distractors) and checked by a test, so it never
 * drifts from what the phones actually show.
 */

const KIND_LABEL: Record<Misconception, string> = {
  already: "already happened",
  never: "never happens here",
  later: "happens later",
  "other-mode": "another mode",
};

const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");

export function renderDistractorTable(): string {
  const lines: string[] = [
    "# Poll distractors: every option and its note",
    "",
    "Generated from `lib/polls/nextStep.ts` by `npm run docs:distractors`; do not edit by hand.",
    "A test fails when this file and the lesson disagree.",
    "",
    "Each wrong option is one of four misconceptions: it **already happened** (at which step, and what it left behind),",
    "it **never happens here** (and why), it **happens later** (and what must come first), or it is what",
    "**another mode** does at this moment. The right answer's note is the step's narration.",
    "",
  ];
  let current = "";
  for (const { scenario, index, poll } of everyNextStepPoll()) {
    if (scenario.title !== current) {
      current = scenario.title;
      lines.push(`## ${scenario.title}`, "", scenario.summary, "");
    }
    const step = scenario.steps[index];
    lines.push(`### After step ${index + 1}: ${step.title}`, "", `${poll.question}`, "");
    lines.push("| Option | Kind | Note |", "| --- | --- | --- |");
    for (const option of poll.options) {
      const kind = option.correct ? "**right**" : KIND_LABEL[option.misconception!];
      lines.push(`| ${cell(option.text)} | ${kind} | ${cell(option.note)} |`);
    }
    lines.push("");
  }
  return lines.join("\n");
}
