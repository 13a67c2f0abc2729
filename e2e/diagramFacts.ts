import { expect, type Page } from "@playwright/test";
import { renderedText, settle } from "./layout";

/**
 * The projector's drawing measured on the real page, for
 * e2e/projectorLesson.spec.ts: the drawing's share of the width, the
 * smallest text as rendered, scrolling, and labels over labels or over step
 * numbers. Parts are found by structure (rows, circles, heads), not only by
 * test ids, so the same measurement runs on any renderer.
 */

/** The projector's rem follows the screen: at 1280x720 every size is two thirds of the 1920x1080 one, the same on the wall. */
export const scaleOf = (screen: { height: number }) => screen.height / 1080;

export interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}
export interface Named {
  what: string;
  box: Box;
}
/** What the projector's drawing shows, in CSS px of the page. */
export interface DrawingFacts {
  /** The extent of the drawing: its step numbers and lifeline heads (not the empty box around them). */
  content: Box;
  /** Texts cut off at the edge of the drawing's box. */
  outside: string[];
  /** Arrow labels, notes and lifeline heads: none may cover another. */
  labels: Named[];
  numbers: Named[];
  rows: number;
  currentArrow: Box | null;
  currentLabel: Box | null;
}

export function overlap(a: Box, b: Box, tolerance = 0.5): boolean {
  return (
    Math.min(a.right, b.right) - Math.max(a.left, b.left) > tolerance && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > tolerance
  );
}
export function gap(a: Box, b: Box): number {
  const dx = Math.max(0, a.left - b.right, b.left - a.right);
  const dy = Math.max(0, a.top - b.bottom, b.top - a.bottom);
  return Math.hypot(dx, dy);
}
export const grow = (b: Box, by: number): Box => ({ left: b.left - by, top: b.top - by, right: b.right + by, bottom: b.bottom + by });

/** The layout follows a ResizeObserver: measure once the page holds still (./layout.ts). */
export { settle };

/**
 * The drawing's parts, found by structure rather than by test ids so the same
 * measurement runs on any renderer: rows are `[data-step-label]` groups, a
 * row's step number is its circle, every other text in a row is a label or a
 * note, and lifeline heads are the `[data-lifeline]` boxes.
 */
export async function drawingFacts(page: Page): Promise<DrawingFacts> {
  return page.evaluate(() => {
    const svg = document.querySelector("[data-testid=projector] svg[data-testid=sequence-diagram]");
    if (!svg) throw new Error("no drawing on the projector");
    const box = (el: Element) => {
      const r = el.getBoundingClientRect();
      return { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
    };
    // What reaches past the drawing's own box is clipped (an outer <svg> hides its overflow): it counts as not drawn.
    const frame = box(svg);
    const clip = (b: ReturnType<typeof box>) => ({
      left: Math.max(b.left, frame.left),
      top: Math.max(b.top, frame.top),
      right: Math.min(b.right, frame.right),
      bottom: Math.min(b.bottom, frame.bottom),
    });
    // The drawing's frame: from the step numbers on its left to its last lifeline's head (labels that spill past it do not count).
    const drawn = [...svg.querySelectorAll("[data-lifeline] rect, [data-step-label] circle")].filter(
      (el) => el.getBoundingClientRect().width > 0,
    );
    const outside = [...svg.querySelectorAll("text")]
      .filter((t) => {
        const b = box(t);
        return (
          t.getBoundingClientRect().width > 0 &&
          (b.left < frame.left - 1 || b.right > frame.right + 1 || b.top < frame.top - 1 || b.bottom > frame.bottom + 1)
        );
      })
      .map((t) => `"${t.textContent?.slice(0, 50)}"`);
    const content = drawn
      .map((el) => clip(box(el)))
      .reduce(
        (a, b) => ({
          left: Math.min(a.left, b.left),
          top: Math.min(a.top, b.top),
          right: Math.max(a.right, b.right),
          bottom: Math.max(a.bottom, b.bottom),
        }),
        { left: Infinity, top: Infinity, right: -Infinity, bottom: -Infinity },
      );
    const rows = [...svg.querySelectorAll("[data-step-label]")];
    const numbers = rows.map((row) => ({
      what: `step number ${row.getAttribute("data-step-label")}`,
      box: box(row.querySelector("circle")!),
    }));
    const isNumber = (t: Element) => t.textContent?.trim() === t.closest("[data-step-label]")?.getAttribute("data-step-label");
    const labels = [
      ...rows.flatMap((row) =>
        [...row.querySelectorAll("text")]
          .filter((t) => !isNumber(t) && t.getBoundingClientRect().width > 0)
          .map((t) => ({ what: `step ${row.getAttribute("data-step-label")} text "${t.textContent?.slice(0, 50)}"`, box: box(t) })),
      ),
      ...[...svg.querySelectorAll("[data-lifeline]")].map((head) => ({
        what: `head of ${head.getAttribute("data-lifeline")}`,
        box: box(head.querySelector("rect")!),
      })),
    ];
    const current = svg.querySelector("[data-current]");
    const arrow = current?.querySelector("[data-testid=diagram-arrow]") ?? current?.querySelector("path[marker-end]");
    const label = current ? [...current.querySelectorAll("text")].find((t) => !isNumber(t)) : undefined;
    return {
      content,
      outside,
      labels,
      numbers,
      rows: rows.length,
      currentArrow: arrow ? box(arrow) : null,
      currentLabel: label ? box(label) : null,
    };
  });
}

/** Every pair of labels that touch, and every label over a step number. */
export function collisions(facts: DrawingFacts): string[] {
  const out: string[] = [];
  facts.labels.forEach((a, i) =>
    facts.labels.slice(i + 1).forEach((b) => {
      if (overlap(a.box, b.box)) out.push(`${a.what} over ${b.what}`);
    }),
  );
  for (const a of facts.labels) for (const n of facts.numbers) if (overlap(a.box, n.box)) out.push(`${a.what} over ${n.what}`);
  return out;
}

export interface Figures {
  widthShare: number;
  smallest: { text: string; px: number };
  scroll: { w: number; h: number; cw: number; ch: number };
  collisions: string[];
}

/** The drawing measured at the projector's current size; each check soft, so one run names every failure. */
export async function expectLegible(page: Page, state: string, rows: number, minWidthShare: number | null): Promise<Figures> {
  await settle(page);
  const viewport = page.viewportSize()!;
  const s = scaleOf(viewport);
  const facts = await drawingFacts(page);
  expect.soft(facts.rows, `${state}: rows drawn`).toBe(rows);
  const widthShare = (facts.content.right - facts.content.left) / viewport.width;
  if (minWidthShare !== null) expect.soft(widthShare, `${state}: the drawing's share of the width`).toBeGreaterThanOrEqual(minWidthShare);
  const texts = await renderedText(page, "[data-testid=projector] svg[data-testid=sequence-diagram]");
  const smallest = texts.reduce((a, b) => (b.px < a.px ? b : a), { text: "(none)", px: Infinity });
  expect
    .soft(smallest.px, `${state}: smallest text "${smallest.text}" at ${smallest.px.toFixed(1)} px`)
    .toBeGreaterThanOrEqual(20 * s - 0.05);
  const scroll = await page.evaluate(() => {
    const el = document.scrollingElement!;
    return { w: el.scrollWidth, h: el.scrollHeight, cw: el.clientWidth, ch: el.clientHeight };
  });
  expect.soft(scroll.w, `${state}: the page scrolls sideways`).toBeLessThanOrEqual(scroll.cw);
  expect.soft(scroll.h, `${state}: the page scrolls down`).toBeLessThanOrEqual(scroll.ch);
  // The whole drawing on the screen.
  expect.soft(facts.content.bottom, `${state}: the drawing ends below the screen`).toBeLessThanOrEqual(viewport.height + 1);
  expect.soft(facts.outside, `${state}: text cut off at the drawing's edge`).toEqual([]);
  const found = collisions(facts);
  expect.soft(found, `${state}: labels over each other or over step numbers`).toEqual([]);
  return { widthShare, smallest, scroll, collisions: found };
}

export const describeFigures = (screen: { width: number; height: number }, f: Figures) =>
  `${screen.width}x${screen.height}: drawing ${(f.widthShare * 100).toFixed(1)}% of the width, smallest text ${f.smallest.px.toFixed(1)} px ("${f.smallest.text.slice(0, 30)}"), page ${f.scroll.w}x${f.scroll.h} in ${f.scroll.cw}x${f.scroll.ch}, ${f.collisions.length} collisions`;
