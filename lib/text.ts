/**
 * Text from people: what is kept of it (cleanText) and when two names look
 * the same on screen (lookalikeKey). Pure, no imports: the lesson model, the
 * session and the protocol's schemas all clean text the same way.
 */

/** A URL segment as text; a malformed %-escape is kept as typed (it then fails validation) instead of throwing. */
export function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * Characters that draw nothing or rewrite what follows: controls (Cc), format
 * characters (Cf: soft hyphen, bidi marks and overrides, zero-width joiners,
 * word joiner and invisible operators, U+061C, U+180E, tag characters),
 * lone surrogates (Cs), and blank letters that fonts draw as nothing (Hangul
 * fillers U+115F, U+1160, U+3164, U+FFA0; braille blank U+2800).
 */
// Each of these is a character of its own here (combining marks included), listed to be removed.
// eslint-disable-next-line no-misleading-character-class
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Cs}\u115f\u1160\u3164\uffa0\u2800\u034f\u17b4\u17b5\u180b-\u180f\ufe00-\ufe0f\u{e0100}-\u{e01ef}]/gu;

const EMOJI_BEFORE = /\p{Extended_Pictographic}\ufe0f?$/u;
const EMOJI_AFTER = /^\p{Extended_Pictographic}/u;

/** Graphemes of a string (an emoji with its modifiers is one), where the platform can tell them apart. */
const graphemes: ((text: string) => string[]) | null =
  typeof Intl !== "undefined" && "Segmenter" in Intl
    ? (() => {
        const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });
        return (text: string) => Array.from(segmenter.segment(text), (s) => s.segment);
      })()
    : null;

/** At most `max` UTF-16 units, cut between graphemes (never half an emoji or a lone surrogate). */
function cutAt(text: string, max: number): string {
  if (text.length <= max) return text;
  if (!graphemes) return text.slice(0, max).replace(/[\ud800-\udbff]$/, "");
  let out = "";
  for (const g of graphemes(text)) {
    if (out.length + g.length > max) break;
    out += g;
  }
  return out;
}

/** Trim, drop invisible and direction-changing characters, cap the length on a grapheme boundary. Never rendered as HTML. */
export function cleanText(input: string, max: number): string {
  const visible = input
    .normalize("NFC")
    // A zero-width joiner between two emoji builds one emoji (👩‍💻), and U+FE0F after an emoji picks its
    // colour form (❤️): kept there, dropped everywhere else (after a letter they only hide a difference).
    .replace(INVISIBLE, (c, at: number, all: string) => {
      const afterEmoji = EMOJI_BEFORE.test(all.slice(Math.max(0, at - 3), at));
      if (c === "\u200d" && afterEmoji && EMOJI_AFTER.test(all.slice(at + 1, at + 3))) return c;
      if (c === "\ufe0f" && afterEmoji) return c;
      return "";
    })
    .replace(/\s+/g, " ")
    .trim();
  return cutAt(visible, max).trim();
}

/**
 * The form under which two nicknames look the same on screen: compatibility
 * forms folded (NFKC: full-width letters, ligatures), case and spacing
 * ignored, and the Latin look-alikes of Cyrillic and Greek letters mapped.
 * The teacher's list marks participants whose names share this form.
 */
export function lookalikeKey(nickname: string): string {
  return nickname
    .normalize("NFKC")
    .toLowerCase()
    .replace(/\s+/g, "")
    .replace(/[аеорсухіјѕԁɡοαβνκτμ]/g, (c) => LOOKALIKES[c] ?? c);
}

const LOOKALIKES: Record<string, string> = {
  а: "a",
  е: "e",
  о: "o",
  р: "p",
  с: "c",
  у: "y",
  х: "x",
  і: "i",
  ј: "j",
  ѕ: "s",
  ԁ: "d",
  ɡ: "g",
  ο: "o",
  α: "a",
  β: "b",
  ν: "v",
  κ: "k",
  τ: "t",
  μ: "u",
};
