import { describe, expect, it } from "vitest";
import type { Patch } from "../../lib/protocol";
import { Replica } from "../../lib/protocol/replica";
import type { StreamRecords } from "../../lib/session/projection";
import { RoomSync, silentRoomOutbox, type RoomOutbox } from "./roomSync";

/**
 * A resync from a client that holds a recent copy gets what changed since,
 * not the whole stream (issue 28): the same records as a whole patch, in
 * patches the client applies by the one rule, and its next live patch
 * follows on from them.
 */

type ClassRecords = Partial<StreamRecords["public"]>;

/** A room's class stream by hand: its records are whatever the test puts in `records`. */
function room() {
  const records: Record<string, unknown> = { session: { stepIndex: 0 }, presence: { participantCount: 1 } };
  const sent: Patch[] = [];
  const outbox: RoomOutbox = { ...silentRoomOutbox, toClass: (p) => sent.push(p), toProjectors: (p) => sent.push(p) };
  // The records stand in for the class's projection; their shapes do not matter to the clock.
  const projection = () => ({ ...records }) as ClassRecords;
  const sync = new RoomSync(outbox, { public: projection, host: () => ({}), me: () => ({}) });
  /** Changes the records and sends the change to the class, as the room does. */
  const change = (put: Record<string, unknown>, del: string[] = [], volatile = false) => {
    Object.assign(records, put);
    for (const key of del) delete records[key];
    sync.toClass({ put: put as ClassRecords, del: del as never[] }, volatile);
  };
  return { records, sent, sync, change };
}

const question = (n: number) => ({ text: `question ${n}`.padEnd(280, "."), votes: 0 });

describe("a resync from a recent copy", () => {
  it("sends what changed since the client's clock, as the records are now, and the client ends where a whole copy would", () => {
    const { sent, sync, change } = room();
    change({ "q:a": question(1) }); // the stream's first patch goes out whole
    for (let n = 2; n <= 40; n++) change({ [`q:${n}`]: question(n) });
    const client = new Replica();
    for (const p of sent) expect(client.apply(p)).toBe("applied");
    const held = client.held().public!;

    // Then the client misses three patches: an upvote, a hidden question, a new one; and a count goes by.
    change({ "q:a": { ...question(1), votes: 3 } });
    change({}, ["q:7"]);
    change({ "q:41": question(41) });
    change({ presence: { participantCount: 2 } }, [], true);
    const changes = sync.changesSince("public", held)!;
    expect(changes.map((p) => [p.from, p.to, p.volatile ?? false])).toEqual([
      [held.clock, sent.at(-2)!.to, false],
      [sent.at(-2)!.to, sent.at(-1)!.to, true],
    ]);
    expect(Object.keys(changes[0].put ?? {}).sort()).toEqual(["q:41", "q:a"]);
    expect(changes[0].del).toEqual(["q:7"]);
    // A few hundred bytes where the whole is more than 12,000.
    expect(JSON.stringify(changes).length).toBeLessThan(1_500);
    expect(JSON.stringify(sync.whole("public")).length).toBeGreaterThan(12_000);

    for (const p of changes) expect(client.apply(p)).toBe("applied");
    const whole = new Replica();
    whole.apply(sync.whole("public"));
    expect(client.collection("public", "q")).toEqual(whole.collection("public", "q"));
    expect(client.single("public", "presence")).toEqual({ participantCount: 2 });
    // The next live patch follows on from the copy the changes made.
    change({ "q:42": question(42) });
    expect(client.apply(sent.at(-1)!)).toBe("applied");
    // Nothing changed since: nothing to send.
    expect(sync.changesSince("public", client.held().public!)).toEqual([]);
  });

  it("answers with the whole stream for another instance, a clock never sent, or a copy far behind", () => {
    const { sent, sync, change } = room();
    change({ "q:a": question(1) });
    const first = sent[0];
    expect(sync.changesSince("public", { instance: "another", clock: first.to })).toBeNull();
    expect(sync.changesSince("public", { instance: sync.instance, clock: first.to + 100 })).toBeNull();
    for (let n = 2; n <= 200; n++) change({ [`q:${n}`]: question(n) });
    // 199 records changed of 202: the whole says it as well.
    expect(sync.changesSince("public", { instance: sync.instance, clock: first.to })).toBeNull();
    expect(sync.changesSince("public", { instance: sync.instance, clock: sent.at(-3)!.to })).toHaveLength(1);
  });
});
