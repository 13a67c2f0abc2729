import type { ArrowHead, CustomLesson, LessonDiagram, LineStyle } from "./model";

/**
 * A lesson as Mermaid `sequenceDiagram` text, the way back from ./mermaid's
 * parser: the text parses again to the same lesson, with each step's details
 * as the `%%` comments ./mermaid reads. A teacher starts from the built-in
 * lesson written out this way.
 */

/** The Mermaid arrow for each line and head (the inverse of ./mermaid's ARROWS). */
export function mermaidArrow(line: LineStyle, head: ArrowHead): string {
  const dash = line === "dotted" ? "--" : "-";
  const end = { filled: ">>", async: ")", cross: "x", none: ">" }[head];
  return dash + end;
}

/** One line of comment text: newlines would end the comment. */
const oneLine = (t: string) => t.replace(/\s*\n\s*/g, " ").trim();

/**
 * A lesson as Mermaid text that parses back to the same lesson: the built-in
 * lesson's starting point for teachers, and the export of a lesson that has no
 * text of its own. (A teacher's lesson exports the text they wrote, verbatim.)
 */
export function toMermaid(lesson: CustomLesson): string {
  const out = ["---", `title: ${oneLine(lesson.title)}`, "---", "sequenceDiagram"];
  if (lesson.summary) out.push(`  %% summary: ${oneLine(lesson.summary)}`);
  for (const l of lesson.lifelines) out.push(l.name === l.id ? `  participant ${l.id}` : `  participant ${l.id} as ${oneLine(l.name)}`);
  for (const s of lesson.steps) {
    out.push(`  ${s.from}${mermaidArrow(s.line, s.head)}${s.to}: ${oneLine(s.title)}`);
    if (s.shortTitle) out.push(`  %% title: ${oneLine(s.shortTitle)}`);
    if (s.note) out.push(`  Note over ${s.from === s.to ? s.from : `${s.from},${s.to}`}: ${oneLine(s.note)}`);
    if (s.narration) out.push(`  %% narration: ${oneLine(s.narration)}`);
    if (s.speakerNotes) out.push(`  %% say: ${oneLine(s.speakerNotes)}`);
    if (s.why) out.push(`  %% why: ${oneLine(s.why)}`);
    if (s.wrongNote) out.push(`  %% wrong: ${oneLine(s.wrongNote)}`);
  }
  return out.join("\n") + "\n";
}

/** The built-in lesson (or any diagram in the shared model) as a teacher's lesson, to start from. */
export function diagramAsCustomLesson(diagram: LessonDiagram): CustomLesson {
  return {
    title: diagram.title,
    ...(diagram.summary ? { summary: diagram.summary } : {}),
    lifelines: diagram.lifelines.map((l) => ({ id: l.id, name: l.name })),
    steps: diagram.steps.map((s) => ({
      from: s.from,
      to: s.to,
      ...(s.arrow ??
        (s.kind === "watch" ? { line: "dotted" as const, head: "async" as const } : { line: "solid" as const, head: "filled" as const })),
      ...(s.message ? { title: s.message, shortTitle: s.title } : { title: s.title }),
      ...(s.note ? { note: s.note } : {}),
      // The narration a step gets by default is its whole message: leave that one out, so it stays a default.
      ...(s.narration && s.narration !== (s.message ?? s.title) ? { narration: s.narration } : {}),
      ...(s.speakerNotes ? { speakerNotes: s.speakerNotes } : {}),
      ...(s.why ? { why: s.why } : {}),
      ...(s.wrongNote ? { wrongNote: s.wrongNote } : {}),
    })),
  };
}
