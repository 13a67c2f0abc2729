import { Encoder, PacketType, type Packet } from "socket.io-parser";
import { describe, expect, it } from "vitest";
import { JsonEncoder } from "./frameGuard";

describe("JsonEncoder", () => {
  it("writes every packet the server sends exactly as socket.io's own encoder does", () => {
    const packets: Packet[] = [
      { type: PacketType.CONNECT, nsp: "/", data: { sid: "abc" } },
      { type: PacketType.CONNECT, nsp: "/admin", data: { sid: "abc" } },
      { type: PacketType.CONNECT_ERROR, nsp: "/", data: { message: "NO_SUCH_SESSION", data: { code: "NO_SUCH_SESSION", message: "No." } } },
      { type: PacketType.DISCONNECT, nsp: "/" },
      {
        type: PacketType.EVENT,
        nsp: "/",
        data: ["session:patch", { stream: "public", instance: "x", from: 1, to: 2, whole: true, put: { session: { title: 'Ü "q"' } } }],
      },
      { type: PacketType.EVENT, nsp: "/", data: ["session:welcome", { role: "student", token: "t", nickname: undefined }] },
      { type: PacketType.ACK, nsp: "/", id: 0, data: [{ ok: true, data: null }] },
      { type: PacketType.ACK, nsp: "/", id: 1234567, data: [{ ok: false, error: { code: "RATE_LIMITED", message: "Slow down." } }] },
    ];
    const ours = new JsonEncoder();
    const theirs = new Encoder();
    for (const packet of packets) expect(ours.encode(packet)).toEqual(theirs.encode(packet));
  });
});
