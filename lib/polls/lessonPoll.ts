import type { LessonDiagram, LessonStep } from "../lesson/model";
import { OPTION_COUNT, type GeneratedOption, type GeneratedPoll } from "./nextStep";

/**
 * "What happens next?" for a teacher's lesson, from the arrow order alone:
 * the next message is right; the wrong options are later messages of the
 * same diagram (never one the class has already seen: that would be no
 * prediction at all). Each wrong option carries the teacher's `%% wrong:`
 * note where they wrote one, else a plain "this comes later", or, when the
 * same message was already sent earlier, "this already happened at step N".
 * Steps the teacher gave a note come first (they wrote it because the class
 * confuses them), then the nearest ones. The server shuffles the options.
 */

function optionText(step: LessonStep, diagram: LessonDiagram): string {
  const name = (id: string) => diagram.lifelines.find((l) => l.id === id)?.name ?? id;
  return step.from === step.to ? `${name(step.from)}: ${step.title}` : `${name(step.from)} → ${name(step.to)}: ${step.title}`;
}

export function generateLessonPoll(diagram: LessonDiagram, index: number): GeneratedPoll | null {
  const current = diagram.steps[index];
  const answer = diagram.steps[index + 1];
  if (!current || !answer) return null;
  const answerText = optionText(answer, diagram);
  const shown = new Set(diagram.steps.slice(0, index + 1).map((s) => optionText(s, diagram)));
  const options: GeneratedOption[] = [
    { text: answerText, note: answer.why ? `Right: ${answer.why}` : `Right: step ${answer.label} is ${answer.title}.`, correct: true },
  ];
  const texts = new Set([answerText, ...shown]);
  const later = diagram.steps.slice(index + 2);
  const ordered = [...later.filter((s) => s.wrongNote), ...later.filter((s) => !s.wrongNote)];
  for (const step of ordered) {
    if (options.length >= OPTION_COUNT) break;
    const text = optionText(step, diagram);
    if (texts.has(text)) continue;
    texts.add(text);
    options.push({ text, note: step.wrongNote ?? `This comes later, at step ${step.label}.`, correct: false, misconception: "later" });
  }
  // A message that was sent before and is sent again later reads as a repeat: say when it happened.
  if (options.length < OPTION_COUNT) {
    for (const step of later) {
      if (options.length >= OPTION_COUNT) break;
      const text = optionText(step, diagram);
      const earlier = diagram.steps.slice(0, index + 1).find((s) => optionText(s, diagram) === text);
      if (!earlier || options.some((o) => o.text === text)) continue;
      options.push({
        text,
        note: step.wrongNote ?? `This already happened at step ${earlier.label}.`,
        correct: false,
        misconception: "already",
      });
    }
  }
  // One option is no question: past the last distinct message there is nothing to predict between.
  if (options.length < 2) return null;
  return { question: `What happens next, after ${current.title}?`, options, answerLabel: answer.label };
}
