/**
 * Just enough Markdown to hold a document to the code: headings, fenced
 * blocks, GitHub tables and code spans, each with the line it came from so a
 * failure can say where the document disagrees. No dependency: the documents
 * are ours, and this reads only the constructs they use.
 */

export interface DocLine {
  /** 1-based, as an editor shows it. */
  line: number;
  text: string;
}

export interface Fence {
  lang: string;
  lines: DocLine[];
}

export interface TableRow {
  line: number;
  cells: string[];
}

export interface Table {
  line: number;
  header: string[];
  rows: TableRow[];
  /** The headings the table sits under, outermost first. */
  sections: string[];
}

export interface CodeSpan {
  line: number;
  text: string;
  /** What follows the span on its line (to read a value quoted next to a name). */
  after: string;
}

interface Heading {
  line: number;
  level: number;
  title: string;
}

export class MarkdownDoc {
  /** Lines outside fenced blocks. */
  readonly prose: DocLine[] = [];
  readonly fences: Fence[] = [];
  readonly headings: Heading[] = [];
  readonly tables: Table[] = [];

  constructor(
    readonly name: string,
    text: string,
  ) {
    let fence: Fence | null = null;
    const open: Heading[] = [];
    let table: Table | null = null;
    text.split("\n").forEach((raw, i) => {
      const line = i + 1;
      if (raw.startsWith("```")) {
        if (fence) {
          this.fences.push(fence);
          fence = null;
        } else fence = { lang: raw.slice(3).trim(), lines: [] };
        table = null;
        return;
      }
      if (fence) {
        fence.lines.push({ line, text: raw });
        return;
      }
      this.prose.push({ line, text: raw });
      const heading = /^(#{1,6})\s+(.*)$/.exec(raw);
      if (heading) {
        const h = { line, level: heading[1].length, title: heading[2].trim() };
        while (open.length > 0 && open[open.length - 1].level >= h.level) open.pop();
        open.push(h);
        this.headings.push(h);
        table = null;
        return;
      }
      if (!raw.startsWith("|")) {
        table = null;
        return;
      }
      const cells = splitRow(raw);
      if (!table) {
        table = { line, header: cells, rows: [], sections: open.map((h) => h.title) };
        this.tables.push(table);
      } else if (!cells.every((c) => /^:?-+:?$/.test(c))) {
        table.rows.push({ line, cells });
      }
    });
  }

  /** Where a line is, for failure messages. */
  at(line: number): string {
    return `${this.name}:${line}`;
  }

  /** The lines under a heading, up to the next heading of the same or a higher level. */
  section(title: string): DocLine[] {
    const start = this.headings.find((h) => h.title === title);
    if (!start) throw new Error(`${this.name} has no section "${title}" (headings: ${this.headings.map((h) => h.title).join(", ")})`);
    const end = this.headings.find((h) => h.line > start.line && h.level <= start.level)?.line ?? Infinity;
    return this.prose.filter((l) => l.line > start.line && l.line < end);
  }

  /** The tables directly or indirectly under a heading. */
  tablesUnder(title: string): Table[] {
    return this.tables.filter((t) => t.sections.includes(title));
  }

  /** Every code span outside fenced blocks. */
  codeSpans(): CodeSpan[] {
    return this.prose.flatMap(({ line, text }) =>
      [...text.matchAll(/`([^`]+)`/g)].map((m) => ({ line, text: unescapeCell(m[1]), after: text.slice(m.index + m[0].length) })),
    );
  }
}

/** A table row's cells; a pipe escaped as `\|` stays in its cell. */
function splitRow(raw: string): string[] {
  const cells = raw.trim().split(/(?<!\\)\|/);
  return cells.slice(1, cells.length - 1).map((c) => unescapeCell(c.trim()));
}

function unescapeCell(text: string): string {
  return text.replace(/\\\|/g, "|");
}

/** The code spans of a piece of text (a table cell). */
export function codeSpansIn(text: string): string[] {
  return [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
}
