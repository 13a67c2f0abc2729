import { isRecord } from "../guards";
import { cleanText } from "../text";
import { explainMermaidError, type LessonParseError, type SourceLine } from "./mermaidErrors";
import { LESSON_LIMITS, type ArrowHead, type CustomLesson, type CustomStep, type LineStyle } from "./model";

/**
 * Mermaid `sequenceDiagram` text <-> a teacher's lesson. Parsing is Mermaid's
 * own parser (the `mermaid` package, loaded lazily by the lesson editor and
 * passed in here), never a grammar of ours; this adapter only reads the
 * parsed diagram's database: participants, messages with their arrow types,
 * notes. What the class view cannot draw faithfully (loops, alt/opt/par
 * blocks, rect highlights, activations, boxes, created participants,
 * two-headed arrows) is refused with the construct named, never dropped.
 *
 * Per-step details are Mermaid comments, which Mermaid itself ignores. They
 * belong to the message just above them:
 *
 *   C->>S: ClientHello, key_share x25519, versions 0x0304
 *   %% title: ClientHello                                  (the step's name everywhere but on the arrow)
 *   %% narration: The client opens with the versions and ciphers it knows.
 *   %% say: Ask who has seen this in Wireshark.            (speaker notes)
 *   %% why: Nothing can be encrypted before both agree.    (shown after the step)
 *   %% wrong: Many think the server speaks first.          (when offered as a wrong answer)
 *
 * `%% title:` goes directly under its message (only that message's other
 * comments may come between): it names the step, so it must be plain which
 * message it names. Before the first message, `%% summary:` describes the
 * lesson; its title is Mermaid's own (front matter `title:` or the `title`
 * statement). Mermaid's parse errors are said for a teacher by ./mermaidErrors;
 * the way back, a lesson as Mermaid text, is ./mermaidExport.
 */

export { diagramAsCustomLesson, mermaidArrow, toMermaid } from "./mermaidExport";

/** What the adapter needs of Mermaid: `mermaid.mermaidAPI.getDiagramFromText`. */
export type GetDiagramFromText = (text: string) => Promise<{ type: string; db: unknown }>;

export type { LessonParseError };

export type LessonParseResult = { ok: true; lesson: CustomLesson } | { ok: false; error: LessonParseError };

/** Mermaid's LINETYPE values (mermaid/dist/diagrams/sequence/sequenceDb.d.ts). */
const LINETYPE = {
  SOLID: 0,
  DOTTED: 1,
  NOTE: 2,
  SOLID_CROSS: 3,
  DOTTED_CROSS: 4,
  SOLID_OPEN: 5,
  DOTTED_OPEN: 6,
  SOLID_POINT: 24,
  DOTTED_POINT: 25,
  AUTONUMBER: 26,
} as const;

/** Each Mermaid arrow as the class view draws it (./mermaidExport's mermaidArrow is the inverse). */
const ARROWS: Record<number, { line: LineStyle; head: ArrowHead }> = {
  [LINETYPE.SOLID]: { line: "solid", head: "filled" },
  [LINETYPE.DOTTED]: { line: "dotted", head: "filled" },
  [LINETYPE.SOLID_CROSS]: { line: "solid", head: "cross" },
  [LINETYPE.DOTTED_CROSS]: { line: "dotted", head: "cross" },
  [LINETYPE.SOLID_OPEN]: { line: "solid", head: "none" },
  [LINETYPE.DOTTED_OPEN]: { line: "dotted", head: "none" },
  [LINETYPE.SOLID_POINT]: { line: "solid", head: "async" },
  [LINETYPE.DOTTED_POINT]: { line: "dotted", head: "async" },
};

/** Block and decoration statements, by the LINETYPE that opens them, with the keyword to point at. */
const REFUSED: Record<number, { construct: string; keyword: RegExp }> = {
  10: { construct: "loop", keyword: /^loop\b/ },
  12: { construct: "alt", keyword: /^alt\b/ },
  15: { construct: "opt", keyword: /^opt\b/ },
  17: { construct: "activation", keyword: /^(activate\b|.*(->>|-->>|->|-->|-x|--x|-\)|--\))\s*[+-])/ },
  18: { construct: "activation", keyword: /^(deactivate\b|.*(->>|-->>|->|-->|-x|--x|-\)|--\))\s*[+-])/ },
  19: { construct: "par", keyword: /^par\b/ },
  22: { construct: "rect", keyword: /^rect\b/ },
  27: { construct: "critical", keyword: /^critical\b/ },
  30: { construct: "break", keyword: /^break\b/ },
  32: { construct: "par_over", keyword: /^par_over\b/ },
  33: { construct: "two-headed arrow (<<->>)", keyword: /<<-/ },
  34: { construct: "two-headed arrow (<<-->>)", keyword: /<<-/ },
};

const REFUSAL_HELP = "The class view draws one message per step, so this is not supported: write the messages out in order instead.";

interface MermaidMessage {
  from?: string;
  to?: string;
  message: unknown;
  type?: number;
  activate?: boolean;
  centralConnection?: number;
}

interface SequenceDbLike {
  getActorKeys(): string[];
  getActors(): Map<string, { name: string; description: string }>;
  getMessages(): MermaidMessage[];
  getBoxes?(): unknown[];
  getCreatedActors?(): Map<string, number>;
  getDestroyedActors?(): Map<string, number>;
  getDiagramTitle?(): string;
}

function isSequenceDb(db: unknown): db is SequenceDbLike {
  return (
    isRecord(db) && typeof db.getActorKeys === "function" && typeof db.getMessages === "function" && typeof db.getActors === "function"
  );
}

/** A statement line of the text: not blank, not a comment. */
const KEYWORD =
  /^(sequenceDiagram|participant|actor|note|loop|alt|else|opt|par|par_over|and|rect|end|activate|deactivate|autonumber|title|box|create|destroy|critical|option|break|links?|properties|details|accTitle|accDescr)\b/i;
const MESSAGE = /^[^:]*?(<<-->>|<<->>|-->>|->>|-->|->|--x|-x|--\)|-\))/;

/**
 * Front matter (`---` … `---` at the very top) as Mermaid reads it; we keep
 * its title. Everything is replaced by blank lines before Mermaid sees the
 * text, and comment lines too, so Mermaid's line numbers stay the teacher's.
 */
function prepare(text: string): { forMermaid: string; lines: SourceLine[]; title: string | null; leadingBlank: number } {
  const raw = text.replace(/\r\n?/g, "\n").split("\n");
  let title: string | null = null;
  let bodyStart = 0;
  if (raw[0]?.trim() === "---") {
    const close = raw.findIndex((l, i) => i > 0 && l.trim() === "---");
    if (close > 0) {
      for (const l of raw.slice(1, close)) {
        const m = /^title:\s*(.*)$/.exec(l.trim());
        if (m) title = m[1].replace(/^(["'])(.*)\1$/, "$2").trim();
      }
      bodyStart = close + 1;
    }
  }
  const masked = raw.map((l, i) => (i < bodyStart || /^\s*%%(?!\{)/.test(l) ? "" : l));
  // Mermaid trims leading blank lines before parsing; its line 1 is the first non-blank one.
  let leadingBlank = 0;
  while (leadingBlank < masked.length && masked[leadingBlank].trim() === "") leadingBlank++;
  return {
    forMermaid: masked.join("\n"),
    lines: raw.map((t, i) => ({ n: i + 1, text: t })).slice(bodyStart),
    title,
    leadingBlank,
  };
}

function errorAt(message: string, line: number, column = 1): LessonParseResult {
  return { ok: false, error: { message, line, column } };
}

/** A text as the server keeps it: invisible and direction-changing characters dropped, spaces collapsed, not cut. */
const asKept = (t: string) => cleanText(t, LESSON_LIMITS.source);

/**
 * "…is longer than 120 characters (it has 131)": the server's caps, said where the teacher can fix them. The
 * server counts UTF-16 units (`cleanText`), so an emoji counts as two here too; it refuses a text whose raw
 * form (invisible characters included) is over four times the cap, and one with nothing visible.
 */
function textProblem(what: string, text: string, max: number, required = true): string | null {
  const kept = asKept(text);
  if (kept === "" && required) return `${what} has no visible text.`;
  if (text.length > max * 4)
    return `${what} is longer than ${max} characters once its invisible characters are counted (it has ${text.length}).`;
  if (kept.length <= max) return null;
  const astral = [...kept].length !== kept.length;
  return `${what} is longer than ${max} characters (it has ${kept.length}${astral ? ", counting an emoji as two" : ""}).`;
}

/**
 * What is wrong with a `%% title:` line, if anything. It names the message it sits under, so it must sit
 * there: under a message, with only that message's other comments between, once per message, and short.
 */
function shortTitleProblem(
  value: string,
  current: number,
  messageLines: SourceLine[],
  steps: CustomStep[],
  interrupted: SourceLine | null,
  beforeFirstMessage: boolean,
): string | null {
  if (beforeFirstMessage) {
    return '"%% title:" names the message just above it, and there is no message above this line. For the lesson\'s own title, write `title My lesson` under `sequenceDiagram`.';
  }
  const message = messageLines[current];
  if (interrupted) {
    return `"%% title:" must be directly under the message it names: line ${interrupted.n} is between it and message ${current + 1} (line ${message.n}). Move it up to just under line ${message.n}.`;
  }
  if (steps[current].shortTitle !== undefined) {
    return `Message ${current + 1} (line ${message.n}) already has a "%% title:": keep one.`;
  }
  if (asKept(value) === "") {
    return `"%% title:" under message ${current + 1} is empty: write a short title after the colon, or delete the line to use the whole message.`;
  }
  return textProblem(`"%% title:" of message ${current + 1}`, value, LESSON_LIMITS.shortTitle);
}

/** Parses a teacher's Mermaid text into a lesson, or says what is wrong and where. */
export async function parseMermaidLesson(text: string, getDiagramFromText: GetDiagramFromText): Promise<LessonParseResult> {
  if (text.length > LESSON_LIMITS.source) return errorAt(`The text is longer than ${LESSON_LIMITS.source} characters.`, 1);
  const { forMermaid, lines, title: frontTitle, leadingBlank } = prepare(text);
  const statements = lines.filter((l) => l.text.trim() !== "" && !/^\s*%%/.test(l.text));
  const first = statements[0];
  if (!first) return errorAt("Paste a Mermaid sequenceDiagram: the text is empty.", 1);
  if (!/^sequenceDiagram\b/.test(first.text.trim())) {
    return errorAt("This is not a sequence diagram: the first line must be `sequenceDiagram`.", first.n, first.text.search(/\S/) + 1);
  }

  let diagram: { type: string; db: unknown };
  try {
    diagram = await getDiagramFromText(forMermaid);
  } catch (err) {
    return { ok: false, error: explainMermaidError(err, lines, leadingBlank) };
  }
  if (diagram.type !== "sequence" || !isSequenceDb(diagram.db)) return errorAt("This is not a sequence diagram.", first.n);
  const db = diagram.db;

  const find = (pattern: RegExp): SourceLine => statements.find((l) => pattern.test(l.text.trim())) ?? first;
  const refuse = (construct: string, line: SourceLine) =>
    errorAt(`"${construct}" is not supported. ${REFUSAL_HELP}`, line.n, line.text.search(/\S/) + 1);

  if ((db.getBoxes?.() ?? []).length > 0) return refuse("box", find(/^box\b/));
  if ((db.getCreatedActors?.()?.size ?? 0) > 0) return refuse("create", find(/^create\b/));
  if ((db.getDestroyedActors?.()?.size ?? 0) > 0) return refuse("destroy", find(/^destroy\b/));

  const actorKeys = db.getActorKeys();
  const actors = db.getActors();
  if (actorKeys.length > LESSON_LIMITS.lifelines) {
    return errorAt(`A lesson has at most ${LESSON_LIMITS.lifelines} participants; this one has ${actorKeys.length}.`, first.n);
  }
  const lifelines = actorKeys.map((id) => {
    const a = actors.get(id);
    return { id, name: (a?.description || a?.name || id).trim() };
  });
  // Ids join messages to participants, so they are checked, never cut: two long ids cut to one would merge.
  for (const { id, name } of lifelines) {
    const escaped = id.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    const declared =
      statements.find((l) => new RegExp(`^(participant|actor)\\s+${escaped}(\\s|$)`).test(l.text.trim())) ??
      statements.find((l) => !KEYWORD.test(l.text.trim()) && l.text.includes(id)) ??
      first;
    const at = (problem: string) => errorAt(problem, declared.n, Math.max(1, declared.text.indexOf(id) + 1));
    if (asKept(id) !== id) {
      return at(
        `Participant id "${asKept(id)}" would change when saved (an invisible character, or an accent typed as a separate mark): type it again with letters, digits, - or _.`,
      );
    }
    if ([...id].length > LESSON_LIMITS.lifelineId) {
      return at(
        `Participant id "${[...id].slice(0, 24).join("")}…" is longer than ${LESSON_LIMITS.lifelineId} characters: give it a short id and put the long name after "as" (participant Pay as ${name.length > 30 ? "Payment service" : name}).`,
      );
    }
    const badName = textProblem(`The name of participant ${id}`, name, LESSON_LIMITS.lifelineName);
    if (badName) return at(badName);
  }

  // The message lines, in order, to attach comments and notes to and to point errors at.
  const messageLines = statements.filter((l) => !KEYWORD.test(l.text.trim()) && MESSAGE.test(l.text.trim()));

  const steps: CustomStep[] = [];
  const pendingNotes: string[] = [];
  for (const m of db.getMessages()) {
    const type = m.type ?? -1;
    const refused = REFUSED[type];
    if (refused) return refuse(refused.construct, find(refused.keyword));
    if (m.activate) return refuse("activation", find(REFUSED[17].keyword));
    if (m.centralConnection) return refuse("central connection", messageLines[steps.length] ?? first);
    if (type === LINETYPE.AUTONUMBER) continue; // every step is numbered anyway
    if (type === LINETYPE.NOTE) {
      const note = String(m.message).trim();
      const last = steps[steps.length - 1];
      // A note belongs to the message above it; one before any message goes with the first.
      if (last) last.note = last.note ? `${last.note} ${note}` : note;
      else pendingNotes.push(note);
      continue;
    }
    const arrow = ARROWS[type];
    if (!arrow || !m.from || !m.to) return errorAt("This diagram uses a statement the class view cannot draw.", first.n);
    steps.push({ from: m.from, to: m.to, ...arrow, title: String(m.message).trim() });
    if (pendingNotes.length && steps.length === 1) steps[0].note = pendingNotes.splice(0).join(" ");
  }
  if (pendingNotes.length) return errorAt("A note needs a message to belong to: add a message first.", first.n);
  if (steps.length < 2) return errorAt("A lesson needs at least two messages.", first.n);
  if (steps.length > LESSON_LIMITS.steps) {
    const line = messageLines[LESSON_LIMITS.steps] ?? first;
    return errorAt(`A lesson has at most ${LESSON_LIMITS.steps} messages; this one has ${steps.length}.`, line.n);
  }
  if (messageLines.length !== steps.length) {
    return errorAt("Could not tell which line each message is on: put each message on its own line.", first.n);
  }
  for (const [i, s] of steps.entries()) {
    const long =
      textProblem(`Message ${i + 1}`, s.title, LESSON_LIMITS.message) ??
      (s.note ? textProblem(`The note on message ${i + 1}`, s.note, LESSON_LIMITS.note, false) : null);
    if (long) {
      // At the message's text, after the colon.
      const { n, text } = messageLines[i];
      const colon = text.indexOf(":");
      return errorAt(long, n, colon + 2 + Math.max(0, text.slice(colon + 1).search(/\S/)));
    }
  }

  // Comments: before the first message they describe the lesson; after a message, that message.
  let summary: string | undefined;
  const firstMessageLine = messageLines[0].n;
  let current = -1;
  let nextMessage = 0;
  // The first statement since the current message that is not one of its comments: a title line below it
  // would be read as naming a message it is not under.
  let interrupted: SourceLine | null = null;
  for (const l of lines) {
    if (nextMessage < messageLines.length && l.n === messageLines[nextMessage].n) {
      current = nextMessage++;
      interrupted = null;
      continue;
    }
    if (l.text.trim() === "") continue;
    if (!/^\s*%%/.test(l.text)) {
      interrupted ??= l;
      continue;
    }
    const c = /^\s*%%\s*(summary|title|narration|say|why|wrong)\s*:\s*(.*)$/i.exec(l.text);
    if (!c) continue;
    const key = c[1].toLowerCase();
    const value = c[2].trim();
    const at = l.text.indexOf("%%") + 1;
    if (key === "title") {
      const problem = shortTitleProblem(value, current, messageLines, steps, interrupted, l.n < firstMessageLine);
      if (problem) return errorAt(problem, l.n, at);
      steps[current].shortTitle = value;
      continue;
    }
    if (l.n < firstMessageLine) {
      if (key !== "summary") return errorAt(`"%% ${key}:" must follow the message it is about.`, l.n, at);
      summary = value;
      const long = textProblem("The summary", summary, LESSON_LIMITS.summary, false);
      if (long) return errorAt(long, l.n, at);
      continue;
    }
    if (key === "summary") return errorAt('"%% summary:" goes before the first message.', l.n, at);
    const step = steps[current];
    const field = key === "say" ? "speakerNotes" : key === "wrong" ? "wrongNote" : key === "why" ? "why" : "narration";
    step[field] = step[field] ? `${step[field]} ${value}` : value;
    const long = textProblem(`"%% ${key}:" of message ${current + 1}`, step[field], LESSON_LIMITS[field], false);
    if (long) return errorAt(long, l.n, at);
  }

  const dbTitle = db.getDiagramTitle?.()?.trim();
  const title = frontTitle || dbTitle || "Untitled lesson";
  const longTitle = textProblem("The title", title, LESSON_LIMITS.title);
  if (longTitle) return errorAt(longTitle, (lines.find((l) => /^\s*title\b/.test(l.text)) ?? first).n);
  const lesson: CustomLesson = { title, ...(summary ? { summary } : {}), lifelines, steps };
  return { ok: true, lesson };
}
