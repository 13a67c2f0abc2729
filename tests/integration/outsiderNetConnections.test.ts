import { io as connect } from "socket.io-client";
import { describe, expect, it } from "vitest";
import { PROTOCOL_VERSION } from "../../lib/protocol";
import { holdTcp, httpRequest, openRaw, serverPerTest, waitUntil, type ClientSocket, type RawOptions, type RawSocket } from "./harness";
import { sleep } from "./outsider/attacker";
import { cleanUpAfterEach, holders, ioSockets, join, raws } from "./outsider/edge";

// ---------------------------------------------------------------------------
// 4. Connection caps per address

describe("connections held per address", () => {
  const t = serverPerTest({ maxPendingPerAddress: 5, maxConnectionsPerAddress: 8 });
  cleanUpAfterEach();

  const hold = (localAddress: string) => {
    const h = holdTcp(t.srv.url, localAddress);
    holders.push(h);
    return h;
  };

  it("silent TCP connections cannot hold an address: at the pending cap the oldest is closed to let a newcomer in", async () => {
    // One student's script behind the class's NAT address holds the address's whole pending allowance.
    const held = Array.from({ length: 5 }, () => hold("127.0.0.5"));
    await Promise.all(held.map((h) => h.connected));
    // The server takes connections in in the order they came: once another address's request made after them is
    // answered, it has seen every one of them, and (under the cap) closed none.
    expect((await httpRequest(t.srv.url, "/api/health", { localAddress: "127.0.0.6" })).status).toBe(200);
    expect(held.some((h) => h.isClosed())).toBe(false);
    // A page load from the same address gets through: the oldest silent connection makes room.
    expect((await httpRequest(t.srv.url, "/api/health", { localAddress: "127.0.0.5" })).status).toBe(200);
    await waitUntil(() => held[0].isClosed(), 2_000);
    // So does a returning student's WebSocket and a new one, one silent connection each.
    const s = await t.srv.createSession();
    expect((await join(t.srv.url, { role: "student", code: s.code }, { localAddress: "127.0.0.5" })).ok).toBe(true);
    // The script reopening as fast as it likes still holds at most the cap: the fds it can take are bounded.
    const more = Array.from({ length: 10 }, () => hold("127.0.0.5"));
    await Promise.all(more.map((h) => h.connected));
    const stillOpen = () => [...held, ...more].filter((h) => !h.isClosed()).length;
    await waitUntil(() => stillOpen() <= 5, 2_000).catch(() => undefined);
    expect(stillOpen()).toBeLessThanOrEqual(5);
    // Another address is served throughout.
    expect((await httpRequest(t.srv.url, "/api/health", { localAddress: "127.0.0.6" })).status).toBe(200);
    expect((await join(t.srv.url, { role: "student", code: s.code }, { localAddress: "127.0.0.6" })).ok).toBe(true);
  });

  it("established WebSockets per address are capped; closing them lets the address in again", async () => {
    const s = await t.srv.createSession();
    const open = (localAddress: string) =>
      new Promise<{ socket: ClientSocket; ok: boolean }>((resolve) => {
        const socket: ClientSocket = connect(t.srv.url, {
          auth: { v: PROTOCOL_VERSION, role: "student", code: s.code },
          transports: ["websocket"],
          reconnection: false,
          forceNew: true,
          localAddress,
        } as Parameters<typeof connect>[1]);
        ioSockets.push(socket);
        socket.once("session:welcome", () => resolve({ socket, ok: true }));
        socket.once("connect_error", () => resolve({ socket, ok: false }));
        socket.once("disconnect", () => resolve({ socket, ok: false }));
      });
    const held: ClientSocket[] = [];
    for (let i = 0; i < 8; i++) {
      const { socket, ok } = await open("127.0.0.7");
      expect(ok, `socket ${i + 1}`).toBe(true);
      held.push(socket);
    }
    const ninth = await open("127.0.0.7");
    expect(ninth.ok).toBe(false);
    // A raw WebSocket, too, and any HTTP request from that address.
    await expect(openRaw(t.srv.url, { localAddress: "127.0.0.7" }).then((r) => (raws.push(r), r))).rejects.toThrow();
    await expect(httpRequest(t.srv.url, "/api/health", { localAddress: "127.0.0.7" })).rejects.toThrow();
    // The held sockets are fine, and another address joins.
    expect(held.every((sock) => sock.connected)).toBe(true);
    expect((await open("127.0.0.8")).ok).toBe(true);

    for (const sock of held.splice(0, 3)) sock.disconnect();
    let again = false;
    for (let i = 0; i < 50 && !again; i++) {
      again = (await open("127.0.0.7")).ok;
      if (!again) await sleep(50);
    }
    expect(again).toBe(true);
  });

  it("slow headers, and a connection that never says anything, are cut after about 10 s", async () => {
    const slow = hold("127.0.0.9");
    const silent = hold("127.0.0.9");
    await Promise.all([slow.connected, silent.connected]);
    const start = Date.now();
    slow.socket.write("GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    const drip = setInterval(() => {
      if (!slow.isClosed()) slow.socket.write(`X-Slow-${Date.now()}: 1\r\n`);
    }, 1_000);
    try {
      const cut = await Promise.race([Promise.all([slow.closed, silent.closed]).then(() => true), sleep(15_000).then(() => false)]);
      expect(cut, `still open after ${Date.now() - start} ms`).toBe(true);
    } finally {
      clearInterval(drip);
    }
  }, 25_000);
});

describe("connections held per forwarded address, behind a trusted proxy (TRUST_PROXY)", () => {
  // Every TCP peer is the proxy here; the caps apply to the address it forwards, and only to WebSockets.
  const t = serverPerTest({ trustProxy: true, maxPendingPerAddress: 5, maxConnectionsPerAddress: 8 });
  cleanUpAfterEach();

  const via = (address: string): RawOptions => ({ headers: { "X-Forwarded-For": `198.51.100.1, ${address}` } });
  const openVia = async (address: string) => {
    const raw = await openRaw(t.srv.url, via(address));
    raws.push(raw);
    return raw;
  };

  it("WebSockets that never join cannot hold a forwarded address: at the pending cap the oldest is closed for a newcomer", async () => {
    const s = await t.srv.createSession();
    // One script behind the school's address opens WebSockets and never sends its CONNECT.
    const silent: RawSocket[] = [];
    for (let i = 0; i < 5; i++) silent.push(await openVia("203.0.113.7"));
    // Another forwarded address's request, made after them, answered: the server has seen every one, closed none.
    expect((await httpRequest(t.srv.url, "/api/health", via("203.0.113.8"))).status).toBe(200);
    expect(silent.some((r) => r.isClosed())).toBe(false);

    // A student behind the same address still joins: the oldest silent one makes room.
    const student = await join(t.srv.url, { role: "student", code: s.code, nickname: "Ada" }, via("203.0.113.7"));
    expect(student.ok).toBe(true);
    await waitUntil(() => silent[0].isClosed(), 2_000);
    expect(silent.slice(1).every((r) => !r.isClosed())).toBe(true);

    // Reopening as fast as it likes, the script never holds more than the cap, and the student is never the one closed.
    for (let i = 0; i < 10; i++) silent.push(await openVia("203.0.113.7"));
    const stillOpen = () => silent.filter((r) => !r.isClosed()).length;
    await waitUntil(() => stillOpen() <= 5, 2_000).catch(() => undefined);
    expect(stillOpen()).toBeLessThanOrEqual(5);
    expect(student.raw.isClosed()).toBe(false);
    expect(await student.raw.emit("session:sync", {})).toEqual({ ok: true, data: null });

    // Another forwarded address, through the same proxy connection peer, is untouched.
    const neighbour = await join(t.srv.url, { role: "student", code: s.code, nickname: "Grace" }, via("203.0.113.8"));
    expect(neighbour.ok).toBe(true);
  });

  it("joined WebSockets per forwarded address are capped; another forwarded address still joins", async () => {
    const s = await t.srv.createSession();
    for (let i = 0; i < 8; i++) {
      expect((await join(t.srv.url, { role: "student", code: s.code }, via("203.0.113.9"))).ok, `socket ${i + 1}`).toBe(true);
    }
    await expect(openVia("203.0.113.9")).rejects.toThrow();
    expect((await join(t.srv.url, { role: "student", code: s.code }, via("203.0.113.10"))).ok).toBe(true);
  });
});
