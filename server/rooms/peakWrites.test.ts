import { describe, expect, it } from "vitest";
import { BatchedStore } from "../store/writeQueue";
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
});
