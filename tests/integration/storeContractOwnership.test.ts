import { describe, expect, it } from "vitest";
import { hashSecret, newId } from "../../server/secrets";
import { consoleIdOf } from "../../server/store/consoles";
import type { ConsoleKey } from "../../server/store/types";
import { T0, append, createSession, daysAgo, handshake, storesUnderTest } from "./storeContractStores";

/**
 * What follows a teacher's account in the stores (issue 29), on SQLite and on
 * Redis alike: who owns a session or a lesson, who was invited to teach it,
 * the keys that open a session's console, and that deleting a session
 * (retention, or its owner) leaves nothing of it in anyone's list. The HTTP
 * rules around them are tests/integration/accountsOwnership.test.ts.
 */
const stores = storesUnderTest();

const ana = "account-ana";
const bo = "account-bo";

const consoleFor = (key: string, accountId: string | null, createdAt: number): ConsoleKey => ({
  id: consoleIdOf(hashSecret(key)),
  keyHash: hashSecret(key),
  accountId,
  createdAt,
});

describe.each(stores)("sessions and accounts on $name", ({ open }) => {
  it("keeps a session's owner: set at creation, claimed only when it has none, handed over, listed per account", async () => {
    const { sessions } = await open();
    const owned = await createSession(sessions, { createdAt: T0 });
    await sessions.setSessionOwner(owned.record.id, ana);
    const unowned = await createSession(sessions, { createdAt: T0 + 1_000 });
    expect(await sessions.getSession(owned.record.id)).toMatchObject({ ownerAccountId: ana });
    expect(await sessions.getSession(unowned.record.id)).toMatchObject({ ownerAccountId: null });

    // A browser that holds the key claims what nobody owns; it cannot take what another account owns.
    expect(await sessions.claimSession(unowned.record.id, bo)).toBe(true);
    expect(await sessions.claimSession(unowned.record.id, bo)).toBe(true);
    expect(await sessions.claimSession(owned.record.id, bo)).toBe(false);
    expect(await sessions.claimSession(newId(), bo)).toBe(false);
    expect(await sessions.getSession(owned.record.id)).toMatchObject({ ownerAccountId: ana });
    expect(await sessions.sessionsOfAccount(ana)).toEqual({ owned: [owned.record.id], coteaching: [] });
    expect(await sessions.sessionsOfAccount(bo)).toEqual({ owned: [unowned.record.id], coteaching: [] });

    // Handed over (an account deleted, its co-teacher taking the class): the lists follow.
    await sessions.setSessionOwner(owned.record.id, bo);
    expect(await sessions.sessionsOfAccount(ana)).toEqual({ owned: [], coteaching: [] });
    expect(await sessions.sessionsOfAccount(bo)).toEqual({ owned: [unowned.record.id, owned.record.id], coteaching: [] });
    await sessions.setSessionOwner(owned.record.id, null);
    expect(await sessions.getSession(owned.record.id)).toMatchObject({ ownerAccountId: null });
    expect((await sessions.sessionsOfAccount(bo)).owned).toEqual([unowned.record.id]);
  });

  it("invites co-teachers once each, in order, lists the sessions they co-teach, and removes them", async () => {
    const { sessions } = await open();
    const s = await createSession(sessions);
    await sessions.setSessionOwner(s.record.id, ana);
    await sessions.addSessionCoteacher(s.record.id, bo, T0 + 1);
    await sessions.addSessionCoteacher(s.record.id, "account-cy", T0 + 2);
    await sessions.addSessionCoteacher(s.record.id, bo, T0 + 3);
    expect(await sessions.sessionCoteachers(s.record.id)).toEqual([bo, "account-cy"]);
    expect(await sessions.sessionsOfAccount(bo)).toEqual({ owned: [], coteaching: [s.record.id] });
    // An unknown session takes no co-teacher.
    const ghost = newId();
    await sessions.addSessionCoteacher(ghost, bo, T0);
    expect(await sessions.sessionCoteachers(ghost)).toEqual([]);
    expect((await sessions.sessionsOfAccount(bo)).coteaching).toEqual([s.record.id]);

    expect(await sessions.removeSessionCoteacher(s.record.id, bo)).toBe(true);
    expect(await sessions.removeSessionCoteacher(s.record.id, bo)).toBe(false);
    expect(await sessions.sessionCoteachers(s.record.id)).toEqual(["account-cy"]);
    expect(await sessions.sessionsOfAccount(bo)).toEqual({ owned: [], coteaching: [] });
  });

  it("opens a session's console with any of its keys: the first, one added per console, each revoked on its own", async () => {
    const { sessions } = await open();
    const s = await createSession(sessions, { hostKey: "laptop", createdAt: T0 });
    const other = await createSession(sessions, { hostKey: "other" });
    expect(await sessions.consoles(s.record.id)).toEqual([consoleFor("laptop", null, T0)]);
    expect(await sessions.hostKeyHashes(s.record.id)).toEqual([hashSecret("laptop")]);

    const school = consoleFor("school laptop", ana, T0 + 5_000);
    await sessions.addConsole(s.record.id, school);
    expect(await sessions.consoles(s.record.id)).toEqual([consoleFor("laptop", null, T0), school]);
    expect((await sessions.hostKeyHashes(s.record.id)).sort()).toEqual([hashSecret("laptop"), hashSecret("school laptop")].sort());
    // The key a console was opened with lists the session in that browser too; another session's keys are its own.
    expect(await sessions.sessionIdsByHostKeyHash([hashSecret("school laptop")])).toEqual([s.record.id]);
    expect(await sessions.hostKeyHashes(other.record.id)).toEqual([hashSecret("other")]);

    // Revoking what the old browser held: its key opens nothing, and no longer lists the session.
    expect(await sessions.revokeConsole(s.record.id, consoleIdOf(hashSecret("laptop")))).toBe(true);
    expect(await sessions.revokeConsole(s.record.id, consoleIdOf(hashSecret("laptop")))).toBe(false);
    expect(await sessions.revokeConsole(other.record.id, school.id)).toBe(false);
    expect(await sessions.hostKeyHashes(s.record.id)).toEqual([hashSecret("school laptop")]);
    expect(await sessions.sessionIdsByHostKeyHash([hashSecret("laptop")])).toEqual([]);
    expect(await sessions.hostKeyHashes(newId())).toEqual([]);
  });

  it("keeps the share key itself while the replay is shared, and forgets it when sharing stops", async () => {
    const { sessions } = await open();
    const s = await createSession(sessions);
    await sessions.setReplaySharing(s.record.id, hashSecret("the link"), 0, "the link");
    expect(await sessions.getSession(s.record.id)).toMatchObject({ shareKeyHash: hashSecret("the link"), shareKey: "the link" });
    await sessions.setReplaySharing(s.record.id, null, 1, "ignored");
    expect(await sessions.getSession(s.record.id)).toMatchObject({ shareKeyHash: null, shareKey: null, shareGeneration: 1 });
    // An earlier server's share: the hash alone.
    await sessions.setReplaySharing(s.record.id, hashSecret("older"), 1);
    expect(await sessions.getSession(s.record.id)).toMatchObject({ shareKeyHash: hashSecret("older"), shareKey: null });
  });

  it("deletes an ended session with its consoles, co-teachers and place in every list; a live one stays", async () => {
    const { sessions, leftovers } = await open();
    const live = await createSession(sessions, { hostKey: "live" });
    const ended = await createSession(sessions, { hostKey: "ended" });
    for (const s of [live, ended]) {
      await sessions.setSessionOwner(s.record.id, ana);
      await sessions.addSessionCoteacher(s.record.id, bo, T0);
      await sessions.addConsole(s.record.id, consoleFor(`second ${s.record.id}`, ana, T0));
    }
    append(sessions, ended, { type: "session:ended" });
    await sessions.flush();

    expect(await sessions.deleteEndedSession(live.record.id)).toBe(false);
    expect(await sessions.deleteEndedSession(ended.record.id)).toBe(true);
    expect(await sessions.deleteEndedSession(ended.record.id)).toBe(false);
    expect(await leftovers(ended.record.id)).toBe(0);
    expect(await sessions.sessionIdsByHostKeyHash([hashSecret("ended"), hashSecret(`second ${ended.record.id}`)])).toEqual([]);
    expect(await sessions.sessionsOfAccount(ana)).toEqual({ owned: [live.record.id], coteaching: [] });
    expect(await sessions.sessionsOfAccount(bo)).toEqual({ owned: [], coteaching: [live.record.id] });
    expect(await sessions.getSession(live.record.id)).not.toBeNull();
    expect(await sessions.hostKeyHashes(live.record.id)).toHaveLength(2);
  });

  it("retention leaves nothing of an owned, co-taught session in anyone's list", async () => {
    const { sessions, leftovers } = await open();
    const old = await createSession(sessions, { hostKey: "old", createdAt: daysAgo(40) });
    await sessions.setSessionOwner(old.record.id, ana);
    await sessions.addSessionCoteacher(old.record.id, bo, daysAgo(40));
    await sessions.addConsole(old.record.id, consoleFor("old, elsewhere", ana, daysAgo(40)));
    append(sessions, old, { type: "session:ended" }, daysAgo(39));
    await sessions.flush();
    expect(await sessions.deleteEndedBefore(daysAgo(30))).toMatchObject({ sessions: 1 });
    expect(await leftovers(old.record.id)).toBe(0);
    expect(await sessions.sessionsOfAccount(ana)).toEqual({ owned: [], coteaching: [] });
    expect(await sessions.sessionsOfAccount(bo)).toEqual({ owned: [], coteaching: [] });
    expect(await sessions.sessionIdsByHostKeyHash([hashSecret("old, elsewhere")])).toEqual([]);
  });

  it("opens data written before accounts with each session's key as its first console, and keeps all of it across a restart", async () => {
    const first = await open();
    const s = await createSession(first.sessions, { hostKey: "before accounts", createdAt: T0 });
    await first.asBeforeAccounts();
    const upgraded = await first.reopen();
    expect(await upgraded.sessions.consoles(s.record.id)).toEqual([consoleFor("before accounts", null, T0)]);
    expect(await upgraded.sessions.sessionIdsByHostKeyHash([hashSecret("before accounts")])).toEqual([s.record.id]);
    expect(await upgraded.sessions.getSession(s.record.id)).toMatchObject({ ownerAccountId: null, shareKey: null });

    await upgraded.sessions.setSessionOwner(s.record.id, ana);
    await upgraded.sessions.addSessionCoteacher(s.record.id, bo, T0);
    await upgraded.sessions.addConsole(s.record.id, consoleFor("second", ana, T0 + 1));
    const again = await upgraded.reopen();
    expect(await again.sessions.sessionsOfAccount(ana)).toEqual({ owned: [s.record.id], coteaching: [] });
    expect(await again.sessions.sessionCoteachers(s.record.id)).toEqual([bo]);
    expect(await again.sessions.hostKeyHashes(s.record.id)).toHaveLength(2);
  });
});

describe.each(stores)("lessons and accounts on $name", ({ open }) => {
  it("keeps a lesson's owner: saved by a signed-in teacher, claimed by key only when unowned, handed over", async () => {
    const { lessons } = await open();
    const [saved, browserOnly] = [newId(), newId()];
    await lessons.create({ id: saved, ownerKeyHash: hashSecret("k1"), at: T0, ownerAccountId: ana }, handshake, "x");
    await lessons.create({ id: browserOnly, ownerKeyHash: hashSecret("k2"), at: T0 + 1 }, handshake, "x");
    expect(await lessons.meta(saved)).toMatchObject({ ownerAccountId: ana });
    expect(await lessons.meta(browserOnly)).toMatchObject({ ownerAccountId: null });
    expect(await lessons.claimLesson(browserOnly, bo)).toBe(true);
    expect(await lessons.claimLesson(saved, bo)).toBe(false);
    expect(await lessons.claimLesson(newId(), bo)).toBe(false);
    expect(await lessons.lessonsOfAccount(ana)).toEqual({ owned: [saved], coediting: [] });
    expect(await lessons.lessonsOfAccount(bo)).toEqual({ owned: [browserOnly], coediting: [] });
    await lessons.setLessonOwner(saved, bo);
    expect(await lessons.lessonsOfAccount(ana)).toEqual({ owned: [], coediting: [] });
    expect((await lessons.lessonsOfAccount(bo)).owned.sort()).toEqual([saved, browserOnly].sort());
    await lessons.setLessonOwner(saved, null);
    expect(await lessons.meta(saved)).toMatchObject({ ownerAccountId: null });
  });

  it("lists lessons by key or by id, rotates the key, and invites co-teachers to edit", async () => {
    const { lessons } = await open();
    const [mine, shared, other] = [newId(), newId(), newId()];
    await lessons.create({ id: mine, ownerKeyHash: hashSecret("laptop"), at: T0 }, handshake, "x");
    await lessons.create({ id: shared, ownerKeyHash: hashSecret("theirs"), at: T0 + 1 }, handshake, "x");
    await lessons.create({ id: other, ownerKeyHash: hashSecret("nobody"), at: T0 + 2 }, handshake, "x");
    expect((await lessons.list([hashSecret("laptop")], [shared])).map((l) => l.id).sort()).toEqual([mine, shared].sort());
    expect((await lessons.list([], [other])).map((l) => l.id)).toEqual([other]);

    // Rotating: the key browsers held opens nothing; the new one does.
    await lessons.setLessonKey(mine, hashSecret("rotated"));
    expect(await lessons.meta(mine)).toMatchObject({ ownerKeyHash: hashSecret("rotated") });
    expect(await lessons.list([hashSecret("laptop")])).toEqual([]);

    await lessons.addLessonCoteacher(shared, bo, T0 + 1);
    await lessons.addLessonCoteacher(shared, ana, T0 + 2);
    await lessons.addLessonCoteacher(shared, bo, T0 + 3);
    await lessons.addLessonCoteacher(newId(), bo, T0);
    expect(await lessons.lessonCoteachers(shared)).toEqual([bo, ana]);
    expect(await lessons.lessonsOfAccount(bo)).toEqual({ owned: [], coediting: [shared] });
    expect(await lessons.removeLessonCoteacher(shared, bo)).toBe(true);
    expect(await lessons.removeLessonCoteacher(shared, bo)).toBe(false);
    expect(await lessons.lessonsOfAccount(bo)).toEqual({ owned: [], coediting: [] });
  });

  it("removes a lesson from its owner's and co-teachers' lists with it, and keeps ownership across a restart", async () => {
    const first = await open();
    const [gone, kept] = [newId(), newId()];
    for (const id of [gone, kept]) {
      await first.lessons.create({ id, ownerKeyHash: hashSecret(id), at: T0, ownerAccountId: ana }, handshake, "x");
      await first.lessons.addLessonCoteacher(id, bo, T0);
    }
    await first.lessons.remove(gone);
    expect(await first.lessons.lessonsOfAccount(ana)).toEqual({ owned: [kept], coediting: [] });
    expect(await first.lessons.lessonsOfAccount(bo)).toEqual({ owned: [], coediting: [kept] });
    expect(await first.lessons.lessonCoteachers(gone)).toEqual([]);
    const again = await first.reopen();
    expect(await again.lessons.lessonsOfAccount(ana)).toEqual({ owned: [kept], coediting: [] });
    expect(await again.lessons.lessonCoteachers(kept)).toEqual([bo]);
    expect(await again.lessons.meta(kept)).toMatchObject({ ownerAccountId: ana });
  });
});
