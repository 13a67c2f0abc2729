import { afterEach, describe, expect, it, vi } from "vitest";
import { BatchedStore, PEAK_WRITE_DELAY_MS } from "../store/writeQueue";
import type { QueuedWrite } from "../store/types";

/** A store that only records the batches it is asked to write. */
class RecordingStore extends BatchedStore {
  readonly batches: QueuedWrite[][] = [];
  constructor() {
    super("events", () => undefined, "sqlite");
  }
  protected writeBatch(batch: QueuedWrite[]): void {
    this.batches.push(batch.map((write) => ({ ...write })));
  }
}

describe("a join storm's peaks", () => {
  it("are written once per batch and session, with the highest count, in the place of the first", async () => {
    const store = new RecordingStore();
    for (let peak = 1; peak <= 50; peak++) {
      await store.saveParticipantToken("s1", `p${peak}`, `hash${peak}`);
      store.notePeakParticipants("s1", peak);
    }
    store.notePeakParticipants("s2", 3);
    await store.flush();
    const peaks = store.batches.flat().filter((write) => write.kind === "peak");
    expect(peaks).toEqual([
      { kind: "peak", sessionId: "s1", peak: 50 },
      { kind: "peak", sessionId: "s2", peak: 3 },
    ]);
    // The next batch gets a write of its own.
    store.notePeakParticipants("s1", 51);
    await store.flush();
    expect(store.batches.at(-1)).toEqual([{ kind: "peak", sessionId: "s1", peak: 51 }]);
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  it("start no write of their own: they ride with the next joins' batch, or go alone once the room is quiet", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const store = new RecordingStore();
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    // A socket connected after its join was written: its peak waits.
    store.notePeakParticipants("s1", 1);
    await turn();
    expect(store.batches).toEqual([]);
    // The next join's batch carries it, and the join waits for nothing more than its own write.
    await store.saveParticipantToken("s1", "p2", "hash2");
    await store.flush("s1");
    expect(store.batches).toEqual([
      [
        { kind: "token", sessionId: "s1", participantId: "p2", tokenHash: "hash2" },
        { kind: "peak", sessionId: "s1", peak: 1 },
      ],
    ]);
    // With nothing else to write, the peak goes on its own a moment later.
    store.notePeakParticipants("s1", 2);
    await turn();
    expect(store.batches).toHaveLength(1);
    vi.advanceTimersByTime(PEAK_WRITE_DELAY_MS);
    await turn();
    await turn();
    expect(store.batches.at(-1)).toEqual([{ kind: "peak", sessionId: "s1", peak: 2 }]);
  });
});
