import { describe, expect, it } from "vitest";
import { builtInDiagram } from "@/lib/lesson/model";
import { getScenario } from "@/lib/lesson/scenarios";
import { layoutDiagram, type Rect } from "./layout";
import type { Measure } from "./measure";
import {
  chooseCallout,
  drawnParts,
  liveParts,
  overlapArea,
  placeCallout,
  questionAnchor,
  segmentCrosses,
  type Obstacle,
  type Placement,
} from "./placement";

/** Geometry only: text as wide as a typical sans-serif's average letter. */
const measure: Measure = (text, px, weight = 400) => text.length * px * (weight >= 700 ? 0.62 : 0.55);

const box = (at: Placement, size: { width: number; height: number }): Rect => ({ x: at.x, y: at.y, ...size });
const overlaps = (a: Rect, b: Rect) => overlapArea(a, b) > 0;

/** The built-in lesson on a 1920x1080 projector (24 px rem, the box under the header), at `stepIndex`. */
function projector(stepIndex: number, frame = { width: 1904, height: 716, rem: 24 }) {
  const diagram = builtInDiagram(getScenario("WaitForFirstConsumer"));
  return layoutDiagram(diagram, frame, stepIndex, measure);
}

describe("placeCallout: a question pinned to an earlier arrow while the class is on a later step", () => {
  const size = { width: 28 * 24 * 0.72, height: 200 };
  for (const [pinned, live] of [
    [7, 8],
    [7, 11],
    [3, 4],
    [0, 11],
  ]) {
    it(`pinned to step ${pinned + 1}, class on step ${live + 1}: off the live arrow, label, note and number, in free space, inside the drawing`, () => {
      const layout = projector(live);
      const anchor = questionAnchor({ kind: "arrow", stepIndex: pinned }, layout, live)!;
      const bounds = { x: 4, y: 4, width: layout.width - 8, height: layout.height - 8 };
      const at = placeCallout({
        size,
        anchor,
        bounds,
        drawn: drawnParts(layout, live, anchor),
        live: liveParts(layout, live, 7),
        gap: 29,
      });
      const callout = box(at, size);
      const row = layout.rows[live];
      for (const part of [row.arrowBox, row.label.box, row.note?.frame].filter((r): r is Rect => !!r))
        expect(overlaps(callout, part)).toBe(false);
      expect(at.live).toBe(0);
      // The built-in lesson's labels are short: there is room off every label and head.
      expect(at.covered).toBe(0);
      for (const r of layout.rows.slice(0, live + 1)) expect(overlaps(callout, r.label.box)).toBe(false);
      expect(callout.x).toBeGreaterThanOrEqual(bounds.x);
      expect(callout.y).toBeGreaterThanOrEqual(bounds.y);
      expect(callout.x + callout.width).toBeLessThanOrEqual(bounds.x + bounds.width + 0.01);
      expect(callout.y + callout.height).toBeLessThanOrEqual(bounds.y + bounds.height + 0.01);
    });
  }

  it("does not sit just under its element when the live step is there (issue 26), and its line does not cross the live step", () => {
    const layout = projector(8);
    const anchor = questionAnchor({ kind: "arrow", stepIndex: 7 }, layout, 8)!;
    const live = liveParts(layout, 8, 7);
    const at = placeCallout({
      size,
      anchor,
      bounds: { x: 4, y: 4, width: layout.width - 8, height: layout.height - 8 },
      drawn: drawnParts(layout, 8, anchor),
      live,
      gap: 29,
    });
    // Just under step 8's arrow is step 9's row: what the old rule chose.
    const justUnder = { x: anchor.point.x - size.width / 2, y: anchor.element.y + anchor.element.height + 29, ...size };
    expect(live.some((r) => overlaps(justUnder, r))).toBe(true);
    expect(live.some((r) => overlaps(box(at, size), r))).toBe(false);
    expect(live.some((r) => segmentCrosses(at.point!, at.edge!, r))).toBe(false);
  });
});

describe("placeCallout: a question about the live arrow", () => {
  it("starts its line above the arrow's label when the callout is above it, never through the live label", () => {
    // The live arrow at the bottom of a 1000x600 drawing, its label above it; older rows fill the sides.
    const label = { x: 300, y: 520, width: 400, height: 30 };
    const arrow = { x: 300, y: 555, width: 400, height: 12 };
    const anchor = { element: { x: 300, y: 520, width: 400, height: 47 }, point: { x: 500, y: 561 }, slide: { from: 308, to: 692 } };
    const drawn: Obstacle[] = [
      { box: { x: 0, y: 300, width: 1000, height: 200 }, weight: 1 },
      { box: { x: 0, y: 500, width: 290, height: 100 }, weight: 1 },
      { box: { x: 710, y: 500, width: 290, height: 100 }, weight: 1 },
    ];
    const at = placeCallout({
      size: { width: 300, height: 150 },
      anchor,
      bounds: { x: 0, y: 0, width: 1000, height: 600 },
      drawn,
      live: [label, arrow],
      gap: 20,
    });
    expect(at.covered).toBe(0);
    expect(at.y + 150).toBeLessThanOrEqual(300);
    expect(at.point!.y).toBe(label.y);
    expect(at.crossesLive).toBe(false);
  });
});

describe("placeCallout when the drawing is full", () => {
  // A 1000x600 drawing in four bands: the oldest step, an older one, the latest one, and the live step.
  const bounds = { x: 0, y: 0, width: 1000, height: 600 };
  const band = (y: number): Rect => ({ x: 0, y, width: 1000, height: 150 });
  const drawn: Obstacle[] = [
    { box: band(0), weight: 1 },
    { box: band(150), weight: 3 },
    { box: band(300), weight: 5 },
  ];
  const live = [band(450)];

  it("never covers the live step, and goes over the oldest step first", () => {
    const size = { width: 300, height: 140 };
    const at = placeCallout({ size, anchor: null, bounds, drawn, live, gap: 20 });
    expect(at.live).toBe(0);
    expect(at.y + size.height).toBeLessThanOrEqual(150);
    expect(at.covered).toBe(300 * 140);
  });

  it("never covers the live step even when that means covering the heaviest part", () => {
    const size = { width: 300, height: 440 };
    const at = placeCallout({ size, anchor: null, bounds, drawn, live, gap: 20 });
    expect(at.live).toBe(0);
    expect(at.y + size.height).toBeLessThanOrEqual(450);
  });

  it("prefers free space far from its element to covering a label beside it", () => {
    const anchor = { element: { x: 100, y: 100, width: 200, height: 20 }, point: { x: 200, y: 120 } };
    const labels: Obstacle[] = [
      { box: { x: 0, y: 0, width: 600, height: 99 }, weight: 1 },
      { box: { x: 0, y: 121, width: 600, height: 479 }, weight: 1 },
    ];
    const size = { width: 300, height: 100 };
    const at = placeCallout({ size, anchor, bounds, drawn: labels, live: [], gap: 20 });
    expect(at.covered).toBe(0);
    expect(at.x).toBeGreaterThanOrEqual(600);
  });
});

describe("chooseCallout", () => {
  const at = (live: number, covered: number, score: number): Placement => ({
    x: 0,
    y: 0,
    edge: null,
    point: null,
    live,
    covered,
    crossesLive: false,
    score,
  });

  it("keeps the largest type that finds free space, the widest on a tie", () => {
    const places = new Map([
      ["big-wide", at(0, 0, 50)],
      ["big-narrow", at(0, 0, 50)],
      ["small", at(0, 0, 10)],
    ]);
    const sizes = (id: string) => ({ id, width: 1, height: 1 });
    const chosen = chooseCallout([[sizes("big-wide"), sizes("big-narrow")], [sizes("small")]], (s) => places.get(s.id)!);
    expect(chosen?.size.id).toBe("big-wide");
  });

  it("shrinks when the larger type finds no free space", () => {
    const places = new Map([
      ["big", at(0, 500, 20_000)],
      ["small", at(0, 0, 300)],
    ]);
    const chosen = chooseCallout([[{ id: "big", width: 2, height: 2 }], [{ id: "small", width: 1, height: 1 }]], (s) => places.get(s.id)!);
    expect(chosen?.size.id).toBe("small");
  });

  it("with no free space at any size, takes the least covering spot", () => {
    const places = new Map([
      ["big", at(0, 500, 20_000)],
      ["small", at(0, 100, 4_000)],
    ]);
    const chosen = chooseCallout([[{ id: "big", width: 2, height: 2 }], [{ id: "small", width: 1, height: 1 }]], (s) => places.get(s.id)!);
    expect(chosen?.size.id).toBe("small");
  });
});

describe("segmentCrosses", () => {
  const r = { x: 10, y: 10, width: 10, height: 10 };
  it("sees a line through a box, and not one beside it", () => {
    expect(segmentCrosses({ x: 0, y: 15 }, { x: 30, y: 15 }, r)).toBe(true);
    expect(segmentCrosses({ x: 0, y: 0 }, { x: 30, y: 30 }, r)).toBe(true);
    expect(segmentCrosses({ x: 0, y: 25 }, { x: 30, y: 25 }, r)).toBe(false);
    expect(segmentCrosses({ x: 0, y: 0 }, { x: 5, y: 30 }, r)).toBe(false);
  });
});
