import type { LessonLifeline } from "@/lib/lesson/model";
import { lifelineColour } from "@/components/theme";
import { widestPiece, wrapTo, type Measure } from "./measure";
import { ASCENT, LINE, type Columns, type Font, type HeadLayout, type HeadLine } from "./geometry";

/** The lifelines' heads: badge and name on one line when they fit, the name wrapped otherwise, the role below. */
export function layoutHeads(lifelines: readonly LessonLifeline[], cols: Columns, font: Font, u: number, measure: Measure) {
  // Heads 0.35 rem apart, text 0.25 rem inside: a narrow column (many lifelines, a poll beside) keeps what it can for names.
  const boxW = cols.colW - 0.35 * u;
  const inner = boxW - 0.5 * u;
  const drafts = lifelines.map((l, i) => {
    // A word that cannot fit (even broken at its hyphens) sets the name a little smaller rather than cut it
    // (never below 0.85 of its size, 20 px on a 1920x1080 projector; past that it is cut between letters).
    const longest = widestPiece(l.name, font.name, 700, measure);
    const namePx = longest > inner ? Math.max(font.name * 0.85, (font.name * inner * 0.97) / longest) : font.name;
    const lines: Omit<HeadLine, "y">[] = [];
    if (l.badge && measure(`${l.badge}  ${l.name}`, namePx, 700) <= inner)
      lines.push({ text: `  ${l.name}`, badge: l.badge, px: namePx, tone: "name" });
    else {
      if (l.badge) lines.push({ text: l.badge, px: namePx, tone: "badge" });
      for (const t of wrapTo(l.name, inner, namePx, 700, measure)) lines.push({ text: t, px: namePx, tone: "name" });
    }
    for (const t of l.role ? wrapTo(l.role, inner, font.role, 400, measure) : []) lines.push({ text: t, px: font.role, tone: "role" });
    return { l, i, lines, height: lines.reduce((h, x) => h + x.px * LINE, 0) };
  });
  const tallest = Math.max(0, ...drafts.map((d) => d.height));
  const headH = tallest + 0.7 * u;
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
