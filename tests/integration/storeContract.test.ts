import { describe, expect, it } from "vitest";
import { replay, type SessionEvent } from "../../lib/session";
import type { SessionSummary } from "../../lib/protocol/rest";
import { hashSecret, newId } from "../../server/secrets";
import { T0, append, appendClass, createSession, storesUnderTest } from "./storeContractStores";

/**
 * The session store's contract (server/store/types.ts SessionStore), one case
 * at a time, on SQLite and on Redis alike: what the room logic and the HTTP
 * API may rely on whichever store the server runs on. Lessons, reopening and
 * retention: storeContractLessons.test.ts and storeContractRetention.test.ts.
 */
const stores = storesUnderTest();

describe.each(stores)("the session store on $name", ({ open }) => {
  it("creates a session durably: found by id and by its code, live, not shared, its first event logged", async () => {
    const { sessions } = await open();
    const s = await createSession(sessions, { code: "ABCDEF" });
    expect(await sessions.getSession(s.record.id)).toEqual({
      ...s.record,
      shareKeyHash: null,
      shareGeneration: 0,
      shareKey: null,
      ownerAccountId: null,
    });
    expect(await sessions.findByCode("ABCDEF")).toEqual(await sessions.getSession(s.record.id));
    expect(await sessions.codeExists("ABCDEF")).toBe(true);
    expect(await sessions.liveSessionIds()).toEqual([s.record.id]);
    expect(await sessions.loadEvents(s.record.id)).toEqual(s.log);
    // What does not exist is nothing, not an error.
    expect(await sessions.getSession(newId())).toBeNull();
    expect(await sessions.findByCode("ZZZZZZ")).toBeNull();
    expect(await sessions.codeExists("ZZZZZZ")).toBe(false);
    expect(await sessions.loadEvents(newId())).toEqual([]);
  });

  it("loads back every appended event in order, each session its own, and the log folds to the same state", async () => {
    const { sessions } = await open();
    const a = await createSession(sessions);
    const b = await createSession(sessions);
    // Two classes writing in the same turns: their events share write batches.
    appendClass(sessions, a);
    append(sessions, b, { type: "step:changed", stepIndex: 1 });
    append(sessions, a, { type: "step:changed", stepIndex: 4 });
    append(sessions, b, { type: "room:locked", locked: true });
    await sessions.flush();
    for (const s of [a, b]) {
      const loaded = await sessions.loadEvents(s.record.id);
      expect(loaded).toEqual(s.log);
      expect(replay(loaded)).toEqual(replay(s.log));
    }
    expect(replay(await sessions.loadEvents(a.record.id))).toMatchObject({ id: a.record.id, stepIndex: 4, pollOrder: ["p1"] });
  });

  it("tells a waiter once what was appended can be read back, and at once when nothing is pending", async () => {
    const { sessions } = await open();
    const s = await createSession(sessions);
    const event = append(sessions, s, { type: "step:changed", stepIndex: 2 });
    const seen = await new Promise<SessionEvent[]>((resolve) =>
      sessions.afterDurable(() => void sessions.loadEvents(s.record.id).then(resolve), s.record.id),
    );
    expect(seen.at(-1)).toEqual(event);
    let ran = false;
    sessions.afterDurable(() => (ran = true));
    expect(ran).toBe(true);
    await expect(sessions.flush(s.record.id)).resolves.toBeUndefined();
  });

  it("refuses a second event with a sequence number already logged, failing only that session's writes", async () => {
    const { sessions } = await open();
    const a = await createSession(sessions);
    const b = await createSession(sessions);
    const kept = append(sessions, a, { type: "step:changed", stepIndex: 1 });
    await sessions.flush();
    const failures: string[][] = [];
    sessions.onWriteError((failed) => failures.push([...failed.keys()]));
    // The same seq again (a second writer), in the same batch as another session's good event.
    sessions.append(a.record.id, { type: "step:changed", stepIndex: 9, seq: kept.seq, at: kept.at + 5 });
    const other = append(sessions, b, { type: "step:changed", stepIndex: 2 });
    let told = false;
    sessions.afterDurable(() => (told = true), a.record.id);
    await expect(sessions.flush(a.record.id)).rejects.toThrow();
    await expect(sessions.flush(b.record.id)).resolves.toBeUndefined();
    expect(told).toBe(false);
    expect(failures).toEqual([[a.record.id]]);
    expect(await sessions.loadEvents(a.record.id)).toEqual(a.log);
    expect((await sessions.loadEvents(b.record.id)).at(-1)).toEqual(other);
  });

  it("lists sessions newest first, each with its summary", async () => {
    const { sessions } = await open();
    const older = await createSession(sessions, { createdAt: T0 });
    const taught = await createSession(sessions, { createdAt: T0 + 60_000 });
    const newest = await createSession(sessions, { createdAt: T0 + 120_000 });
    appendClass(sessions, taught);
    sessions.notePeakParticipants(taught.record.id, 5);
    // A peak only rises: presence reported late, or by another node, never lowers it.
    sessions.notePeakParticipants(taught.record.id, 3);
    const ended = append(sessions, older, { type: "session:ended" });
    await sessions.flush();
    await sessions.setReplaySharing(older.record.id, hashSecret("share"), 0);

    const summary = (s: typeof older, fields: Partial<SessionSummary>): SessionSummary => ({
      id: s.record.id,
      code: s.record.code,
      title: s.record.title,
      createdAt: s.record.createdAt,
      endedAt: null,
      status: "live",
      lastEventAt: s.log.at(-1)!.at,
      eventCount: s.log.length,
      participantCount: 0,
      peakParticipants: 0,
      pollCount: 0,
      shared: false,
      ...fields,
    });
    expect(await sessions.listSessions()).toEqual([
      summary(newest, {}),
      summary(taught, { participantCount: 2, pollCount: 1, peakParticipants: 5 }),
      summary(older, { status: "ended", endedAt: ended.at, shared: true }),
    ]);
    // Only the sessions asked for (a teacher's own); one that does not exist is left out.
    expect((await sessions.listSessions([older.record.id, newId()])).map((x) => x.id)).toEqual([older.record.id]);
    expect(await sessions.listSessions([])).toEqual([]);
  });

  it("counts a vote storm once, across the many write batches it takes", async () => {
    const { sessions } = await open();
    const s = await createSession(sessions);
    append(sessions, s, {
      type: "poll:opened",
      poll: { id: "p1", kind: "custom", question: "Ready?", options: [{ id: "o1", text: "yes" }], correctOptionId: null },
      closesAt: null,
    });
    // 1,200 events in one turn: several batches (WRITE_BATCH_MAX), with a join in every hundred.
    for (let i = 0; i < 1_200; i++) {
      const participantId = `p${Math.floor(i / 100)}`;
      const at = T0 + 1_000 + i;
      if (i % 100 === 0) append(sessions, s, { type: "participant:joined", participantId, nickname: participantId }, at);
      else append(sessions, s, { type: "poll:voted", pollId: "p1", participantId, optionId: "o1" }, at);
    }
    await sessions.flush(s.record.id);
    const [listed] = await sessions.listSessions([s.record.id]);
    expect(listed).toMatchObject({ eventCount: 1_202, participantCount: 12, pollCount: 1, lastEventAt: T0 + 2_199 });
    expect((await sessions.loadEvents(s.record.id)).map((e) => e.seq)).toEqual(s.log.map((e) => e.seq));
  });

  it("ends a session: no longer live, its code free for a new class, still found and listed as ended", async () => {
    const { sessions } = await open();
    const first = await createSession(sessions, { code: "REUSED", createdAt: T0 });
    const ended = append(sessions, first, { type: "session:ended" });
    await sessions.flush();
    expect(await sessions.getSession(first.record.id)).toMatchObject({ endedAt: ended.at });
    expect(await sessions.liveSessionIds()).toEqual([]);
    expect(await sessions.codeExists("REUSED")).toBe(false);
    expect((await sessions.findByCode("REUSED"))?.id).toBe(first.record.id);
    expect(replay(await sessions.loadEvents(first.record.id)).status).toBe("ended");

    const second = await createSession(sessions, { code: "REUSED", createdAt: T0 + 3_600_000 });
    expect(await sessions.codeExists("REUSED")).toBe(true);
    expect((await sessions.findByCode("REUSED"))?.id).toBe(second.record.id);
    expect(await sessions.liveSessionIds()).toEqual([second.record.id]);
    expect((await sessions.listSessions()).map((x) => [x.id, x.status])).toEqual([
      [second.record.id, "live"],
      [first.record.id, "ended"],
    ]);
  });

  it("finds a teacher's sessions by the hashes of their host keys", async () => {
    const { sessions } = await open();
    const a = await createSession(sessions, { hostKey: "laptop" });
    const b = await createSession(sessions, { hostKey: "laptop" });
    const c = await createSession(sessions, { hostKey: "tablet" });
    expect((await sessions.sessionIdsByHostKeyHash([hashSecret("laptop")])).sort()).toEqual([a.record.id, b.record.id].sort());
    expect((await sessions.sessionIdsByHostKeyHash([hashSecret("laptop"), hashSecret("tablet")])).sort()).toEqual(
      [a.record.id, b.record.id, c.record.id].sort(),
    );
    expect(await sessions.sessionIdsByHostKeyHash([hashSecret("someone else")])).toEqual([]);
    expect(await sessions.sessionIdsByHostKeyHash([])).toEqual([]);
    // The record holds the hash, never the key.
    expect((await sessions.getSession(a.record.id))?.hostKeyHash).toBe(hashSecret("laptop"));
  });

  it("starts and stops sharing a replay, each new share under a new generation", async () => {
    const { sessions } = await open();
    const s = await createSession(sessions);
    await sessions.setReplaySharing(s.record.id, hashSecret("first link"), 0);
    expect(await sessions.getSession(s.record.id)).toMatchObject({ shareKeyHash: hashSecret("first link"), shareGeneration: 0 });
    expect((await sessions.listSessions())[0].shared).toBe(true);
    await sessions.setReplaySharing(s.record.id, null, 1);
    expect(await sessions.getSession(s.record.id)).toMatchObject({ shareKeyHash: null, shareGeneration: 1 });
    expect((await sessions.listSessions())[0].shared).toBe(false);
    await sessions.setReplaySharing(s.record.id, hashSecret("second link"), 1);
    expect(await sessions.getSession(s.record.id)).toMatchObject({ shareKeyHash: hashSecret("second link"), shareGeneration: 1 });
  });

  it("keeps students' token hashes per session, durable with the join they came with", async () => {
    const { sessions } = await open();
    const a = await createSession(sessions);
    const b = await createSession(sessions);
    const [ana, bo] = [newId(), newId()];
    await sessions.saveParticipantToken(a.record.id, ana, hashSecret("ana's token"));
    append(sessions, a, { type: "participant:joined", participantId: ana, nickname: "Ana" });
    await sessions.saveParticipantToken(a.record.id, bo, hashSecret("bo's token"));
    append(sessions, a, { type: "participant:joined", participantId: bo, nickname: "Bo" });
    await sessions.flush(a.record.id);
    expect(await sessions.findParticipantByToken(a.record.id, hashSecret("ana's token"))).toBe(ana);
    expect(await sessions.findParticipantByToken(a.record.id, hashSecret("bo's token"))).toBe(bo);
    // A token opens its own session only.
    expect(await sessions.findParticipantByToken(b.record.id, hashSecret("ana's token"))).toBeNull();
    expect(await sessions.findParticipantByToken(a.record.id, hashSecret("a guess"))).toBeNull();
  });

  it("takes a write that holds no data when asked whether it can write", async () => {
    const { sessions } = await open();
    await expect(sessions.checkWritable()).resolves.toBeUndefined();
    expect(await sessions.listSessions()).toEqual([]);
  });
});
