import { describe, expect, it } from "vitest";
import { RoomRegistry } from "./registry";
import { SqliteSessionStore } from "../store/sqlite";
import { silentRoomOutbox, type RoomOutbox } from "./room";

describe("RoomRegistry", () => {
  it("stops a tally still going out as soon as a newer snapshot is decided, and sends the snapshot once it is written", async () => {
    const store = new SqliteSessionStore(":memory:");
    const calls: string[] = [];
    const recorder = Object.fromEntries(
      Object.keys(silentRoomOutbox).map((name) => [name, () => void calls.push(name)]),
    ) as unknown as RoomOutbox;
    const rooms = new RoomRegistry({ store, outboxFor: () => recorder, idleTimeoutMs: 0 });
    const { id } = await rooms.create("class");
    await store.flush();
    calls.length = 0;

    rooms.get(id)!.handle({ event: "step:move", payload: { delta: 1 } });
    // Before the step is on disk: the stale tally stops, nothing is announced yet.
    expect(calls).toEqual(["tallySuperseded"]);
    await store.flush();
    expect(calls).toEqual(["tallySuperseded", "toClass", "toHosts"]);
    rooms.disposeAll();
  });

  it("ends sessions left idle past the timeout, and only those", async () => {
    let now = 1_000_000;
    const store = new SqliteSessionStore(":memory:");
    const rooms = new RoomRegistry({ store, outboxFor: () => silentRoomOutbox, now: () => now, idleTimeoutMs: 60_000 });
    const idle = await rooms.create("idle");
    const busy = await rooms.create("busy");
    const watched = await rooms.create("watched");
    rooms.get(watched.id)!.presence.watcherJoined("host");

    now += 50_000;
    rooms.get(busy.id)!.handle({ event: "step:move", payload: { delta: 1 } });
    now += 20_000; // idle: 70 s quiet; busy: 20 s since its last event; watched: someone is connected
    rooms.sweepIdle();
    await store.flush();

    expect(rooms.get(idle.id)).toBeNull();
    expect(rooms.get(busy.id)).not.toBeNull();
    expect(rooms.get(watched.id)).not.toBeNull();
    expect((await store.getSession(idle.id))!.endedAt).toBe(now);
    expect((await store.loadEvents(idle.id)).at(-1)!.type).toBe("session:ended");
    // An ended session is never loaded again as live.
    expect(await rooms.byRoomCode(idle.code)).toBeNull();
    rooms.disposeAll();
  });

  it("recovers every live session after a restart, and not the ended ones", async () => {
    const store = new SqliteSessionStore(":memory:");
    const first = new RoomRegistry({ store, outboxFor: () => silentRoomOutbox, idleTimeoutMs: 0 });
    const live = await first.create("live");
    const over = await first.create("over");
    first.get(live.id)!.handle({ event: "step:go", payload: { stepIndex: 4 } });
    first.get(over.id)!.end();
    await store.flush();
    first.disposeAll();

    const second = new RoomRegistry({ store, outboxFor: () => silentRoomOutbox, idleTimeoutMs: 0 });
    expect(await second.recoverAll()).toBe(1);
    expect(second.get(live.id)!.snapshotState.stepIndex).toBe(4);
    expect(second.get(over.id)).toBeNull();
    second.disposeAll();
  });
});
