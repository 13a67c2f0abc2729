import { describe, expect, it } from "vitest";
import { FRAME_LIMITS, MAX_SOCKET_MESSAGE_BYTES } from "../../lib/constants";
import { PROTOCOL_VERSION } from "../../lib/protocol";
import { openRaw, serverPerTest, sessionIn } from "./harness";
import { sleep } from "./outsider/attacker";
import { acks, cleanUpAfterEach, closesWithin, codeOf, join, nested, raws } from "./outsider/edge";

// ---------------------------------------------------------------------------
// 3. Frame budget and parsing

describe("frames written by hand", () => {
  const t = serverPerTest();
  cleanUpAfterEach();

  async function classroom() {
    const s = await t.srv.createSession();
    const host = await join(t.srv.url, { role: "host", code: s.code, hostKey: s.hostKey });
    const student = await join(t.srv.url, { role: "student", code: s.code, nickname: "Mallory" });
    return { s, host, student };
  }

  it("a frame over 16 KB, or nested deeper than 8, gets PAYLOAD_TOO_LARGE in its acknowledgement and the connection stays", async () => {
    const { host } = await classroom();
    const r = host.raw;
    // 17 KB of padding in a real command.
    r.send(`4271${JSON.stringify(["step:go", { stepIndex: 3, pad: "x".repeat(17 * 1024) }])}`);
    const big = await r.waitForFrame((f) => f.startsWith("4371["));
    expect(big).toMatch(/^4371\[\{"ok":false,"error":\{"code":"PAYLOAD_TOO_LARGE","message":"[^"]+"\}\}\]$/);
    // 18 KB of brackets (under the transport's cap): refused unread, not parsed.
    r.send(`4272["step:go",${nested(9_000)}]`);
    expect(await r.ack(72)).toMatchObject({ ok: false, error: { code: "PAYLOAD_TOO_LARGE" } });
    // Small but nine deep: refused; eight deep (the limit) goes through. Brackets inside strings do not count.
    r.send(`4273["step:go",{"stepIndex":3,"x":${nested(7)}}]`);
    expect(await r.ack(73)).toMatchObject({ ok: false, error: { code: "PAYLOAD_TOO_LARGE" } });
    r.send(`4274["step:go",${nested(40, "{}")}]`);
    expect(await r.ack(74)).toMatchObject({ ok: false, error: { code: "PAYLOAD_TOO_LARGE" } });
    // An unbalanced one that never closes.
    r.send(`4275["step:go",${"[".repeat(5_000)}`);
    expect(await r.ack(75)).toMatchObject({ ok: false, error: { code: "PAYLOAD_TOO_LARGE" } });
    // None of them ran: no patch to the teacher ever moved the class to step 3.
    expect(r.patches().filter(({ patch }) => sessionIn(patch)?.stepIndex === 3)).toEqual([]);

    r.send(`4276["step:go",{"stepIndex":1,"x":${nested(6)}}]`);
    expect(await r.ack(76)).toEqual({ ok: true, data: null });
    r.send(`4277["step:go",{"stepIndex":2,"x":"${"[".repeat(50)}{{{{"}]`);
    expect(await r.ack(77)).toEqual({ ok: true, data: null });
    // The ones that ran did reach the teacher's socket (so the check above would have seen step 3).
    await r.waitForPatch((p) => sessionIn(p)?.stepIndex === 2);
    expect(r.isClosed()).toBe(false);
    expect(await r.emit("session:sync", {})).toEqual({ ok: true, data: null });
  });

  it("a message over the transport's cap closes that connection only", async () => {
    const { s, host, student } = await classroom();
    student.raw.send(`42["poll:vote","${"x".repeat(MAX_SOCKET_MESSAGE_BYTES + 100)}"]`);
    expect(await closesWithin(student.raw, 3_000)).toBe(true);
    expect(await host.raw.emit("step:move", { delta: 1 })).toEqual({ ok: true, data: null });
    expect((await join(t.srv.url, { role: "student", code: s.code, token: student.welcome!.token })).ok).toBe(true);
  });

  it("a CONNECT that is too large or too deep is refused unread, and the WebSocket closed", async () => {
    const s = await t.srv.createSession();
    for (const connectFrame of [
      `40${JSON.stringify({ v: PROTOCOL_VERSION, role: "student", code: s.code, nickname: "x".repeat(17_000) })}`,
      `40{"v":${PROTOCOL_VERSION},"role":"student","code":"${s.code}","x":${nested(20)}}`,
    ]) {
      const raw = await openRaw(t.srv.url);
      raws.push(raw);
      raw.send(connectFrame);
      const reply = await raw.waitForFrame((f) => f.startsWith("40") || f.startsWith("44"));
      expect(JSON.parse(reply.slice(2))).toMatchObject({ data: { code: "PAYLOAD_TOO_LARGE" } });
      expect(await closesWithin(raw, 3_000)).toBe(true);
    }
  });

  it("unknown and reserved event names get UNKNOWN_EVENT, and the connection stays open", async () => {
    const { student } = await classroom();
    const r = student.raw;
    const names: unknown[] = [
      "admin:nuke",
      "connect",
      "connect_error",
      "disconnect",
      "disconnecting",
      "newListener",
      "removeListener",
      "error",
      "__proto__",
      "constructor",
      "hasOwnProperty",
      "x".repeat(5_000),
      123,
    ];
    let id = 100;
    for (const name of names) {
      r.send(`42${id}${JSON.stringify([name, {}])}`);
      const ack = await r.ack(id);
      expect(ack, `event ${JSON.stringify(name).slice(0, 30)}`).toMatchObject({ ok: false, error: { code: "UNKNOWN_EVENT" } });
      id += 1;
    }
    // Malformed JSON is answered the same way rather than dropping the connection.
    r.send(`42${id}["poll:vote",{"pollId":`);
    expect(await r.ack(id)).toMatchObject({ ok: false, error: { code: "UNKNOWN_EVENT" } });
    // Without an acknowledgement id: nothing to answer, and still no disconnect.
    for (const name of ["connect", "disconnect", "error", "newListener"]) r.send(`42${JSON.stringify([name, {}])}`);
    expect(r.isClosed()).toBe(false);
    expect(await r.emit("session:sync", {})).toEqual({ ok: true, data: null });
    expect(await closesWithin(r, 300)).toBe(false);
  });

  it("a flood past the connection's budget gets RATE_LIMITED, and a connection that keeps on refused is closed", async () => {
    const { s, student } = await classroom();
    const bystander = await join(t.srv.url, { role: "student", code: s.code, nickname: "Bystander" });
    const r = student.raw;
    const capacity = FRAME_LIMITS.perConnection.capacity;
    const refusals = FRAME_LIMITS.refusalsBeforeClose;
    // Unknown events: no command limiter of the app applies to them, only the frame budget.
    // The budget at once, then a few more: those get RATE_LIMITED, and the connection stays.
    const first = capacity + refusals - 5;
    for (let i = 0; i < first; i++) r.send(`42${1000 + i}["no:such",{}]`);
    await r.ack(1000 + first - 1, 5_000);
    const got = [...acks(r).values()].map(codeOf);
    expect(got).toHaveLength(first);
    expect(got.slice(0, capacity).every((c) => c === "UNKNOWN_EVENT")).toBe(true);
    expect(got.filter((c) => c === "RATE_LIMITED").length).toBeGreaterThanOrEqual(refusals - 10);
    expect(got.filter((c) => c !== "UNKNOWN_EVENT" && c !== "RATE_LIMITED")).toEqual([]);
    expect(r.isClosed()).toBe(false);
    // It keeps going regardless: the server closes the connection.
    for (let i = 0; i < 300; i++) r.send(`42${2000 + i}["no:such",{}]`);
    expect(await closesWithin(r, 8_000)).toBe(true);
    // The budget is the connection's: another student from the same address is answered as usual.
    expect(await bystander.raw.emit("session:sync", {})).toEqual({ ok: true, data: null });
    // And the flooder may come back (its identity is intact).
    const back = await join(t.srv.url, { role: "student", code: s.code, token: student.welcome!.token });
    expect(back.welcome!.participantId).toBe(student.welcome!.participantId);
  });

  it("a client that slows down after RATE_LIMITED keeps its connection, and its budget comes back", async () => {
    const { student } = await classroom();
    const r = student.raw;
    const n = FRAME_LIMITS.perConnection.capacity + 10;
    for (let i = 0; i < n; i++) r.send(`42${2000 + i}["no:such",{}]`);
    await r.ack(2000 + n - 1);
    const got = [...acks(r).values()].map(codeOf);
    expect(got.filter((c) => c === "RATE_LIMITED").length).toBeGreaterThanOrEqual(5);
    await sleep(1_500);
    expect(await r.emit("session:sync", {})).toEqual({ ok: true, data: null });
    expect(r.isClosed()).toBe(false);
  });

  it("many connections from one address share its frame budget; another address is answered as usual", async () => {
    const s = await t.srv.createSession();
    const flooders = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        join(t.srv.url, { role: "student", code: s.code, nickname: `F${i}` }, { localAddress: "127.0.0.2" }),
      ),
    );
    const neighbour = await join(t.srv.url, { role: "student", code: s.code, nickname: "Neighbour" }, { localAddress: "127.0.0.3" });
    // Each connection stays well within its own budget (15 frames), but 16 × 15 frames of 15 KB (3.6 MB) is far over
    // what one address may send at once (2 MiB).
    const pad = "y".repeat(15_000);
    for (const f of flooders) for (let i = 0; i < 15; i++) f.raw.send(`42${3000 + i}["no:such","${pad}"]`);
    await Promise.all(flooders.map((f) => f.raw.ack(3014, 10_000)));
    const got = flooders.flatMap((f) => [...acks(f.raw).values()].map(codeOf));
    expect(got).toHaveLength(240);
    expect(got.filter((c) => c === "RATE_LIMITED").length).toBeGreaterThan(30);
    expect(got.filter((c) => c !== "UNKNOWN_EVENT" && c !== "RATE_LIMITED")).toEqual([]);
    expect(await neighbour.raw.emit("session:sync", {})).toEqual({ ok: true, data: null });
  });

  it("binary frames close the connection", async () => {
    const { s, student } = await classroom();
    const bystander = await join(t.srv.url, { role: "student", code: s.code, nickname: "Bystander" });
    student.raw.send(Buffer.from([0x34, 0x32, 0x5b, 0x5d]));
    expect(await closesWithin(student.raw, 3_000)).toBe(true);

    // A binary event (header, then its attachment) that socket.io's own parser would reassemble and dispatch.
    const other = await join(t.srv.url, { role: "student", code: s.code, token: student.welcome!.token });
    other.raw.send(`451-4001["no:such",{"_placeholder":true,"num":0}]`);
    other.raw.send(Buffer.alloc(1024, 7));
    expect(await closesWithin(other.raw, 3_000)).toBe(true);
    expect(acks(other.raw).has(4001)).toBe(false);
    expect(await bystander.raw.emit("session:sync", {})).toEqual({ ok: true, data: null });
  });
});
