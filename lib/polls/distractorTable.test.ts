import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { renderDistractorTable } from "./distractorTable";

describe("docs/distractors.md", () => {
  it("is the table the lesson generates today (run npm run docs:distractors after changing a note)", () => {
    const committed = readFileSync(new URL("../../docs/distractors.md", import.meta.url), "utf8");
    expect(committed).toBe(renderDistractorTable());
  });
});
