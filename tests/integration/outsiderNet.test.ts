import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import { io as connect } from "socket.io-client";
import { afterEach, describe, expect, it } from "vitest";
import { FRAME_LIMITS, MAX_SOCKET_MESSAGE_BYTES } from "../../lib/constants";
import { PROTOCOL_VERSION, type Ack } from "../../lib/protocol";
import {
  connectClient,
  holdTcp,
  httpRequest,
  openRaw,
  rawJoin,
  serverPerTest,
  waitUntil,
  type ClientSocket,
  type RawJoin,
  type RawOptions,
  type RawSocket,
  type TcpHolder,
  type TestClient,
} from "./harness";

/**
 * The network edge, attacked from outside (issue 10): frames written by hand
 * on a raw WebSocket (too large, too deep, reserved names, binary, floods),
 * bare TCP connections that hold file descriptors, slow headers, and a noisy
 * neighbour flooding from its own address while another class goes on.
 * Other loopback addresses (127.0.0.2…) stand for other machines.
 */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const raws: RawSocket[] = [];
const holders: TcpHolder[] = [];
const ioSockets: ClientSocket[] = [];
const workers: Worker[] = [];
/** Registered after each describe's serverPerTest, so it runs before the server closes (hooks unwind in reverse). */
function cleanUpAfterEach() {
  afterEach(async () => {
    for (const w of workers.splice(0)) await w.terminate();
    for (const r of raws.splice(0)) r.close();
    for (const h of holders.splice(0)) h.destroy();
    for (const s of ioSockets.splice(0)) s.disconnect();
  });
}

async function join(url: string, auth: Record<string, unknown>, options: RawOptions = {}): Promise<RawJoin> {
  const joined = await rawJoin(url, auth, options);
  raws.push(joined.raw);
  if (!joined.ok) throw new Error(`join refused: ${joined.reply}`);
  return joined;
}

/** Resolves true if the connection closes within `ms`, false if it is still open then. */
const closesWithin = (raw: { closed: Promise<void> }, ms: number) =>
  Promise.race([raw.closed.then(() => true), sleep(ms).then(() => false)]);

/** Acknowledgements received so far, by id. */
function acks(raw: RawSocket): Map<number, Ack<unknown>> {
  const out = new Map<number, Ack<unknown>>();
  for (const f of raw.frames) {
    const m = /^43(\d+)(\[.*)$/s.exec(f);
    if (m) out.set(Number(m[1]), (JSON.parse(m[2]) as [Ack<unknown>])[0]);
  }
  return out;
}
const codeOf = (a: Ack<unknown> | undefined) => (a && !a.ok ? a.error.code : a ? "ok" : "none");
const nested = (depth: number, inner = "1") => "[".repeat(depth) + inner + "]".repeat(depth);

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
    // None of them ran.
    expect(r.events().filter((e) => e.event === "session:snapshot" && (e.payload as { stepIndex: number }).stepIndex === 3)).toEqual([]);

    r.send(`4276["step:go",{"stepIndex":1,"x":${nested(6)}}]`);
    expect(await r.ack(76)).toEqual({ ok: true, data: null });
    r.send(`4277["step:go",{"stepIndex":2,"x":"${"[".repeat(50)}{{{{"}]`);
    expect(await r.ack(77)).toEqual({ ok: true, data: null });
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

// ---------------------------------------------------------------------------
// The noisy neighbour: one address floods with the worst frames it can send

describe("a noisy neighbour", () => {
  const t = serverPerTest();
  cleanUpAfterEach();

  it("another room's students keep getting step changes, and new students and pages still get through", async () => {
    const quiet = await t.srv.createSession("Quiet room");
    const noisy = await t.srv.createSession("Noisy room");
    const host = await connectClient(t.srv.url, { role: "host", code: quiet.code, hostKey: quiet.hostKey });
    const kids = await Promise.all(
      [1, 2, 3, 4, 5].map((i) => connectClient(t.srv.url, { role: "student", code: quiet.code, nickname: `Q${i}` })),
    );
    const clients: TestClient[] = [host, ...kids];

    // The attacker: ten WebSockets from 127.0.0.2, each sending the worst frames it can until the server closes it,
    // then back with the same identity. It runs on its own thread, like a laptop of its own: only the server's
    // work shows in the quiet room's timings.
    const stepDelay = async (step: number) => {
      const sent = Date.now();
      expect(await host.emit("step:go", { stepIndex: step })).toEqual({ ok: true, data: null });
      await waitUntil(() => kids.every((k) => k.latest().stepIndex === step), 10_000);
      return Date.now() - sent;
    };
    const quietDelays: number[] = [];
    for (let step = 1; step <= 3; step++) quietDelays.push(await stepDelay(step));

    const first = await join(t.srv.url, { role: "student", code: noisy.code, nickname: "Noise" }, { localAddress: "127.0.0.2" });
    first.raw.close();
    const flood = startFlood({
      url: t.srv.url,
      localAddress: "127.0.0.2",
      connections: 10,
      auth: { v: PROTOCOL_VERSION, role: "student", code: noisy.code, token: first.welcome!.token },
    });
    await sleep(500);
    // Step changes in the quiet room while the flood goes on: each reaches every student within 2 s.
    const delays: number[] = [];
    for (let step = 4; step <= 9; step++) {
      delays.push(await stepDelay(step));
      await sleep(150);
    }
    // A new student joins the quiet room, and a page request from another machine is served.
    const late = await connectClient(t.srv.url, { role: "student", code: quiet.code, nickname: "Late" });
    clients.push(late);
    const page = await httpRequest(t.srv.url, "/api/health", { localAddress: "127.0.0.4" });
    expect(page.status).toBe(200);
    expect(await host.emit("step:go", { stepIndex: 10 })).toEqual({ ok: true, data: null });
    await late.waitFor((c) => c.latest().stepIndex === 10, 2_000);

    const stats = await flood.stop();
    for (const c of clients) c.close();
    // The flood was real, and the server met it with its frame budget: frames refused unread as too large, and
    // frames over the connection's or the address's budget refused before parsing.
    expect(stats.sentBytes, JSON.stringify(stats)).toBeGreaterThan(5 * 1024 * 1024);
    expect(stats.refused.PAYLOAD_TOO_LARGE ?? 0, JSON.stringify(stats)).toBeGreaterThan(10);
    expect(stats.refused.RATE_LIMITED ?? 0, JSON.stringify(stats)).toBeGreaterThan(5);
    const figures = `step fan-out: quiet ${quietDelays.join(", ")} ms; under the flood ${delays.join(", ")} ms; ${JSON.stringify(stats)}`;
    expect(Math.max(...delays), figures).toBeLessThanOrEqual(2_000);
  });
});

describe("an address over its frame budget", () => {
  const t = serverPerTest();
  cleanUpAfterEach();

  it("is not read at the rate it sends: its flood backs up on its own side, not in the server", async () => {
    const s = await t.srv.createSession();
    const first = await join(t.srv.url, { role: "student", code: s.code, nickname: "Noise" }, { localAddress: "127.0.0.2" });
    first.raw.close();
    const flood = startFlood({
      url: t.srv.url,
      localAddress: "127.0.0.2",
      connections: 2,
      auth: { v: PROTOCOL_VERSION, role: "student", code: s.code, token: first.welcome!.token },
    });
    await sleep(3_000);
    const stats = await flood.stop();
    // The server answered it with its budget…
    expect(stats.refused.RATE_LIMITED ?? 0, JSON.stringify(stats)).toBeGreaterThan(0);
    // …and stopped reading: in 3 s two connections got about 12 MB into the server and the kernel's buffers
    // (read at the rate it was sent, it was over 300 MB).
    expect(stats.sentBytes, JSON.stringify(stats)).toBeLessThan(60 * 1024 * 1024);
  });
});

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
    await sleep(200);
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
    await sleep(300);
    const stillOpen = [...held, ...more].filter((h) => !h.isClosed()).length;
    expect(stillOpen).toBeLessThanOrEqual(5);
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
    await sleep(200);
    expect(silent.some((r) => r.isClosed())).toBe(false);

    // A student behind the same address still joins: the oldest silent one makes room.
    const student = await join(t.srv.url, { role: "student", code: s.code, nickname: "Ada" }, via("203.0.113.7"));
    expect(student.ok).toBe(true);
    await waitUntil(() => silent[0].isClosed(), 2_000);
    expect(silent.slice(1).every((r) => !r.isClosed())).toBe(true);

    // Reopening as fast as it likes, the script never holds more than the cap, and the student is never the one closed.
    for (let i = 0; i < 10; i++) silent.push(await openVia("203.0.113.7"));
    await sleep(300);
    expect(silent.filter((r) => !r.isClosed()).length).toBeLessThanOrEqual(5);
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

// ---------------------------------------------------------------------------
// The flooding client, on a worker thread of its own.

interface FloodStats {
  sentFrames: number;
  sentBytes: number;
  /** Refusals acknowledged, by error code. */
  refused: Record<string, number>;
  closedByServer: number;
  joins: number;
}

const FLOOD_WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
const WebSocket = require(workerData.wsPath);
const { url, localAddress, connections, auth } = workerData;
const nested = (depth, inner = "1") => "[".repeat(depth) + inner + "]".repeat(depth);
// The worst a client can send and stay connected. Frames the guard lets through to JSON.parse when they are within
// budget: 16 KB (the most it accepts) of empty arrays, the most allocations per byte, as an unknown event, a vote, a
// resync and a teacher command. And frames it must refuse unread: 18 KB of brackets or text (just under the
// transport's cap, which would close the connection), too deep, a reserved name.
const trees = (head) => {
  let body = head + ",[";
  let id = 0;
  while (body.length < 16300) body += (id++ % 2 ? "{}," : "[],");
  return body + "[]]]";
};
const worst = [
  "42" + trees('["flood:unknown"'),
  "42" + trees('["poll:vote"'),
  "4290" + trees('["session:sync"'),
  "42" + trees('["step:go"'),
  '4291["poll:vote",' + nested(9000) + ']',
  '42["x","' + "z".repeat(18000) + '"]',
  '4292["poll:vote",{"pollId":"p","optionId":"o1","x":' + nested(2000) + '}]',
  '4293["connect",{}]',
];
const stats = { sentFrames: 0, sentBytes: 0, refused: {}, closedByServer: 0, joins: 0 };
let stopping = false;
function one(n) {
  return new Promise((resolve) => {
    const ws = new WebSocket(url.replace(/^http/, "ws") + "/socket.io/?EIO=4&transport=websocket", { localAddress });
    let i = n;
    let joined = false;
    const pump = () => {
      while (!stopping && joined && ws.readyState === WebSocket.OPEN && ws.bufferedAmount < 256 * 1024) {
        const frame = worst[i++ % worst.length];
        ws.send(frame);
        stats.sentFrames += 1;
        stats.sentBytes += frame.length;
      }
      if (!stopping && ws.readyState === WebSocket.OPEN) setTimeout(pump, 1);
    };
    ws.on("message", (data, isBinary) => {
      if (isBinary) return;
      const text = data.toString();
      if (text === "2") return ws.send("3");
      if (text.startsWith("0{")) return ws.send("40" + JSON.stringify(auth));
      if (text.startsWith("40")) {
        joined = true;
        stats.joins += 1;
        return pump();
      }
      const refused = text.startsWith("43") ? /^43\\d+\\[\\{"ok":false,"error":\\{"code":"(\\w+)"/.exec(text) : null;
      if (refused) stats.refused[refused[1]] = (stats.refused[refused[1]] ?? 0) + 1;
    });
    ws.on("error", () => undefined);
    ws.on("close", () => {
      if (!stopping) stats.closedByServer += 1;
      resolve();
    });
  });
}
async function loop(n) {
  while (!stopping) {
    await one(n);
    if (!stopping) await new Promise((r) => setTimeout(r, 5));
  }
}
const loops = Array.from({ length: connections }, (_, n) => loop(n));
parentPort.on("message", async () => {
  stopping = true;
  setTimeout(() => parentPort.postMessage(stats), 200);
});
`;

/** Starts a flood on a worker thread; `stop()` ends it and reports what it did. */
function startFlood(options: { url: string; localAddress: string; connections: number; auth: Record<string, unknown> }) {
  const wsPath = createRequire(import.meta.url).resolve("ws");
  const worker = new Worker(FLOOD_WORKER, { eval: true, workerData: { ...options, wsPath } });
  workers.push(worker);
  return {
    async stop(): Promise<FloodStats> {
      const stats = new Promise<FloodStats>((resolve) => worker.once("message", resolve));
      worker.postMessage("stop");
      const result = await stats;
      await worker.terminate();
      return result;
    },
  };
}
