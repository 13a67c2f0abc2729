import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PRESENCE_BROADCAST_INTERVAL_MS, QUESTION_BROADCAST_INTERVAL_MS } from "../../lib/constants";
import type { Patch } from "../../lib/protocol";
import { Replica, questionsOf } from "../../lib/protocol/replica";
import { replay, type SessionEvent } from "../../lib/session";
import { durableOutbox } from "./registry";
import { Room, type RoomOutbox } from "./room";
import { SqliteSessionStore } from "../store/sqlite";

/** One patch as the outbox was asked to send it: to whom ("class", "projectors", "host", or a participant id). */
interface Sent {
  to: string;
  patch: Patch;
}

/** A room with a real (in-memory) SQLite store, an outbox that records every patch with its target, and fake timers. */
function setup() {
  const store = new SqliteSessionStore(":memory:");
  const sent: Sent[] = [];
  const outbox: RoomOutbox = {
    toClass: (patch) => void sent.push({ to: "class", patch }),
    toProjectors: (patch) => void sent.push({ to: "projectors", patch }),
    toHosts: (patch) => void sent.push({ to: "host", patch }),
    toParticipant: (participantId, patch) => void sent.push({ to: participantId, patch }),
    tally: (forHosts, forClass) => {
      sent.push({ to: "host", patch: forHosts });
      sent.push({ to: "class", patch: forClass });
    },
    tallySuperseded: () => undefined,
    kick: () => undefined,
    kickProjectors: () => undefined,
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

/** A record a patch puts or deletes, by key: its value, or "gone". */
function recordIn(patch: Patch, key: string): unknown {
  if (patch.del?.some((k) => k === key)) return "gone";
  return Object.entries(patch.put ?? {}).find(([k]) => k === key)?.[1];
}

/** Who was told what of one record, in order: [target, its status (a question) or value, or "gone"]. */
function told(sent: readonly Sent[], key: string): [string, unknown][] {
  return sent.flatMap(({ to, patch }) => {
    const record = recordIn(patch, key);
    if (record === undefined) return [];
    const status = typeof record === "object" && record !== null && "status" in record ? record.status : record;
    return [[to, status]];
  });
}

/**
 * What one student's page (or, with no participant, a projector) holds: the
 * whole projection a socket joining now gets, then every patch the outbox
 * sends its way, by the clients' one rule.
 */
function page(room: Room, sent: readonly Sent[], participantId: string | null) {
  const replica = new Replica();
  for (const p of room.projection("public", participantId)) replica.apply(p);
  const targets = new Set(["class", participantId ?? "projectors"]);
  let read = sent.length;
  const outcomes: string[] = [];
  return {
    /** The questions the page lists, after applying what was sent since. */
    questions() {
      for (const { to, patch } of sent.slice(read)) if (targets.has(to)) outcomes.push(replica.apply(patch));
      read = sent.length;
      return questionsOf(replica);
    },
    outcomes,
  };
}

const ask = (text: string) =>
  ({ event: "question:ask", payload: { text, target: { kind: "step", stepIndex: 0 }, anonymous: false } }) as const;

beforeEach(() => vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] }));
afterEach(() => vi.useRealTimers());

describe("the room's questions", () => {
  it("coalesces an upvote storm on one question into a few batches per audience, each with the latest count", async () => {
    const { room, sent, store } = setup();
    for (let i = 0; i < 1000; i++) room.addParticipant(`p${i}`, `s${i}`);
    const asked = room.handle(ask("Why is this arrow dashed?"), { participantId: "p0" });
    expect(asked).toMatchObject({ ok: true, data: { status: "open" } });
    await store.flush();
    const student = page(room, sent, "p5");
    const mark = sent.length;
    // 999 upvotes spread over one second.
    for (let i = 1; i < 1000; i++) {
      expect(room.handle({ event: "question:upvote", payload: { questionId: "id1", upvoted: true } }, { participantId: `p${i}` }).ok).toBe(
        true,
      );
      vi.advanceTimersByTime(1);
    }
    vi.advanceTimersByTime(QUESTION_BROADCAST_INTERVAL_MS);
    await store.flush();
    const storm = sent.slice(mark);
    const toClass = storm.filter((s) => s.to === "class");
    const toHost = storm.filter((s) => s.to === "host");
    expect(toClass.length).toBeGreaterThan(0);
    expect(toClass.length).toBeLessThanOrEqual(1000 / QUESTION_BROADCAST_INTERVAL_MS + 2);
    // Every message to the class is a question batch (nothing else went to the whole class for it).
    expect(toClass.every((s) => recordIn(s.patch, "q:id1") !== undefined)).toBe(true);
    expect(toHost.filter((s) => recordIn(s.patch, "q:id1") !== undefined)).toHaveLength(toClass.length);
    expect(toClass.at(-1)!.patch.put).toEqual({ "q:id1": expect.objectContaining({ id: "id1", votes: 999, by: "s0" }) });
    expect(recordIn(toHost.at(-1)!.patch, "q:id1")).toMatchObject({ votes: 999 });
    // Each voter's own tabs hear about their upvote: one patch to that participant, not to the class.
    const toVoters = storm.filter((s) => !["class", "host", "projectors"].includes(s.to));
    expect(toVoters.map((s) => s.to)).toEqual(Array.from({ length: 999 }, (_, i) => `p${i + 1}`));
    expect(toVoters.map((s) => Object.keys(s.patch.put ?? {}).filter((k) => k.startsWith("u:")))).toEqual(toVoters.map(() => ["u:id1"]));
    expect(toVoters.every((s) => s.patch.stream === "me" && recordIn(s.patch, "u:id1") === true)).toBe(true);
    // No session record was sent for any of it.
    expect(storm.some((s) => recordIn(s.patch, "session") !== undefined)).toBe(false);
    // A student's page follows: the latest count, and the upvote marked as theirs.
    expect(student.questions()).toMatchObject({ questions: [{ id: "id1", votes: 999 }], myUpvotes: ["id1"], mine: [] });
    expect(new Set(student.outcomes)).toEqual(new Set(["applied"]));
    room.dispose();
  });

  it("tells only the asker about a pending question, the class once approved, and the class again when it is hidden", async () => {
    const { room, sent, store } = setup();
    room.addParticipant("ada", "Ada");
    room.addParticipant("bo", "Bo");
    room.handle({ event: "questions:configure", payload: { mode: "moderated", names: "either" } });
    await store.flush();
    expect(sent.filter((s) => s.to === "class" && recordIn(s.patch, "session") !== undefined)).toHaveLength(1);
    const adaPage = page(room, sent, "ada");
    const boPage = page(room, sent, "bo");
    const projector = page(room, sent, null);
    let mark = sent.length;
    room.handle(ask("pending one"), { participantId: "ada" });
    vi.advanceTimersByTime(QUESTION_BROADCAST_INTERVAL_MS);
    await store.flush();
    expect(told(sent.slice(mark), "q:id1")).toEqual([
      ["host", "pending"],
      ["ada", "pending"],
    ]);
    // "Yours": to the asker's tabs only.
    const yours = told(sent.slice(mark), "m:id1");
    expect(yours.length).toBeGreaterThan(0);
    expect(yours.every(([to, value]) => to === "ada" && value === true)).toBe(true);
    expect(adaPage.questions()).toMatchObject({ questions: [{ id: "id1", status: "pending", text: "pending one" }], mine: ["id1"] });
    expect(boPage.questions()?.questions).toEqual([]);
    expect(projector.questions()?.questions).toEqual([]);

    mark = sent.length;
    room.handle({ event: "question:approve", payload: { questionId: "id1" } });
    vi.advanceTimersByTime(QUESTION_BROADCAST_INTERVAL_MS);
    await store.flush();
    // The class gets it; the asker's own copy goes (the class's record stands for it).
    expect(told(sent.slice(mark), "q:id1")).toEqual([
      ["host", "open"],
      ["class", "open"],
      ["ada", "gone"],
    ]);
    for (const p of [adaPage, boPage, projector])
      expect(p.questions()?.questions).toEqual([expect.objectContaining({ id: "id1", status: "open" })]);
    expect(adaPage.questions()).toMatchObject({ mine: ["id1"] });

    mark = sent.length;
    room.handle({ event: "question:hide", payload: { questionId: "id1", hidden: true } });
    vi.advanceTimersByTime(QUESTION_BROADCAST_INTERVAL_MS);
    await store.flush();
    expect(told(sent.slice(mark), "q:id1")).toEqual([
      ["host", "open"],
      ["class", "gone"],
    ]);
    expect(recordIn(sent.slice(mark).find((s) => s.to === "host")!.patch, "q:id1")).toMatchObject({ hidden: true });
    for (const p of [adaPage, boPage, projector]) expect(p.questions()?.questions).toEqual([]);

    // A pending question the teacher hides (rejects) is gone for its asker only: the class never heard of it.
    mark = sent.length;
    room.handle(ask("rejected"), { participantId: "bo" });
    vi.advanceTimersByTime(QUESTION_BROADCAST_INTERVAL_MS);
    room.handle({ event: "question:hide", payload: { questionId: "id2", hidden: true } });
    vi.advanceTimersByTime(QUESTION_BROADCAST_INTERVAL_MS);
    await store.flush();
    expect(told(sent.slice(mark), "q:id2").filter(([to]) => to !== "host")).toEqual([
      ["bo", "pending"],
      ["bo", "gone"],
    ]);
    expect(boPage.questions()).toMatchObject({ questions: [], mine: ["id2"] });
    expect(adaPage.questions()?.questions).toEqual([]);
    expect(projector.questions()?.questions).toEqual([]);
    // Every page followed without a gap.
    for (const p of [adaPage, boPage, projector]) expect(p.outcomes.every((o) => o === "applied")).toBe(true);
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
    const mark = sent.length;
    expect(room.handle({ event: "lookback:set", payload: { lookingBack: true } }, { participantId: "ada" })).toEqual({
      ok: true,
      data: null,
    });
    room.handle({ event: "lookback:set", payload: { lookingBack: true } }, { participantId: "bo" }, "bo-tab");
    room.handle({ event: "lookback:set", payload: { lookingBack: true } }, { participantId: "bo" }, "bo-tab");
    vi.advanceTimersByTime(PRESENCE_BROADCAST_INTERVAL_MS);
    await store.flush();
    expect(told(sent.slice(mark), "lookback")).toEqual([
      ["host", { count: 1 }],
      ["host", { count: 2 }],
    ]);
    expect(room.presence.lookingBackCount).toBe(2);
    room.presence.disconnect("bo", "bo-tab");
    vi.advanceTimersByTime(PRESENCE_BROADCAST_INTERVAL_MS);
    await store.flush();
    expect(told(sent, "lookback").at(-1)).toEqual(["host", { count: 1 }]);
    // Only the teacher's sockets ever hear it.
    expect(told(sent, "lookback").every(([to]) => to === "host")).toBe(true);
    // A student who is not connected cannot be counted.
    room.handle({ event: "lookback:set", payload: { lookingBack: true } }, { participantId: "bo" });
    expect(room.presence.lookingBackCount).toBe(1);
    expect(room.snapshotState.seq).toBe(seq);
    room.dispose();
  });
});
