import type { BindingMode, VariantId } from "../lesson/types";

/**
 * Which poll is "the same poll" across the sessions and assignments of one
 * lesson, so the results page can add their answers up. A generated
 * "what happens next?" poll is its moment in the lesson (for the built-in
 * lesson: the scenario and the step; a teacher's lesson has one track); a
 * teacher's own question is its wording. Options are matched by their text:
 * the server shuffles and numbers them anew each time a poll opens.
 */

export function nextStepKey(lesson: "builtin" | "custom", mode: BindingMode, variant: VariantId, stepIndex: number): string {
  return lesson === "builtin" ? `step:${mode}:${variant}:${stepIndex}` : `step:${stepIndex}`;
}

export function customPollKey(question: string): string {
  return `custom:${question.trim().replace(/\s+/g, " ").toLowerCase()}`;
}

/** The key of a results page: the built-in lesson, or a teacher's lesson by id. */
export const BUILTIN_LESSON_KEY = "builtin";
