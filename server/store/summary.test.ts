import { describe, expect, it } from "vitest";
import { addEvent, deltaOf, emptyDelta } from "./summary";

describe("a session's summary", () => {
  it("counts every event, the students who joined and the polls opened, and keeps the last time", () => {
    const delta = deltaOf([
      { type: "session:created", at: 1 },
      { type: "participant:joined", at: 2 },
      { type: "poll:opened", at: 3 },
      { type: "poll:voted", at: 4 },
      { type: "poll:reopened", at: 5 },
      { type: "participant:readmitted", at: 6 },
    ]);
    expect(delta).toEqual({ events: 6, participants: 1, polls: 1, lastEventAt: 6, endedAt: null });
  });

  it("adds to what a batch already counted, and says when the session ended", () => {
    const delta = emptyDelta();
    addEvent(delta, { type: "participant:joined", at: 10 });
    addEvent(delta, { type: "session:ended", at: 20 });
    expect(delta).toEqual({ events: 2, participants: 1, polls: 0, lastEventAt: 20, endedAt: 20 });
  });
});
