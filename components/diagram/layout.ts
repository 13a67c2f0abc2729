import {
  FREE_ROW_REM,
  MARGIN,
  MIN_TYPE_REM,
  MAX_ROW_REM,
  columns,
  moved,
  type DiagramInput,
  type DiagramLayout,
  type Font,
  type Frame,
  type RowLayout,
} from "./geometry";
import { layoutHeads } from "./heads";
import { draftRow, type Density } from "./rows";
import type { Measure } from "./measure";

export * from "./geometry";

/**
 * Where everything of a sequence diagram goes, in the page's own pixels, for
 * any lesson (the card's five lifelines or a teacher's twelve). Pure: the
 * lesson, the box and a text measure in, geometry out; the drawing only
 * draws what this says. Two fits:
 *
 * - `height: null` (console, phone, replay, editor): as wide as the box, as
 *   tall as the lesson needs; labels wrap near their arrow.
 * - a height (the projector): the rows share the box's height. When the
 *   lesson does not fit at full size it tries, in order: labels as wide as
 *   the drawing (fewer lines), tighter spacing, room for the steps drawn so
 *   far only (steps to come are not drawn, so they need no room yet), and
 *   only then smaller type, never below Font.min (20 px on a 1920x1080
 *   projector), with the spacing tightened further. Type shrinks last
 *   because the back row reads it; a lesson that does not fit even so (far
 *   more than 15 messages) is scaled down whole.
 *
 * Every label is measured and wrapped; a row is as tall as its label, arrow
 * and note, and a label never reaches the step numbers' column, so no two
 * texts can meet.
 */

const FILL_DENSITIES: Density[] = [
  { wrap: "comfortable", space: 0.3, reserve: true, scale: 1 },
  { wrap: "wide", space: 0.3, reserve: true, scale: 1 },
  { wrap: "wide", space: 0.12, reserve: true, scale: 1 },
  { wrap: "comfortable", space: 0.3, reserve: false, scale: 1 },
  { wrap: "wide", space: 0.12, reserve: false, scale: 1 },
  { wrap: "wide", space: 0.12, reserve: false, scale: 0.9 },
  // From here on the type is at or near its floor (Font.min): only the spacing still gives.
  { wrap: "wide", space: 0.06, reserve: false, scale: 0.85 },
  { wrap: "wide", space: 0.02, reserve: false, scale: 0.8, tight: true },
];
const FREE_DENSITY: Density = { wrap: "comfortable", space: 0.3, reserve: true, scale: 1 };

/** The largest base height (at most `max`) that rows can share so that all fit in `available`. */
function shareOut(needs: number[], available: number, max: number): number {
  let lo = 0;
  let hi = max;
  const total = (b: number) => needs.reduce((s, n) => s + Math.max(n, b), 0);
  if (total(hi) <= available) return hi;
  for (let i = 0; i < 30; i++) {
    const mid = (lo + hi) / 2;
    if (total(mid) <= available) lo = mid;
    else hi = mid;
  }
  return lo;
}

function build(diagram: DiagramInput, frame: Frame, stepIndex: number, d: Density, measure: Measure) {
  const u = frame.rem * d.scale;
  // Spacing follows the density's scale; type only down to its floor (the back row reads it).
  const min = MIN_TYPE_REM * frame.rem;
  const font: Font = {
    label: Math.max(min, 1.05 * u),
    name: Math.max(min, 1.0 * u),
    role: Math.max(min, 0.875 * u),
    note: Math.max(min, 0.875 * u),
    number: Math.max(min, 0.875 * u),
    min,
  };
  const cols = columns(diagram.lifelines, frame.width, u);
  const { heads, headH } = layoutHeads(diagram.lifelines, cols, font, u, measure, d.tight ? 0.35 : 0.7);
  const rowsTop = headH + (d.tight ? 0.15 : 0.4) * u;
  const drafts = diagram.steps.map((s, i) => draftRow(s, i, cols, frame.width, font, u, d, measure));
  // Room is kept for every step, or (when that cannot fit) for the steps drawn so far.
  const counted = d.reserve ? drafts : drafts.slice(0, stepIndex + 1);
  const needed = counted.reduce((s, r) => s + r.need, 0);
  let heights: number[];
  let fits = true;
  if (frame.height === null) heights = drafts.map((r) => Math.max(r.need, FREE_ROW_REM * u));
  else {
    const available = frame.height - rowsTop - MARGIN;
    fits = needed <= available;
    const base = shareOut(
      counted.map((r) => r.need),
      available,
      MAX_ROW_REM * u,
    );
    const heightsCounted = counted.map((r) => Math.max(r.need, base));
    const left = Math.max(0, available - heightsCounted.reduce((s, h) => s + h, 0));
    const rest = drafts.length - counted.length;
    heights = drafts.map((r, i) => (i < counted.length ? heightsCounted[i] : Math.min(MAX_ROW_REM * u, left / Math.max(1, rest))));
  }
  let cursor = rowsTop;
  const radius = 0.75 * u;
  const rows: RowLayout[] = drafts.map((r, i) => {
    const height = heights[i];
    const top = cursor;
    cursor += height;
    // The row's content sits in the middle of its share of the height.
    const dy = top + d.space * u + Math.max(0, (height - r.need) / 2);
    return {
      index: r.index,
      step: r.step,
      top,
      height,
      y: r.y + dy,
      path: r.path(dy),
      arrowBox: { ...r.arrowBox, y: r.arrowBox.y + dy },
      label: moved(r.label, dy),
      note: r.note ? { ...moved(r.note, dy), frame: { ...r.note.frame, y: r.note.frame.y + dy } } : null,
      number: { cx: MARGIN + radius, cy: r.y + dy, r: radius },
      arrowMarker: { x: r.arrowMarker.x, y: r.arrowMarker.y + dy },
    };
  });
  const height = frame.height === null ? cursor + MARGIN : Math.max(frame.height, cursor + MARGIN);
  const layout: DiagramLayout = { width: frame.width, height, headBottom: headH, heads, rows, font };
  return { layout, fits };
}

/** The diagram's geometry for a box; see the comment at the top of this file for how it fits. */
export function layoutDiagram(diagram: DiagramInput, frame: Frame, stepIndex: number, measure: Measure): DiagramLayout {
  if (frame.height === null) return build(diagram, frame, stepIndex, FREE_DENSITY, measure).layout;
  let last: DiagramLayout | null = null;
  for (const density of FILL_DENSITIES) {
    const { layout, fits } = build(diagram, frame, stepIndex, density, measure);
    if (fits) return layout;
    last = layout;
  }
  // Even the smallest type does not fit (a very long lesson in a small box): the drawing scales down as a whole.
  return last!;
}
