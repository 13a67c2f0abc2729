import { describe, expect, it } from "vitest";
import { streamIdAfter } from "./voteFold";

describe("streamIdAfter", () => {
  it("orders stream entry ids by time, then by sequence, as numbers", () => {
    expect(streamIdAfter("1700000000001-0", "1700000000000-5")).toBe(true);
    expect(streamIdAfter("1700000000000-10", "1700000000000-9")).toBe(true);
    expect(streamIdAfter("1700000000000-9", "1700000000000-9")).toBe(false);
    expect(streamIdAfter("1700000000000-9", "1700000000000-10")).toBe(false);
    expect(streamIdAfter("999-0", "1000-0")).toBe(false);
  });
});
