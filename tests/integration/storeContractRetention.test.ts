import { describe, expect, it } from "vitest";
import { replay } from "../../lib/session";
import { hashSecret, newId } from "../../server/secrets";
import type { SessionStore } from "../../server/store/types";
import {
  append,
  appendClass,
  createSession,
  daysAgo,
  handshake,
  plant,
  revised,
  storesUnderTest,
  type Planted,
} from "./storeContractStores";

/**
 * What the stores keep across a restart, what they refuse to open, and what
 * retention deletes when: on SQLite and on Redis alike (the contract's other
 * cases: storeContract.test.ts, storeContractLessons.test.ts).
 */
const stores = storesUnderTest();

async function expectKept(store: SessionStore, s: Planted) {
  expect(await store.getSession(s.id)).not.toBeNull();
  expect(await store.loadEvents(s.id)).toHaveLength(s.events);
  expect(await store.findParticipantByToken(s.id, s.tokenHash)).not.toBeNull();
  expect(await store.sessionIdsByHostKeyHash([s.hostKeyHash])).toEqual([s.id]);
}

describe.each(stores)("reopening the stores on $name", ({ open }) => {
  it("keeps everything across a restart: records, logs, summaries, tokens, sharing, lessons, and what was still queued", async () => {
    const first = await open();
    const { sessions, lessons } = first;
    const live = await createSession(sessions);
    const [ana] = appendClass(sessions, live);
    await sessions.saveParticipantToken(live.record.id, ana, hashSecret("ana's token"));
    sessions.notePeakParticipants(live.record.id, 2);
    const done = await createSession(sessions, { createdAt: live.record.createdAt + 1 });
    append(sessions, done, { type: "session:ended" });
    await sessions.flush();
    await sessions.setReplaySharing(done.record.id, hashSecret("share"), 3);
    const lessonId = newId();
    await lessons.create({ id: lessonId, ownerKeyHash: hashSecret("key"), at: 1 }, handshake, "v1");
    await lessons.addVersion(lessonId, revised, "v2", 2);
    // Appended, not yet written: closing the store writes it.
    append(sessions, live, { type: "step:changed", stepIndex: 5 });

    const before = {
      live: await sessions.getSession(live.record.id),
      done: await sessions.getSession(done.record.id),
      lessonMeta: await lessons.meta(lessonId),
      lessonV1: await lessons.version(lessonId, 1),
      lessonList: await lessons.list(null),
    };
    const again = await first.reopen();
    expect(await again.sessions.getSession(live.record.id)).toEqual(before.live);
    expect(await again.sessions.getSession(done.record.id)).toEqual(before.done);
    expect(await again.sessions.loadEvents(live.record.id)).toEqual(live.log);
    expect(replay(await again.sessions.loadEvents(live.record.id))).toMatchObject({ stepIndex: 5, status: "live" });
    expect(await again.sessions.loadEvents(done.record.id)).toEqual(done.log);
    expect(await again.sessions.listSessions()).toMatchObject([
      { id: done.record.id, status: "ended", shared: true, eventCount: 2 },
      { id: live.record.id, status: "live", eventCount: live.log.length, participantCount: 2, pollCount: 1, peakParticipants: 2 },
    ]);
    expect(await again.sessions.liveSessionIds()).toEqual([live.record.id]);
    expect(await again.sessions.findParticipantByToken(live.record.id, hashSecret("ana's token"))).toBe(ana);
    expect(await again.sessions.sessionIdsByHostKeyHash([live.record.hostKeyHash])).toEqual([live.record.id]);
    expect(await again.lessons.meta(lessonId)).toEqual(before.lessonMeta);
    expect(await again.lessons.version(lessonId, 1)).toEqual(before.lessonV1);
    expect(await again.lessons.list(null)).toEqual(before.lessonList);
    // And it carries on where it stopped.
    append(again.sessions, live, { type: "step:changed", stepIndex: 6 });
    await again.sessions.flush();
    expect(await again.sessions.listSessions([live.record.id])).toMatchObject([{ eventCount: live.log.length }]);
  });

  it("refuses data written by a newer version of the server, saying so, rather than reading it as empty", async () => {
    const first = await open();
    await createSession(first.sessions);
    await first.markNewerSchema();
    await expect(first.reopen()).rejects.toThrow(/written by a newer version of this server .*Upgrade the server/);
  });
});

describe.each(stores)("retention on $name", ({ open }) => {
  it("deletes sessions that ended before the cutoff with their events, tokens and share keys, and nothing else", async () => {
    const { sessions: store, leftovers } = await open();
    const old = await plant(store, { code: "OLDAAA", createdDaysAgo: 45, endedDaysAgo: 40 });
    const older = await plant(store, { code: "OLDBBB", createdDaysAgo: 400, endedDaysAgo: 399 });
    // Created long ago but ended recently: what counts is when it ended.
    const recent = await plant(store, { code: "RECENT", createdDaysAgo: 45, endedDaysAgo: 10 });
    // Never ended (the idle timeout ends a forgotten one first): never deleted here.
    const live = await plant(store, { code: "LIVEAA", createdDaysAgo: 100, endedDaysAgo: null });
    // A newer live session reusing an old one's room code keeps it.
    const reused = await plant(store, { code: "OLDAAA", createdDaysAgo: 1, endedDaysAgo: null });

    // Shutdown: an aborted pass deletes nothing more.
    expect(await store.deleteEndedBefore(daysAgo(30), AbortSignal.abort())).toEqual({ sessions: 0, events: 0 });
    await expectKept(store, old);
    expect(await store.deleteEndedBefore(daysAgo(30))).toEqual({ sessions: 2, events: old.events + older.events });

    for (const gone of [old, older]) {
      expect(await store.getSession(gone.id)).toBeNull();
      expect(await store.loadEvents(gone.id)).toEqual([]);
      expect(await store.findParticipantByToken(gone.id, gone.tokenHash)).toBeNull();
      expect(await store.sessionIdsByHostKeyHash([gone.hostKeyHash])).toEqual([]);
      expect(await leftovers(gone.id)).toBe(0);
    }
    for (const kept of [recent, live, reused]) await expectKept(store, kept);
    expect((await store.getSession(recent.id))?.shareKeyHash).toBe(hashSecret(`share-${recent.id}`));
    expect((await store.findByCode("OLDAAA"))?.id).toBe(reused.id);
    expect((await store.listSessions()).map((s) => s.id).sort()).toEqual([recent.id, live.id, reused.id].sort());

    // Nothing is left to delete; later, the recent one's turn comes.
    expect(await store.deleteEndedBefore(daysAgo(30))).toEqual({ sessions: 0, events: 0 });
    expect(await store.deleteEndedBefore(daysAgo(5))).toEqual({ sessions: 1, events: recent.events });
    await expectKept(store, live);
  });
});
