import type { QuestionTarget } from "@/lib/session/types";
import type { DiagramLayout, Rect } from "./layout";

/**
 * Where a question's callout goes on the projector's drawing. Pure geometry
 * on the layout, in this order of what matters:
 *
 * 1. Never over the live step: its arrow (with its head), its label, its
 *    note and its number are what the class is looking at (issue 26: a
 *    callout drawn just under an earlier arrow covered the live one).
 * 2. In free space: over no label, note, number, head or arrow drawn so far.
 * 3. Near its element, with a line to it that does not cross the live step.
 *
 * When no free space is left it goes over the oldest steps first (the
 * latest ones, the heads and its own element cost more), or the callout is
 * made smaller (see `chooseCallout`).
 */

export interface Point {
  x: number;
  y: number;
}

/** The element a callout points at: its box (kept clear) and the point its line ends on. */
export interface Anchor {
  element: Rect;
  point: Point;
  /** An arrow's line: the point slides along it to face the callout, so the callout's line never runs along the arrow. */
  slide?: { from: number; to: number };
}

/** Something drawn, and what covering one square pixel of it costs: older steps least. */
export interface Obstacle {
  box: Rect;
  weight: number;
}

export const union = (a: Rect, b: Rect): Rect => {
  const x = Math.min(a.x, b.x);
  const y = Math.min(a.y, b.y);
  return { x, y, width: Math.max(a.x + a.width, b.x + b.width) - x, height: Math.max(a.y + a.height, b.y + b.height) - y };
};

export const grow = (r: Rect, by: number): Rect => ({ x: r.x - by, y: r.y - by, width: r.width + 2 * by, height: r.height + 2 * by });

export function overlapArea(a: Rect, b: Rect): number {
  const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  return w > 0 && h > 0 ? w * h : 0;
}

function distance(a: Rect, b: Rect): number {
  const dx = Math.max(0, a.x - (b.x + b.width), b.x - (a.x + a.width));
  const dy = Math.max(0, a.y - (b.y + b.height), b.y - (a.y + a.height));
  return Math.hypot(dx, dy);
}

/** Whether the segment p-q passes through the rectangle (Liang-Barsky clipping). */
export function segmentCrosses(p: Point, q: Point, r: Rect): boolean {
  const dx = q.x - p.x;
  const dy = q.y - p.y;
  let t0 = 0;
  let t1 = 1;
  const edges: [number, number][] = [
    [-dx, p.x - r.x],
    [dx, r.x + r.width - p.x],
    [-dy, p.y - r.y],
    [dy, r.y + r.height - p.y],
  ];
  for (const [pe, qe] of edges) {
    if (pe === 0) {
      if (qe < 0) return false;
      continue;
    }
    const t = qe / pe;
    if (pe < 0) t0 = Math.max(t0, t);
    else t1 = Math.min(t1, t);
    if (t0 > t1) return false;
  }
  return true;
}

const contains = (r: Rect, p: Point) => p.x >= r.x && p.x <= r.x + r.width && p.y >= r.y && p.y <= r.y + r.height;

const numberBox = ({ cx, cy, r }: { cx: number; cy: number; r: number }): Rect => ({ x: cx - r, y: cy - r, width: 2 * r, height: 2 * r });

/** The drawn part a question is about, or null when it is not drawn (a later step, a lifeline of another lesson). */
export function questionAnchor(target: QuestionTarget, layout: DiagramLayout, stepIndex: number): Anchor | null {
  if (target.kind === "lifeline") {
    const head = layout.heads.find((h) => h.lifeline.id === target.lifeline);
    return head ? { element: head.box, point: { x: head.x, y: head.box.y + head.box.height } } : null;
  }
  const row = layout.rows[target.stepIndex];
  if (!row || target.stepIndex > stepIndex) return null;
  if (target.kind === "step") {
    const { cx, cy } = row.number;
    return { element: numberBox(row.number), point: { x: cx, y: cy } };
  }
  if (target.kind === "note") {
    const f = row.note?.frame;
    return f ? { element: f, point: { x: f.x + f.width / 2, y: f.y + f.height / 2 } } : null;
  }
  // An arrow with its label: the callout keeps clear of both.
  const { x, width } = row.arrowBox;
  return { element: union(row.arrowBox, row.label.box), point: { x: x + width / 2, y: row.y }, slide: { from: x + 8, to: x + width - 8 } };
}

/** Covering a head (the lifelines' names) or the question's own element costs as much as covering the latest step, and more. */
const HEAD_WEIGHT = 6;
const ANCHOR_WEIGHT = 8;

/**
 * What is drawn so far, but the live step (see `liveParts`), weighted: the
 * oldest step 1 per square pixel, the step before the live one 5, the heads
 * 6, the question's own element 8. So when nothing is free, the callout goes
 * over the oldest steps first.
 */
export function drawnParts(layout: DiagramLayout, stepIndex: number, anchor: Anchor | null = null): Obstacle[] {
  const parts: Obstacle[] = layout.heads.map((h) => ({ box: h.box, weight: HEAD_WEIGHT }));
  const older = Math.min(stepIndex, layout.rows.length);
  layout.rows.slice(0, older).forEach((row, i) => {
    const weight = 1 + (4 * (i + 1)) / Math.max(1, older);
    parts.push({ box: row.label.box, weight }, { box: row.arrowBox, weight }, { box: numberBox(row.number), weight });
    if (row.note) parts.push({ box: row.note.frame, weight });
  });
  if (anchor) parts.push({ box: anchor.element, weight: ANCHOR_WEIGHT });
  return parts;
}

/** The live step's arrow (grown by `margin`: its head and stroke), label, note and number: a callout never covers them. */
export function liveParts(layout: DiagramLayout, stepIndex: number, margin: number): Rect[] {
  const row = layout.rows[stepIndex];
  if (!row) return [];
  const parts = [grow(row.arrowBox, margin), grow(row.label.box, margin / 2), numberBox(row.number)];
  if (row.note) parts.push(grow(row.note.frame, margin / 2));
  return parts;
}

export interface Placement {
  x: number;
  y: number;
  /** Where the line from the element meets the callout's edge (null when unanchored). */
  edge: Point | null;
  /** Where that line starts on the element. */
  point: Point | null;
  /** Square pixels of the live step under the callout: 0 whenever the drawing has room anywhere. */
  live: number;
  /** Weighted square pixels of other drawn parts under it: 0 when it is in free space. */
  covered: number;
  /** Whether its line runs across the live step. */
  crossesLive: boolean;
  /** Lower is better: everything above and the distance from the element, in one number. */
  score: number;
}

/** One weighted square pixel covered costs as much as this many pixels of distance: free space wins over nearness. */
const COVER_COST = 40;
/** The live step under the callout: worse than anything else. */
const LIVE_COST = 1e7;
/** The callout's line across the live step (as many pixels of distance), or across another drawn part (times its weight). */
const LINE_CROSSES_LIVE = 2000;
const LINE_CROSSES_DRAWN = 60;

/**
 * The best spot for a callout of this size: the spots right around the
 * element (below, above, right, left, at increasing distance), a grid over
 * the whole drawing, and spots lined up with the edges of what is drawn (the
 * gaps between rows), each scored by what it would cover (see the weights
 * above) and how far from its element it is.
 */
export function placeCallout({
  size,
  anchor,
  bounds,
  drawn,
  live,
  gap,
}: {
  size: { width: number; height: number };
  anchor: Anchor | null;
  bounds: Rect;
  drawn: readonly Obstacle[];
  live: readonly Rect[];
  gap: number;
}): Placement {
  const { width: w, height: h } = size;
  const clampX = (x: number) => Math.min(Math.max(bounds.x, x), bounds.x + bounds.width - w);
  const clampY = (y: number) => Math.min(Math.max(bounds.y, y), bounds.y + bounds.height - h);
  let best: Placement | null = null;
  // Only what a band of the callout's height meets is looked at for the spots in that band: a few times fewer checks.
  const consider = (xs: readonly number[], y: number) => {
    const top = clampY(y);
    const inBand = (r: Rect) => r.y < top + h && r.y + r.height > top;
    const bandDrawn = drawn.filter((d) => inBand(d.box));
    const bandLive = live.filter(inBand);
    for (const x of xs) {
      const at = { x: clampX(x), y: top };
      const box = { x: at.x, y: at.y, width: w, height: h };
      let liveArea = 0;
      for (const f of bandLive) liveArea += overlapArea(box, f);
      let covered = 0;
      for (const d of bandDrawn) covered += overlapArea(box, d.box) * d.weight;
      let score = liveArea * LIVE_COST + covered * COVER_COST;
      if (best && score > best.score) continue;
      let point: Point | null = null;
      let edge: Point | null = null;
      let crossesLive = false;
      if (anchor) {
        score += distance(box, anchor.element);
        if (best && score > best.score) continue;
        const { slide, element: e } = anchor;
        // On an arrow the line starts where the arrow faces the callout: above the label when the callout is above it,
        // so the line never runs through the arrow's own label (the live label, when the question is about the live step).
        point = slide
          ? { x: Math.min(Math.max(at.x + w / 2, slide.from), slide.to), y: at.y + h <= e.y ? e.y : anchor.point.y }
          : anchor.point;
        edge = { x: Math.min(Math.max(point.x, at.x), at.x + w), y: Math.min(Math.max(point.y, at.y), at.y + h) };
        const p = point;
        const q = edge;
        // What the line starts inside (its own arrow) it cannot help crossing.
        const crosses = (r: Rect) => !contains(r, p) && segmentCrosses(p, q, r);
        crossesLive = live.some(crosses);
        if (crossesLive) score += LINE_CROSSES_LIVE;
        for (const d of drawn) if (d.box !== anchor.element && crosses(d.box)) score += LINE_CROSSES_DRAWN * d.weight;
      }
      if (!best || score < best.score) best = { ...at, edge, point, live: liveArea, covered, crossesLive, score };
    }
  };
  if (anchor) {
    // Right around the element first: below, above, right, left, at increasing distance.
    const { element: e, point: p } = anchor;
    const xs = [p.x - w / 2, e.x, e.x + e.width - w, p.x - w * 0.15, p.x - w * 0.85];
    const ys = [p.y - h / 2, e.y, e.y + e.height - h];
    for (let k = 0; k < 4; k++) {
      const far = k * gap * 0.75;
      consider(xs, e.y + e.height + gap + far);
      consider(xs, e.y - gap - h - far);
      for (const y of ys) consider([e.x + e.width + gap + far, e.x - gap - w - far], y);
    }
  }
  // Then a grid over the whole drawing, with every gap between rows as a band of its own (the grid's steps may miss it).
  const pad = gap / 3;
  const xs: number[] = [];
  for (let x = bounds.x; x <= bounds.x + bounds.width - w + 0.5; x += gap / 2) xs.push(x);
  xs.push(bounds.x + bounds.width - w);
  const ys = new Set<number>();
  for (let y = bounds.y; y <= bounds.y + bounds.height - h + 0.5; y += gap / 2) ys.add(Math.round(y));
  ys.add(Math.round(bounds.y + bounds.height - h));
  for (const o of [...drawn.map((d) => d.box), ...live]) {
    ys.add(Math.round(o.y + o.height + pad));
    ys.add(Math.round(o.y - pad - h));
  }
  for (const y of ys) consider(xs, y);
  // Never null: the grid has at least the far corner.
  return best!;
}

/**
 * The callout to draw, from sizes in tiers: each tier one type size, its
 * sizes widest first. The first tier with a spot in free space, its line off
 * the live step, wins (its best spot, the widest on a tie: it reads in fewer
 * lines); a smaller type is tried only when the larger finds none. When no
 * tier finds one, the best spot of any size (over the oldest steps first).
 */
export function chooseCallout<S extends { width: number; height: number }>(
  tiers: readonly (readonly S[])[],
  place: (size: S) => Placement,
): { size: S; at: Placement } | null {
  let fallback: { size: S; at: Placement } | null = null;
  for (const tier of tiers) {
    let best: { size: S; at: Placement } | null = null;
    for (const size of tier) {
      const at = place(size);
      if (!best || at.score < best.at.score - 1) best = { size, at };
    }
    if (!best) continue;
    if (best.at.live === 0 && best.at.covered === 0 && !best.at.crossesLive) return best;
    if (!fallback || best.at.score < fallback.at.score) fallback = best;
  }
  return fallback;
}
