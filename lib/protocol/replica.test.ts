import { describe, expect, it } from "vitest";
import type { SessionEventBody } from "../session/types";
import type { MyVote } from "../session/views";
import { hostProjection, participantProjection, publicProjection, publicTally } from "../session/projection";
import {
  PatchFollower,
  Replica,
  lookingBackOf,
  myVoteOf,
  nicknameOf,
  questionsOf,
  rosterOf,
  snapshotOf,
  tallyOf,
  type ResyncAnswer,
} from "./replica";
import { A, B, CLASS, OPEN, ids, nobody, patch, question, run, vote } from "./replicaFixtures";
import type { ResyncRequest } from "./wire";

/**
 * The one rule every client keeps its records by (lib/protocol/replica.ts):
 * a whole patch replaces, a patch of another instance or from a state not
 * reached is a gap, an old one is stale, anything else applies.
 */

describe("the replica's rule", () => {
  it("takes a whole patch as everything the stream holds: records it no longer has are gone", () => {
    const r = new Replica();
    const state = run(CLASS);
    expect(
      r.apply(
        patch("public", 3, 3, {
          whole: true,
          put: { ...publicProjection(state, nobody), "q:a": question("a", 1), "q:b": question("b", 2) },
        }),
      ),
    ).toBe("applied");
    expect(ids(questionsOf(r)?.questions)).toEqual(["a", "b"]);
    r.takeChanges();
    // A resync's whole patch at a later clock: "b" was hidden meanwhile, and the whole patch does not carry it.
    expect(
      r.apply(patch("public", 9, 9, { whole: true, put: { ...publicProjection(state, nobody), "q:a": question("a", 1, { votes: 4 }) } })),
    ).toBe("applied");
    expect(questionsOf(r)?.questions).toEqual([question("a", 1, { votes: 4 })]);
    expect(r.takeChanges()).toEqual(new Set(["public/session", "public/presence", "public/q:"]));
    // A whole patch replaces even at a clock behind the copy's (a new room instance counts afresh).
    expect(r.apply(patch("public", 1, 1, { whole: true, instance: B, put: { session: publicProjection(state, nobody).session! } }))).toBe(
      "applied",
    );
    expect(questionsOf(r)?.questions).toEqual([]);
    expect(r.single("public", "presence")).toBeUndefined();
    // And the next patch of that instance follows on from it.
    expect(r.apply(patch("public", 1, 2, { instance: B, put: { "q:c": question("c", 3) } }))).toBe("applied");
    expect(ids(questionsOf(r)?.questions)).toEqual(["c"]);
  });

  it("applies a patch made from the state it holds, moving its clock, and deletes what the patch says is gone", () => {
    const r = new Replica();
    r.apply(patch("host", 4, 4, { whole: true, put: hostProjection(run(CLASS), nobody) }));
    expect(rosterOf(r)?.size).toBe(2);
    expect(
      r.apply(patch("host", 4, 6, { put: { "q:a": { ...question("a", 1), anonymous: false, hidden: false, askerRemoved: false } } })),
    ).toBe("applied");
    expect(r.apply(patch("host", 6, 7, { del: ["q:a"] }))).toBe("applied");
    expect(questionsOf(r)).toEqual({ audience: "host", questions: [] });
    // The same patch again is stale; one made from 6 (not 7, where the copy is) cannot follow on: ask again.
    expect(r.apply(patch("host", 6, 7, { del: ["q:a"] }))).toBe("stale");
    expect(r.apply(patch("host", 6, 8, { put: { lookback: { count: 3 } } }))).toBe("gap");
    expect(lookingBackOf(r)).toBe(0);
    expect(r.apply(patch("host", 7, 8, { put: { lookback: { count: 3 } } }))).toBe("applied");
    expect(lookingBackOf(r)).toBe(3);
  });

  it("drops a stale patch: one no newer than the copy's clock", () => {
    const r = new Replica();
    const q = question("a", 1, { votes: 3 });
    r.apply(patch("public", 10, 10, { whole: true, put: { ...publicProjection(run(CLASS), nobody), "q:a": q } }));
    r.takeChanges();
    // A batch built before this socket's whole copy was taken, arriving after it.
    expect(r.apply(patch("public", 8, 9, { put: { "q:a": question("a", 1, { votes: 1 }) } }))).toBe("stale");
    expect(r.apply(patch("public", 9, 10, { del: ["q:a"] }))).toBe("stale");
    expect(questionsOf(r)?.questions).toEqual([q]);
    expect(r.takeChanges().size).toBe(0);
    // A duplicate of one applied is stale too.
    const b = patch("public", 10, 12, { put: { "q:b": question("b", 2) } });
    expect(r.apply(b)).toBe("applied");
    expect(r.apply(b)).toBe("stale");
    expect(questionsOf(r)?.questions[1]).toEqual(question("b", 2));
  });

  it("takes a resync's whole copy as of the clock it was taken at, and goes on from its stream's last ordered patch", () => {
    const r = new Replica();
    const shown: SessionEventBody = { type: "results:visibility", visible: true };
    const state = run([...CLASS, OPEN, shown, vote("p1", "o1")]);
    // The class's last ordered patch was 5; the copy was taken at 9 (counts went out since, volatile).
    expect(r.apply(patch("public", 5, 9, { whole: true, put: publicProjection(state, nobody) }))).toBe("applied");
    expect(tallyOf(r)?.total).toBe(1);
    // A count taken before the copy (at 7), still on its way: the copy's is newer.
    expect(r.apply(patch("public", 5, 7, { volatile: true, put: { tally: publicTally(run([...CLASS, OPEN, shown]))! } }))).toBe("stale");
    expect(tallyOf(r)?.total).toBe(1);
    // An ordered patch the copy already holds.
    expect(r.apply(patch("public", 3, 5, { put: { "q:old": question("old", 0) } }))).toBe("stale");
    expect(questionsOf(r)?.questions).toEqual([]);
    // The stream's next ordered patch, made from 5 after the copy was taken: it follows on.
    expect(r.apply(patch("public", 5, 10, { put: { "q:a": question("a", 1) } }))).toBe("applied");
    expect(
      r.apply(
        patch("public", 10, 11, {
          volatile: true,
          put: { tally: publicTally(run([...CLASS, OPEN, shown, vote("p1", "o1"), vote("p2", "o2")]))! },
        }),
      ),
    ).toBe("applied");
    expect(tallyOf(r)).toMatchObject({ total: 2, counts: { o1: 1, o2: 1 } });
  });

  it("finds a gap: a patch made from a state it has not reached, of another instance, or before any whole copy", () => {
    const r = new Replica();
    // Nothing held yet: whatever comes first that is not whole cannot be applied.
    expect(r.apply(patch("public", 0, 1, { put: { "q:a": question("a", 1) } }))).toBe("gap");
    expect(r.has("public")).toBe(false);
    r.apply(patch("public", 5, 5, { whole: true, put: publicProjection(run(CLASS), nobody) }));
    // The patch from 5 to 6 was lost: the one from 6 cannot follow on.
    expect(r.apply(patch("public", 6, 7, { put: { "q:a": question("a", 1) } }))).toBe("gap");
    expect(questionsOf(r)?.questions).toEqual([]);
    // A room reloaded elsewhere (another instance) numbers afresh: even a matching clock is a gap.
    expect(r.apply(patch("public", 5, 6, { instance: B, put: { "q:a": question("a", 1) } }))).toBe("gap");
    expect(questionsOf(r)?.questions).toEqual([]);
    // The copy is untouched by gaps: the patch it did miss still applies.
    expect(r.apply(patch("public", 5, 6, { put: { "q:z": question("z", 0) } }))).toBe("applied");
    expect(ids(questionsOf(r)?.questions)).toEqual(["z"]);
  });

  it("keeps each stream's clock apart (one socket follows the class's and its own)", () => {
    const r = new Replica();
    const state = run([...CLASS, OPEN]);
    r.apply(patch("public", 7, 7, { whole: true, put: publicProjection(state, nobody) }));
    r.apply(patch("me", 3, 3, { whole: true, put: participantProjection(state, "p1") }));
    expect(r.apply(patch("me", 3, 8, { put: { "u:a": true } }))).toBe("applied");
    expect(r.apply(patch("public", 7, 9, { put: { "q:a": question("a", 1) } }))).toBe("applied");
    expect(r.apply(patch("me", 8, 10, { del: ["u:a"] }))).toBe("applied");
    // The `me` stream is at 10 whatever the class's clock says: a patch from 11 is a gap, the one to 8 again stale.
    expect(r.apply(patch("me", 11, 12, { put: { "u:a": true } }))).toBe("gap");
    expect(r.apply(patch("me", 3, 8, { put: { "u:a": true } }))).toBe("stale");
    expect(questionsOf(r)).toMatchObject({ myUpvotes: [] });
  });

  it("lets a volatile patch through without moving the clock the next ordered patch follows on from", () => {
    const r = new Replica();
    const state = run([...CLASS, OPEN, { type: "results:visibility", visible: true }]);
    r.apply(patch("public", 5, 5, { whole: true, put: publicProjection(state, nobody) }));
    const later = run([...CLASS, OPEN, { type: "results:visibility", visible: true }, vote("p1", "o1")]);
    expect(r.apply(patch("public", 5, 6, { volatile: true, put: { tally: publicTally(later)! } }))).toBe("applied");
    expect(tallyOf(r)).toMatchObject({ total: 1, counts: { o1: 1, o2: 0 } });
    // Another volatile one after it, skipping none of the ordered ones: applies.
    const two = run([...CLASS, OPEN, { type: "results:visibility", visible: true }, vote("p1", "o1"), vote("p2", "o2")]);
    expect(r.apply(patch("public", 5, 8, { volatile: true, put: { tally: publicTally(two)! } }))).toBe("applied");
    // A count overtaken by a newer one is stale.
    expect(r.apply(patch("public", 5, 7, { volatile: true, put: { tally: publicTally(later)! } }))).toBe("stale");
    expect(tallyOf(r)?.total).toBe(2);
    // The next ordered patch was made from 5 (the volatile ones do not count): it applies.
    expect(r.apply(patch("public", 5, 9, { put: { presence: { participantCount: 2 } } }))).toBe("applied");
    // A volatile patch lost on the way is no gap: the next one is made from the same ordered state.
    expect(r.apply(patch("public", 9, 11, { volatile: true, put: { presence: { participantCount: 1 } } }))).toBe("applied");
    // An ordered patch made from the volatile one's number would be a gap (it never moved the clock) ...
    expect(r.apply(patch("public", 11, 12, { put: { "q:b": question("b", 2) } }))).toBe("gap");
    // ... while one made from the last ordered patch follows on.
    expect(r.apply(patch("public", 9, 12, { put: { "q:a": question("a", 1) } }))).toBe("applied");
    expect(snapshotOf(r)?.participantCount).toBe(1);
    expect(ids(questionsOf(r)?.questions)).toEqual(["a"]);
  });

  it("keeps the newer of two votes (two tabs' echo and receipt in either order), but takes any vote from a whole copy", () => {
    const r = new Replica();
    const state = run([...CLASS, OPEN]);
    r.apply(patch("public", 4, 4, { whole: true, put: publicProjection(state, nobody) }));
    r.apply(patch("me", 4, 4, { whole: true, put: participantProjection(state, "p1") }));
    expect(myVoteOf(r)).toEqual({ pollId: "q1", round: 1, optionId: null, rev: 4 });
    const receipt: MyVote = { pollId: "q1", round: 1, optionId: "o2", rev: 9 };
    const echo: MyVote = { pollId: "q1", round: 1, optionId: "o1", rev: 8 };
    // This tab voted o2 (its receipt, the ack); the other tab's earlier vote for o1 arrives after it: nothing changes.
    r.putOwn("me", "vote", receipt);
    expect(r.apply(patch("me", 4, 10, { volatile: true, put: { vote: echo } }))).toBe("stale");
    expect(myVoteOf(r)).toEqual(receipt);
    // In the other order, the later vote wins too.
    const other = new Replica();
    other.apply(patch("me", 4, 4, { whole: true, put: participantProjection(state, "p1") }));
    other.putOwn("me", "vote", echo);
    expect(other.apply(patch("me", 4, 10, { volatile: true, put: { vote: receipt } }))).toBe("applied");
    expect(myVoteOf(other)).toEqual(receipt);
    // A vote in another poll or round replaces it whatever its rev.
    const nextRound: MyVote = { pollId: "q1", round: 2, optionId: null, rev: 3 };
    expect(r.apply(patch("me", 4, 11, { volatile: true, put: { vote: nextRound } }))).toBe("applied");
    expect(myVoteOf(r)).toEqual(nextRound);
    // A whole copy (resync) says what the vote is, even at an older rev.
    r.putOwn("me", "vote", { pollId: "q1", round: 2, optionId: "o1", rev: 50 });
    expect(r.apply(patch("me", 12, 12, { whole: true, put: { vote: { pollId: "q1", round: 2, optionId: null, rev: 12 } } }))).toBe(
      "applied",
    );
    expect(myVoteOf(r)).toEqual({ pollId: "q1", round: 2, optionId: null, rev: 12 });
  });

  it("keeps what the client knows from an ack (putOwn) until a patch replaces it, and only for a stream it holds", () => {
    const r = new Replica();
    // No copy yet: the whole patch to come will carry it.
    r.putOwn("me", "m:a", true);
    expect(r.has("me")).toBe(false);
    const state = run(CLASS);
    r.apply(patch("public", 3, 3, { whole: true, put: { ...publicProjection(state, nobody), "q:a": question("a", 1) } }));
    r.apply(patch("me", 3, 3, { whole: true, put: participantProjection(state, "p1") }));
    r.takeChanges();
    r.putOwn("me", "m:a", true);
    r.putOwn("me", "u:a", true);
    expect(r.takeChanges()).toEqual(new Set(["me/m:", "me/u:"]));
    expect(questionsOf(r)).toMatchObject({ mine: ["a"], myUpvotes: ["a"] });
    // Undone: putOwn with nothing deletes it.
    r.putOwn("me", "u:a", undefined);
    expect(questionsOf(r)).toMatchObject({ mine: ["a"], myUpvotes: [] });
    // The server's patches for the two follow on (an ack does not move the clock): any patch is newer than what an
    // ack said, so the copy ends where the server's state is.
    expect(r.apply(patch("me", 3, 4, { put: { "u:a": true } }))).toBe("applied");
    expect(questionsOf(r)).toMatchObject({ myUpvotes: ["a"] });
    expect(r.apply(patch("me", 4, 5, { del: ["u:a"] }))).toBe("applied");
    expect(questionsOf(r)).toMatchObject({ myUpvotes: [] });
    // A later upvote (another tab's) replaces it.
    expect(r.apply(patch("me", 5, 6, { put: { "u:a": true } }))).toBe("applied");
    expect(questionsOf(r)).toMatchObject({ myUpvotes: ["a"] });
    // The nickname a rename sets.
    expect(nicknameOf(r)).toBe("Ada");
    expect(r.apply(patch("me", 6, 7, { put: { name: { nickname: "Ada L." } } }))).toBe("applied");
    expect(nicknameOf(r)).toBe("Ada L.");
  });
});

describe("following a socket's patches", () => {
  /** A follower whose resyncs are recorded and answered by the test, on a clock the test moves. */
  function follower() {
    const asked: { request: ResyncRequest; answer: (a: ResyncAnswer) => void }[] = [];
    const timers: { at: number; run: () => void }[] = [];
    let now = 0;
    const f = new PatchFollower(new Replica(), (request, answer) => asked.push({ request, answer }), {
      setTimeout: (run, ms) => timers.push({ at: now + ms, run }),
      random: () => 1,
    });
    const advance = (ms: number) => {
      now += ms;
      for (const t of timers.splice(0).filter((t) => (t.at <= now ? (t.run(), false) : true))) timers.push(t);
    };
    return { f, asked, advance };
  }

  it("asks once for what changed since the clock it holds, and is done when the answer comes", () => {
    const { f, asked } = follower();
    f.receive(patch("public", 3, 3, { whole: true, put: { presence: { participantCount: 1 } } }));
    expect(f.receive(patch("public", 5, 6, { put: { presence: { participantCount: 2 } } }))).toBe("gap");
    expect(f.receive(patch("public", 6, 7, { put: { presence: { participantCount: 3 } } }))).toBe("gap");
    expect(asked.map((a) => a.request)).toEqual([{ have: { public: { instance: A, clock: 3 } } }]);
    // The changes arrive before the answer (as the server sends them), then the answer.
    expect(f.receive(patch("public", 3, 7, { put: { presence: { participantCount: 3 } } }))).toBe("applied");
    asked[0].answer({ ok: true });
    expect(f.receive(patch("public", 7, 8, { put: { presence: { participantCount: 4 } } }))).toBe("applied");
    expect(f.gaps).toBe(1);
  });

  it("asks for everything when the changes did not close the gap, and waits as long as a busy server says (plus a random part)", () => {
    const { f, asked, advance } = follower();
    f.receive(patch("public", 3, 3, { whole: true, put: { presence: { participantCount: 1 } } }));
    f.receive(patch("public", 5, 6, {}));
    asked[0].answer({ ok: true });
    f.receive(patch("public", 6, 7, {}));
    expect(asked[1].request).toEqual({});
    // Refused for now: the same request again after retryAfterMs × 1.5 (random() is 1 here), not before.
    asked[1].answer({ ok: false, retryAfterMs: 1_000 });
    f.receive(patch("public", 7, 8, {}));
    advance(1_400);
    expect(asked).toHaveLength(2);
    advance(200);
    expect(asked.map((a) => a.request)).toEqual([{ have: { public: { instance: A, clock: 3 } } }, {}, {}]);
    expect(f.deferred).toBe(1);
    // A whole patch settles it; the waiting is over.
    f.receive(patch("public", 9, 9, { whole: true, put: {} }));
    asked[2].answer({ ok: true });
    expect(f.receive(patch("public", 9, 10, { put: { presence: { participantCount: 2 } } }))).toBe("applied");
  });
});
