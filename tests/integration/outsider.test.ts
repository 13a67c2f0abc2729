import path from "node:path";
import net from "node:net";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import type { Ack } from "../../lib/protocol";
import type { SessionEvent } from "../../lib/session";
import {
  connectClient,
  httpRequest,
  openRaw,
  rawJoin,
  serverPerTest,
  waitUntil,
  type RawJoin,
  type RawOptions,
  type RawSocket,
  type TestClient,
} from "./harness";

/**
 * The promises of docs/security.md, attacked the way a student with a laptop
 * and a script would: only the running server's published doors (the REST
 * API, the socket protocol spoken by hand, raw HTTP with any headers), never
 * its internals. Every test asserts what the attacker can observe, and that
 * the class next to them is unaffected. (issue 10)
 *
 * The frame budget, connection caps and the noisy neighbour are in
 * outsiderNet.test.ts.
 */

const ADMIN = "outsider-admin-token-0123456789";
const t = serverPerTest({ adminToken: ADMIN });
const track = t.track;

/** Raw sockets opened by a test, closed after it (before the server closes: hooks unwind in reverse). */
const raws: RawSocket[] = [];
const cleanUpAfterEach = () =>
  afterEach(() => {
    for (const r of raws.splice(0)) r.close();
  });
cleanUpAfterEach();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function join(auth: Record<string, unknown>, options: RawOptions = {}, url = t.srv.url): Promise<RawJoin> {
  const joined = await rawJoin(url, auth, options);
  raws.push(joined.raw);
  return joined;
}

/** One CONNECT on a fresh WebSocket; returns its refusal frame (or the join) and drops the connection. */
async function attempt(auth: Record<string, unknown>, options: RawOptions = {}, url = t.srv.url): Promise<RawJoin> {
  const joined = await rawJoin(url, auth, options);
  joined.raw.close();
  return joined;
}

const ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";
/** A well-formed room code that is not one of `taken`. */
function wrongCode(taken: string[] = []): string {
  for (;;) {
    const code = Array.from({ length: 6 }, () => ALPHABET[Math.floor(Math.random() * ALPHABET.length)]).join("");
    if (!taken.includes(code)) return code;
  }
}

/** Spends the address's whole failed-join allowance (60 at once) on wrong codes; returns what each guess was told. */
async function exhaustAllowance(taken: string[], url = t.srv.url, options: RawOptions = {}): Promise<(string | null)[]> {
  const codes: (string | null)[] = [];
  for (let i = 0; i < 60; i++) codes.push((await attempt({ role: "student", code: wrongCode(taken) }, options, url)).code);
  return codes;
}

/**
 * Over the allowance a token comes back every second. Waits for it and spends
 * it on one more wrong guess, so that for the next second the address has
 * none: what follows is then deterministic, not a race with the refill.
 */
async function spendTheRefill(taken: string[], url = t.srv.url): Promise<void> {
  const start = Date.now();
  for (;;) {
    const code = (await attempt({ role: "student", code: wrongCode(taken) }, {}, url)).code;
    if (code === "NO_SUCH_SESSION") return;
    expect(code).toBe("RATE_LIMITED");
    if (Date.now() - start > 5_000) throw new Error("the allowance never refilled");
    await sleep(25);
  }
}

const api = (p: string, headers: Record<string, string> = {}) => httpRequest(t.srv.url, p, { headers });
const errorCode = (body: string) => (JSON.parse(body) as { error?: { code?: string } }).error?.code;

// ---------------------------------------------------------------------------
// 1. The answer stays secret until the teacher reveals it

/** A live class with an open next-step poll (it has notes and a right answer), a vote for the right one and a wrong one. */
async function classWithOpenPoll() {
  const s = await t.srv.createSession("Secrets");
  const host = track(await connectClient(t.srv.url, { role: "host", code: s.code, hostKey: s.hostKey }));
  // The curious student and a projector speak the protocol by hand: every frame they get is recorded.
  const eve = await join({ role: "student", code: s.code, nickname: "Eve" });
  const projector = await join({ role: "projector", code: s.code });
  const bob = track(await connectClient(t.srv.url, { role: "student", code: s.code, nickname: "Bob" }));
  expect(eve.ok && projector.ok).toBe(true);

  const opened = (await host.emit("poll:open", { kind: "next-step" })) as Ack<{ pollId: string }>;
  if (!opened.ok) throw new Error(`poll:open refused: ${opened.error.code}`);
  const pollId = opened.data.pollId;
  await host.waitFor((c) => c.host().poll?.id === pollId);
  const hostPoll = host.host().poll!;
  const correct = hostPoll.correctOptionId!;
  const wrong = hostPoll.options.find((o) => o.id !== correct)!.id;
  const notes = hostPoll.options.map((o) => o.note).filter((n): n is string => !!n);
  // What there is to leak: a right answer and the notes (the teacher's snapshot has them).
  expect(correct).toMatch(/^o\d$/);
  expect(notes.length).toBeGreaterThan(1);

  await eve.raw.waitForFrame((f) => f.startsWith('42["session:snapshot"') && f.includes(pollId));
  expect(await eve.raw.emit("poll:vote", { pollId, optionId: correct })).toMatchObject({ ok: true });
  await bob.waitFor((c) => c.latest().poll?.id === pollId);
  expect(await bob.emit("poll:vote", { pollId, optionId: wrong })).toMatchObject({ ok: true });
  await host.waitFor((c) => c.tallies.some((x) => x.pollId === pollId && x.total === 2));
  return { s, host, eve, projector, bob, pollId, correct, wrong, notes, hostPoll };
}

/** Neither an answer, nor a note, nor a vote in this text (a log, an export). */
function expectNoAnswer(text: string, notes: string[]) {
  for (const note of notes) expect(text).not.toContain(note);
  expect(text).not.toMatch(/"correctOptionId":\s*"/);
  expect(text).not.toContain("poll:voted");
}

describe("the answer stays secret until the teacher reveals it", () => {
  it("the session id every student and projector gets in session:welcome reads nothing over REST", async () => {
    const { s, eve, projector } = await classWithOpenPoll();
    const ids = [eve.welcome!.sessionId, projector.welcome!.sessionId];
    expect(ids).toEqual([s.id, s.id]);
    const id = ids[0];
    const paths = [
      `/api/sessions/${id}`,
      `/api/sessions/${id}/events`,
      `/api/sessions/${id}/export?format=json`,
      `/api/sessions/${id}/export?format=csv`,
      `/api/sessions/${id}/export?format=csv&sheet=polls`,
      `/api/sessions/${id}/export?format=csv&sheet=students`,
    ];
    // Bare, and with the id (or a made-up key) in every credential header a script might try.
    const attempts: Record<string, string>[] = [
      {},
      { "X-Replay-Key": id },
      { "X-Host-Key": id },
      { "X-Host-Keys": `${id},${eve.welcome!.token}` },
      { Authorization: `Bearer ${id}` },
      { "X-Replay-Key": "" },
    ];
    for (const p of paths) {
      for (const headers of attempts) {
        const res = await api(p, headers);
        expect(res.status, `${p} ${JSON.stringify(headers)}`).toBe(403);
        expect(errorCode(res.body)).toBe("NO_ACCESS");
      }
    }
    // Only the teacher can make a share link; a student's id, token or the id as a key cannot.
    for (const headers of [{}, { "X-Host-Key": id }, { "X-Host-Key": eve.welcome!.token! }] as Record<string, string>[]) {
      const res = await httpRequest(t.srv.url, `/api/sessions/${id}/share`, {
        method: "POST",
        headers: { "Content-Type": "application/json", ...headers },
      });
      expect(res.status).toBe(403);
      expect(res.body).not.toMatch(/replayKey/);
    }
    // Listing "my sessions" with the id or the student token as a host key lists nothing.
    const listed = await api("/api/sessions", { "X-Host-Keys": `${id},${eve.welcome!.token}` });
    expect(JSON.parse(listed.body)).toEqual({ scope: "host", sessions: [], retention: expect.any(Object) });
  });

  it("a shared replay link shows an unrevealed poll without answer, notes or counts, and all of it after the reveal", async () => {
    const { s, host, pollId, correct, wrong, notes, hostPoll } = await classWithOpenPoll();
    const shared = await httpRequest(t.srv.url, `/api/sessions/${s.id}/share`, {
      method: "POST",
      headers: { "X-Host-Key": s.hostKey, "Content-Type": "application/json" },
    });
    expect(shared.status).toBe(200);
    const { replayKey, replayPath } = JSON.parse(shared.body) as { replayKey: string; replayPath: string };
    expect(replayPath).toBe(`/replay/${s.id}#share=${replayKey}`);
    const viewer = { "X-Replay-Key": replayKey };

    const read = async () => {
      const events = await api(`/api/sessions/${s.id}/events`, viewer);
      const json = await api(`/api/sessions/${s.id}/export?format=json`, viewer);
      const csv = await api(`/api/sessions/${s.id}/export?format=csv`, viewer);
      expect([events.status, json.status, csv.status]).toEqual([200, 200, 200]);
      const log = JSON.parse(events.body) as { access: string; events: SessionEvent[] };
      expect(log.access).toBe("viewer");
      const exported = JSON.parse(json.body) as { events: SessionEvent[] };
      return { log, events: log.events, exported, texts: [events.body, json.body], csv: csv.body };
    };
    const openedIn = (events: SessionEvent[]) =>
      events.find((e): e is Extract<SessionEvent, { type: "poll:opened" }> => e.type === "poll:opened" && e.poll.id === pollId)!;
    const closedIn = (events: SessionEvent[]) =>
      events.find((e): e is Extract<SessionEvent, { type: "poll:closed" }> => e.type === "poll:closed" && e.pollId === pollId);
    const csvRows = (csv: string) => csv.split("\r\n").filter(Boolean).slice(1);

    // While the poll is open.
    let seen = await read();
    for (const events of [seen.events, seen.exported.events]) {
      const opened = openedIn(events);
      expect(opened.poll.correctOptionId).toBeNull();
      expect(opened.poll.options.map((o) => o.id).sort()).toEqual(hostPoll.options.map((o) => o.id).sort());
      expect(opened.poll.options.every((o) => o.note === undefined)).toBe(true);
      expect(closedIn(events)).toBeUndefined();
    }
    for (const text of seen.texts) expectNoAnswer(text, notes);
    expectNoAnswer(seen.csv, notes);
    expect(csvRows(seen.csv)).toEqual([]);

    // Closed, not yet revealed: still nothing, and the sheet says why.
    expect(await host.emit("poll:close", { pollId })).toEqual({ ok: true, data: null });
    seen = await read();
    for (const events of [seen.events, seen.exported.events]) {
      expect(openedIn(events).poll.correctOptionId).toBeNull();
      expect(closedIn(events)).toMatchObject({ counts: {}, total: 0, withheld: true });
    }
    for (const text of seen.texts) expectNoAnswer(text, notes);
    expectNoAnswer(seen.csv, notes);
    const closedRows = csvRows(seen.csv);
    expect(closedRows).toHaveLength(hostPoll.options.length);
    for (const row of closedRows) expect(row).toMatch(/,not revealed,not revealed,not revealed$/);

    // Revealed: the same link now shows the answer, the notes and the counts.
    expect(await host.emit("poll:reveal", { pollId })).toEqual({ ok: true, data: null });
    seen = await read();
    for (const events of [seen.events, seen.exported.events]) {
      const opened = openedIn(events);
      expect(opened.poll.correctOptionId).toBe(correct);
      expect(
        opened.poll.options
          .map((o) => o.note)
          .filter(Boolean)
          .sort(),
      ).toEqual([...notes].sort());
      expect(closedIn(events)).toMatchObject({ counts: { [correct]: 1, [wrong]: 1 }, total: 2 });
      expect(closedIn(events)!.withheld).toBeUndefined();
      // Still aggregates only: no individual vote.
      expect(events.some((e) => e.type === "poll:voted")).toBe(false);
    }
    const revealedRows = csvRows(seen.csv);
    expect(revealedRows.filter((r) => r.endsWith(",1,50,yes"))).toHaveLength(1);
    expect(revealedRows.filter((r) => r.endsWith(",1,50,no"))).toHaveLength(1);
    expect(revealedRows.every((r) => /,\d+,\d+,(yes|no)$/.test(r))).toBe(true);
    // The bare id still reads nothing, revealed or not.
    expect((await api(`/api/sessions/${s.id}/events`)).status).toBe(403);
  });

  it("nothing a student or a projector receives on its socket tells the answer, the notes or any count before the reveal", async () => {
    const { host, eve, projector, bob, pollId, correct, wrong, notes } = await classWithOpenPoll();
    // More traffic while the poll is open: a changed vote, a resync, the teacher's panel and a step.
    expect(await eve.raw.emit("poll:vote", { pollId, optionId: wrong })).toMatchObject({ ok: true });
    expect(await eve.raw.emit("poll:vote", { pollId, optionId: correct })).toMatchObject({ ok: true });
    expect(await eve.raw.emit("session:sync", {})).toEqual({ ok: true, data: null });
    expect(await projector.raw.emit("session:sync", {})).toEqual({ ok: true, data: null });
    expect(await host.emit("projector:show", { panel: "objects" })).toEqual({ ok: true, data: null });
    expect(await host.emit("poll:close", { pollId })).toEqual({ ok: true, data: null });
    for (const r of [eve.raw, projector.raw])
      await r.waitForFrame((f) => f.startsWith('42["session:snapshot"') && f.includes('"status":"closed"'));
    // The teacher's own tallies kept coming meanwhile (there were counts to leak).
    expect(host.tallies.filter((x) => x.pollId === pollId).length).toBeGreaterThan(0);
    expect(await eve.raw.emit("session:sync", {})).toEqual({ ok: true, data: null });

    const before = { eve: eve.raw.frames.length, projector: projector.raw.frames.length };
    for (const [who, r] of [
      ["student", eve.raw],
      ["projector", projector.raw],
    ] as const) {
      const frames = r.frames.slice(0, before[who === "student" ? "eve" : "projector"]);
      expect(frames.some((f) => f.startsWith('42["session:welcome"'))).toBe(true);
      for (const frame of frames) {
        for (const note of notes) expect(frame, `${who} got a note`).not.toContain(note);
      }
      for (const { event, payload } of r.events().filter((e) => e.index < frames.length)) {
        expect(event, `${who} got ${event}`).not.toBe("poll:tally");
        walk(payload, (key, value) => {
          if (key === "correctOptionId") expect(value, `${who}: ${event}.${key}`).toBeNull();
          if (key === "results") expect(value, `${who}: ${event}.${key}`).toBeNull();
          if (key === "history") expect(value, `${who}: ${event}.${key}`).toEqual([]);
          expect(["counts", "votes", "note", "total"], `${who}: ${event} has ${key}`).not.toContain(key);
        });
      }
    }
    // Bob (a normal client) saw the same public view.
    expect(bob.snapshots.every((snap) => snap.poll === null || (snap.poll.correctOptionId === null && snap.poll.results === null))).toBe(
      true,
    );

    // After the reveal the same recording does carry the answer: the scan above would have seen a leak.
    expect(await host.emit("poll:reveal", { pollId })).toEqual({ ok: true, data: null });
    for (const r of [eve.raw, projector.raw]) {
      const revealed = await r.waitForFrame((f) => f.startsWith('42["session:snapshot"') && f.includes('"status":"revealed"'));
      expect(revealed).toContain(`"correctOptionId":"${correct}"`);
      expect(notes.some((n) => revealed.includes(JSON.stringify(n).slice(1, -1)))).toBe(true);
    }
  });
});

/** Calls `visit` with every key and value in a JSON value, at any depth. */
function walk(value: unknown, visit: (key: string, value: unknown) => void): void {
  if (Array.isArray(value)) for (const v of value) walk(v, visit);
  else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      visit(k, v);
      walk(v, visit);
    }
  }
}

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
    // Nobody joined: the teacher's list is as it was.
    await sleep(600);
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
    for (const r of opened) r.send(`40${JSON.stringify({ v: 1, role: "student", code: wrongCode([s.code]) })}`);
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
    joined.raw.send(`40${JSON.stringify({ v: 1, role: "projector", code: other.code })}`);
    joined.raw.send(`40${JSON.stringify({ v: 1, role: "student", code: other.code, nickname: "Sneaky" })}`);
    await joined.raw.closed;
    expect(joined.raw.frames.slice(mark).filter((f) => f.startsWith("40") || f.startsWith("44"))).toEqual([]);

    // A wrong guess and a right one pipelined on one WebSocket: one answer (the refusal), then the close.
    const raw = await openRaw(t.srv.url);
    raws.push(raw);
    raw.send(`40${JSON.stringify({ v: 1, role: "student", code: wrongCode([s.code, other.code]) })}`);
    raw.send(`40${JSON.stringify({ v: 1, role: "student", code: other.code, nickname: "Sneaky" })}`);
    await raw.closed;
    expect(raw.frames.filter((f) => f.startsWith("40"))).toEqual([]);
    expect(raw.frames.filter((f) => f.startsWith("42"))).toEqual([]);

    // Neither made a participant in the other class.
    await sleep(600);
    expect(await host.emit("session:sync", {})).toEqual({ ok: true, data: null });
    expect(host.students()).toEqual([]);
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

// ---------------------------------------------------------------------------
// 5. Cross-site requests and DNS rebinding

describe("other websites cannot act through a visitor's browser", () => {
  const post = (headers: Record<string, string>, body = JSON.stringify({ title: "Planted" })) =>
    httpRequest(t.srv.url, "/api/sessions", { method: "POST", headers, body });
  const sessionCount = async () =>
    (JSON.parse((await api("/api/sessions", { Authorization: `Bearer ${ADMIN}` })).body) as { sessions: unknown[] }).sessions.length;

  it("POST /api/sessions needs exactly application/json and a same-origin Origin", async () => {
    const origin = t.srv.url;
    const refused: [Record<string, string>, number, string][] = [
      // What a cross-site <form> or fetch(no-cors) can send without a preflight.
      [{ "Content-Type": "text/plain; charset=utf-8; application/json" }, 415, "BAD_REQUEST"],
      [{ "Content-Type": "text/plain" }, 415, "BAD_REQUEST"],
      [{ "Content-Type": "application/x-www-form-urlencoded" }, 415, "BAD_REQUEST"],
      [{ "Content-Type": "multipart/form-data; boundary=x" }, 415, "BAD_REQUEST"],
      [{ "Content-Type": "application/json, text/plain" }, 415, "BAD_REQUEST"],
      // JSON, but from another site.
      [{ "Content-Type": "application/json", Origin: "https://evil.example" }, 403, "CROSS_ORIGIN"],
      [{ "Content-Type": "application/json", Origin: "null" }, 403, "CROSS_ORIGIN"],
      [{ "Content-Type": "text/plain", Origin: "https://evil.example" }, 403, "CROSS_ORIGIN"],
      [{ "Content-Type": "application/json", "Sec-Fetch-Site": "cross-site" }, 403, "CROSS_ORIGIN"],
      // Our host, another scheme: not our page.
      [{ "Content-Type": "application/json", Origin: origin.replace("http:", "https:") }, 403, "CROSS_ORIGIN"],
    ];
    for (const [headers, status, code] of refused) {
      const res = await post(headers);
      expect(res.status, JSON.stringify(headers)).toBe(status);
      expect(errorCode(res.body)).toBe(code);
    }
    expect(await sessionCount()).toBe(0);

    // Our own page: accepted, with or without a charset.
    expect((await post({ "Content-Type": "application/json", Origin: origin })).status).toBe(201);
    expect(
      (await post({ "Content-Type": "application/json; charset=utf-8", Origin: origin, "Sec-Fetch-Site": "same-origin" })).status,
    ).toBe(201);
    expect(await sessionCount()).toBe(2);
  });

  it("the teacher's share link cannot be made or revoked from another site", async () => {
    const s = await t.srv.createSession();
    for (const method of ["POST", "DELETE"]) {
      const res = await httpRequest(t.srv.url, `/api/sessions/${s.id}/share`, {
        method,
        headers: { "X-Host-Key": s.hostKey, "Content-Type": "application/json", Origin: "https://evil.example" },
      });
      expect(res.status, method).toBe(403);
      expect(errorCode(res.body)).toBe("CROSS_ORIGIN");
    }
  });

  it("a WebSocket from another origin, or from our host over another scheme, is refused; our own page's is accepted", async () => {
    const s = await t.srv.createSession();
    const { port } = new URL(t.srv.url);
    const foreign: Record<string, string>[] = [
      { Origin: `https://127.0.0.1:${port}` },
      { Origin: "http://evil.example" },
      { Origin: `http://127.0.0.1:${port}.evil.example` },
      { Origin: "null" },
      { Origin: `http://127.0.0.1:${port}`, "Sec-Fetch-Site": "cross-site" },
    ];
    for (const headers of foreign) {
      const refused = await openRaw(t.srv.url, { headers }).then(
        (r) => (raws.push(r), 0),
        (err: { status: number }) => err.status,
      );
      expect(refused, JSON.stringify(headers)).toBeGreaterThanOrEqual(400);
    }
    const ours = await join({ role: "student", code: s.code }, { headers: { Origin: `http://127.0.0.1:${port}` } });
    expect(ours.ok).toBe(true);
  });

  it("X-Forwarded-Proto is ignored without TRUST_PROXY", async () => {
    const s = await t.srv.createSession();
    const info = await api(`/api/join-info?code=${s.code}`, { Host: "teacher.example:8080", "X-Forwarded-Proto": "https" });
    expect(info.status).toBe(200);
    expect((JSON.parse(info.body) as { joinUrl: string }).joinUrl).toBe(`http://teacher.example:8080/join/${s.code}`);
    // Nor does it make an https Origin look like ours.
    const res = await post({
      "Content-Type": "application/json",
      Origin: t.srv.url.replace("http:", "https:"),
      "X-Forwarded-Proto": "https",
    });
    expect(res.status).toBe(403);
  });

  it("a hostile Host header never makes the server fail", async () => {
    const s = await t.srv.createSession();
    const hostile = [
      "a b",
      "[zz",
      "[zz]:80",
      "evil.example:99999",
      "",
      "x".repeat(300),
      "a..b",
      "127.0.0.1:80:80",
      "@evil",
      "evil.example/path",
      "evil.example?x",
    ];
    for (const host of hostile) {
      for (const p of [`/api/join-info?code=${s.code}`, "/api/health", "/join/ABCDEF", "/socket.io/?EIO=4&transport=polling"]) {
        const res = await api(p, { Host: host });
        expect(res.status, `${p} Host: ${JSON.stringify(host)}`).toBeLessThan(500);
        expect(res.status).toBeGreaterThanOrEqual(200);
      }
    }
    // HTTP/1.0 with no Host at all.
    const noHost = await rawHttp(t.srv.url, `GET /api/join-info?code=${s.code} HTTP/1.0\r\n\r\n`);
    expect(noHost).toMatch(/^HTTP\/1\.[01] [1-4]\d\d /);
  });
});

describe("with PUBLIC_URL set, only its host and the server's own addresses are answered (DNS rebinding)", () => {
  const pub = serverPerTest({ publicUrl: "http://class.example.edu" });
  cleanUpAfterEach();

  it("answers 421 to another Host on pages, the API and /socket.io/, and serves its own", async () => {
    const s = await pub.srv.createSession();
    const { port } = new URL(pub.srv.url);
    const evil = { Host: "evil.example", Origin: "http://evil.example" };
    for (const p of [
      "/",
      "/join/" + s.code,
      "/api/health",
      `/api/join-info?code=${s.code}`,
      "/socket.io/?EIO=4&transport=websocket",
      "/socket.io/?EIO=4&transport=polling",
    ]) {
      const res = await httpRequest(pub.srv.url, p, { headers: evil });
      expect(res.status, p).toBe(421);
    }
    // A rebinding page's POST carries its own Origin, which matches its Host: the Host is what gives it away.
    const planted = await httpRequest(pub.srv.url, "/api/sessions", {
      method: "POST",
      headers: { ...evil, "Content-Type": "application/json" },
      body: "{}",
    });
    expect(planted.status).toBe(421);
    // And its WebSocket is refused at the handshake.
    const ws = await openRaw(pub.srv.url, { headers: evil }).then(
      (r) => (raws.push(r), 0),
      (err: { status: number }) => err.status,
    );
    expect(ws).toBeGreaterThanOrEqual(400);

    // The public name and the server's own address work.
    for (const host of ["class.example.edu", `127.0.0.1:${port}`, `localhost:${port}`]) {
      const res = await httpRequest(pub.srv.url, "/api/health", { headers: { Host: host } });
      expect(res.status, host).toBe(200);
    }
    const info = await httpRequest(pub.srv.url, `/api/join-info?code=${s.code}`, { headers: { Host: `127.0.0.1:${port}` } });
    expect(JSON.parse(info.body)).toMatchObject({ joinUrl: `http://class.example.edu/join/${s.code}` });
    const fromPublic = await join(
      { role: "student", code: s.code },
      { headers: { Host: "class.example.edu", Origin: "http://class.example.edu" } },
      pub.srv.url,
    );
    expect(fromPublic.ok).toBe(true);
  });
});

describe("behind a trusted proxy (TRUST_PROXY)", () => {
  const proxied = serverPerTest({ trustProxy: true });
  cleanUpAfterEach();

  it("takes the scheme from X-Forwarded-Proto (so the header above was ignored for a reason)", async () => {
    const s = await proxied.srv.createSession();
    const info = await httpRequest(proxied.srv.url, `/api/join-info?code=${s.code}`, {
      headers: { Host: "teacher.example:8080", "X-Forwarded-Proto": "https" },
    });
    expect((JSON.parse(info.body) as { joinUrl: string }).joinUrl).toBe(`https://teacher.example:8080/join/${s.code}`);
    const res = await httpRequest(proxied.srv.url, "/api/sessions", {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: proxied.srv.url.replace("http:", "https:"), "X-Forwarded-Proto": "https" },
      body: "{}",
    });
    expect(res.status).toBe(201);
  });
});

/** Sends raw bytes on a new TCP connection and returns everything the server sent until it closed. */
function rawHttp(url: string, request: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: hostname, port: Number(port) }, () => socket.write(request));
    let out = "";
    socket.on("data", (d) => (out += d.toString("latin1")));
    socket.on("error", reject);
    socket.on("close", () => resolve(out));
  });
}

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
