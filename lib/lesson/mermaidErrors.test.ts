import mermaid from "mermaid";
import { beforeAll, describe, expect, it } from "vitest";
import { parseMermaidLesson, type GetDiagramFromText } from "./mermaid";
import { editDistance } from "./mermaidErrors";

// The real Mermaid parser: these are the errors a teacher's browser produces, explained.
const getDiagram: GetDiagramFromText = (text) => mermaid.mermaidAPI.getDiagramFromText(text);
beforeAll(() => mermaid.initialize({ startOnLoad: false }));

// Front matter and a comment above the typo: the line numbers must stay the teacher's.
const HEAD = `---
title: Typos
---
sequenceDiagram
  participant A as Alice
  participant B as Bob
  A->>B: hello
  %% why: Every exchange starts with a greeting.
`;
const TAIL = "  B-->>A: hi back\n";
/** The typo's line in HEAD + typo + TAIL. */
const LINE = HEAD.split("\n").length;

async function errorFor(typo: string) {
  const result = await parseMermaidLesson(`${HEAD}${typo}\n${TAIL}`, getDiagram);
  if (result.ok) throw new Error(`parsed: ${typo}`);
  return result.error;
}

/** Mermaid's own vocabulary, which a teacher should never have to read. */
const PARSER_WORDS = /Expecting|NEWLINE|SOLID_|DOTTED_|ACTOR|INVALID|\bTXT\b|Parse error|'\(\)'/;

describe("Mermaid's parse errors, said for a teacher", () => {
  it.each([
    // [what the teacher typed, what the message says, column, the corrected line]
    ["  participnt C", /`participnt` is not a word Mermaid knows here\. Did you mean `participant`\?/, 3, "participant C"],
    ["  actr C", /Did you mean `actor`\?/, 3, "actor C"],
    ["  autonumbr", /Did you mean `autonumber`\?/, 3, "autonumber"],
    ["  Noet over A: hmm", /Did you mean `Note`\?/, 3, "Note over A: hmm"],
    ["  A->>>B: again", /`->>>` is not a Mermaid arrow\. Did you mean `->>`\?/, 4, "A->>B: again"],
    ["  A-->>>B: again", /`-->>>` is not a Mermaid arrow\. Did you mean `-->>`\?/, 4, "A-->>B: again"],
    ["  A=>>B: again", /Did you mean `->>`\?/, 4, "A->>B: again"],
    ["  A>>B: again", /Did you mean `->>`\?/, 4, "A->>B: again"],
    ["  A - >> B: again", /The arrow `- >>` has a space inside it: write it as `->>`/, 5, "A->>B: again"],
    ["  A<-B: again", /points left, and Mermaid's arrows point right: write the sender first/, 4, "B->>A: again"],
    ["  A<<--B: again", /points left/, 4, "B-->>A: again"],
    [
      "  A-B: again",
      /A single `-` is not an arrow: Mermaid read `A-B` as one participant's name\. Did you mean `A->>B`\?/,
      4,
      "A->>B: again",
    ],
    ["  A->>B again", /A colon `:` goes between the receiver and the message text/, 8, "A->>B: again"],
    ["  A->>B; again", /Mermaid reads `;` as the end of a line\. Put a colon `:`/, 8, "A->>B: again"],
    ["  A->>B: one; two", /write `#59;` where the text needs a semicolon/, 13, "A->>B: one#59; two"],
    ["  Note ovr A: hmm", /After `Note`, say where the note goes: `over`, `left of` or `right of`/, 8, "Note over A: hmm"],
    ["  Note lft of A: hmm", /say where the note goes/, 8, "Note left of A: hmm"],
    ["  Note over A hmm", /A note needs a colon `:` between its participant and its text/, 14, "Note over A: hmm"],
  ])("%s", async (typo, message, column, suggestion) => {
    const error = await errorFor(typo);
    expect(error).toMatchObject({ line: LINE, column, suggestion });
    expect(error.message).toMatch(message);
    expect(error.message).not.toMatch(PARSER_WORDS);
    // The suggestion is the fix: with it in place of the line, the lesson parses.
    const fixed = await parseMermaidLesson(`${HEAD}  ${suggestion}\n${TAIL}`, getDiagram);
    expect(fixed.ok, JSON.stringify(fixed)).toBe(true);
  });

  it.each([
    ["  A-->>: again", /This message has no receiver: between `-->>` and the colon, write the id of the participant it goes to/, 8],
    ["  A->>B", /A message needs its text after a colon: `A->>B: what is sent`/, 8],
    ["  A-->B-->A: again", /A line holds one message, and this one has two arrows/, 8],
    ["  end", /`end` closes a block \(loop, alt, opt, par, rect\), and no block is open here: delete this line/, 3],
  ])("%s, with no single fix to offer", async (typo, message, column) => {
    const error = await errorFor(typo);
    expect(error).toMatchObject({ line: LINE, column });
    expect(error.suggestion).toBeUndefined();
    expect(error.message).toMatch(message);
    expect(error.message).not.toMatch(PARSER_WORDS);
  });

  it("points a block left open at its first line, not past the end of the text", async () => {
    const error = await errorFor("  loop every second\n  A->>B: ping");
    expect(error).toMatchObject({ line: LINE, column: 3 });
    expect(error.message).toMatch(/The `loop` block that starts here has no `end`/);
  });

  it("says anything else in words, from what the parser expected and found", async () => {
    // A line of one word: a participant with the arrow forgotten, or anything; no guess is offered.
    const error = await errorFor("  Bob");
    expect(error).toMatchObject({ line: LINE, column: 3 });
    expect(error.suggestion).toBeUndefined();
    expect(error.message).toBe("Mermaid expected an arrow (such as `->>`) here, but found the end of the line.");
  });

  it("counts lines as the teacher does, past blank lines at the top", async () => {
    const result = await parseMermaidLesson("\n\nsequenceDiagram\n  A->>B: hi\n  A->>>B: again\n", getDiagram);
    expect(result).toMatchObject({ ok: false, error: { line: 5, column: 4, suggestion: "A->>B: again" } });
  });

  it("never guesses a keyword for a participant's name", async () => {
    // "Node" is one letter from "Note", "Bob" one from "box": neither is offered.
    for (const typo of ["  Node", "  Node B: hi", "  Bob B: hi"]) expect((await errorFor(typo)).message).not.toMatch(/Did you mean/);
  });
});

describe("editDistance", () => {
  it("counts a swap of two neighbours as one edit", () => {
    expect(editDistance("participnt", "participant")).toBe(1);
    expect(editDistance("noet", "note")).toBe(1);
    expect(editDistance("titel", "title")).toBe(1);
    expect(editDistance("alice", "actor")).toBeGreaterThan(2);
  });
});
