import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { connectClient, sessionIn, waitUntil, type TestClient } from "./harness";
import { attackedServer, wrongCode } from "./outsider/attacker";

// Smaller gaps: malformed paths, headers under /socket.io/, old clients' joins, and a disk that refuses one class's writes.

const { t, track, join, attempt, spendTheRefill, api } = attackedServer();

// ---------------------------------------------------------------------------
// 6. Smaller gaps

describe("smaller gaps", () => {
  it("a malformed percent-escape in a page path is a 400, not a 500", async () => {
    for (const p of ["/join/%ZZ", "/replay/%E0%A4%A", "/host/%", "/join/%C0%AF", "/replay/%ED%A0%80"]) {
      const res = await api(p);
      expect(res.status, p).toBe(400);
      expect(res.headers["content-type"]).toMatch(/^text\/html/);
      expect(res.body).not.toMatch(/URIError|at .*\.ts:\d+|node_modules/);
      expect(res.headers["x-content-type-options"]).toBe("nosniff");
    }
  });

  it("responses under /socket.io/ carry the security headers", async () => {
    for (const p of [
      "/socket.io/?EIO=4&transport=polling",
      "/socket.io/",
      "/socket.io/?EIO=3&transport=websocket",
      "/socket.io/socket.io.js",
    ]) {
      const res = await api(p);
      expect(res.status, p).toBeGreaterThanOrEqual(400);
      expect(res.headers["x-content-type-options"], p).toBe("nosniff");
      expect(res.headers["content-security-policy"], p).toContain("default-src 'self'");
      expect(res.headers["content-security-policy"], p).toContain("frame-ancestors 'none'");
      expect(res.headers["x-frame-options"], p).toBe("DENY");
      expect(res.headers["referrer-policy"], p).toBe("no-referrer");
    }
  });

  it("CLIENT_TOO_OLD counts against the failed-join allowance", async () => {
    const s = await t.srv.createSession();
    const answers: (string | null)[] = [];
    for (let i = 0; i < 75; i++) answers.push((await attempt({ role: "student", code: s.code, v: 999 })).code);
    expect(answers.slice(0, 60).every((c) => c === "CLIENT_TOO_OLD")).toBe(true);
    expect(answers.slice(60)).toContain("RATE_LIMITED");
    // The allowance they spent is the one that guards the codes: a wrong code is now RATE_LIMITED, not NO_SUCH_SESSION,
    // and a live code gets the same answer.
    await spendTheRefill([s.code]);
    const [wrong, right] = await Promise.all([
      join({ role: "student", code: wrongCode([s.code]) }),
      join({ role: "student", code: s.code }),
    ]);
    expect(wrong.code).toBe("RATE_LIMITED");
    expect(right.reply).toBe(wrong.reply);
  });

  it("a write the disk refuses for one session drops that session only; another class in the same turn carries on", async () => {
    const a = await t.srv.createSession("Class A");
    const b = await t.srv.createSession("Class B");
    const hostA = track(await connectClient(t.srv.url, { role: "host", code: a.code, hostKey: a.hostKey }));
    const hostB = track(await connectClient(t.srv.url, { role: "host", code: b.code, hostKey: b.hostKey }));
    const kidsA = await Promise.all([1, 2].map((i) => connectClient(t.srv.url, { role: "student", code: a.code, nickname: `A${i}` })));
    const kidsB = await Promise.all([1, 2, 3].map((i) => connectClient(t.srv.url, { role: "student", code: b.code, nickname: `B${i}` })));
    const everyone = [hostA, hostB, ...kidsA, ...kidsB];
    everyone.forEach(track);
    const reasons = new Map<TestClient, string>();
    for (const c of everyone) c.socket.on("disconnect", (reason) => reasons.set(c, reason));

    // The disk refuses class A's events, and only A's (fault injection through the database file).
    const db = new Database(path.join(t.srv.dataDir, "sessions.sqlite"));
    db.exec(`CREATE TRIGGER refuse_a BEFORE INSERT ON events WHEN NEW.session_id = '${a.id}' BEGIN SELECT RAISE(ABORT, 'boom'); END`);

    // Both teachers' commands at once, so they land in the same turn (and the same batch).
    const [ackA, ackB] = await Promise.all([
      hostA.emit("step:move", { delta: 1 }).catch(() => "no acknowledgement: the socket was closed before it was sent"),
      hostB.emit("step:move", { delta: 1 }),
    ]);
    // The teacher is told the command was not saved (docs/protocol.md, Durability) before being sent away.
    // (Soft: the isolation below is checked whatever this says.)
    expect.soft(ackA).toMatchObject({ ok: false, error: { code: "INTERNAL" } });
    expect(ackB).toEqual({ ok: true, data: null });

    // A's sockets are sent away to reload the durable state; nothing unsaved reached them.
    for (const c of [hostA, ...kidsA]) await waitUntil(() => !c.socket.connected);
    for (const c of [hostA, ...kidsA]) expect(reasons.get(c)).toBe("io server disconnect");
    for (const c of kidsA) expect(c.snapshots.every((snap) => snap.stepIndex === 0)).toBe(true);
    // Not even in a patch the client might have set aside: no session record past step 0 was sent.
    for (const c of kidsA) expect(c.patches.filter((p) => (sessionIn(p)?.stepIndex ?? 0) !== 0)).toEqual([]);

    // B carries on: everyone still connected, the step reached every student, and the next command works.
    for (const c of kidsB) await c.waitFor((x) => x.latest().stepIndex === 1, 2_000);
    expect(await hostB.emit("step:move", { delta: 1 })).toEqual({ ok: true, data: null });
    for (const c of kidsB) await c.waitFor((x) => x.latest().stepIndex === 2, 2_000);
    for (const c of [hostB, ...kidsB]) expect(c.socket.connected).toBe(true);
    expect(reasons.size).toBe(1 + kidsA.length);

    // Once the disk takes A's writes again, A's teacher comes back to the durable state and goes on.
    db.exec("DROP TRIGGER refuse_a");
    db.close();
    const again = track(await connectClient(t.srv.url, { role: "host", code: a.code, hostKey: a.hostKey }));
    expect(again.latest().stepIndex).toBe(0);
    expect(await again.emit("step:move", { delta: 1 })).toEqual({ ok: true, data: null });
  });
});
