import { describe, expect, it } from "vitest";
import { knownJoinNote } from "./rest";

describe("knownJoinNote", () => {
  it("keeps the three notes a console knows how to word, with their names", () => {
    const hostName = { code: "hostName", host: "localhost", hostName: "lab-pc.local", address: "192.168.1.20" };
    expect(knownJoinNote(hostName)).toEqual(hostName);
    expect(knownJoinNote({ code: "lanAddress", host: "localhost", address: "10.0.0.5" })).toEqual({
      code: "lanAddress",
      host: "localhost",
      address: "10.0.0.5",
    });
    expect(knownJoinNote({ code: "noNetwork" })).toEqual({ code: "noNetwork" });
  });

  it("drops what an older or newer server sends (a sentence, an unknown code, a note missing its names), so the console shows no note instead of breaking", () => {
    expect(knownJoinNote("This console is open on localhost, so the join link uses …")).toBeNull();
    expect(knownJoinNote({ code: "vpnAddress", host: "localhost", address: "100.64.0.1" })).toBeNull();
    expect(knownJoinNote({ code: "hostName", host: "localhost", address: "192.168.1.20" })).toBeNull();
    expect(knownJoinNote({ code: "lanAddress", host: 3, address: "10.0.0.5" })).toBeNull();
    expect(knownJoinNote(null)).toBeNull();
    expect(knownJoinNote(undefined)).toBeNull();
  });

  it("passes on only the fields it knows", () => {
    expect(knownJoinNote({ code: "noNetwork", extra: "<script>" })).toEqual({ code: "noNetwork" });
  });
});
