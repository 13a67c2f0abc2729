import { parse, TYPE, type MessageFormatElement } from "@formatjs/icu-messageformat-parser";
import { printAST } from "@formatjs/icu-messageformat-parser/printer.js";

/**
 * The pseudo-locale (en-XA), made from the English catalog whenever it is
 * asked for, so it can never be stale: every letter accented, every message
 * bracketed and about 40% longer. A string on screen without the brackets
 * did not come from a catalog; a layout that breaks here breaks in German.
 * Placeholders, plural and select keywords and tags are left as they are, so
 * the messages format exactly like English ones.
 */

const ACCENTED: Record<string, string> = {
  a: "å",
  b: "ƀ",
  c: "ç",
  d: "ð",
  e: "é",
  f: "ƒ",
  g: "ĝ",
  h: "ĥ",
  i: "î",
  j: "ĵ",
  k: "ķ",
  l: "ļ",
  m: "ɱ",
  n: "ñ",
  o: "ö",
  p: "þ",
  q: "ǫ",
  r: "ŕ",
  s: "š",
  t: "ţ",
  u: "û",
  v: "ṽ",
  w: "ŵ",
  x: "ẋ",
  y: "ý",
  z: "ž",
  A: "Å",
  B: "Ɓ",
  C: "Ç",
  D: "Ð",
  E: "É",
  F: "Ƒ",
  G: "Ĝ",
  H: "Ĥ",
  I: "Î",
  J: "Ĵ",
  K: "Ķ",
  L: "Ļ",
  M: "Ṁ",
  N: "Ñ",
  O: "Ö",
  P: "Þ",
  Q: "Ǫ",
  R: "Ŕ",
  S: "Š",
  T: "Ţ",
  U: "Û",
  V: "Ṽ",
  W: "Ŵ",
  X: "Ẋ",
  Y: "Ý",
  Z: "Ž",
};

/** How much longer a translation tends to run than English (German, French): 40%. */
const EXPANSION = 0.4;
/** Padding comes in short runs with spaces between, so a long message can still wrap like real words do. */
const PAD_RUN = 6;

const accent = (text: string) => text.replace(/[a-zA-Z]/g, (ch) => ACCENTED[ch] ?? ch);

function accentAll(elements: MessageFormatElement[]): number {
  let letters = 0;
  for (const el of elements) {
    if (el.type === TYPE.literal) {
      letters += el.value.length;
      el.value = accent(el.value);
    } else if (el.type === TYPE.tag) {
      letters += accentAll(el.children);
    } else if (el.type === TYPE.plural || el.type === TYPE.select) {
      // Count the longest branch: that is the one the layout has to hold.
      letters += Math.max(0, ...Object.values(el.options).map((o) => accentAll(o.value)));
    }
  }
  return letters;
}

function padding(letters: number): string {
  const dots = Math.max(1, Math.round(letters * EXPANSION));
  const runs: string[] = [];
  for (let left = dots; left > 0; left -= PAD_RUN) runs.push("·".repeat(Math.min(PAD_RUN, left)));
  return runs.join(" ");
}

/** One ICU message in the pseudo-locale. */
export function pseudoMessage(message: string): string {
  const ast = parse(message);
  const letters = accentAll(ast);
  return `[${printAST(ast)}${padding(letters)}]`;
}

export type Catalog = { [key: string]: string | Catalog };

/** A whole catalog in the pseudo-locale, namespaces kept. */
export function pseudoCatalog(catalog: Catalog): Catalog {
  const out: Catalog = {};
  for (const [key, value] of Object.entries(catalog)) out[key] = typeof value === "string" ? pseudoMessage(value) : pseudoCatalog(value);
  return out;
}
