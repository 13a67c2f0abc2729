import { describe, expect, it } from "vitest";
import { parseHost } from "./origin";

describe("parseHost", () => {
  it("reads a Host header as a URL host, the same way every time it is asked", () => {
    for (let round = 0; round < 2; round++) {
      expect(parseHost("Example.com:80")).toEqual({ host: "example.com", hostname: "example.com" });
      expect(parseHost("127.0.0.1:3000")).toEqual({ host: "127.0.0.1:3000", hostname: "127.0.0.1" });
      expect(parseHost("[::1]:3000")).toEqual({ host: "[::1]:3000", hostname: "[::1]" });
      expect(parseHost("evil.example/path")).toBeNull();
      expect(parseHost("a b")).toBeNull();
      expect(parseHost(undefined)).toBeNull();
      expect(parseHost("x".repeat(256))).toBeNull();
    }
  });

  it("answers rightly past the hosts it remembers, whatever hosts clients send", () => {
    for (let i = 0; i < 200; i++) expect(parseHost(`host${i}.example:${1000 + i}`)?.host).toBe(`host${i}.example:${1000 + i}`);
    expect(parseHost("host3.example:1003")).toEqual({ host: "host3.example:1003", hostname: "host3.example" });
    expect(parseHost("bad host")).toBeNull();
  });
});
