import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { TALLY_BROADCAST_INTERVAL_MS } from "../../lib/constants";
import type { Patch } from "../../lib/protocol";
import { Replica, snapshotOf } from "../../lib/protocol/replica";
import { replay, type SessionEvent } from "../../lib/session";
import { Room, silentRoomOutbox, type RoomOutbox } from "./room";
import { durableOutbox } from "./registry";
import { SqliteSessionStore } from "../store/sqlite";

/** One patch as the outbox was asked to send it: to whom ("class", "projectors", "host", or a participant id), and how. */
interface Sent {
  to: string;
  patch: Patch;
  /** Sent as a running count (the paced fan-out). */
  tally?: true;
}

/** An outbox that records every patch with its target, and every kick. */
function recordingOutbox() {
  const sent: Sent[] = [];
  const kicked: string[] = [];
  const outbox: RoomOutbox = {
    toClass: (patch) => void sent.push({ to: "class", patch }),
    toProjectors: (patch) => void sent.push({ to: "projectors", patch }),
    toHosts: (patch) => void sent.push({ to: "host", patch }),
    toParticipant: (participantId, patch) => void sent.push({ to: participantId, patch }),
    tally: (forHosts, forClass) => {
      sent.push({ to: "host", patch: forHosts, tally: true });
      sent.push({ to: "class", patch: forClass, tally: true });
    },
    tallySuperseded: () => undefined,
    kick: (participantId) => void kicked.push(participantId),
    kickProjectors: () => void kicked.push("projectors"),
  };
  return { sent, kicked, outbox };
}

/** A room with a real (in-memory) SQLite store, a recording outbox and fake timers. */
function setup() {
  const store = new SqliteSessionStore(":memory:");
  const { sent, kicked, outbox } = recordingOutbox();
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
  return { room, store, sent, kicked };
}

type StreamPatch<S extends Patch["stream"]> = Extract<Patch, { stream: S }>;
const of =
  <S extends Patch["stream"]>(to: string, stream: S) =>
  (sent: readonly Sent[]): StreamPatch<S>[] =>
    sent.flatMap((s) => (s.to === to && s.patch.stream === stream ? [s.patch as StreamPatch<S>] : []));
/** What went to every student and projector. */
const toClass = of("class", "public");
/** What went to the teacher's sockets. */
const toHost = of("host", "host");
/** Patches that carry the session record (a step, a mode, a poll's state). */
const withSession = <P extends Patch>(patches: readonly P[]) => patches.filter((p) => p.put !== undefined && "session" in p.put);

// setImmediate stays real: the store writes its batch on it.
beforeEach(() => vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] }));
afterEach(() => vi.useRealTimers());

describe("Room", () => {
  it("coalesces a vote storm into a few running counts and sends the final word on close", async () => {
    const { room, sent, store } = setup();
    for (let i = 0; i < 1000; i++) room.addParticipant(`p${i}`, `s${i}`);
    const { data } = room.handle({ event: "poll:open", payload: { kind: "next-step", durationS: 0 } }) as {
      ok: true;
      data: { pollId: string };
    };
    const poll = room.snapshotState.polls[data.pollId];
    await store.flush();
    // What a student's page and the teacher's console hold from here (a socket joining now), kept by the clients' one rule.
    const student = new Replica();
    const teacher = new Replica();
    for (const p of room.projection("public", null)) student.apply(p);
    for (const p of room.projection("host", null)) teacher.apply(p);
    sent.length = 0;
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
    const hostCounts = toHost(sent);
    expect(hostCounts.length).toBeGreaterThan(0);
    expect(hostCounts.length).toBeLessThanOrEqual(perSecond + 2);
    expect(hostCounts.every((p) => p.volatile === true && p.put?.tally !== undefined)).toBe(true);
    expect(hostCounts.at(-1)!.put!.tally).toMatchObject({ total: 1000, counts: { [poll.options[0].id]: 250 } });
    // The class hears how many voted, at the same pace, and nothing of the distribution (results are hidden).
    const classCounts = toClass(sent);
    expect(classCounts).toHaveLength(hostCounts.length);
    expect(classCounts.map((p) => ({ volatile: p.volatile, records: Object.keys(p.put ?? {}), counts: p.put?.tally?.counts }))).toEqual(
      classCounts.map(() => ({ volatile: true, records: ["tally"], counts: undefined })),
    );
    expect(classCounts.at(-1)!.put!.tally).toMatchObject({ total: 1000 });
    expect(sent.every((s) => s.to === "class" || s.to === "host")).toBe(true);
    // Each count follows on from what the clients hold: nothing is a gap or stale.
    expect(classCounts.map((p) => student.apply(p))).toEqual(classCounts.map(() => "applied"));
    expect(hostCounts.map((p) => teacher.apply(p))).toEqual(hostCounts.map(() => "applied"));
    expect(snapshotOf(student)?.poll).toMatchObject({ voted: 1000, results: null });
    expect(snapshotOf(teacher)?.poll).toMatchObject({ voted: 1000 });
    expect(room.publicSnapshot().poll).toMatchObject({ voted: 1000, results: null });

    const mark = sent.length;
    room.handle({ event: "poll:close", payload: { pollId: data.pollId } });
    await store.flush();
    // No count still pending after the close.
    vi.advanceTimersByTime(TALLY_BROADCAST_INTERVAL_MS * 4);
    await store.flush();
    const closing = sent.slice(mark);
    // One ordered patch to the class: the closed poll, and the running count gone.
    const classClose = toClass(closing);
    expect(classClose).toHaveLength(1);
    expect(classClose[0].volatile).toBeUndefined();
    expect(classClose[0].put?.session?.poll).toMatchObject({ id: data.pollId, status: "closed", voted: 1000 });
    expect(classClose[0].del).toEqual(["tally"]);
    const hostClose = toHost(closing);
    expect(hostClose).toHaveLength(1);
    expect(hostClose[0].put?.session?.poll).toMatchObject({ status: "closed", results: { total: 1000 } });
    expect(student.apply(classClose[0])).toBe("applied");
    expect(teacher.apply(hostClose[0])).toBe("applied");
    expect(snapshotOf(student)?.poll).toMatchObject({ status: "closed", voted: 1000 });
    expect(snapshotOf(teacher)?.poll).toMatchObject({ status: "closed", results: { total: 1000 } });
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
    expect(sent).toEqual([]);
    await store.flush();
    // Each step in its own patch, each taken when its event was applied (the first one of the room's instance whole).
    const published = withSession(toClass(sent));
    expect(published.map((p) => [p.whole ?? false, p.put?.session?.mode])).toEqual([
      [true, "WaitForFirstConsumer"],
      [false, "Immediate"],
    ]);
    expect(published[0].put?.session?.stepIndex).toBe(1);
    expect(published[1].put?.session).toEqual(room.publicSnapshot());
    expect(withSession(toHost(sent))).toHaveLength(2);
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
    const { room, kicked, store } = setup();
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
    expect(kicked).toEqual(["p1"]);
    expect(room.hostSnapshot().poll!.results.total).toBe(0);
    expect(room.handle({ event: "poll:vote", payload: { pollId: data.pollId, optionId: "o1" } }, { participantId: "p1" })).toMatchObject({
      ok: false,
      error: { code: "REMOVED" },
    });
    room.dispose();
  });
});
