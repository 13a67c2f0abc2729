import { describe, expect, it } from "vitest";
import type { Ack } from "../../lib/protocol";
import type { SessionEvent } from "../../lib/session";
import { connectClient, httpRequest, patchOfFrame } from "./harness";
import { attackedServer, errorCode } from "./outsider/attacker";

// The answer stays secret until the teacher reveals it: not over REST, a shared replay link or a socket (docs/security.md).

const { t, track, join, api } = attackedServer();

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

  await eve.raw.waitForFrame((f) => f.startsWith('42["session:patch"') && f.includes(pollId));
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
      await r.waitForFrame((f) => f.startsWith('42["session:patch"') && f.includes('"status":"closed"'));
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
      const follows = who === "student" ? ["public", "me"] : ["public"];
      for (const { event, payload, index } of r.events().filter((e) => e.index < frames.length)) {
        expect(["session:welcome", "session:patch"], `${who} got ${event}`).toContain(event);
        let checked: unknown = payload;
        if (event === "session:patch") {
          const patch = patchOfFrame(frames[index])!;
          // Never the teacher's records; a projector not even a student's own.
          expect(follows, `${who} got a patch of the ${patch.stream} stream`).toContain(patch.stream);
          const { tally, ...rest } = (patch.put ?? {}) as Record<string, unknown>;
          // The class's running count while results are hidden: how many voted (the poll's `voted`), no distribution.
          if (tally !== undefined) {
            expect(patch.stream, `${who}: a tally outside the class's stream`).toBe("public");
            expect(Object.keys(tally as object).sort(), `${who}: the class's tally ${JSON.stringify(tally)}`).toEqual([
              "pollId",
              "rev",
              "round",
              "total",
            ]);
          }
          checked = { ...patch, put: rest };
        }
        walk(checked, (key, value) => {
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
    expect(bob.tallies, "Bob was shown counts").toEqual([]);

    // After the reveal the same recording does carry the answer: the scan above would have seen a leak.
    expect(await host.emit("poll:reveal", { pollId })).toEqual({ ok: true, data: null });
    for (const r of [eve.raw, projector.raw]) {
      const revealed = await r.waitForFrame((f) => f.startsWith('42["session:patch"') && f.includes('"status":"revealed"'));
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
