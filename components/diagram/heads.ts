import type { LessonLifeline } from "@/lib/lesson/model";
import { lifelineColour } from "@/components/theme";
import { widestPiece, wrapTo, type Measure } from "./measure";
import { ASCENT, LINE, type Columns, type Font, type HeadLayout, type HeadLine } from "./geometry";

/**
 * Measured text and drawn text differ by a few per cent once the drawing is
 * scaled (a console column narrower than the layout: hinting widens small
 * type), so head lines are wrapped this much short of the box: the CSI
 * head's subtitle spilled past its border on a console with narrow columns.
 */
const HEAD_SLACK = 0.94;

/** The badge set before a lifeline's name, or none when it would only repeat the name ("YOU You", "CSI CSI", "SCHED Scheduler"). */
export function headBadge({ badge, name }: Pick<LessonLifeline, "badge" | "name">): string | null {
  const b = badge?.trim();
  return b && !name.toLocaleLowerCase().includes(b.toLocaleLowerCase()) ? b : null;
}

/** A text's size so that its widest word (broken at hyphens) fits `width`: its own, or smaller down to `floor`; past that it is cut between letters. */
function fittingPx(text: string, px: number, floor: number, weight: number, width: number, measure: Measure): number {
  const longest = widestPiece(text, px, weight, measure);
  return longest > width ? Math.max(Math.min(px, floor), (px * width * 0.97) / longest) : px;
}

/**
 * One head's lines, each no wider than `inner`: the badge and the name on
 * one line when they fit (the badge left out when it repeats the name), the
 * name wrapped otherwise, the role wrapped below. A word that cannot fit is
 * set smaller rather than cut, never below `font.min` (20 px on a 1920x1080
 * projector).
 */
export function headLines(
  l: Pick<LessonLifeline, "badge" | "name" | "role">,
  inner: number,
  font: Font,
  measure: Measure,
): Omit<HeadLine, "y">[] {
  const width = inner * HEAD_SLACK;
  const badge = headBadge(l);
  const namePx = fittingPx(l.name, font.name, font.min, 700, width, measure);
  const lines: Omit<HeadLine, "y">[] = [];
  if (badge && measure(`${badge} ${l.name}`, namePx, 700) <= width) lines.push({ text: ` ${l.name}`, badge, px: namePx, tone: "name" });
  else {
    if (badge) lines.push({ text: badge, px: namePx, tone: "badge" });
    for (const t of wrapTo(l.name, width, namePx, 700, measure)) lines.push({ text: t, px: namePx, tone: "name" });
  }
  if (l.role) {
    const rolePx = fittingPx(l.role, font.role, font.min, 400, width, measure);
    for (const t of wrapTo(l.role, width, rolePx, 400, measure)) lines.push({ text: t, px: rolePx, tone: "role" });
  }
  return lines;
}

/** The lifelines' heads, side by side in their columns, all as tall as the tallest. */
export function layoutHeads(lifelines: readonly LessonLifeline[], cols: Columns, font: Font, u: number, measure: Measure, padRem = 0.7) {
  // Heads 0.35 rem apart, text 0.25 rem inside: a narrow column (many lifelines, a poll beside) keeps what it can for names.
  const boxW = cols.colW - 0.35 * u;
  const inner = boxW - 0.5 * u;
  const drafts = lifelines.map((l, i) => {
    const lines = headLines(l, inner, font, measure);
    return { l, i, lines, height: lines.reduce((h, x) => h + x.px * LINE, 0) };
  });
  const tallest = Math.max(0, ...drafts.map((d) => d.height));
  const headH = tallest + padRem * u;
  const heads: HeadLayout[] = drafts.map(({ l, i, lines, height }) => {
    const x = cols.xOf.get(l.id) ?? 0;
    // Heads with fewer lines sit in the middle of the row of heads.
    let top = 2 + (headH - 4 - height) / 2;
    return {
      lifeline: l,
      x,
      colour: lifelineColour(l, i),
      box: { x: x - boxW / 2, y: 2, width: boxW, height: headH - 4 },
      lines: lines.map((line) => {
        const y = top + line.px * ASCENT;
        top += line.px * LINE;
        return { ...line, y };
      }),
    };
  });
  return { heads, headH };
}
