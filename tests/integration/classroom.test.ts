import { describe, expect, it } from "vitest";
import { connectClient, connectError, serverPerTest } from "./harness";

const t = serverPerTest();
const track = t.track;

describe("live classroom over real sockets", () => {
  it("creates a session over HTTP and every view follows the teacher's steps", async () => {
    const { code, hostKey } = await t.srv.createSession();
    expect(code).toMatch(/^[A-HJ-NP-Z2-9]{6}$/);
    const host = track(await connectClient(t.srv.url, { role: "host", code, hostKey }));
    const projector = track(await connectClient(t.srv.url, { role: "projector", code }));
    const students = await Promise.all(
      ["Ana", "Bo", "Cy"].map(async (nickname) =>
        track(await connectClient(t.srv.url, { role: "student", code: code.toLowerCase(), nickname })),
      ),
    );
    expect(host.latest().stepIndex).toBe(0);

    expect(await host.emit("step:move", { delta: 1 })).toEqual({ ok: true, data: null });
    expect(await host.emit("step:move", { delta: 1 })).toEqual({ ok: true, data: null });
    for (const c of [projector, ...students, host]) await c.waitFor((x) => x.latest().stepIndex === 2);
    await host.emit("step:move", { delta: -1 });
    for (const c of [projector, ...students]) await c.waitFor((x) => x.latest().stepIndex === 1);

    await host.waitFor((x) => x.students().filter((p) => p.connected).length === 3);
    expect(host.latest().participantCount).toBe(3);
  });

  it("shows a late joiner the current step at once", async () => {
    const { code, hostKey } = await t.srv.createSession();
    const host = track(await connectClient(t.srv.url, { role: "host", code, hostKey }));
    await host.emit("step:go", { stepIndex: 6 });
    const late = track(await connectClient(t.srv.url, { role: "student", code }));
    expect(late.snapshots[0].stepIndex).toBe(6);
  });

  it("keeps a student's identity across reconnects: no second participant", async () => {
    const { code, hostKey } = await t.srv.createSession();
    const host = track(await connectClient(t.srv.url, { role: "host", code, hostKey }));
    const first = track(await connectClient(t.srv.url, { role: "student", code, nickname: "Sam" }));
    const token = first.welcome!.token!;
    const id = first.welcome!.participantId;
    first.close();
    const again = track(await connectClient(t.srv.url, { role: "student", code, token }));
    expect(again.welcome!.participantId).toBe(id);
    expect(again.welcome!.nickname).toBe("Sam");
    await host.waitFor((x) => x.students().length === 1 && x.latest().participantCount === 1);
  });

  it("rejects every teacher command from a student or projector socket", async () => {
    const { code } = await t.srv.createSession();
    const student = track(await connectClient(t.srv.url, { role: "student", code }));
    const projector = track(await connectClient(t.srv.url, { role: "projector", code }));
    for (const c of [student, projector]) {
      for (const [event, payload] of [
        ["step:move", { delta: 1 }],
        ["step:go", { stepIndex: 3 }],
        ["mode:set", { mode: "Immediate" }],
        ["poll:open", { kind: "next-step" }],
        ["session:end", {}],
        ["room:lock", { locked: true }],
      ] as const) {
        const ack = await c.emit(event, payload as never);
        expect(ack).toMatchObject({ ok: false, error: { code: "NOT_HOST" } });
      }
    }
    // A student claiming the host role without the key is refused at the door.
    expect(await connectError(t.srv.url, { role: "host", code })).toMatchObject({ code: "NOT_HOST" });
    expect(await connectError(t.srv.url, { role: "host", code, hostKey: "guess" })).toMatchObject({ code: "NOT_HOST" });
    expect(student.latest().stepIndex).toBe(0);
  });

  it("answers a bad room code, an old client and a malformed handshake with named errors", async () => {
    expect(await connectError(t.srv.url, { role: "student", code: "ZZZZZZ" })).toMatchObject({ code: "NO_SUCH_SESSION" });
    expect(await connectError(t.srv.url, { role: "student", code: "nope" })).toMatchObject({ code: "NO_SUCH_SESSION" });
    const { code } = await t.srv.createSession();
    expect(await connectError(t.srv.url, { role: "student", code, v: 0 })).toMatchObject({ code: "CLIENT_TOO_OLD" });
    expect(await connectError(t.srv.url, { role: "admin", code })).toMatchObject({ code: "BAD_REQUEST" });
  });

  it("answers malformed payloads with BAD_REQUEST and carries on", async () => {
    const { code, hostKey } = await t.srv.createSession();
    const host = track(await connectClient(t.srv.url, { role: "host", code, hostKey }));
    for (const bad of [null, "x", 42, { delta: 2 }, { delta: "1" }, { __proto__: { delta: 1 } }, []]) {
      const ack = await host.emit("step:move", bad as never);
      expect(ack).toMatchObject({ ok: false, error: { code: "BAD_REQUEST" } });
    }
    expect(await host.emit("step:go", { stepIndex: 50 })).toMatchObject({ ok: false, error: { code: "STEP_OUT_OF_RANGE" } });
    // An event nobody handles, and one without an ack, do not crash the server.
    (host.socket.emit as (e: string, p: unknown) => void)("no:such:event", { x: 1 });
    (host.socket.emit as (e: string, p: unknown) => void)("step:move", { delta: 1 });
    await host.waitFor((x) => x.latest().stepIndex === 1);
    expect(await host.emit("step:move", { delta: 1 })).toEqual({ ok: true, data: null });
  });

  it("validates the create-session body", async () => {
    const post = (body: string, type = "application/json") =>
      fetch(`${t.srv.url}/api/sessions`, { method: "POST", headers: { "content-type": type }, body });
    expect((await post("{not json")).status).toBe(400);
    expect((await post(JSON.stringify({ title: 5 }))).status).toBe(400);
    expect((await post(JSON.stringify({ title: "x".repeat(20_000) }))).status).toBe(413);
    const res = await post(JSON.stringify({ title: "  Storage \u0007101  " }));
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ title: "Storage 101" });
    const bad = await fetch(`${t.srv.url}/api/sessions`, { method: "PUT" });
    expect(bad.status).toBe(405);
    expect(await bad.json()).toMatchObject({ error: { code: "METHOD_NOT_ALLOWED" } });
  });
});
