import type { IncomingMessage } from "node:http";
import type os from "node:os";
import { describe, expect, it } from "vitest";
import { joinBase, pickLanAddress } from "./api";
import { createHostNames } from "./hostName";

type Interfaces = ReturnType<typeof os.networkInterfaces>;
const iface = (address: string, internal = false) => ({ address, family: "IPv4", internal, netmask: "", mac: "", cidr: null }) as never;
const req = (host: string) => ({ headers: { host } }) as unknown as IncomingMessage;

describe("the join link", () => {
  const laptop: Interfaces = {
    lo: [iface("127.0.0.1", true)],
    docker0: [iface("172.17.0.1")],
    "br-3f2a": [iface("172.18.0.1")],
    virbr0: [iface("192.168.122.1")],
    wlp2s0: [iface("192.168.1.23")],
  };

  it("skips container and VM bridges for the Wi-Fi address", () => {
    expect(pickLanAddress(laptop)?.address).toBe("192.168.1.23");
    expect(pickLanAddress({ lo: [iface("127.0.0.1", true)], docker0: [iface("172.17.0.1")] })).toBeNull();
  });

  it("uses PUBLIC_URL, else the console's host, else the LAN address for localhost", () => {
    expect(joinBase(req("localhost:3000"), { publicUrl: "https://class.example.edu", port: 3000 }, laptop)).toEqual({
      base: "https://class.example.edu",
      note: null,
    });
    expect(joinBase(req("10.1.2.3:3000"), { publicUrl: null, port: 3000 }, laptop)).toEqual({ base: "http://10.1.2.3:3000", note: null });
    const local = joinBase(req("localhost:3000"), { publicUrl: null, port: 3000 }, laptop);
    expect(local.base).toBe("http://192.168.1.23:3000");
    expect(local.note).toEqual({ code: "lanAddress", host: "localhost", address: "192.168.1.23" });
    const alone = joinBase(req("127.0.0.1:3000"), { publicUrl: null, port: 3000 }, { lo: [iface("127.0.0.1", true)] });
    expect(alone.base).toBe("http://127.0.0.1:3000");
    expect(alone.note).toEqual({ code: "noNetwork" });
  });
});

describe("the join link's host name", () => {
  const laptop: Interfaces = { lo: [iface("127.0.0.1", true)], wlp2s0: [iface("192.168.1.23")] };

  it("uses this machine's name when it resolves to the LAN address, and says which address it is", () => {
    const local = joinBase(req("localhost:3000"), { publicUrl: null, port: 3000 }, laptop, "teacher-laptop.local");
    expect(local.base).toBe("http://teacher-laptop.local:3000");
    expect(local.note).toEqual({ code: "hostName", host: "localhost", hostName: "teacher-laptop.local", address: "192.168.1.23" });
    // Never over PUBLIC_URL or the host the console was opened on.
    expect(joinBase(req("10.1.2.3:3000"), { publicUrl: null, port: 3000 }, laptop, "teacher-laptop.local").base).toBe(
      "http://10.1.2.3:3000",
    );
  });

  it("takes a name only if it resolves to that very address, tries the mDNS form, and remembers the answer", async () => {
    const asked: string[] = [];
    const table: Record<string, string[]> = { "teacher-laptop.local": ["192.168.1.23"], elsewhere: ["10.9.9.9"] };
    const lookup = async (name: string) => {
      asked.push(name);
      const found = table[name];
      if (!found) throw Object.assign(new Error("ENOTFOUND"), { code: "ENOTFOUND" });
      return found.map((address) => ({ address }));
    };
    const names = createHostNames("teacher-laptop", lookup);
    expect(await names.nameFor("192.168.1.23", 0)).toBe("teacher-laptop.local");
    expect(asked).toEqual(["teacher-laptop", "teacher-laptop.local"]);
    expect(await names.nameFor("192.168.1.23", 1_000)).toBe("teacher-laptop.local");
    expect(asked).toHaveLength(2);
    expect(await createHostNames("elsewhere", lookup).nameFor("192.168.1.23", 0)).toBeNull();
    expect(await createHostNames("localhost", lookup).nameFor("192.168.1.23", 0)).toBeNull();
    expect(await names.nameFor(null)).toBeNull();
  });

  it("gives up on a lookup that hangs", async () => {
    const names = createHostNames("slow", () => new Promise(() => {}));
    const started = Date.now();
    expect(await names.nameFor("192.168.1.23", 0)).toBeNull();
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
