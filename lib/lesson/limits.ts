/**
 * The size limits of a teacher's lesson, in characters or items, in a module
 * of their own: the REST types read them, and a page that only talks to the
 * API must not load the lesson card with them.
 */
export const LESSON_LIMITS = {
  lifelines: 12,
  steps: 60,
  title: 120,
  summary: 400,
  lifelineId: 40,
  lifelineName: 60,
  message: 120,
  /** A step's `%% title:`: a heading, so shorter than the message it stands for. */
  shortTitle: 60,
  note: 400,
  narration: 300,
  speakerNotes: 1000,
  why: 400,
  wrongNote: 300,
  /** The Mermaid text kept for export. */
  source: 48_000,
} as const;
