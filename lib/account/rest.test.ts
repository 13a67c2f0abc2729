import { describe, expect, it } from "vitest";
import { safeNextPath } from "./rest";

describe("safeNextPath", () => {
  it("keeps a path on this site, query and fragment included", () => {
    expect(safeNextPath("/lessons")).toBe("/lessons");
    expect(safeNextPath("/sessions?status=live#top")).toBe("/sessions?status=live#top");
  });

  it("sends anything that could leave the site (or is not a path) to the account page", () => {
    for (const next of [
      null,
      undefined,
      "",
      "https://evil.example",
      "//evil.example",
      "/\\evil.example",
      "/\t/evil.example",
      "/\n/x",
      "lessons",
    ])
      expect(safeNextPath(next), String(next)).toBe("/account");
    expect(safeNextPath(`/${"a".repeat(600)}`)).toBe("/account");
  });
});
