import { describe, expect, it } from "vitest";
import { PROTOCOL_VERSION } from "../../lib/protocol";
import { connectClient, openRaw } from "./harness";
import { attackedServer, sleep, wrongCode } from "./outsider/attacker";

// Room codes cannot be guessed by script: one failed-join allowance per address, and over it one answer for every code.

const { t, track, raws, join, attempt, exhaustAllowance, spendTheRefill, api } = attackedServer();

// ---------------------------------------------------------------------------
// 2. Room codes cannot be guessed by script

describe("room codes cannot be guessed by script", () => {
  it("over the allowance, a live code, a projector, a made-up token and a wrong host key get exactly the refusal a wrong code gets", async () => {
    const live = await t.srv.createSession("Live");
    const ended = await t.srv.createSession("Ended");
    const endedHost = track(await connectClient(t.srv.url, { role: "host", code: ended.code, hostKey: ended.hostKey }));
    expect(await endedHost.emit("session:end", {})).toEqual({ ok: true, data: null });
    const host = track(await connectClient(t.srv.url, { role: "host", code: live.code, hostKey: live.hostKey }));
    const taken = [live.code, ended.code];

    // Within the allowance each failure says what went wrong (60 of them at once).
    const told = await exhaustAllowance(taken);
    expect(told.every((c) => c === "NO_SUCH_SESSION")).toBe(true);

    await spendTheRefill(taken);
    const probes: [string, Record<string, unknown>][] = [
      ["wrong code", { role: "student", code: wrongCode(taken) }],
      ["live code, new student", { role: "student", code: live.code }],
      ["live code, new student with a nickname", { role: "student", code: live.code.toLowerCase(), nickname: "Mallory" }],
      ["live code, made-up token", { role: "student", code: live.code, token: "A".repeat(43) }],
      ["wrong code, made-up token", { role: "student", code: wrongCode(taken), token: "A".repeat(43) }],
      ["live code, projector", { role: "projector", code: live.code }],
      ["live code, projector with a wrong key", { role: "projector", code: live.code, hostKey: "B".repeat(43) }],
      ["wrong code, projector", { role: "projector", code: wrongCode(taken) }],
      ["live code, wrong host key", { role: "host", code: live.code, hostKey: "C".repeat(43) }],
      ["wrong code, wrong host key", { role: "host", code: wrongCode(taken), hostKey: "C".repeat(43) }],
      ["ended code, new student", { role: "student", code: ended.code }],
      ["ended code, projector", { role: "projector", code: ended.code }],
    ];
    // All at once, within the second that has no refill.
    const answers = await Promise.all(probes.map(([, auth]) => join(auth)));
    const reference = answers[0].reply;
    expect(answers[0].code).toBe("RATE_LIMITED");
    probes.forEach(([what], i) => {
      // The whole frame, byte for byte: no code, message or field tells a live code apart.
      expect(answers[i].reply, what).toBe(reference);
    });
    // And each attempt's connection is closed by the server, the same way.
    await Promise.all(answers.map((a) => a.raw.closed));
    // Nobody joined: the teacher's list is as it was. (Every attempt has its answer, given before any lookup: none is
    // still being looked up.)
    expect(await host.emit("session:sync", {})).toEqual({ ok: true, data: null });
    expect(host.students()).toEqual([]);
  });

  it("over the allowance, a script walking codes with a made-up token or a made-up key gets one answer for every code, live or not", async () => {
    const live = await t.srv.createSession("Live");
    await exhaustAllowance([live.code]);
    const start = Date.now();
    for (const [what, extra] of [
      ["student with a made-up token", { role: "student", token: "T".repeat(43) }],
      ["projector with a made-up key", { role: "projector", hostKey: "K".repeat(43) }],
    ] as const) {
      // 60 codes, the live one among them: any answer that differs marks it.
      const codes = Array.from({ length: 60 }, (_, i) => (i === 37 ? live.code : wrongCode([live.code])));
      const answers = new Map<string, string[]>();
      for (const code of codes) {
        // (Right before the live code, the second's refill is spent, so its answer is not a race with the refill.)
        if (code === live.code) await spendTheRefill([live.code]);
        const reply = (await attempt({ ...extra, code })).reply;
        answers.set(reply, [...(answers.get(reply) ?? []), code === live.code ? "the live code" : "a dead code"]);
      }
      // At one refill a second, at most a couple of these may be told what went wrong; the live code must not stand out.
      const liveReply = [...answers].find(([, who]) => who.includes("the live code"))![0];
      expect(answers.get(liveReply)!.length, `${what}: the live code's answer (${liveReply}) is given to no dead code`).toBeGreaterThan(1);
      expect(JSON.parse(liveReply.slice(2))).toMatchObject({ data: { code: "RATE_LIMITED" } });
    }
    expect(Date.now() - start).toBeLessThan(60_000);
  });

  it("over the allowance, a student who joined before and the teacher still get in from the guesser's address", async () => {
    const s = await t.srv.createSession();
    const earlier = await join({ role: "student", code: s.code, nickname: "Ada" });
    const token = earlier.welcome!.token!;
    earlier.raw.close();
    await exhaustAllowance([s.code]);
    await spendTheRefill([s.code]);

    const back = await join({ role: "student", code: s.code, token });
    expect(back.ok).toBe(true);
    expect(back.welcome!.participantId).toBe(earlier.welcome!.participantId);
    const host = await join({ role: "host", code: s.code, hostKey: s.hostKey });
    expect(host.ok).toBe(true);
    // The teacher's own projector window holds the key.
    expect((await join({ role: "projector", code: s.code, hostKey: s.hostKey })).ok).toBe(true);
    // They spent nothing and opened nothing: a new student with the same code is still refused.
    expect((await attempt({ role: "student", code: s.code })).code).toBe("RATE_LIMITED");
    expect(await back.raw.emit("session:sync", {})).toEqual({ ok: true, data: null });
  });

  it("/api/join-info and the socket handshake spend one allowance: about 60 guesses in all, not 120", async () => {
    const s = await t.srv.createSession();
    const start = Date.now();
    let told = 0;
    const answers: string[] = [];
    for (let i = 0; i < 60; i++) {
      const socket = (await attempt({ role: "student", code: wrongCode([s.code]) })).code!;
      const lookup = await api(`/api/join-info?code=${wrongCode([s.code])}`);
      answers.push(socket, String(lookup.status));
      if (socket === "NO_SUCH_SESSION") told += 1;
      else expect(socket).toBe("RATE_LIMITED");
      if (lookup.status === 404) told += 1;
      else expect(lookup.status).toBe(429);
    }
    const refills = Math.ceil((Date.now() - start) / 1000);
    // 60 at once, plus one a second.
    expect(told).toBeGreaterThanOrEqual(60);
    expect(told).toBeLessThanOrEqual(60 + refills + 1);
    // Over the allowance a live code looks up like a dead one.
    const [liveLookup, deadLookup] = [await api(`/api/join-info?code=${s.code}`), await api(`/api/join-info?code=${wrongCode([s.code])}`)];
    expect(liveLookup.status).toBe(429);
    expect(deadLookup.status).toBe(429);
    expect(liveLookup.body).toBe(deadLookup.body);
  });

  it("many WebSockets at once share the address's allowance: ten parallel guessers do not get ten times the guesses", async () => {
    const s = await t.srv.createSession();
    const start = Date.now();
    const perWorker = 15;
    const results = await Promise.all(
      Array.from({ length: 10 }, async () => {
        const codes: (string | null)[] = [];
        for (let i = 0; i < perWorker; i++) codes.push((await attempt({ role: "student", code: wrongCode([s.code]) })).code);
        return codes;
      }),
    );
    // And a hundred CONNECTs on a hundred WebSockets that are all open before any of them asks.
    const opened = await Promise.all(Array.from({ length: 100 }, () => openRaw(t.srv.url)));
    raws.push(...opened);
    for (const r of opened) r.send(`40${JSON.stringify({ v: PROTOCOL_VERSION, role: "student", code: wrongCode([s.code]) })}`);
    const burst = await Promise.all(opened.map((r) => r.waitForFrame((f) => f.startsWith("44") || f.startsWith("40"))));
    const refills = Math.ceil((Date.now() - start) / 1000);
    const all = [...results.flat(), ...burst.map((f) => (JSON.parse(f.slice(2)) as { data?: { code: string } }).data?.code ?? f)];
    expect(all).toHaveLength(250);
    const told = all.filter((c) => c === "NO_SUCH_SESSION").length;
    expect(all.filter((c) => c !== "NO_SUCH_SESSION" && c !== "RATE_LIMITED")).toEqual([]);
    expect(told).toBeGreaterThanOrEqual(60);
    expect(told).toBeLessThanOrEqual(60 + refills + 1);
  });

  it("a made-up X-Forwarded-For does not give a guesser new addresses (no TRUST_PROXY)", async () => {
    const s = await t.srv.createSession();
    const start = Date.now();
    let told = 0;
    for (let i = 0; i < 80; i++) {
      const forwarded = { "X-Forwarded-For": `10.${i}.0.1`, "X-Real-IP": `10.${i}.0.1` };
      const code = (await attempt({ role: "student", code: wrongCode([s.code]) }, { headers: forwarded })).code;
      if (code === "NO_SUCH_SESSION") told += 1;
      const lookup = await api(`/api/join-info?code=${wrongCode([s.code])}`, forwarded);
      if (lookup.status === 404) told += 1;
    }
    expect(told).toBeLessThanOrEqual(60 + Math.ceil((Date.now() - start) / 1000) + 1);
  });

  it("one CONNECT per WebSocket: a second CONNECT closes the connection unanswered, even right behind a refused one", async () => {
    const s = await t.srv.createSession();
    const other = await t.srv.createSession("Another class");
    const host = track(await connectClient(t.srv.url, { role: "host", code: other.code, hostKey: other.hostKey }));

    // Joined, then a second CONNECT (another class, as a projector) on the same WebSocket.
    const joined = await join({ role: "student", code: s.code });
    expect(joined.ok).toBe(true);
    const mark = joined.raw.frames.length;
    joined.raw.send(`40${JSON.stringify({ v: PROTOCOL_VERSION, role: "projector", code: other.code })}`);
    joined.raw.send(`40${JSON.stringify({ v: PROTOCOL_VERSION, role: "student", code: other.code, nickname: "Sneaky" })}`);
    await joined.raw.closed;
    expect(joined.raw.frames.slice(mark).filter((f) => f.startsWith("40") || f.startsWith("44"))).toEqual([]);

    // A wrong guess and a right one pipelined on one WebSocket: one answer (the refusal), then the close.
    const raw = await openRaw(t.srv.url);
    raws.push(raw);
    raw.send(`40${JSON.stringify({ v: PROTOCOL_VERSION, role: "student", code: wrongCode([s.code, other.code]) })}`);
    raw.send(`40${JSON.stringify({ v: PROTOCOL_VERSION, role: "student", code: other.code, nickname: "Sneaky" })}`);
    await raw.closed;
    expect(raw.frames.filter((f) => f.startsWith("40"))).toEqual([]);
    expect(raw.frames.filter((f) => f.startsWith("42"))).toEqual([]);

    // Neither made a participant in the other class. A student who joins it now is let in after any join still
    // being looked up (a class's joins are answered in the order they arrive): once she is listed, she is the only one.
    track(await connectClient(t.srv.url, { role: "student", code: other.code, nickname: "Afterwards" }));
    await host.waitFor((c) => c.students().length > 0);
    expect(await host.emit("session:sync", {})).toEqual({ ok: true, data: null });
    expect(host.students().map((st) => st.nickname)).toEqual(["Afterwards"]);
  });

  it("after a refused CONNECT the server closes the WebSocket", async () => {
    const s = await t.srv.createSession();
    const refusals: Record<string, unknown>[] = [
      { role: "student", code: wrongCode([s.code]) },
      { role: "host", code: s.code, hostKey: "wrong" },
      { role: "student", code: s.code, v: 999 },
      { role: "teacher", code: s.code },
    ];
    for (const auth of refusals) {
      const refused = await join(auth);
      expect(refused.ok).toBe(false);
      // Well before socket.io's own 10 s connect timeout would drop an idle WebSocket.
      const closedInTime = await Promise.race([refused.raw.closed.then(() => true), sleep(3_000).then(() => false)]);
      expect(closedInTime, JSON.stringify(auth)).toBe(true);
    }
  });
});
