import type { IncomingMessage } from "node:http";
import type os from "node:os";
import { describe, expect, it } from "vitest";
import { joinBase, pickLanAddress } from "./api";

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
    expect(local.note).toMatch(/same network/);
    const alone = joinBase(req("127.0.0.1:3000"), { publicUrl: null, port: 3000 }, { lo: [iface("127.0.0.1", true)] });
    expect(alone.base).toBe("http://127.0.0.1:3000");
    expect(alone.note).toMatch(/no network address students can reach/);
  });
});
