import { describe, expect, it } from "vitest";
import type { HostQuestion } from "../session/questions";
import { hostProjection, hostTally, publicProjection, publicTally } from "../session/projection";
import { Replica, lookingBackOf, questionsOf, rosterOf, snapshotOf, tallyOf } from "./replica";
import { CLASS, OPEN, ids, nobody, patch, question, run, vote } from "./replicaFixtures";

/** What the screens read of the records, and the orders a server can send patches in. */

describe("what the screens read of the records", () => {
  it("shows a student the class's questions and their own one waiting for approval, in the order asked, without duplicates", () => {
    const r = new Replica();
    expect(questionsOf(r)).toBeNull();
    r.apply(patch("public", 5, 5, { whole: true, put: { "q:a": question("a", 10), "q:c": question("c", 30) } }));
    // A student who is not (yet) followed by a `me` stream, e.g. a projector: the class's only.
    expect(questionsOf(r)).toEqual({ audience: "public", questions: [question("a", 10), question("c", 30)], mine: [], myUpvotes: [] });
    const pending = question("b", 20, { status: "pending", by: "Ada" });
    r.apply(patch("me", 5, 5, { whole: true, put: { "q:b": pending, "m:b": true, "u:a": true } }));
    expect(questionsOf(r)).toEqual({
      audience: "public",
      questions: [question("a", 10), pending, question("c", 30)],
      mine: ["b"],
      myUpvotes: ["a"],
    });
    // Approved: the class's record arrives before the asker's own copy is deleted; it is listed once, as the class has it.
    const approved = question("b", 20, { by: "Ada" });
    expect(r.apply(patch("public", 5, 6, { put: { "q:b": approved } }))).toBe("applied");
    expect(questionsOf(r)?.questions).toEqual([question("a", 10), approved, question("c", 30)]);
    expect(r.apply(patch("me", 5, 7, { del: ["q:b"] }))).toBe("applied");
    expect(questionsOf(r)?.questions).toEqual([question("a", 10), approved, question("c", 30)]);
    // A gone question leaves the list.
    expect(r.apply(patch("public", 6, 8, { del: ["q:a"] }))).toBe("applied");
    expect(ids(questionsOf(r)?.questions)).toEqual(["b", "c"]);
  });

  it("shows the teacher every question, its own records only", () => {
    const r = new Replica();
    const hidden: HostQuestion = { ...question("h", 1), anonymous: true, hidden: true, askerRemoved: false };
    r.apply(patch("host", 2, 2, { whole: true, put: { ...hostProjection(run(CLASS), nobody), "q:h": hidden } }));
    expect(questionsOf(r)).toEqual({ audience: "host", questions: [hidden] });
  });

  it("folds presence and the newest running count into the session the screen shows", () => {
    const state = run([...CLASS, OPEN, vote("p1", "o1")]);
    const r = new Replica();
    r.apply(patch("public", 5, 5, { whole: true, put: publicProjection(state, { connectedCount: 2 }) }));
    expect(snapshotOf(r)).toMatchObject({ audience: "public", participantCount: 2, poll: { id: "q1", voted: 1, results: null } });
    // Results hidden: the class's count says how many voted, never the distribution.
    expect(tallyOf(r)).toBeNull();
    r.apply(patch("public", 5, 6, { volatile: true, put: { presence: { participantCount: 5 } } }));
    expect(snapshotOf(r)?.participantCount).toBe(5);
    const more = run([...CLASS, OPEN, vote("p1", "o1"), vote("p2", "o2")]);
    r.apply(patch("public", 5, 7, { volatile: true, put: { tally: publicTally(more)! } }));
    expect(snapshotOf(r)).toMatchObject({ participantCount: 5, poll: { voted: 2 } });
    expect(tallyOf(r)).toBeNull();
    // The session record itself is untouched: only what the screen reads is folded.
    expect(r.single("public", "session")).toMatchObject({ participantCount: 2, poll: { voted: 1 } });

    // Once the poll closed, a count still on its way changes nothing the screen shows.
    const closed = run([
      ...CLASS,
      OPEN,
      vote("p1", "o1"),
      vote("p2", "o2"),
      { type: "poll:closed", pollId: "q1", counts: { o1: 1, o2: 1 }, total: 2 },
    ]);
    const stale = run([...CLASS, OPEN, vote("p1", "o1")]);
    r.apply(patch("public", 5, 8, { put: { session: publicProjection(closed, nobody).session! }, del: ["tally"] }));
    expect(snapshotOf(r)?.poll).toMatchObject({ status: "closed", voted: 2 });
    r.apply(patch("public", 8, 9, { volatile: true, put: { tally: publicTally(stale)! } }));
    expect(snapshotOf(r)?.poll).toMatchObject({ status: "closed", voted: 2 });
  });

  it("shows the newer of the session record's connected count and the presence record's", () => {
    const state = run([...CLASS, OPEN]);
    const r = new Replica();
    r.apply(patch("public", 4, 4, { whole: true, put: publicProjection(state, { connectedCount: 2 }) }));
    expect(snapshotOf(r)?.participantCount).toBe(2);
    expect(r.apply(patch("public", 4, 5, { volatile: true, put: { presence: { participantCount: 7 } } }))).toBe("applied");
    expect(snapshotOf(r)?.participantCount).toBe(7);
    // A step published later carries the count of its time (students get no presence patches between steps).
    expect(r.apply(patch("public", 4, 6, { put: { session: publicProjection(state, { connectedCount: 3 }).session! } }))).toBe("applied");
    expect(snapshotOf(r)?.participantCount).toBe(3);
  });

  it("does not fold a count of another poll or round, or one older than the session record", () => {
    const state = run([...CLASS, OPEN, vote("p1", "o1"), vote("p2", "o2")]);
    const r = new Replica();
    r.apply(patch("public", 6, 6, { whole: true, put: { session: publicProjection(state, nobody).session! } }));
    const older = publicTally(run([...CLASS, OPEN, vote("p1", "o1")]))!;
    r.apply(patch("public", 6, 7, { volatile: true, put: { tally: older } }));
    expect(snapshotOf(r)?.poll?.voted).toBe(2);
    r.apply(patch("public", 6, 8, { volatile: true, put: { tally: { ...publicTally(state)!, pollId: "other", total: 40 } } }));
    expect(snapshotOf(r)?.poll?.voted).toBe(2);
    r.apply(patch("public", 6, 9, { volatile: true, put: { tally: { ...publicTally(state)!, round: 2, total: 40 } } }));
    expect(snapshotOf(r)?.poll?.voted).toBe(2);
  });

  it("gives the teacher the counts, the projector views open and the students looking back", () => {
    const state = run([...CLASS, OPEN, vote("p1", "o1")]);
    const r = new Replica();
    expect(snapshotOf(r)).toBeNull();
    expect(rosterOf(r)).toBeNull();
    r.apply(
      patch("host", 5, 5, {
        whole: true,
        put: hostProjection(state, { connectedCount: 1, isConnected: (id) => id === "p1", projectorCount: 1, lookingBack: 1 }),
      }),
    );
    expect(snapshotOf(r)).toMatchObject({ audience: "host", participantCount: 1, projectorCount: 1, poll: { voted: 1 } });
    expect(tallyOf(r)).toEqual(hostTally(state));
    expect(lookingBackOf(r)).toBe(1);
    r.apply(patch("host", 5, 6, { volatile: true, put: { presence: { participantCount: 2, projectorCount: 3 } } }));
    expect(snapshotOf(r)).toMatchObject({ participantCount: 2, projectorCount: 3 });
    const later = run([...CLASS, OPEN, vote("p1", "o1"), vote("p2", "o1")]);
    r.apply(patch("host", 5, 7, { volatile: true, put: { tally: hostTally(later)! } }));
    expect(tallyOf(r)).toMatchObject({ counts: { o1: 2, o2: 0 }, total: 2 });
    expect(snapshotOf(r)?.poll?.voted).toBe(2);
    // The roster: each student a record; a copy the screen can hold while the replica moves on.
    const roster = rosterOf(r)!;
    expect([...roster.values()].map((row) => [row.nickname, row.connected])).toEqual([
      ["Ada", true],
      ["Linus", false],
    ]);
    r.apply(patch("host", 5, 8, { put: { "r:p2": { ...roster.get("p2")!, connected: true } } }));
    expect(roster.get("p2")?.connected).toBe(false);
    expect(rosterOf(r)?.get("p2")?.connected).toBe(true);
  });

  it("shows the class's counts only while the teacher shows live results", () => {
    const state = run([...CLASS, OPEN, { type: "results:visibility", visible: true }, vote("p1", "o2")]);
    const r = new Replica();
    r.apply(patch("public", 5, 5, { whole: true, put: publicProjection(state, nobody) }));
    expect(tallyOf(r)).toEqual({ pollId: "q1", round: 1, counts: { o1: 0, o2: 1 }, total: 1, rev: state.seq });
  });
});

describe("the replica against the orders a server can send in", () => {
  it("drops a room instance's first whole patch that was queued before its own, newer, whole copy", () => {
    const r = new Replica();
    const joined = run(CLASS);
    // The socket's own copy, taken at clock 9 (the class stream's last ordered patch was 7).
    r.apply(patch("public", 7, 9, { whole: true, put: publicProjection(joined, nobody) }));
    // The instance's first broadcast, made at clock 7 and held back until it was durable, arrives after it.
    expect(r.apply(patch("public", 7, 7, { whole: true, put: {} }))).toBe("stale");
    expect(snapshotOf(r)).not.toBeNull();
    // The next ordered patch follows on from 7.
    expect(r.apply(patch("public", 7, 10, { put: { presence: { participantCount: 3 } } }))).toBe("applied");
    // Another instance's whole patch always replaces it (a takeover).
    expect(r.apply(patch("public", 1, 1, { whole: true, put: {}, instance: "other" }))).toBe("applied");
    expect(snapshotOf(r)).toBeNull();
  });

  it("lets a count overtake presence on its way (each record keeps its newest), without moving the clock", () => {
    const r = new Replica();
    r.apply(patch("public", 4, 4, { whole: true, put: publicProjection(run(CLASS), nobody) }));
    // Presence (made at 6) reaches a projector before a count made at 5 that went a slice at a time.
    expect(r.apply(patch("public", 4, 6, { volatile: true, put: { presence: { participantCount: 2 } } }))).toBe("applied");
    expect(r.apply(patch("public", 4, 5, { volatile: true, put: { tally: { pollId: "q1", round: 1, total: 2, rev: 9 } } }))).toBe(
      "applied",
    );
    // An older presence figure does not replace the newer one.
    expect(r.apply(patch("public", 4, 5, { volatile: true, put: { presence: { participantCount: 1 } } }))).toBe("stale");
    expect(snapshotOf(r)?.participantCount).toBe(2);
    // Ordered patches still follow on from 4.
    expect(r.apply(patch("public", 4, 7, { put: { presence: { participantCount: 5 } } }))).toBe("applied");
    expect(snapshotOf(r)?.participantCount).toBe(5);
  });
});
