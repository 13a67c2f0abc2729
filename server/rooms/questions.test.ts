import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PRESENCE_BROADCAST_INTERVAL_MS, QUESTION_BROADCAST_INTERVAL_MS } from "../../lib/constants";
import type { MyUpvote } from "../../lib/protocol";
import { replay, type QuestionChanges, type SessionEvent } from "../../lib/session";
import { durableOutbox } from "./registry";
import { Room, type RoomOutbox } from "./room";
import { SqliteSessionStore } from "../store/sqlite";

/** A room with a real (in-memory) SQLite store, an outbox that records the question channel, and fake timers. */
function setup() {
  const store = new SqliteSessionStore(":memory:");
  const sent = {
    changes: [] as { to: string; changes: QuestionChanges }[],
    myUpvotes: [] as { to: string; upvote: MyUpvote }[],
    lookingBack: [] as number[],
    publicSnapshots: 0,
  };
  const outbox: RoomOutbox = {
    publicSnapshot: () => void sent.publicSnapshots++,
    hostSnapshot: () => undefined,
    tally: () => undefined,
    tallySuperseded: () => undefined,
    myVote: () => undefined,
    presence: () => undefined,
    renamed: () => undefined,
    kick: () => undefined,
    kickProjectors: () => undefined,
    rosterChanges: () => undefined,
    questionChanges: (changes) => void sent.changes.push({ to: changes.audience, changes }),
    questionChangesFor: (participantId, changes) => void sent.changes.push({ to: participantId, changes }),
    myUpvote: (participantId, upvote) => void sent.myUpvotes.push({ to: participantId, upvote }),
    lookingBack: (count) => void sent.lookingBack.push(count),
  };
  const created: SessionEvent = { type: "session:created", id: "s1", code: "ABCDEF", title: "t", seq: 1, at: Date.now() };
  void store.createSession({ id: "s1", code: "ABCDEF", title: "t", hostKeyHash: "00", createdAt: created.at, endedAt: null }, created);
  let n = 0;
  const room = new Room(replay([created]), {
    store,
    outbox: durableOutbox(store, "s1", outbox),
    now: () => Date.now(),
    newId: () => `id${++n}`,
    shuffle: (xs) => xs,
  });
  return { room, store, sent };
}

const ask = (text: string) =>
  ({ event: "question:ask", payload: { text, target: { kind: "step", stepIndex: 0 }, anonymous: false } }) as const;

beforeEach(() => vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] }));
afterEach(() => vi.useRealTimers());

describe("the room's questions channel", () => {
  it("coalesces an upvote storm on one question into a few batches per audience, each with the latest count", async () => {
    const { room, sent, store } = setup();
    for (let i = 0; i < 1000; i++) room.addParticipant(`p${i}`, `s${i}`);
    const asked = room.handle(ask("Why is this arrow dashed?"), { participantId: "p0" });
    expect(asked).toMatchObject({ ok: true, data: { status: "open" } });
    await store.flush();
    sent.changes.length = 0;
    // 999 upvotes spread over one second.
    for (let i = 1; i < 1000; i++) {
      expect(room.handle({ event: "question:upvote", payload: { questionId: "id1", upvoted: true } }, { participantId: `p${i}` }).ok).toBe(
        true,
      );
      vi.advanceTimersByTime(1);
    }
    vi.advanceTimersByTime(QUESTION_BROADCAST_INTERVAL_MS);
    await store.flush();
    const toClass = sent.changes.filter((c) => c.to === "public");
    const toHost = sent.changes.filter((c) => c.to === "host");
    expect(toClass.length).toBeLessThanOrEqual(1000 / QUESTION_BROADCAST_INTERVAL_MS + 2);
    expect(toHost.length).toBe(toClass.length);
    expect(toClass.at(-1)!.changes.questions).toEqual([expect.objectContaining({ id: "id1", votes: 999, by: "s0" })]);
    // Each voter's own tabs hear about their upvote (one message to that participant, not to the class).
    expect(sent.myUpvotes).toHaveLength(999);
    expect(sent.myUpvotes[0]).toEqual({ to: "p1", upvote: { questionId: "id1", upvoted: true } });
    // No snapshot was sent for any of it.
    expect(sent.publicSnapshots).toBe(0);
    room.dispose();
  });

  it("tells only the asker about a pending question, the class once approved, and the class again when it is hidden", async () => {
    const { room, sent, store } = setup();
    room.addParticipant("ada", "Ada");
    room.addParticipant("bo", "Bo");
    room.handle({ event: "questions:configure", payload: { mode: "moderated", names: "either" } });
    await store.flush();
    expect(sent.publicSnapshots).toBe(1);
    room.handle(ask("pending one"), { participantId: "ada" });
    vi.advanceTimersByTime(QUESTION_BROADCAST_INTERVAL_MS);
    await store.flush();
    expect(sent.changes.map((c) => [c.to, c.changes.questions.map((q) => q.status), c.changes.gone])).toEqual([
      ["host", ["pending"], []],
      ["ada", ["pending"], []],
    ]);
    sent.changes.length = 0;
    room.handle({ event: "question:approve", payload: { questionId: "id1" } });
    vi.advanceTimersByTime(QUESTION_BROADCAST_INTERVAL_MS);
    await store.flush();
    expect(sent.changes.map((c) => [c.to, c.changes.questions.map((q) => q.status)])).toEqual([
      ["host", ["open"]],
      ["public", ["open"]],
    ]);
    sent.changes.length = 0;
    room.handle({ event: "question:hide", payload: { questionId: "id1", hidden: true } });
    vi.advanceTimersByTime(QUESTION_BROADCAST_INTERVAL_MS);
    await store.flush();
    expect(sent.changes.map((c) => [c.to, c.changes.gone])).toEqual([
      ["host", []],
      ["public", ["id1"]],
    ]);
    // A pending question the teacher hides (rejects) is gone for its asker only: the class never heard of it.
    sent.changes.length = 0;
    room.handle(ask("rejected"), { participantId: "bo" });
    vi.advanceTimersByTime(QUESTION_BROADCAST_INTERVAL_MS);
    room.handle({ event: "question:hide", payload: { questionId: "id2", hidden: true } });
    vi.advanceTimersByTime(QUESTION_BROADCAST_INTERVAL_MS);
    await store.flush();
    expect(sent.changes.filter((c) => c.to !== "host").map((c) => [c.to, c.changes.questions.length, c.changes.gone])).toEqual([
      ["bo", 1, []],
      ["bo", 0, ["id2"]],
    ]);
    room.dispose();
  });

  it("counts students looking back (not who), coalesced, and forgets one who leaves; nothing is logged", async () => {
    const { room, sent, store } = setup();
    room.addParticipant("ada", "Ada");
    room.addParticipant("bo", "Bo");
    room.presence.connect("ada");
    room.presence.connect("bo");
    await store.flush();
    const seq = room.snapshotState.seq;
    expect(room.handle({ event: "lookback:set", payload: { lookingBack: true } }, { participantId: "ada" })).toEqual({
      ok: true,
      data: null,
    });
    room.handle({ event: "lookback:set", payload: { lookingBack: true } }, { participantId: "bo" }, "bo-tab");
    room.handle({ event: "lookback:set", payload: { lookingBack: true } }, { participantId: "bo" }, "bo-tab");
    vi.advanceTimersByTime(PRESENCE_BROADCAST_INTERVAL_MS);
    await store.flush();
    expect(sent.lookingBack).toEqual([1, 2]);
    expect(room.presence.lookingBackCount).toBe(2);
    room.presence.disconnect("bo", "bo-tab");
    vi.advanceTimersByTime(PRESENCE_BROADCAST_INTERVAL_MS);
    await store.flush();
    expect(sent.lookingBack.at(-1)).toBe(1);
    // A student who is not connected cannot be counted.
    room.handle({ event: "lookback:set", payload: { lookingBack: true } }, { participantId: "bo" });
    expect(room.presence.lookingBackCount).toBe(1);
    expect(room.snapshotState.seq).toBe(seq);
    room.dispose();
  });
});
