/**
 * Text measuring and wrapping for the diagram and its callouts. The drawing
 * is laid out in the page's own pixels, so every text is measured with the
 * real font (a canvas with the drawing's font family) instead of guessed
 * from its length: nothing is wrapped by guesswork, so nothing spills out of
 * its box. Shared by the diagram's layout and the projector's question
 * callout, and imported by neither's drawing code in turn (no import circle).
 */

/** The width in CSS px of `text` set at `px` in the given weight. */
export type Measure = (text: string, px: number, weight?: number) => number;

const measurers = new Map<string, Measure>();

/** A measure for one font family (cached: a canvas per family, not per render). */
export function measurer(family: string): Measure {
  const cached = measurers.get(family);
  if (cached) return cached;
  const canvas = typeof document !== "undefined" ? document.createElement("canvas") : null;
  const ctx = canvas?.getContext("2d") ?? null;
  // A layout measures the same texts again on every render: remember them (per size: hinting makes widths not quite linear).
  const widths = new Map<string, number>();
  const measure: Measure = (text, px, weight = 400) => {
    if (!ctx) return text.length * px * 0.62;
    const key = `${weight}|${px}|${text}`;
    let width = widths.get(key);
    if (width === undefined) {
      ctx.font = `${weight} ${px}px ${family}`;
      width = ctx.measureText(text).width;
      if (widths.size > 20_000) widths.clear();
      widths.set(key, width);
    }
    return width;
  };
  measurers.set(family, measure);
  return measure;
}

/** Where a word too wide for its line may break: after hyphens, slashes, dots and underscores ("kube-" / "scheduler"). */
const BREAK_AFTER = /(?<=[-/._])/;

/** The widest piece of a text that `wrapTo` would only break between characters: type should be small enough for it. */
export function widestPiece(text: string, px: number, weight: number, measure: Measure): number {
  return widest(
    text.split(/\s+/).flatMap((word) => word.split(BREAK_AFTER)),
    px,
    weight,
    measure,
  );
}

/** A piece that is still too wide is cut by characters, as few as fit on each line. */
function byCharacters(word: string, max: number, px: number, weight: number, measure: Measure): string[] {
  const out: string[] = [];
  let piece = "";
  for (const ch of word) {
    if (piece && measure(piece + ch, px, weight) > max) {
      out.push(piece);
      piece = ch;
    } else piece += ch;
  }
  if (piece) out.push(piece);
  return out;
}

/**
 * Words into lines no wider than `max`. A word too wide for a line breaks
 * after its hyphens (or slashes, dots), and only if a piece is still too
 * wide, between characters: no line is ever wider than `max`.
 */
export function wrapTo(text: string, max: number, px: number, weight: number, measure: Measure): string[] {
  const lines: string[] = [];
  let line = "";
  // A piece marked \u0000 continues the word before it (no space between them).
  const pieces = text
    // Ordinary spaces only: a no-break space keeps "▲ 3" together.
    .split(/[ \t\r\n]+/)
    .filter(Boolean)
    .flatMap((word) => {
      if (measure(word, px, weight) <= max) return [word];
      return word
        .split(BREAK_AFTER)
        .flatMap((p) => (measure(p, px, weight) > max ? byCharacters(p, max, px, weight, measure) : [p]))
        .map((p, i) => (i ? `\u0000${p}` : p));
    });
  for (const piece of pieces) {
    const joined = piece.startsWith("\u0000");
    const word = joined ? piece.slice(1) : piece;
    const candidate = line ? `${line}${joined ? "" : " "}${word}` : word;
    if (line && measure(candidate, px, weight) > max) {
      lines.push(line);
      line = word;
    } else line = candidate;
  }
  if (line) lines.push(line);
  return lines;
}

/** The widest of some lines. */
export function widest(lines: readonly string[], px: number, weight: number, measure: Measure): number {
  return lines.reduce((w, l) => Math.max(w, measure(l, px, weight)), 0);
}
