import type { LessonDiagram, LessonLifeline, LessonStep } from "@/lib/lesson/model";

/** The diagram's geometry: the shapes the layout produces and the drawing draws, and the small helpers both sides share. */

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export type DiagramInput = Pick<LessonDiagram, "lifelines" | "steps">;

export interface Frame {
  width: number;
  /** The box's height to fill (the projector), or null: as tall as the lesson needs. */
  height: number | null;
  /** CSS px per rem on this page (the projector's rem follows the screen, see globals.css). */
  rem: number;
}

/** Lines of text set from a first baseline, with the box they take. */
export interface TextBlock {
  lines: string[];
  x: number;
  anchor: "start" | "middle" | "end";
  baseline: number;
  lineHeight: number;
  px: number;
  box: Rect;
}

export interface HeadLine {
  text: string;
  /** Set before the text in the lifeline's colour (the card's "API"). */
  badge?: string;
  y: number;
  px: number;
  tone: "badge" | "name" | "role";
}

export interface HeadLayout {
  lifeline: LessonLifeline;
  x: number;
  colour: string;
  box: Rect;
  lines: HeadLine[];
}

export interface RowLayout {
  index: number;
  step: LessonStep;
  top: number;
  height: number;
  /** The arrow's line (a self-call's loop is centred on it). */
  y: number;
  path: string;
  /** The arrow's extent with its head and stroke. */
  arrowBox: Rect;
  label: TextBlock;
  note: (TextBlock & { frame: Rect }) | null;
  number: { cx: number; cy: number; r: number };
  /** Where a question count sits on the arrow: past its head, below the line. */
  arrowMarker: { x: number; y: number };
}

export interface DiagramLayout {
  width: number;
  /** The drawing's height (more than the box's only when even the smallest type could not fit it). */
  height: number;
  headBottom: number;
  heads: HeadLayout[];
  rows: RowLayout[];
  /** The type actually used, in CSS px (smaller than the page's only when the lesson could not fit otherwise). */
  font: Font;
}

export interface Font {
  label: number;
  name: number;
  role: number;
  note: number;
  number: number;
  /** The smallest any text is set, however full the drawing: MIN_TYPE_REM of the page's rem. */
  min: number;
}

/**
 * The smallest type of the drawing, in the page's rem: 20.4 px on a
 * 1920x1080 projector (its rem is 24 px), the size the back row still reads.
 * A full lesson tightens its spacing before its type reaches this, and only
 * scales down whole when even this cannot fit.
 */
export const MIN_TYPE_REM = 0.85;

/** Line height over font size; glyph boxes are about 1.17 em, so lines never touch. */
export const LINE = 1.22;
/** The first baseline below a line's top (ascent plus half the leading). */
export const ASCENT = 0.955;
export const MARGIN = 4;
/** The tallest a row grows when there is room: more would only spread the lesson apart. */
export const MAX_ROW_REM = 3.2;
/** Between a label's last line and its arrow, whatever the density: closer, descenders touch the line. */
export const LABEL_GAP_REM = 0.32;
/** A row's height when the drawing grows with the lesson (console, phone). */
export const FREE_ROW_REM = 3;

/** The arrow's caption as every view shows it. */
/** The arrow's caption as every view shows it: the whole message where the step's title is a short one (`%% title:`). */
export function stepLabel(step: Pick<LessonStep, "title" | "message" | "noop" | "failed">): string {
  return `${step.message ?? step.title}${step.noop ? " (nothing to write)" : ""}${step.failed ? " ✕ fails" : ""}`;
}

export function block(lines: string[], x: number, anchor: TextBlock["anchor"], top: number, px: number, width: number): TextBlock {
  const lineHeight = px * LINE;
  const left = anchor === "start" ? x : anchor === "end" ? x - width : x - width / 2;
  return {
    lines,
    x,
    anchor,
    baseline: top + px * ASCENT,
    lineHeight,
    px,
    box: { x: left, y: top, width, height: lines.length * lineHeight },
  };
}

export const moved = (b: TextBlock, dy: number): TextBlock => ({ ...b, baseline: b.baseline + dy, box: { ...b.box, y: b.box.y + dy } });

export interface Columns {
  left: number;
  colW: number;
  xOf: Map<string, number>;
}

export function columns(lifelines: readonly LessonLifeline[], width: number, u: number): Columns {
  const radius = 0.75 * u;
  const left = MARGIN + 2 * radius + 0.5 * u;
  const colW = (width - left - MARGIN) / Math.max(1, lifelines.length);
  return { left, colW, xOf: new Map(lifelines.map((l, i) => [l.id, left + colW * (i + 0.5)])) };
}
