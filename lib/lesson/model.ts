import { LIFELINES } from "./card";
import type { ArrowKind, Scenario, ScenarioStep } from "./types";

/**
 * The one lesson model. A lesson is lifelines and steps (one message each);
 * the diagram, the step controls, the polls and replay read this shape only.
 * The built-in Kubernetes lesson is a `Scenario` (its steps carry the
 * Kubernetes extension: binding modes, objects, "under the hood" deep dives)
 * drawn on the card's five lifelines; a teacher's lesson, written in Mermaid,
 * is a `CustomLesson` and becomes the same shape through `customDiagram`.
 */

/** Mermaid's line styles: `->>` is solid, `-->>` dotted. */
export const LINE_STYLES = ["solid", "dotted"] as const;
export type LineStyle = (typeof LINE_STYLES)[number];

/** Mermaid's arrow ends: `->>` filled, `-)` async (open), `-x` cross, `->` none. */
export const ARROW_HEADS = ["filled", "async", "cross", "none"] as const;
export type ArrowHead = (typeof ARROW_HEADS)[number];

export interface LessonLifeline {
  id: string;
  /** The short badge above the name (the card's "API"); a teacher's lesson has none. */
  badge?: string;
  name: string;
  role?: string;
}

/** A step of any lesson: a `ScenarioStep` whose ends are any lifeline, with the teacher's extras. */
export interface LessonStep extends Omit<ScenarioStep, "from" | "to"> {
  from: string;
  to: string;
  /** How Mermaid draws the arrow; absent on the built-in lesson (its `kind` decides). */
  arrow?: { line: LineStyle; head: ArrowHead };
  /**
   * The whole message, drawn on the arrow, when `title` is the teacher's short title (`%% title:`).
   * Every other screen names the step by `title`; absent, the arrow shows `title` too.
   */
  message?: string;
  /** Shown to the class after the step: why it happens. */
  why?: string;
  /** The teacher's misconception note, shown when this step is a wrong option of a poll. */
  wrongNote?: string;
}

export interface LessonDiagram {
  title: string;
  summary: string;
  lifelines: readonly LessonLifeline[];
  steps: readonly LessonStep[];
}

// ---------------------------------------------------------------------------
// A teacher's lesson: plain JSON, parsed from Mermaid in the browser, checked by
// the server's zod schema (./customSchema.ts), stored, and carried whole in
// the `session:created` event of each session that runs it.

export interface CustomLifeline {
  /** The Mermaid participant id (`participant C as Client` -> "C"). */
  id: string;
  /** What the diagram shows ("Client"). */
  name: string;
}

export interface CustomStep {
  from: string;
  to: string;
  line: LineStyle;
  head: ArrowHead;
  /** The message text: the caption on the arrow. */
  title: string;
  /**
   * `%% title:` directly under the message: what the step is called everywhere but on the arrow (step
   * header, step list, console, polls, replay), for a message too long to read as a heading.
   */
  shortTitle?: string;
  /** `Note over A,B: …` lines after the message, drawn as a callout. */
  note?: string;
  /** `%% narration:` one line for the class. */
  narration?: string;
  /** `%% say:` for the teacher's console only. */
  speakerNotes?: string;
  /** `%% why:` shown after the step. */
  why?: string;
  /** `%% wrong:` the misconception note when this message is offered as a wrong answer. */
  wrongNote?: string;
}

export interface CustomLesson {
  title: string;
  summary?: string;
  lifelines: CustomLifeline[];
  steps: CustomStep[];
}

/** A stored lesson version as a session runs it (recorded in `session:created`). */
export interface SessionLesson {
  id: string;
  version: number;
  lesson: CustomLesson;
}

export { LESSON_LIMITS } from "./limits";

/** The card's built-in lesson as the shared model (lifelines from the card, steps from the scenario). */
export function builtInDiagram(scenario: Scenario): LessonDiagram {
  return { title: scenario.title, summary: scenario.summary, lifelines: LIFELINES, steps: scenario.steps };
}

/** The `ArrowKind` the built-in styling falls back to (the legend): dotted reads as "noticed", solid as a request. */
function kindOf(step: CustomStep): ArrowKind {
  return step.line === "dotted" ? "watch" : "request";
}

const diagrams = new WeakMap<CustomLesson, LessonDiagram>();

/** A teacher's lesson in the shared model; memoised per lesson object (a room asks on every command). */
export function customDiagram(lesson: CustomLesson): LessonDiagram {
  const cached = diagrams.get(lesson);
  if (cached) return cached;
  const diagram: LessonDiagram = {
    title: lesson.title,
    summary: lesson.summary ?? "",
    lifelines: lesson.lifelines.map((l) => ({ id: l.id, name: l.name })),
    steps: lesson.steps.map((s, i): LessonStep => ({
      label: i + 1,
      title: s.shortTitle ?? s.title,
      ...(s.shortTitle ? { message: s.title } : {}),
      from: s.from,
      to: s.to,
      kind: kindOf(s),
      arrow: { line: s.line, head: s.head },
      // Without a narration the class reads the whole message under the (short) title, as on the arrow.
      narration: s.narration ?? s.title,
      speakerNotes: s.speakerNotes ?? "",
      ...(s.note ? { note: s.note } : {}),
      ...(s.why ? { why: s.why } : {}),
      ...(s.wrongNote ? { wrongNote: s.wrongNote } : {}),
    })),
  };
  diagrams.set(lesson, diagram);
  return diagram;
}

/** What students and projectors receive: the teacher's speaker notes left out. */
export function publicLesson(lesson: SessionLesson): SessionLesson {
  return {
    ...lesson,
    lesson: { ...lesson.lesson, steps: lesson.lesson.steps.map(({ speakerNotes: _speakerNotes, ...rest }) => rest) },
  };
}
