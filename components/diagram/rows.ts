import type { LessonStep } from "@/lib/lesson/model";
import { widest, wrapTo, type Measure } from "./measure";
import { LABEL_GAP_REM, LINE, MARGIN, block, stepLabel, type Columns, type Font, type Rect, type TextBlock } from "./geometry";

/**
 * One step's row, drawn from y = 0 at the top of its content: the label
 * above the arrow (beside a self-call's loop), the note beside them when
 * there is room, else under them (in the fullest drawings, before them when
 * that saves a row). Nothing in a row can meet: the label stops short of the
 * step numbers' column, a note beside starts past the label or ends before
 * the arrow.
 */

export interface Density {
  /** Labels wrap near their arrow ("comfortable") or as wide as the drawing. */
  wrap: "comfortable" | "wide";
  /** Spacing above and below a row's content, in rem (a label and its arrow always keep LABEL_GAP_REM). */
  space: number;
  /** Keep room for steps not drawn yet (the drawing does not move as steps come). */
  reserve: boolean;
  scale: number;
  /** The fullest drawings: less padding around the heads, and a note goes beside its arrow in less room (a note under it takes a row). */
  tight?: boolean;
}

/** A row drawn from y = 0 (its content's top); placed later, once the rows' heights are shared out. */
export interface RowDraft {
  index: number;
  step: LessonStep;
  need: number;
  y: number;
  path: (dy: number) => string;
  arrowBox: Rect;
  label: TextBlock;
  note: (TextBlock & { frame: Rect }) | null;
  arrowMarker: { x: number; y: number };
}

export function draftRow(
  step: LessonStep,
  index: number,
  cols: Columns,
  width: number,
  font: Font,
  u: number,
  d: Density,
  measure: Measure,
): RowDraft {
  const space = d.space * u;
  const right = width - MARGIN;
  const x1 = cols.xOf.get(step.from) ?? cols.left;
  const x2 = cols.xOf.get(step.to) ?? cols.left;
  const text = stepLabel(step);
  const labelLine = font.label * LINE;
  const full = right - cols.left;
  // Near its arrow: a little wider than the arrow, never narrower than a short sentence.
  const comfortable = (span: number) => Math.min(full, Math.max(span + cols.colW, 12 * u));
  const selfCall = step.from === step.to;
  const loopW = 1.6 * u;
  const loopH = 0.5 * u;

  let label: TextBlock;
  let y: number;
  let arrowBox: Rect;
  let rightEdge: number;
  /** Where the row's drawing starts on the left: a note may go before it in the fullest drawings. */
  let leftEdge: number;
  let path: (dy: number) => string;
  let arrowMarker: { x: number; y: number };
  if (selfCall) {
    const roomRight = right - (x1 + loopW + 0.4 * u);
    const roomLeft = x1 - loopW - 0.4 * u - cols.left;
    // The loop and its label go right; left when only that side has room (a self-call on the last lifeline).
    const side = measure(text, font.label, 700) <= roomRight || roomRight >= roomLeft ? 1 : -1;
    const room = side === 1 ? roomRight : roomLeft;
    // A self-call's label has its lifeline's side to itself: about two columns before it wraps.
    const lines = wrapTo(text, d.wrap === "wide" ? room : Math.min(room, comfortable(cols.colW) + 2 * u), font.label, 700, measure);
    const w = widest(lines, font.label, 700, measure);
    const labelH = lines.length * labelLine;
    // The loop's middle where a one-line label's arrow would be, so step numbers keep an even rhythm down the rows.
    y = Math.max(loopH + 3, labelH / 2, labelLine + LABEL_GAP_REM * u);
    const lx = x1 + side * (loopW + 0.4 * u);
    label = block(lines, lx, side === 1 ? "start" : "end", y - labelH / 2, font.label, w);
    arrowBox = { x: side === 1 ? x1 : x1 - loopW, y: y - loopH - 3, width: loopW + 3, height: 2 * loopH + 6 };
    rightEdge = side === 1 ? lx + w : x1 + 4;
    leftEdge = side === 1 ? x1 - 4 : lx - w;
    path = (dy) => `M${x1 + side * 4},${y + dy - loopH} H${x1 + side * loopW} V${y + dy + loopH} H${x1 + side * 8}`;
    arrowMarker = { x: x1 + side * (loopW + 0.2 * u), y: y + loopH + 0.45 * u };
  } else {
    const lo = Math.min(x1, x2);
    const hi = Math.max(x1, x2);
    const lines = wrapTo(text, d.wrap === "wide" ? full : comfortable(hi - lo), font.label, 700, measure);
    const w = widest(lines, font.label, 700, measure);
    const cx = Math.min(Math.max((x1 + x2) / 2, cols.left + w / 2), right - w / 2);
    label = block(lines, cx, "middle", 0, font.label, w);
    y = lines.length * labelLine + LABEL_GAP_REM * u;
    const half = Math.max(0.25 * u, 6);
    arrowBox = { x: lo, y: y - half, width: hi - lo, height: 2 * half };
    rightEdge = Math.max(hi, cx + w / 2);
    leftEdge = Math.min(lo, cx - w / 2);
    const dir = x2 > x1 ? 1 : -1;
    path = (dy) => `M${x1 + dir * 6},${y + dy} H${x2 - dir * 8}`;
    arrowMarker = { x: x2 - dir * 1.2 * u, y: y + 0.65 * u };
  }
  let bottom = Math.max(label.box.y + label.box.height, arrowBox.y + arrowBox.height);

  let note: RowDraft["note"] = null;
  if (step.note) {
    const pad = 0.4 * u;
    const noteLine = font.note * LINE;
    const words = widest(step.note.split(/\s+/), font.note, 400, measure);
    const besideX = rightEdge + 0.6 * u;
    const room = right - besideX - 2 * pad;
    const roomLeft = leftEdge - 0.6 * u - cols.left - 2 * pad;
    const beside = (side: "right" | "left"): { note: NonNullable<RowDraft["note"]>; bottom: number } => {
      const lines = wrapTo(step.note!, Math.min(side === "right" ? room : roomLeft, 32 * u), font.note, 400, measure);
      const h = lines.length * noteLine + 2 * pad;
      // Level with a self-call's loop; beside an arrow, level with the arrow and its label together.
      const top = Math.max(0, selfCall ? y - h / 2 : (bottom - h) / 2);
      const w = widest(lines, font.note, 400, measure) + 2 * pad;
      const x = side === "right" ? besideX : leftEdge - 0.6 * u - w;
      return {
        note: { ...block(lines, x + pad, "start", top + pad, font.note, w - 2 * pad), frame: { x, y: top, width: w, height: h } },
        bottom: Math.max(bottom, top + h),
      };
    };
    const under = (): { note: NonNullable<RowDraft["note"]>; bottom: number } => {
      const lines = wrapTo(step.note!, Math.min(full - 2 * pad, 36 * u), font.note, 400, measure);
      const w = widest(lines, font.note, 400, measure) + 2 * pad;
      const h = lines.length * noteLine + 2 * pad;
      const x = Math.max(cols.left, Math.min(Math.min(x1, x2) - 0.5 * u, right - w));
      const top = bottom + Math.max(space, 0.2 * u);
      return {
        note: { ...block(lines, x + pad, "start", top + pad, font.note, w - 2 * pad), frame: { x, y: top, width: w, height: h } },
        bottom: top + h,
      };
    };
    // Beside the arrow when more than a few words fit a line there; otherwise under it.
    const fitsBeside = room >= Math.max(words, 9 * u);
    let placed = fitsBeside ? beside("right") : under();
    // In the fullest drawings, whichever takes least height: before the arrow too (a note under it takes a row of its own),
    // and under it rather than beside in a narrow column.
    if (d.tight) {
      const others = [under()];
      if (!fitsBeside && room >= Math.max(words, 6 * u)) others.push(beside("right"));
      if (roomLeft >= Math.max(words, 6 * u)) others.push(beside("left"));
      for (const other of others) if (other.bottom < placed.bottom - 0.5) placed = other;
    }
    note = placed.note;
    bottom = placed.bottom;
  }
  return { index, step, need: bottom + 2 * space, y, path, arrowBox, label, note, arrowMarker };
}
