import { isRecord } from "../guards";

/**
 * Mermaid's parse errors, said for a teacher. Mermaid's parser (jison) reports
 * the tokens it wanted ("Expecting '()', 'SOLID_OPEN_ARROW', … got 'NEWLINE'"):
 * right, and no help to someone who typed `participnt`. Here the line it
 * stopped on is read again for the mistakes people make (a misspelt keyword,
 * an arrow typo, a message without its receiver or its colon) and the problem
 * is said in words, at the line and column to fix, with the corrected line
 * where the fix is plain. Anything else is still said in words, from the
 * token names, never as the token list.
 */

export interface LessonParseError {
  message: string;
  /** 1-based, in the text the teacher typed. */
  line: number;
  column: number;
  /** The whole line as it should probably read (without its indentation), when the fix is plain. */
  suggestion?: string;
}

/** A line of the teacher's text, 1-based. */
export interface SourceLine {
  n: number;
  text: string;
}

/** The arrows a lesson can use, and what they draw: said when an arrow is mistyped. */
const ARROW_HELP = "Arrows are `->>` (solid), `-->>` (dotted), `->` and `-->` (no head), `-x` and `--x` (a cross), `-)` and `--)` (async).";
const VALID_ARROWS = new Set(["->>", "-->>", "->", "-->", "-x", "--x", "-)", "--)", "<<->>", "<<-->>"]);

/** Mermaid's statement keywords, for "did you mean"; the short block words (alt, opt, end…) are never guessed. */
const KEYWORDS = ["participant", "actor", "note", "autonumber", "title", "activate", "deactivate", "create", "destroy", "critical"];
const BLOCK_OPENERS = /^(loop|alt|opt|par|par_over|rect|critical|break|box)\b/i;

interface ParserFailure {
  /** The teacher's lines the parser's location spans (first and last). */
  firstLine: number;
  lastLine: number;
  /** 1-based. */
  column: number;
  /** The token it found: "NEWLINE", "INVALID", "TXT", "ACTOR", a keyword, or "EOF" at the end of the text. */
  token: string;
  /** The text of that token. */
  text: string;
  expected: string[];
}

/** jison's `hash` (`token`, `text`, `expected`, `loc` with 1-based lines and 0-based columns), on the teacher's lines. */
function readFailure(err: unknown, leadingBlank: number): ParserFailure | null {
  if (!isRecord(err) || !isRecord(err.hash)) return null;
  const hash = err.hash;
  const loc = isRecord(hash.loc) ? hash.loc : {};
  const first = typeof loc.first_line === "number" ? loc.first_line : typeof hash.line === "number" ? hash.line + 1 : 1;
  const last = typeof loc.last_line === "number" ? loc.last_line : first;
  // jison says 1 (its EOF symbol) when the text ended where more was needed.
  const token = hash.token === 1 || hash.token === "EOF" ? "EOF" : typeof hash.token === "string" ? hash.token : "";
  return {
    firstLine: first + leadingBlank,
    lastLine: Math.max(first, last) + leadingBlank,
    column: (typeof loc.first_column === "number" ? loc.first_column : 0) + 1,
    token,
    text: typeof hash.text === "string" ? hash.text : "",
    expected: Array.isArray(hash.expected) ? hash.expected.filter((e) => typeof e === "string").map((e) => e.replace(/^'|'$/g, "")) : [],
  };
}

/** Damerau-Levenshtein distance (adjacent swaps count once): "participnt" is 1 from "participant", "Noet" 1 from "Note". */
export function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/** The nearest word of `words` to a typed one, if it is near enough to be a typo (not another word). */
function nearest(typed: string, words: readonly string[]): string | null {
  const t = typed.toLowerCase();
  let best: { word: string; distance: number } | null = null;
  for (const word of words) {
    const distance = editDistance(t, word.toLowerCase());
    if (distance > 0 && distance <= (word.length >= 8 ? 2 : 1) && (!best || distance < best.distance)) best = { word, distance };
  }
  return best?.word ?? null;
}

interface ArrowSpan {
  /** Index in the trimmed line where the arrow starts, and the arrow as typed. */
  start: number;
  typed: string;
}

/**
 * The arrow of a message line, as typed: the first run of `-`, `=`, `<`, `>`, with spaces inside it, dots
 * next to it, and a closing `x` or `)` after a dash. A participant name may hold a single dash
 * (`my-service`), so a lone `-` between letters is not an arrow.
 */
function findArrow(t: string): ArrowSpan | null {
  const m = /\.*(?:<{1,2}\s*)?(?:[-=]+|>)(?:[\s.]*[-=>.])*(?:(?<=[-.=])\s*[x)])?/.exec(t);
  if (!m || m.index === 0) return null;
  const typed = m[0];
  // "my-service": one dash between two letters is part of a name.
  if (/^-$/.test(typed) && /\w/.test(t[m.index - 1] ?? "") && /\w/.test(t[m.index + 1] ?? "")) {
    const rest = findArrow(t.slice(m.index + 1));
    return rest && { start: rest.start + m.index + 1, typed: rest.typed };
  }
  return { start: m.index, typed: typed.replace(/\s+$/, "") };
}

/** The arrow a mistyped one most likely meant: dotted if it doubles its dashes or uses dots, head from its end. */
function meantArrow(typed: string): string {
  const compact = typed.replace(/\s+/g, "");
  const dotted = /--|\.|==/.test(compact);
  const dash = dotted ? "--" : "-";
  if (/x$/i.test(compact)) return `${dash}x`;
  if (/\)$/.test(compact)) return `${dash})`;
  return (compact.match(/>/g) ?? []).length === 1 ? `${dash}>` : `${dash}>>`;
}

/** A problem found on a line: where on it, and what to say. */
type Found = Omit<LessonParseError, "line">;

/** A message line (`A->>B: text`) read for the usual mistakes. */
function messageProblem(t: string, indent: number): Found | null {
  const arrow = findArrow(t);
  if (!arrow) return null;
  const from = t.slice(0, arrow.start).trim();
  const afterArrow = t.slice(arrow.start + arrow.typed.length);
  const at = (index: number) => indent + index + 1;
  const compact = arrow.typed.replace(/\s+/g, "");

  if (!VALID_ARROWS.has(arrow.typed)) {
    const sep = afterArrow.search(/[:;]/);
    const to = (sep < 0 ? afterArrow : afterArrow.slice(0, sep)).trim();
    const text = sep < 0 ? "" : afterArrow.slice(sep + 1).trim();
    const tail = text ? `: ${text}` : sep < 0 ? "" : ":";
    // `B<-A` or `B<<--A`: Mermaid's arrows point from the sender to the receiver, left to right.
    if (compact.startsWith("<") && !compact.endsWith(">") && to) {
      const meant = meantArrow(compact.replace(/^<+/, "") + ">>");
      return {
        message: `\`${arrow.typed}\` points left, and Mermaid's arrows point right: write the sender first, then the arrow, then the receiver. ${ARROW_HELP}`,
        column: at(arrow.start),
        suggestion: `${to}${meant}${from}${tail}`,
      };
    }
    // `- >>`: the right arrow with a space in it.
    const spaced = VALID_ARROWS.has(compact);
    const meant = spaced ? compact : meantArrow(compact);
    return {
      message: spaced
        ? `The arrow \`${arrow.typed}\` has a space inside it: write it as \`${meant}\`.`
        : `\`${arrow.typed}\` is not a Mermaid arrow. Did you mean \`${meant}\`? ${ARROW_HELP}`,
      column: at(arrow.start),
      suggestion: `${from}${meant}${to}${tail}`,
    };
  }

  // The arrow is right: then the receiver, a colon and the text.
  const sep = afterArrow.search(/[:;]/);
  const receiverPart = sep < 0 ? afterArrow : afterArrow.slice(0, sep);
  const receiver = receiverPart.trim().replace(/^[+-]\s*/, "");
  const afterReceiver = arrow.start + arrow.typed.length + (sep < 0 ? afterArrow.length : sep);
  if (receiver === "") {
    return {
      message: `This message has no receiver: between \`${arrow.typed}\` and the colon, write the id of the participant it goes to.`,
      column: at(arrow.start + arrow.typed.length),
    };
  }
  if (findArrow(receiverPart)) {
    return {
      message: "A line holds one message, and this one has two arrows: put each message on its own line.",
      column: at(arrow.start + arrow.typed.length + (findArrow(receiverPart)?.start ?? 0)),
    };
  }
  const head = `${from}${arrow.typed}`;
  if (sep >= 0 && afterArrow[sep] === ";") {
    return {
      message: "Mermaid reads `;` as the end of a line. Put a colon `:` between the receiver and the message text.",
      column: at(afterReceiver),
      suggestion: `${head}${receiver}: ${afterArrow.slice(sep + 1).trim()}`,
    };
  }
  if (sep < 0) {
    // `A->>B hello`: Mermaid read "B hello" as the receiver's name and found no text.
    const space = receiver.search(/\s/);
    if (space > 0) {
      const name = receiver.slice(0, space);
      return {
        message: `A colon \`:\` goes between the receiver and the message text: Mermaid read "${receiver}" as the name of the receiver, and found no text.`,
        column: at(arrow.start + arrow.typed.length + afterArrow.indexOf(name) + name.length),
        suggestion: `${head}${name}: ${receiver.slice(space).trim()}`,
      };
    }
    return {
      message: `A message needs its text after a colon: \`${head}${receiver}: what is sent\`.`,
      column: at(t.length),
    };
  }
  const text = afterArrow.slice(sep + 1);
  if (text.includes(";")) {
    return {
      message: "Mermaid reads `;` as the end of a line, even inside a message's text: write `#59;` where the text needs a semicolon.",
      column: at(arrow.start + arrow.typed.length + sep + 1 + text.indexOf(";")),
      suggestion: `${head}${receiver}: ${text.trim().replace(/;/g, "#59;")}`,
    };
  }
  return null;
}

/** A statement line (no arrow) read for a misspelt keyword and a note's shape. */
function statementProblem(t: string, indent: number): Found | null {
  const words = t.split(/\s+/);
  const first = words[0] ?? "";
  const lower = first.toLowerCase();
  const rest = t.slice(first.length).trim();
  if (lower === "note") {
    const place = /^(over|left\s+of|right\s+of)\b/i.exec(rest);
    const restAt = indent + t.indexOf(rest) + 1;
    if (!place) {
      const typed = rest.split(/\s+/)[0] ?? "";
      const after = rest.slice(typed.length).trim();
      const guess = nearest(typed, ["over", "left", "right"]);
      // `Note ovr A: x` -> over; `Note lft of A: x` -> left of; `Note A: x` (no place at all) -> over A.
      const suggestion =
        guess === "over"
          ? `${first} over ${after}`
          : guess
            ? `${first} ${guess} ${/^of\b/i.test(after) ? after : `of ${after}`}`
            : /:/.test(rest) && !/\s/.test(typed.replace(/:.*$/, ""))
              ? `${first} over ${rest}`
              : null;
      return {
        message: `After \`${first}\`, say where the note goes: \`over\`, \`left of\` or \`right of\`, then the participant (\`Note over A: text\`).`,
        column: restAt,
        ...(suggestion ? { suggestion } : {}),
      };
    }
    if (!rest.includes(":")) {
      const target = rest.slice(place[0].length).trim();
      const name = target.split(/\s+/)[0] ?? "";
      const text = target.slice(name.length).trim();
      const nameAt = name ? t.indexOf(name, first.length + 1 + place[0].length) : -1;
      return {
        message: `A note needs a colon \`:\` between its participant and its text (\`${first} ${place[0]} ${name || "A"}: text\`).`,
        column: indent + (nameAt >= 0 ? nameAt + name.length : t.length) + 1,
        ...(name && text ? { suggestion: `${first} ${place[0]} ${name}: ${text}` } : {}),
      };
    }
    return null;
  }
  if (lower === "end") {
    return {
      message: "`end` closes a block (loop, alt, opt, par, rect), and no block is open here: delete this line.",
      column: indent + 1,
    };
  }
  if (KEYWORDS.includes(lower)) return null;
  // A keyword typo is only guessed with something after it (`participnt A`, `Noet over A: x`): a line that
  // is one word is as likely a participant's name with the arrow forgotten.
  const guess = nearest(first, KEYWORDS);
  const placed = guess !== "note" || /^(over|left|right)\b/i.test(rest);
  if (guess && placed && (rest !== "" || guess === "autonumber")) {
    const word = first[0] === first[0].toUpperCase() && guess === "note" ? "Note" : guess;
    return {
      message: `\`${first}\` is not a word Mermaid knows here. Did you mean \`${word}\`?`,
      column: indent + 1,
      suggestion: rest ? `${word} ${rest}` : word,
    };
  }
  return null;
}

/** What is wrong with one line of the teacher's text, as far as can be told from the line alone. */
export function lineProblem(text: string): Found | null {
  const t = text.trim();
  if (t === "" || t.startsWith("%%")) return null;
  const indent = text.length - text.trimStart().length;
  const arrow = findArrow(t);
  // An arrow after a colon is in a note's or a title's text, not a message's arrow.
  const isMessage = arrow && !t.slice(0, arrow.start).includes(":") && !/^(note|title|accTitle|accDescr)\b/i.test(t);
  return (isMessage ? messageProblem(t, indent) : null) ?? loneDash(t, indent) ?? statementProblem(t, indent);
}

/** `A-B: hi`: Mermaid reads "A-B" as one participant's name (names may hold a dash), then finds no arrow. */
function loneDash(t: string, indent: number): Found | null {
  const m = /^([^\s:;-]+)-([^\s:;<>=-]+)\s*:(.*)$/.exec(t);
  if (!m || KEYWORDS.includes(m[1].toLowerCase())) return null;
  return {
    message: `A single \`-\` is not an arrow: Mermaid read \`${m[1]}-${m[2]}\` as one participant's name. Did you mean \`${m[1]}->>${m[2]}\`? ${ARROW_HELP}`,
    column: indent + m[1].length + 1,
    suggestion: `${m[1]}->>${m[2]}: ${m[3].trim()}`,
  };
}

/** The parser's expectations in words: "an arrow (such as `->>`) or a colon and the message text". */
function expectedInWords(expected: string[]): string {
  const said = new Set<string>();
  for (const e of expected) {
    if (/ARROW|^SOLID|^DOTTED|^\(\)$/.test(e)) said.add("an arrow (such as `->>`)");
    else if (e === "ACTOR") said.add("a participant's name");
    else if (e === "TXT") said.add("a colon and the message text");
    else if (e === "over" || e === "left_of" || e === "right_of") said.add("`over`, `left of` or `right of`");
    else if (e === "end") said.add("`end`");
    else if (/^[a-z_]+$/.test(e) && e !== "end") said.add("a new line (a message, or a keyword such as `participant`)");
  }
  // Past a statement's end everything can start a line: that says nothing more than "a new line".
  const list = [...said];
  if (list.length === 0) return "something else";
  return list.length === 1 ? list[0] : `${list.slice(0, -1).join(", ")} or ${list[list.length - 1]}`;
}

function foundInWords(f: ParserFailure): string {
  switch (f.token) {
    case "NEWLINE":
      return f.text.includes(";") ? "a `;`, which Mermaid reads as the end of a line" : "the end of the line";
    case "EOF":
      return "the end of the text";
    case "INVALID":
      return `\`${f.text.trim()}\``;
    case "TXT":
      return `the message text \`${f.text.trim()}\``;
    case "":
      return "something it could not read";
    default:
      return f.text.trim() ? `\`${f.text.trim()}\`` : `\`${f.token.toLowerCase()}\``;
  }
}

/** The last block opened and never closed, for a text that ends inside one. */
function unclosedBlock(lines: SourceLine[]): SourceLine | null {
  const open: SourceLine[] = [];
  for (const l of lines) {
    const t = l.text.trim();
    if (BLOCK_OPENERS.test(t)) open.push(l);
    else if (/^end\b/i.test(t)) open.pop();
  }
  return open.pop() ?? null;
}

const isStatement = (l: SourceLine) => l.text.trim() !== "" && !/^\s*%%/.test(l.text);

/**
 * Mermaid's parse error as a teacher reads it: what is wrong, at their line and column, with the corrected
 * line where one is plain. `leadingBlank` is how many blank lines Mermaid trimmed off the top before counting.
 */
export function explainMermaidError(err: unknown, lines: SourceLine[], leadingBlank: number): LessonParseError {
  const failure = readFailure(err, leadingBlank);
  const statements = lines.filter(isStatement);
  const lastStatement = statements[statements.length - 1];
  if (!failure) {
    // Not the parser: the diagram's own checks (a message to a participant it cannot place, say).
    const said = err instanceof Error ? err.message.split("\n")[0] : "";
    return { message: `Mermaid could not read this diagram${said ? `: ${said}` : "."}`, line: lastStatement?.n ?? 1, column: 1 };
  }
  if (failure.token === "EOF") {
    const block = unclosedBlock(statements);
    if (block) {
      const word = block.text.trim().split(/\s+/)[0];
      return {
        message: `The \`${word}\` block that starts here has no \`end\`. (Blocks are not supported in a class lesson anyway: write the messages out in order.)`,
        line: block.n,
        column: block.text.search(/\S/) + 1,
      };
    }
  }
  // The parser points at the token it stopped on; the mistake is on that line or, when it stopped at a line's
  // start, the one before. Past the end of the text means the last line.
  const last = lastStatement?.n ?? 1;
  const span = [failure.firstLine, failure.lastLine].map((n) => Math.min(n, last));
  for (const n of new Set(span)) {
    const line = lines.find((l) => l.n === n);
    const found = line && lineProblem(line.text);
    if (found) return { ...found, line: n };
  }
  const line = Math.min(failure.firstLine, last);
  const lineText = lines.find((l) => l.n === line)?.text ?? "";
  return {
    message: `Mermaid expected ${expectedInWords(failure.expected)} here, but found ${foundInWords(failure)}.`,
    line,
    column: Math.min(failure.column, lineText.length + 1),
  };
}
