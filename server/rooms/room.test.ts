import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { TALLY_BROADCAST_INTERVAL_MS } from "../../lib/constants";
import type { TallyUpdate } from "../../lib/protocol";
import { replay, type SessionEvent } from "../../lib/session";
import { Room, silentRoomOutbox, type RoomOutbox } from "./room";
import { silentQuestionOutbox } from "./questions";
import { durableOutbox } from "./registry";
import { SqliteSessionStore } from "../store/sqlite";

/** A room with a real (in-memory) SQLite store, a recording outbox and fake timers. */
function setup() {
  const store = new SqliteSessionStore(":memory:");
  const sent = { public: 0, host: 0, tallies: [] as { audience: string; tally: TallyUpdate }[], kicked: [] as string[] };
  const outbox: RoomOutbox = {
    publicSnapshot: () => void sent.public++,
    hostSnapshot: () => void sent.host++,
    tallySuperseded: () => undefined,
    tally: (tally, forClass) => {
      sent.tallies.push({ audience: "tally" in forClass ? "everyone" : "host", tally });
      if ("snapshot" in forClass) sent.public++;
    },
    myVote: () => undefined,
    presence: () => undefined,
    rosterChanges: () => undefined,
    renamed: () => undefined,
    kick: (id) => void sent.kicked.push(id),
    kickProjectors: () => void sent.kicked.push("projectors"),
    ...silentQuestionOutbox,
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

// setImmediate stays real: the store writes its batch on it.
beforeEach(() => vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] }));
afterEach(() => vi.useRealTimers());

describe("Room", () => {
  it("coalesces a vote storm into a few tally messages and sends the final one on close", async () => {
    const { room, sent, store } = setup();
    for (let i = 0; i < 1000; i++) room.addParticipant(`p${i}`, `s${i}`);
    const { data } = room.handle({ event: "poll:open", payload: { kind: "next-step", durationS: 0 } }) as {
      ok: true;
      data: { pollId: string };
    };
    const poll = room.snapshotState.polls[data.pollId];
    // 1000 votes spread over one second.
    for (let i = 0; i < 1000; i++) {
      expect(
        room.handle({ event: "poll:vote", payload: { pollId: data.pollId, optionId: poll.options[i % 4].id } }, { participantId: `p${i}` })
          .ok,
      ).toBe(true);
      vi.advanceTimersByTime(1);
    }
    vi.advanceTimersByTime(TALLY_BROADCAST_INTERVAL_MS);
    await store.flush();
    const perSecond = 1000 / TALLY_BROADCAST_INTERVAL_MS;
    expect(sent.tallies.length).toBeLessThanOrEqual(perSecond + 2);
    expect(sent.tallies.at(-1)!.tally.total).toBe(1000);
    expect(sent.tallies.every((t) => t.audience === "host")).toBe(true);
    // The class hears how many voted, at the tally's pace, and nothing of the distribution.
    expect(sent.public).toBeGreaterThan(0);
    expect(sent.public).toBeLessThanOrEqual(perSecond + 3);
    expect(room.publicSnapshot().poll).toMatchObject({ voted: 1000, results: null });
    const publicBefore = sent.public;
    room.handle({ event: "poll:close", payload: { pollId: data.pollId } });
    await store.flush();
    expect(sent.public).toBe(publicBefore + 1);
    expect(room.publicSnapshot().poll!.status).toBe("closed");
    expect(room.hostSnapshot().poll!.results.total).toBe(1000);
    room.dispose();
  });

  it("closes a timed poll by itself, and re-arms the countdown from the log after a restart", async () => {
    const { room, store } = setup();
    room.addParticipant("p1", "Sam");
    const { data } = room.handle({ event: "poll:open", payload: { kind: "next-step", durationS: 15 } }) as {
      ok: true;
      data: { pollId: string };
    };
    vi.advanceTimersByTime(5_000);
    await store.flush();
    // The process dies here; a new room is rebuilt from the same store.
    room.dispose();
    const revived = new Room(replay(store.loadEventsSync("s1")), {
      store,
      outbox: silentRoomOutbox,
      now: () => Date.now(),
      newId: () => "x",
      shuffle: (xs) => xs,
    });
    expect(revived.publicSnapshot().poll!.status).toBe("open");
    vi.advanceTimersByTime(9_000);
    expect(revived.publicSnapshot().poll!.status).toBe("open");
    vi.advanceTimersByTime(1_100);
    expect(revived.publicSnapshot().poll!.status).toBe("closed");
    await store.flush();
    expect(store.loadEventsSync("s1").at(-1)).toMatchObject({ type: "poll:closed", pollId: data.pollId });
    revived.dispose();
  });

  it("writes every teaching event to the log before publishing it", async () => {
    const { room, store, sent } = setup();
    room.handle({ event: "step:move", payload: { delta: 1 } });
    room.handle({ event: "mode:set", payload: { mode: "Immediate", variant: "standard" } });
    // Not yet durable, so not yet published.
    expect(sent.public).toBe(0);
    await store.flush();
    expect(sent.public).toBe(2);
    const types = store.loadEventsSync("s1").map((e) => e.type);
    expect(types).toEqual(["session:created", "step:changed", "mode:changed"]);
    expect(replay(store.loadEventsSync("s1"))).toEqual(room.snapshotState);
    room.dispose();
  });

  it("closes an open poll with its counts when the session ends", async () => {
    const { room, store } = setup();
    room.addParticipant("p1", "Sam");
    const { data } = room.handle({
      event: "poll:open",
      payload: { kind: "custom", question: "q", options: ["a", "b"], correctIndex: null, durationS: 0 },
    }) as {
      ok: true;
      data: { pollId: string };
    };
    room.handle({ event: "poll:vote", payload: { pollId: data.pollId, optionId: "o2" } }, { participantId: "p1" });
    room.end();
    await store.flush();
    const tail = store.loadEventsSync("s1").slice(-2);
    expect(tail).toMatchObject([
      { type: "poll:closed", pollId: data.pollId, counts: { o1: 0, o2: 1 }, total: 1 },
      { type: "session:ended" },
    ]);
  });

  it("removes a participant: their vote stops counting and they are kicked", async () => {
    const { room, sent, store } = setup();
    room.addParticipant("p1", "Sam");
    const { data } = room.handle({
      event: "poll:open",
      payload: { kind: "custom", question: "q", options: ["a", "b"], correctIndex: null, durationS: 0 },
    }) as {
      ok: true;
      data: { pollId: string };
    };
    room.handle({ event: "poll:vote", payload: { pollId: data.pollId, optionId: "o1" } }, { participantId: "p1" });
    expect(room.handle({ event: "participant:remove", payload: { participantId: "p1" } }).ok).toBe(true);
    await store.flush();
    expect(sent.kicked).toEqual(["p1"]);
    expect(room.hostSnapshot().poll!.results.total).toBe(0);
    expect(room.handle({ event: "poll:vote", payload: { pollId: data.pollId, optionId: "o1" } }, { participantId: "p1" })).toMatchObject({
      ok: false,
      error: { code: "REMOVED" },
    });
    room.dispose();
  });
});
