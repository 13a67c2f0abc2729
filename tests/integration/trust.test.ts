import { io as connect } from "socket.io-client";
import { describe, expect, it } from "vitest";
import { MAX_COMMAND_PAYLOAD_BYTES } from "../../lib/constants";
import { PROTOCOL_VERSION } from "../../lib/protocol";
import { connectClient, connectError, waitUntil, serverPerTest } from "./harness";

const t = serverPerTest();
const track = t.track;

describe("hostile input and limits", () => {
  it("answers unknown events and oversized payloads with named errors, and keeps the socket", async () => {
    const { code, hostKey } = await t.srv.createSession();
    const host = track(await connectClient(t.srv.url, { role: "host", code, hostKey }));
    expect(await host.emit("admin:nuke" as never, {} as never)).toMatchObject({ ok: false, error: { code: "UNKNOWN_EVENT" } });
    const big = { stepIndex: 1, junk: "x".repeat(MAX_COMMAND_PAYLOAD_BYTES + 10) };
    expect(await host.emit("step:go", big as never)).toMatchObject({ ok: false, error: { code: "PAYLOAD_TOO_LARGE" } });
    expect(host.socket.connected).toBe(true);
    expect(await host.emit("step:go", { stepIndex: 1 })).toEqual({ ok: true, data: null });
  });

  it("closes only the offending connection when a message exceeds the transport cap", async () => {
    const { code, hostKey } = await t.srv.createSession();
    const host = track(await connectClient(t.srv.url, { role: "host", code, hostKey }));
    const student = track(await connectClient(t.srv.url, { role: "student", code }));
    (student.socket.emit as (e: string, p: unknown) => void)("poll:vote", { pollId: "x".repeat(200_000), optionId: "o1" });
    await waitUntil(() => !student.socket.connected);
    expect(await host.emit("step:move", { delta: 1 })).toEqual({ ok: true, data: null });
  });

  it("rate-limits votes per student, across reconnects", async () => {
    const { code, hostKey } = await t.srv.createSession();
    const host = track(await connectClient(t.srv.url, { role: "host", code, hostKey }));
    const s = track(await connectClient(t.srv.url, { role: "student", code }));
    const { data } = (await host.emit("poll:open", { kind: "next-step" })) as { data: { pollId: string } };
    await s.waitFor((c) => c.latest().poll?.id === data.pollId);
    const [a, b] = s.latest().poll!.options;
    const acks = await Promise.all(
      Array.from({ length: 30 }, (_, i) => s.emit("poll:vote", { pollId: data.pollId, optionId: i % 2 ? a.id : b.id })),
    );
    const limited = acks.filter((r) => !r.ok && r.error.code === "RATE_LIMITED").length;
    expect(limited).toBeGreaterThan(10);
    s.close();
    const again = track(await connectClient(t.srv.url, { role: "student", code, token: s.welcome!.token }));
    expect(await again.emit("poll:vote", { pollId: data.pollId, optionId: a.id })).toMatchObject({
      ok: false,
      error: { code: "RATE_LIMITED" },
    });
  });

  it("slows down an address that keeps guessing room codes or host keys", async () => {
    const results: string[] = [];
    for (let i = 0; i < 70; i++) results.push((await connectError(t.srv.url, { role: "student", code: "ZZZZZZ" })).code);
    expect(results.slice(0, 55).every((c) => c === "NO_SUCH_SESSION")).toBe(true);
    expect(results.slice(60)).toContain("RATE_LIMITED");
  });

  it("over the guessing allowance, admits only students who hold a token and the teacher", async () => {
    const { code, hostKey } = await t.srv.createSession();
    const earlier = track(await connectClient(t.srv.url, { role: "student", code }));
    earlier.close();
    for (let i = 0; i < 65; i++) await connectError(t.srv.url, { role: "student", code: "ZZZZZZ" });
    // A right code is now indistinguishable from a wrong one, for a new student and for a projector.
    expect((await connectError(t.srv.url, { role: "student", code })).code).toBe("RATE_LIMITED");
    expect((await connectError(t.srv.url, { role: "projector", code })).code).toBe("RATE_LIMITED");
    expect((await connectError(t.srv.url, { role: "student", code, token: "made-up" })).code).toBe("RATE_LIMITED");
    // Same address, a student who joined before: the class behind one NAT address is not locked out.
    const back = track(await connectClient(t.srv.url, { role: "student", code, token: earlier.welcome!.token }));
    expect(back.welcome!.participantId).toBe(earlier.welcome!.participantId);
    track(await connectClient(t.srv.url, { role: "host", code, hostKey }));
    // The join-info lookup spends the same allowance: it is already used up.
    expect((await fetch(`${t.srv.url}/api/join-info?code=${code}`)).status).toBe(429);
  });

  it("refuses WebSocket connections from other sites' pages", async () => {
    const { code } = await t.srv.createSession();
    const socket = connect(t.srv.url, {
      transports: ["websocket"],
      reconnection: false,
      forceNew: true,
      auth: { v: PROTOCOL_VERSION, role: "student", code },
      extraHeaders: { Origin: "https://evil.example" },
    });
    const outcome = await new Promise<string>((resolve) => {
      socket.once("connect", () => resolve("connected"));
      socket.once("connect_error", () => resolve("refused"));
    });
    socket.close();
    expect(outcome).toBe("refused");
    const ok = track(await connectClient(t.srv.url, { role: "student", code }));
    expect(ok.socket.connected).toBe(true);
  });

  it("locks the room, removes and renames participants", async () => {
    const { code, hostKey } = await t.srv.createSession();
    const host = track(await connectClient(t.srv.url, { role: "host", code, hostKey }));
    const sam = track(await connectClient(t.srv.url, { role: "student", code, nickname: "<b>Sam</b>\u0000\u202e" }));
    expect(sam.welcome!.nickname).toBe("<b>Sam</b>");
    /** The names Sam's own records were told from here on. */
    const mark = sam.patches.length;
    const renamed = () => sam.patches.slice(mark).flatMap((p) => (p.stream === "me" && p.put?.name ? [p.put.name.nickname] : []));
    expect(await host.emit("participant:rename", { participantId: sam.welcome!.participantId!, nickname: "  Sam K.  " })).toEqual({
      ok: true,
      data: null,
    });
    await waitUntil(() => renamed()[0] === "Sam K.");
    // The page shows it.
    expect(sam.welcome!.nickname).toBe("Sam K.");

    expect((await host.emit("room:lock", { locked: true })).ok).toBe(true);
    expect(await connectError(t.srv.url, { role: "student", code })).toMatchObject({ code: "ROOM_LOCKED" });
    // Nobody new may watch a locked room either, except the teacher's own projector.
    expect(await connectError(t.srv.url, { role: "projector", code })).toMatchObject({ code: "ROOM_LOCKED" });
    track(await connectClient(t.srv.url, { role: "projector", code, hostKey }));
    // Someone already in the class may still reconnect to a locked room.
    sam.close();
    const back = track(await connectClient(t.srv.url, { role: "student", code, token: sam.welcome!.token }));
    expect(back.welcome!.participantId).toBe(sam.welcome!.participantId);

    expect((await host.emit("participant:remove", { participantId: sam.welcome!.participantId! })).ok).toBe(true);
    await back.waitFor((c) => c.kicked.length === 1 && !c.socket.connected);
    expect(back.kicked[0]).toMatchObject({ code: "REMOVED" });
    expect(await connectError(t.srv.url, { role: "student", code, token: sam.welcome!.token })).toMatchObject({ code: "REMOVED" });
    await host.waitFor((c) => c.students().length === 0);
  });

  it("ends a session once; ending again is not an error, and nobody can join after", async () => {
    const { code, hostKey } = await t.srv.createSession();
    const host = track(await connectClient(t.srv.url, { role: "host", code, hostKey }));
    expect(await host.emit("session:end", {})).toEqual({ ok: true, data: null });
    expect(await host.emit("session:end", {})).toEqual({ ok: true, data: null });
    await host.waitFor((c) => c.latest().status === "ended");
    expect(await connectError(t.srv.url, { role: "student", code })).toMatchObject({ code: "SESSION_ENDED" });
    expect(await host.emit("step:move", { delta: 1 })).toMatchObject({ ok: false, error: { code: "SESSION_ENDED" } });
  });

  it("never leaks a stack trace or internal message over HTTP", async () => {
    const res = await fetch(`${t.srv.url}/api/sessions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"title": [1,2,3]}',
    });
    const text = await res.text();
    expect(res.status).toBe(400);
    expect(text).not.toMatch(/at .*\.ts:\d+|node_modules|Error:/);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("content-security-policy")).toContain("default-src 'self'");
  });
});
