import type { QuestionTarget } from "@/lib/session/types";
import type { DiagramLayout, Rect } from "./layout";

/**
 * Where a callout goes on a drawing: beside the element it is about, in the
 * free space around it, and never over the current step's arrow or label
 * (the thing the class is looking at). Pure geometry on the layout.
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

export const union = (a: Rect, b: Rect): Rect => {
  const x = Math.min(a.x, b.x);
  const y = Math.min(a.y, b.y);
  return { x, y, width: Math.max(a.x + a.width, b.x + b.width) - x, height: Math.max(a.y + a.height, b.y + b.height) - y };
};

export const grow = (r: Rect, by: number): Rect => ({ x: r.x - by, y: r.y - by, width: r.width + 2 * by, height: r.height + 2 * by });

function overlapArea(a: Rect, b: Rect): number {
  const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  return w > 0 && h > 0 ? w * h : 0;
}

function distance(a: Rect, b: Rect): number {
  const dx = Math.max(0, a.x - (b.x + b.width), b.x - (a.x + a.width));
  const dy = Math.max(0, a.y - (b.y + b.height), b.y - (a.y + a.height));
  return Math.hypot(dx, dy);
}

/** The drawn part a question is about, or null when it is not drawn (a later step, a lifeline of another lesson). */
export function questionAnchor(target: QuestionTarget, layout: DiagramLayout, stepIndex: number): Anchor | null {
  if (target.kind === "lifeline") {
    const head = layout.heads.find((h) => h.lifeline.id === target.lifeline);
    return head ? { element: head.box, point: { x: head.x, y: head.box.y + head.box.height } } : null;
  }
  const row = layout.rows[target.stepIndex];
  if (!row || target.stepIndex > stepIndex) return null;
  if (target.kind === "step") {
    const { cx, cy, r } = row.number;
    return { element: { x: cx - r, y: cy - r, width: 2 * r, height: 2 * r }, point: { x: cx, y: cy } };
  }
  if (target.kind === "note") {
    const f = row.note?.frame;
    return f ? { element: f, point: { x: f.x + f.width / 2, y: f.y + f.height / 2 } } : null;
  }
  // An arrow with its label: the callout keeps clear of both.
  const { x, width } = row.arrowBox;
  return { element: union(row.arrowBox, row.label.box), point: { x: x + width / 2, y: row.y }, slide: { from: x + 8, to: x + width - 8 } };
}

/** What is drawn so far (heads, labels, notes, numbers, arrows): a callout should cover none of it. */
export function drawnParts(layout: DiagramLayout, stepIndex: number): Rect[] {
  const parts = layout.heads.map((h) => h.box);
  for (const row of layout.rows.slice(0, stepIndex + 1)) {
    const { cx, cy, r } = row.number;
    parts.push(row.label.box, row.arrowBox, { x: cx - r, y: cy - r, width: 2 * r, height: 2 * r });
    if (row.note) parts.push(row.note.frame);
  }
  return parts;
}

/** The current step's arrow, label and number: a callout must never cover them. */
export function currentParts(layout: DiagramLayout, stepIndex: number, margin: number): Rect[] {
  const row = layout.rows[stepIndex];
  if (!row) return [];
  const { cx, cy, r } = row.number;
  return [grow(row.arrowBox, margin), grow(row.label.box, margin / 2), { x: cx - r, y: cy - r, width: 2 * r, height: 2 * r }];
}

export interface Placement {
  x: number;
  y: number;
  /** Where the line from the element meets the callout's edge (null when unanchored). */
  edge: Point | null;
  /** Where that line starts on the element. */
  point: Point | null;
  /** Lower is better: covered text, ten thousand times over for the current step, and distance from the element. */
  score: number;
}

/** Covering drawn text costs this much per square pixel; each pixel of distance from the element, `gap` times this. */
const COVER_COST = 3;
const DISTANCE_COST = 4;

/**
 * The best spot for a callout of this size: the spots right around the
 * element (below, above, right, left, at increasing distance) and a grid over
 * the whole drawing, each scored by how much drawn text it would cover
 * (forbidden parts cost a million times over) and how far from its element
 * it is. So it sits beside its element when there is room there, in the
 * nearest free space when there is not, and over old steps only when the
 * drawing is full, never over the current one.
 */
export function placeCallout({
  size,
  anchor,
  bounds,
  drawn,
  forbidden,
  gap,
}: {
  size: { width: number; height: number };
  anchor: Anchor | null;
  bounds: Rect;
  drawn: Rect[];
  forbidden: Rect[];
  gap: number;
}): Placement {
  const { width: w, height: h } = size;
  const clampX = (x: number) => Math.min(Math.max(bounds.x, x), bounds.x + bounds.width - w);
  const clampY = (y: number) => Math.min(Math.max(bounds.y, y), bounds.y + bounds.height - h);
  const candidates: Point[] = [];
  if (anchor) {
    const { element: e, point: p } = anchor;
    const xs = [p.x - w / 2, e.x, e.x + e.width - w, p.x - w * 0.15, p.x - w * 0.85];
    const ys = [p.y - h / 2, e.y, e.y + e.height - h];
    for (let k = 0; k < 4; k++) {
      const far = k * gap * 0.75;
      for (const x of xs) candidates.push({ x, y: e.y + e.height + gap + far }, { x, y: e.y - gap - h - far });
      for (const y of ys) candidates.push({ x: e.x + e.width + gap + far, y }, { x: e.x - gap - w - far, y });
    }
  }
  for (let y = bounds.y; y <= bounds.y + bounds.height - h + 0.5; y += gap) {
    for (let x = bounds.x; x <= bounds.x + bounds.width - w + 0.5; x += gap) candidates.push({ x, y });
  }
  // The far corner, exactly (the grid's steps may stop short of it).
  candidates.push({ x: bounds.x + bounds.width - w, y: bounds.y + bounds.height - h });
  let best: { at: Point; score: number } | null = null;
  for (const c of candidates) {
    const at = { x: clampX(c.x), y: clampY(c.y) };
    const box = { x: at.x, y: at.y, width: w, height: h };
    let score = 0;
    for (const f of forbidden) score += overlapArea(box, f) * 1e6;
    for (const d of drawn) score += overlapArea(box, d) * COVER_COST;
    if (anchor) score += distance(box, anchor.element) * gap * DISTANCE_COST;
    if (!best || score < best.score) best = { at, score };
  }
  const { at, score } = best!;
  if (!anchor) return { ...at, edge: null, point: null, score };
  const { slide } = anchor;
  const p = slide ? { x: Math.min(Math.max(at.x + w / 2, slide.from), slide.to), y: anchor.point.y } : anchor.point;
  const edge = { x: Math.min(Math.max(p.x, at.x), at.x + w), y: Math.min(Math.max(p.y, at.y), at.y + h) };
  return { ...at, edge, point: p, score };
}
