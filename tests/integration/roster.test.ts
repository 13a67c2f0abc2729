import { describe, expect, it } from "vitest";
import { connectClient, serverPerTest, waitUntil, type TestClient } from "./harness";

/**
 * The teacher's console gets the roster whole once, then only what changed:
 * what a join, a leave or a vote costs the console does not grow with the class.
 */
const t = serverPerTest();
const track = t.track;

describe("the console's roster travels as changes", () => {
  /** Joins `n` students, 25 at a time. */
  async function joinClass(code: string, n: number, from = 0): Promise<TestClient[]> {
    const joined: TestClient[] = [];
    for (let i = from; i < from + n; i += 25) {
      const batch = Array.from({ length: Math.min(25, from + n - i) }, (_, k) =>
        connectClient(t.srv.url, { role: "student", code, nickname: `Student ${i + k + 1}` }),
      );
      joined.push(...(await Promise.all(batch)).map(track));
    }
    return joined;
  }

  const sizeOf = (message: unknown) => Buffer.byteLength(JSON.stringify(message));
  /**
   * The console's presence updates (at most two a second) have caught up: a projector opens, and the console counts
   * it only with the next update, which carries every row changed before it. (The update after that is then a full
   * interval away, so what the next student changes reaches the console in one update.)
   */
  async function presenceCaughtUp(code: string, host: TestClient): Promise<void> {
    const projectors = host.host().projectorCount;
    track(await connectClient(t.srv.url, { role: "projector", code }));
    await host.waitFor((c) => c.host().projectorCount === projectors + 1);
  }

  /** The patches that carried changed rows since `index` (not the whole roster a join or resync sends). */
  const changesSince = (host: TestClient, index: number) => host.rosterMessages.slice(index).filter((m) => !m.whole);

  it("one join, one leave and one vote cost the console the same few hundred bytes in a class of 20 or 300", async () => {
    {
      const costs: Record<number, { join: number; leave: number; snapshotBytes: number }> = {};
      for (const size of [20, 300]) {
        const { code, hostKey } = await t.srv.createSession();
        const host = track(await connectClient(t.srv.url, { role: "host", code, hostKey }));
        const students = await joinClass(code, size);
        await host.waitFor((c) => c.students().length === size && c.students().every((s) => s.connected), 15_000);
        await presenceCaughtUp(code, host);

        let mark = host.rosterMessages.length;
        const late = track(await connectClient(t.srv.url, { role: "student", code, nickname: "Latecomer" }));
        await host.waitFor((c) => c.students().some((s) => s.nickname === "Latecomer" && s.connected));
        const joinChanges = changesSince(host, mark);
        // Only the newcomer's row travels.
        expect(joinChanges.flatMap((m) => m.rows).map((r) => r.nickname)).toEqual(["Latecomer"]);

        mark = host.rosterMessages.length;
        late.close();
        await host.waitFor((c) => c.students().some((s) => s.nickname === "Latecomer" && !s.connected));
        const leaveChanges = changesSince(host, mark);
        expect(leaveChanges.flatMap((m) => m.rows).map((r) => [r.nickname, r.connected])).toEqual([["Latecomer", false]]);

        // A vote reaches the console as a count (the tally), never as the roster or a whole snapshot.
        const open = (await host.emit("poll:open", { kind: "next-step" })) as { ok: true; data: { pollId: string } };
        const snapshotsBefore = host.snapshots.length;
        mark = host.rosterMessages.length;
        const voter = students[0];
        const optionId = voter.public().poll!.options[0].id;
        expect((await voter.emit("poll:vote", { pollId: open.data.pollId, optionId })).ok).toBe(true);
        await host.waitFor((c) => c.tallies.at(-1)?.total === 1);
        expect(host.rosterMessages.length).toBe(mark);
        expect(host.snapshots.length).toBe(snapshotsBefore);

        costs[size] = {
          // What went over the wire: each patch as sent.
          join: joinChanges.reduce((sum, m) => sum + sizeOf(m.patch), 0),
          leave: leaveChanges.reduce((sum, m) => sum + sizeOf(m.patch), 0),
          snapshotBytes: sizeOf(host.latest()),
        };
      }
      // The same cost whatever the class size (a few bytes of longer numbers aside), and small.
      for (const kind of ["join", "leave", "snapshotBytes"] as const) {
        expect(costs[300][kind], `${kind}: ${JSON.stringify(costs)}`).toBeLessThan(costs[20][kind] + 16);
      }
      expect(costs[300].join).toBeLessThan(300);
      expect(costs[300].snapshotBytes).toBeLessThan(5_000);
    }
  }, 60_000);

  it("renames, removals and readmissions reach the console as the rows that changed", async () => {
    {
      const { code, hostKey } = await t.srv.createSession();
      const host = track(await connectClient(t.srv.url, { role: "host", code, hostKey }));
      const [ada, linus] = await joinClass(code, 2);
      await host.waitFor((c) => c.students().length === 2);
      const adaId = ada.welcome!.participantId!;
      const linusId = linus.welcome!.participantId!;

      let mark = host.rosterMessages.length;
      expect((await host.emit("participant:rename", { participantId: adaId, nickname: "Ada" })).ok).toBe(true);
      await host.waitFor((c) => c.students().some((s) => s.nickname === "Ada"));
      expect(changesSince(host, mark).flatMap((m) => m.rows.map((r) => r.id))).toEqual([adaId]);

      mark = host.rosterMessages.length;
      expect((await host.emit("participant:remove", { participantId: linusId })).ok).toBe(true);
      await host.waitFor((c) => c.removedStudents().some((s) => s.id === linusId) && c.students().length === 1);
      expect(new Set(changesSince(host, mark).flatMap((m) => m.rows.map((r) => r.id)))).toEqual(new Set([linusId]));

      expect((await host.emit("participant:readmit", { participantId: linusId })).ok).toBe(true);
      await host.waitFor((c) => c.removedStudents().length === 0 && c.students().length === 2);
      expect(host.gaps).toBe(0);
    }
  });

  it("a console that missed a change gets the rows it missed, not the whole roster, and a second teacher tab agrees", async () => {
    {
      const { code, hostKey } = await t.srv.createSession();
      const host = track(await connectClient(t.srv.url, { role: "host", code, hostKey }));
      await joinClass(code, 5);
      await host.waitFor((c) => c.students().length === 5);
      // Caught up, so the next patch to the console is the newcomer's row.
      await presenceCaughtUp(code, host);
      const mark = host.patches.length;
      const wholeBefore = host.rosterMessages.filter((m) => m.whole).length;
      // As if a message had been lost on the way: the sixth student's row.
      host.loseNextPatch();
      await joinClass(code, 1, 5);
      await waitUntil(() => host.patches.length > mark, 5_000);
      const lost = host.patches[mark];
      // An ordered patch (a row), not a count a newer one replaces.
      expect(lost.stream).toBe("host");
      expect(lost.volatile).toBeUndefined();
      expect(Object.values(lost.put ?? {})).toContainEqual(expect.objectContaining({ nickname: "Student 6" }));
      expect(host.students()).toHaveLength(5);
      // The next change does not follow on from what the console holds: a gap.
      await joinClass(code, 1, 6);
      await waitUntil(() => host.gaps === 1, 5_000);
      // It asked for what changed since the copy it holds, and got it: the lost row is back, and the roster was
      // not sent whole again (a resync resends what changed, issue 28).
      await host.waitFor((c) => c.students().length === 7 && c.students().every((s) => s.connected));
      expect(host.rosterMessages.filter((m) => m.whole).length).toBe(wholeBefore);
      expect(host.rosterMessages.at(-1)!.rows.map((r) => r.nickname)).toEqual(expect.arrayContaining(["Student 6"]));
      const second = track(await connectClient(t.srv.url, { role: "host", code, hostKey }));
      await second.waitFor((c) => c.students().length === 7);
      expect(second.students()).toEqual(host.students());
      expect(host.gaps).toBe(1);
    }
  });
});
