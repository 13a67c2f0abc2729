import { describe, expect, it } from "vitest";

import type { Ack } from "../../lib/protocol";
import { connectClient, connectError, openRaw, serverPerTest, type TestClient } from "./harness";

// An outsider's attacks on pausing the class, on the handshake's refusals and on the command buckets,
// written against docs/protocol.md only: real server, real sockets, the log read back over REST.

const t = serverPerTest();
const track = t.track;

type LoggedEvent = { type: string; seq: number; paused?: boolean; participantId?: string };
const STUDENT_WRITES = ["poll:voted", "question:asked", "question:upvoted"];
const codeOf = (r: Ack<unknown>) => (r.ok ? "ok" : r.error.code);
const counts = (rs: Ack<unknown>[]) => {
  const m: Record<string, number> = {};
  for (const r of rs) m[codeOf(r)] = (m[codeOf(r)] ?? 0) + 1;
  return m;
};

async function events(sessionId: string, headers: Record<string, string>): Promise<LoggedEvent[]> {
  const res = await fetch(`${t.srv.url}/api/sessions/${sessionId}/events`, { headers });
  expect(res.status).toBe(200);
  return ((await res.json()) as { events: LoggedEvent[] }).events;
}

/** The seq windows of the log in which the class was paused: [pause, resume). */
function pausedWindows(log: LoggedEvent[]): [number, number][] {
  const windows: [number, number][] = [];
  let from: number | null = null;
  for (const e of log) {
    if (e.type !== "class:paused") continue;
    if (e.paused && from === null) from = e.seq;
    if (!e.paused && from !== null) {
      windows.push([from, e.seq]);
      from = null;
    }
  }
  if (from !== null) windows.push([from, Infinity]);
  return windows;
}
const writtenWhilePaused = (log: LoggedEvent[]) =>
  log.filter((e) => STUDENT_WRITES.includes(e.type) && pausedWindows(log).some(([a, b]) => e.seq > a && e.seq < b));

async function openPoll(host: TestClient, options = ["PVC", "PV", "Pod"]): Promise<string> {
  const open = (await host.emit("poll:open", { kind: "custom", question: "Which binds first?", options })) as Ack<{ pollId: string }>;
  if (!open.ok) throw new Error(open.error.code);
  return open.data.pollId;
}

describe("an outsider pausing the class", () => {
  it("no route stores a vote, question or upvote while paused, every refusal is documented, and the saved session shows the pause", async () => {
    const { id, code, hostKey } = await t.srv.createSession();
    const host = track(await connectClient(t.srv.url, { role: "host", code, hostKey }));
    const projector = track(await connectClient(t.srv.url, { role: "projector", code }));
    const ana = track(await connectClient(t.srv.url, { role: "student", code, nickname: "AnaSecret" }));
    const anaTab = track(await connectClient(t.srv.url, { role: "student", code, token: ana.welcome!.token }));
    const bo = track(await connectClient(t.srv.url, { role: "student", code, nickname: "BoSecret" }));
    const pollId = await openPoll(host);
    const asked = (await ana.emit("question:ask", { text: "Why?", target: { kind: "step", stepIndex: 0 } })) as Ack<{ questionId: string }>;
    if (!asked.ok) throw new Error(asked.error.code);
    const questionId = asked.data.questionId;
    expect((await ana.emit("poll:vote", { pollId, optionId: "o1" })).ok).toBe(true);

    // Malformed pauses are refused and change nothing; a student or a projector cannot pause at all.
    for (const bad of [{ paused: "true" }, { paused: 1 }, { paused: null }, {}, "true", [true]])
      expect(codeOf(await host.emit("class:pause", bad as never))).toBe("BAD_REQUEST");
    expect(codeOf(await bo.emit("class:pause", { paused: true }))).toBe("NOT_HOST");
    expect(codeOf(await projector.emit("class:pause", { paused: true }))).toBe("NOT_HOST");
    expect(codeOf(await host.emit("class:pause", { paused: true, x: [[[[[[[[[1]]]]]]]]] } as never))).toBe("PAYLOAD_TOO_LARGE");
    expect(host.host().paused).toBe(false);

    // Extra keys are stripped: this pauses.
    expect((await host.emit("class:pause", { paused: true, lesson: "x".repeat(2000) } as never)).ok).toBe(true);
    for (const c of [projector, ana, anaTab, bo]) await c.waitFor((x) => x.public().paused);
    await host.waitFor((c) => c.host().paused);

    // Every student route, every tab, and every payload that parses gets CLASS_PAUSED with its readable message.
    const back = track(await connectClient(t.srv.url, { role: "student", code, token: ana.welcome!.token }));
    const late = track(await connectClient(t.srv.url, { role: "student", code, nickname: "Late" }));
    expect(back.public().paused && late.public().paused).toBe(true);
    const attempts: [TestClient, string, unknown][] = [
      [ana, "poll:vote", { pollId, optionId: "o2" }],
      [anaTab, "poll:vote", { pollId, optionId: "o3" }],
      [back, "poll:vote", { pollId, optionId: "o2", participantId: bo.welcome!.participantId }],
      [late, "poll:vote", { pollId, optionId: "o1" }],
      [bo, "poll:vote", { pollId: "no-such-poll", optionId: "o9" }],
      [bo, "question:ask", { text: "And then?", target: { kind: "step", stepIndex: 0 } }],
      [anaTab, "question:ask", { text: "Mine", target: { kind: "step", stepIndex: 0 }, anonymous: true }],
      [bo, "question:upvote", { questionId, upvoted: true }],
      [late, "question:upvote", { questionId, upvoted: false }],
    ];
    for (const [who, event, payload] of attempts) {
      const refused = await who.emit(event as "poll:vote", payload as never);
      expect(refused).toMatchObject({ ok: false, error: { code: "CLASS_PAUSED", message: expect.stringMatching(/paused the class/) } });
    }
    // Student commands from other roles are refused by role, not counted.
    expect(codeOf(await host.emit("poll:vote", { pollId, optionId: "o1" }))).toBe("NOT_STUDENT");
    expect(codeOf(await projector.emit("question:upvote", { questionId, upvoted: true }))).toBe("NOT_STUDENT");

    // A student removed and let back in during the pause comes back paused, vote gone, and cannot vote.
    expect((await host.emit("participant:remove", { participantId: bo.welcome!.participantId! })).ok).toBe(true);
    expect((await connectError(t.srv.url, { role: "student", code, token: bo.welcome!.token })).code).toBe("REMOVED");
    expect((await host.emit("participant:readmit", { participantId: bo.welcome!.participantId! })).ok).toBe(true);
    const boAgain = track(await connectClient(t.srv.url, { role: "student", code, token: bo.welcome!.token }));
    expect(boAgain.public().paused).toBe(true);
    expect(codeOf(await boAgain.emit("poll:vote", { pollId, optionId: "o2" }))).toBe("CLASS_PAUSED");

    // Every connection is still usable, and a resync still says paused.
    for (const c of [ana, anaTab, back, late, boAgain, projector]) {
      expect((await c.emit("session:sync", {})).ok).toBe(true);
      expect(c.public().paused).toBe(true);
    }
    // The vote cast before the pause still counts; nothing else does.
    expect((await host.emit("session:sync", {})).ok).toBe(true);
    expect(host.host().poll?.results.total).toBe(1);

    expect((await host.emit("class:pause", { paused: false })).ok).toBe(true);
    for (const c of [projector, ana, back, late, boAgain]) await c.waitFor((x) => !x.public().paused);
    expect((await boAgain.emit("poll:vote", { pollId, optionId: "o2" })).ok).toBe(true);
    expect((await late.emit("question:upvote", { questionId, upvoted: true })).ok).toBe(true);
    expect((await late.emit("question:ask", { text: "Now?", target: { kind: "step", stepIndex: 0 } })).ok).toBe(true);

    const log = await events(id, { "x-host-key": hostKey });
    expect(log.filter((e) => e.type === "class:paused").map((e) => e.paused)).toEqual([true, false]);
    expect(writtenWhilePaused(log)).toEqual([]);
    // The share link carries the pause too, and no nickname.
    const share = (await (
      await fetch(`${t.srv.url}/api/sessions/${id}/share`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-host-key": hostKey },
      })
    ).json()) as { replayKey: string };
    const shared = await events(id, { "x-replay-key": share.replayKey });
    expect(shared.filter((e) => e.type === "class:paused").map((e) => e.paused)).toEqual([true, false]);
    expect(JSON.stringify(shared)).not.toMatch(/AnaSecret|BoSecret/);
    expect(shared.some((e) => e.type === "poll:voted")).toBe(false);
  });

  it("students voting and upvoting from several tabs while the teacher toggles the pause never get a write into a paused window", async () => {
    const { id, code, hostKey } = await t.srv.createSession();
    const host = track(await connectClient(t.srv.url, { role: "host", code, hostKey }));
    const students: TestClient[] = [];
    for (let i = 0; i < 8; i++) students.push(track(await connectClient(t.srv.url, { role: "student", code, nickname: `S${i}` })));
    for (let i = 0; i < 3; i++)
      students.push(track(await connectClient(t.srv.url, { role: "student", code, token: students[i].welcome!.token })));
    const pollId = await openPoll(host, ["A", "B", "C", "D", "E", "F"]);
    const asked = (await students[0].emit("question:ask", { text: "Q", target: { kind: "step", stepIndex: 0 } })) as Ack<{
      questionId: string;
    }>;
    if (!asked.ok) throw new Error(asked.error.code);

    let stop = false;
    const okRevs: number[] = [];
    const codes = new Set<string>();
    const blast = async (c: TestClient, k: number) => {
      for (let n = 0; !stop && n < 200; n++) {
        const r =
          n % 5 === 0 && k % 8 !== 0
            ? await c.emit("question:upvote", { questionId: asked.data.questionId, upvoted: n % 2 === 0 })
            : await c.emit("poll:vote", { pollId, optionId: `o${1 + ((n + k) % 6)}` });
        codes.add(codeOf(r));
        const rev = r.ok ? (r.data as { rev?: number } | null)?.rev : undefined;
        if (rev !== undefined) okRevs.push(rev);
        await new Promise((res) => setTimeout(res, 40 + (k % 4) * 15));
      }
    };
    const blasting = students.map(blast);
    for (let i = 0; i < 16; i++) {
      expect((await host.emit("class:pause", { paused: i % 2 === 0 })).ok).toBe(true);
      await new Promise((res) => setTimeout(res, 60 + (i % 3) * 35));
    }
    stop = true;
    await Promise.all(blasting);

    expect([...codes].filter((c) => !["ok", "CLASS_PAUSED", "VOTE_LIMIT", "RATE_LIMITED", "QUESTION_LIMIT"].includes(c))).toEqual([]);
    expect(codes.has("CLASS_PAUSED") && codes.has("ok")).toBe(true);
    const log = await events(id, { "x-host-key": hostKey });
    const windows = pausedWindows(log);
    expect(windows.length).toBe(8);
    expect(log.filter((e) => e.type === "poll:voted").length).toBeGreaterThan(10);
    expect(writtenWhilePaused(log)).toEqual([]);
    expect(okRevs.filter((rev) => windows.some(([a, b]) => rev > a && rev < b))).toEqual([]);
    for (const s of students) expect(s.socket.connected).toBe(true);
  });
});

describe("an outsider at the door", () => {
  it("refuses in the documented order: locked, removed, ended, the projector cap, and other sessions' credentials", async () => {
    const { code, hostKey } = await t.srv.createSession();
    const other = await t.srv.createSession("Other class");
    const host = track(await connectClient(t.srv.url, { role: "host", code, hostKey }));
    const ada = track(await connectClient(t.srv.url, { role: "student", code, nickname: "Ada" }));
    const bob = track(await connectClient(t.srv.url, { role: "student", code, nickname: "Bob" }));
    const stranger = track(await connectClient(t.srv.url, { role: "student", code: other.code, nickname: "Eve" }));

    expect((await connectError(t.srv.url, { role: "host", code, hostKey: other.hostKey })).code).toBe("NOT_HOST");
    expect((await connectError(t.srv.url, { role: "host", code })).code).toBe("NOT_HOST");
    // Another session's token is an unknown token here: a new participant, never Eve.
    const eveHere = track(await connectClient(t.srv.url, { role: "student", code, token: stranger.welcome!.token }));
    expect(eveHere.welcome!.participantId).not.toBe(stranger.welcome!.participantId);
    expect(eveHere.welcome!.token).not.toBe(stranger.welcome!.token);

    expect((await host.emit("participant:remove", { participantId: bob.welcome!.participantId! })).ok).toBe(true);
    expect((await host.emit("room:lock", { locked: true })).ok).toBe(true);
    for (const auth of [{}, { token: "x".repeat(43) }, { token: stranger.welcome!.token }])
      expect((await connectError(t.srv.url, { role: "student", code, ...auth })).code).toBe("ROOM_LOCKED");
    // REMOVED is checked before ROOM_LOCKED.
    expect((await connectError(t.srv.url, { role: "student", code, token: bob.welcome!.token })).code).toBe("REMOVED");
    const adaBack = track(await connectClient(t.srv.url, { role: "student", code, token: ada.welcome!.token }));
    expect(adaBack.welcome!.participantId).toBe(ada.welcome!.participantId);
    for (const key of [undefined, "wrong", other.hostKey])
      expect((await connectError(t.srv.url, { role: "projector", code, hostKey: key })).code).toBe("ROOM_LOCKED");
    // A token does not stand in for the key on a projector.
    expect((await connectError(t.srv.url, { role: "projector", code, token: ada.welcome!.token })).code).toBe("ROOM_LOCKED");

    // Ten projector views with the key; the eleventh is ROOM_FULL (before ROOM_LOCKED), key or not.
    for (let i = 0; i < 10; i++) track(await connectClient(t.srv.url, { role: "projector", code, hostKey }));
    const full = await connectError(t.srv.url, { role: "projector", code, hostKey });
    expect(full).toMatchObject({ code: "ROOM_FULL", message: expect.stringMatching(/projector views/) });
    expect((await connectError(t.srv.url, { role: "projector", code })).code).toBe("ROOM_FULL");

    expect((await host.emit("session:end", {})).ok).toBe(true);
    for (const auth of [
      { role: "student" },
      { role: "student", token: ada.welcome!.token },
      { role: "host", hostKey },
      { role: "projector", hostKey },
    ])
      expect((await connectError(t.srv.url, { code, ...auth })).code).toBe("SESSION_ENDED");
  });

  it("over the failed-join allowance, no refusal tells a live code from a dead one, and credentials still get in", async () => {
    const live = await t.srv.createSession("Live");
    const locked = await t.srv.createSession("Locked");
    const host = track(await connectClient(t.srv.url, { role: "host", code: live.code, hostKey: live.hostKey }));
    const lockedHost = track(await connectClient(t.srv.url, { role: "host", code: locked.code, hostKey: locked.hostKey }));
    const ada = track(await connectClient(t.srv.url, { role: "student", code: live.code, nickname: "Ada" }));
    const kim = track(await connectClient(t.srv.url, { role: "student", code: locked.code, nickname: "Kim" }));
    expect((await lockedHost.emit("room:lock", { locked: true })).ok).toBe(true);

    const dead = (i: number) => `ZZ${"23456789"[i % 8]}${"ABCDEFGH"[(i >> 3) % 8]}ZZ`;
    const burn = (n: number) =>
      Promise.all(Array.from({ length: n }, (_, i) => connectError(t.srv.url, { role: "student", code: dead(i) })));
    expect((await burn(64)).filter((e) => e.code === "RATE_LIMITED").length).toBeGreaterThan(0);
    // The allowance refills one a second, and a join that succeeds spends nothing: each probe first spends whatever
    // has refilled, and is retried (after spending again) if a refill slipped in between.
    const probe = async (auth: Record<string, unknown>) => {
      let answer = { code: "", message: "" };
      for (let attempt = 0; attempt < 3 && answer.code !== "RATE_LIMITED"; attempt++) {
        await burn(3);
        answer = await connectError(t.srv.url, auth);
      }
      return answer;
    };
    for (const c of [live.code, locked.code, "ZZZZZZ"]) {
      const probes: Record<string, unknown>[] = [
        { role: "student" },
        { role: "student", token: "x".repeat(43) },
        { role: "projector" },
        { role: "projector", hostKey: "wrong" },
        { role: "host", hostKey: "wrong" },
      ];
      if (c !== locked.code) probes.push({ role: "student", token: kim.welcome!.token });
      for (const auth of probes)
        expect(await probe({ code: c, ...auth })).toEqual({
          code: "RATE_LIMITED",
          message: "Too many failed attempts to join from this network. Wait a minute.",
        });
      await burn(3);
      expect((await fetch(`${t.srv.url}/api/join-info?code=${c}`)).status).toBe(429);
    }
    // A class behind the same address is not locked out.
    track(await connectClient(t.srv.url, { role: "student", code: live.code, token: ada.welcome!.token }));
    track(await connectClient(t.srv.url, { role: "student", code: locked.code, token: kim.welcome!.token }));
    track(await connectClient(t.srv.url, { role: "projector", code: locked.code, hostKey: locked.hostKey }));
    track(await connectClient(t.srv.url, { role: "host", code: live.code, hostKey: live.hostKey }));
    expect(host.socket.connected).toBe(true);
  });

  it('while the address\'s abusive-connection allowance is used up ("over its allowance"), a host handshake with a wrong key does not tell a live code from a dead one', async () => {
    // docs/protocol.md, Rejections: the address is over its allowance "while its allowance of abusive connections is
    // used up"; then "projectors with a wrong key and students with an unknown token are refused as if the code were
    // unknown, so a valid code gives no signal". A `host` role with a wrong key still does give one.
    const { code } = await t.srv.createSession();
    const abuse = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const raw = await openRaw(t.srv.url);
        raw.send(Buffer.from([1, 2, 3]));
        await raw.closed;
      }
    };
    await abuse(12);
    // The address is over its allowance: nothing without a credential gets in, for a live code or a dead one.
    expect(await connectError(t.srv.url, { role: "student", code })).toMatchObject({ code: "RATE_LIMITED" });
    expect(await connectError(t.srv.url, { role: "projector", code })).toMatchObject({ code: "RATE_LIMITED" });
    // Wrong credentials on a projector or a student: the same answer for a live code and a dead one.
    const wrongProjector = [code, "ZZZZZZ"].map((c) => connectError(t.srv.url, { role: "projector", code: c, hostKey: "wrong" }));
    const wrongToken = [code, "ZZZZZZ"].map((c) => connectError(t.srv.url, { role: "student", code: c, token: "x".repeat(43) }));
    const [p1, p2, s1, s2] = await Promise.all([...wrongProjector, ...wrongToken]);
    expect(p1.code).toBe(p2.code);
    expect(s1.code).toBe(s2.code);
    // The same with the host role: a wrong key must not say whether the code is live.
    await abuse(2);
    const liveAnswer = await connectError(t.srv.url, { role: "host", code, hostKey: "wrong-key" });
    const deadAnswer = await connectError(t.srv.url, { role: "host", code: "ZZZZZZ", hostKey: "wrong-key" });
    expect(await connectError(t.srv.url, { role: "student", code })).toMatchObject({ code: "RATE_LIMITED" }); // still over it
    expect(liveAnswer.code).toBe(deadAnswer.code); // fails: NOT_HOST for the live code, NO_SUCH_SESSION for the dead one
  });
});

describe("an outsider against the command buckets", () => {
  it("the vote bucket is per participant across tabs and reconnects, refills at 4/s, and one student's bucket never limits another", async () => {
    const { code, hostKey } = await t.srv.createSession();
    const host = track(await connectClient(t.srv.url, { role: "host", code, hostKey }));
    const projector = track(await connectClient(t.srv.url, { role: "projector", code }));
    const a1 = track(await connectClient(t.srv.url, { role: "student", code, nickname: "A" }));
    const a2 = track(await connectClient(t.srv.url, { role: "student", code, token: a1.welcome!.token }));
    const b = track(await connectClient(t.srv.url, { role: "student", code, nickname: "B" }));
    const pollId = await openPoll(host, ["A", "B"]);

    // Repeating the same vote is ok and writes nothing, so only the bucket refuses: 10 across both tabs.
    const votes = await Promise.all(Array.from({ length: 14 }, (_, i) => (i % 2 ? a2 : a1).emit("poll:vote", { pollId, optionId: "o1" })));
    expect(counts(votes)).toEqual({ ok: 10, RATE_LIMITED: 4 });
    expect(counts(await Promise.all(Array.from({ length: 10 }, () => b.emit("poll:vote", { pollId, optionId: "o2" }))))).toEqual({
      ok: 10,
    });
    a1.close();
    a2.close();
    const a3 = track(await connectClient(t.srv.url, { role: "student", code, token: a1.welcome!.token }));
    expect(codeOf(await a3.emit("poll:vote", { pollId, optionId: "o1" }))).toBe("RATE_LIMITED");
    await new Promise((res) => setTimeout(res, 1000));
    const refilled = counts(await Promise.all(Array.from({ length: 8 }, () => a3.emit("poll:vote", { pollId, optionId: "o1" }))));
    expect(refilled.ok).toBeGreaterThanOrEqual(3);
    expect(refilled.ok).toBeLessThanOrEqual(6);

    // Refused while paused still spends the bucket (rate limit first), and a student command from a projector spends
    // the projector's own command bucket, not the students'.
    const d = track(await connectClient(t.srv.url, { role: "student", code, nickname: "D" }));
    expect((await host.emit("class:pause", { paused: true })).ok).toBe(true);
    const paused = counts(await Promise.all(Array.from({ length: 12 }, () => d.emit("poll:vote", { pollId, optionId: "o1" }))));
    expect(paused).toEqual({ CLASS_PAUSED: 10, RATE_LIMITED: 2 });
    const fromProjector = counts(
      await Promise.all(Array.from({ length: 35 }, () => projector.emit("poll:vote", { pollId, optionId: "o1" }))),
    );
    expect(fromProjector).toEqual({ NOT_STUDENT: 30, RATE_LIMITED: 5 });
    const c = track(await connectClient(t.srv.url, { role: "student", code, nickname: "C" }));
    expect(codeOf(await c.emit("poll:vote", { pollId, optionId: "o1" }))).toBe("CLASS_PAUSED");
  });

  it("questions (3) and upvotes (20) are per participant across tabs; the teacher's session bucket (90) spans every teacher socket", async () => {
    const { code, hostKey } = await t.srv.createSession();
    const hosts = [track(await connectClient(t.srv.url, { role: "host", code, hostKey }))];
    for (let i = 0; i < 3; i++) hosts.push(track(await connectClient(t.srv.url, { role: "host", code, hostKey })));
    const e1 = track(await connectClient(t.srv.url, { role: "student", code, nickname: "E" }));
    const e2 = track(await connectClient(t.srv.url, { role: "student", code, token: e1.welcome!.token }));
    const g1 = track(await connectClient(t.srv.url, { role: "student", code, nickname: "G" }));
    const g2 = track(await connectClient(t.srv.url, { role: "student", code, token: g1.welcome!.token }));
    const h = track(await connectClient(t.srv.url, { role: "student", code, nickname: "H" }));

    const target = { kind: "step", stepIndex: 0 } as const;
    const asks = await Promise.all(Array.from({ length: 5 }, (_, i) => (i % 2 ? e2 : e1).emit("question:ask", { text: `q${i}`, target })));
    expect(counts(asks)).toEqual({ ok: 3, RATE_LIMITED: 2 });
    const e3 = track(await connectClient(t.srv.url, { role: "student", code, token: e1.welcome!.token }));
    expect(codeOf(await e3.emit("question:ask", { text: "again", target }))).toBe("RATE_LIMITED");
    expect(codeOf(await h.emit("question:ask", { text: "mine", target }))).toBe("ok");

    const questionId = (asks.find((r) => r.ok) as { data: { questionId: string } }).data.questionId;
    const ups = await Promise.all(
      Array.from({ length: 24 }, (_, i) => (i % 2 ? g2 : g1).emit("question:upvote", { questionId, upvoted: true })),
    );
    expect(counts(ups)).toEqual({ ok: 20, RATE_LIMITED: 4 });
    expect(counts(await Promise.all(Array.from({ length: 5 }, () => h.emit("question:upvote", { questionId, upvoted: true }))))).toEqual({
      ok: 5,
    });

    // Five teacher sockets, 130 commands at once: each socket is under its own 30, but the session allows 90.
    const fresh = track(await connectClient(t.srv.url, { role: "host", code, hostKey }));
    const teacher = await Promise.all(
      [...hosts.flatMap((x) => Array.from({ length: 30 }, () => x)), ...Array.from({ length: 10 }, () => fresh)].map((x) =>
        x.emit("results:show", { visible: false }),
      ),
    );
    const answered = counts(teacher);
    expect(answered.ok).toBeGreaterThanOrEqual(90);
    expect(answered.ok).toBeLessThanOrEqual(96);
    // session:sync is not in the session's bucket.
    expect(codeOf(await fresh.emit("session:sync", {}))).toBe("ok");
  });
});
