import { describe, expect, it } from "vitest";
import { decide, type DurableCommand } from "./decide";
import { applyEvent, initialState, replay } from "./reducer";
import { shareableLog } from "./export";
import { sessionEventSchema } from "./eventSchema";
import type { SessionEvent, SessionEventBody, SessionState } from "./types";
import { toPublicSnapshot } from "./views";

function run(state: SessionState, command: DurableCommand) {
  const decision = decide(state, command, { participantId: null }, { now: 1_000, newId: () => "x", shuffle: (xs) => xs });
  if (decision.ok) for (const body of decision.events) applyEvent(state, { ...body, seq: state.seq + 1, at: 1_000 });
  return decision;
}

function created(extra: Partial<Extract<SessionEventBody, { type: "session:created" }>> = {}): SessionState {
  const s = initialState();
  applyEvent(s, { type: "session:created", id: "s1", code: "KUBE42", title: "t", ...extra, seq: 1, at: 1 });
  return s;
}

describe("the Kubernetes release a session prints", () => {
  it("is chosen at creation, kept in the log, and switched by the teacher for every screen", () => {
    const s = created({ kubeVersion: "1.35" });
    expect(toPublicSnapshot(s, 0).kubeVersion).toBe("1.35");
    expect(run(s, { event: "version:set", payload: { version: "1.32" } })).toEqual({
      ok: true,
      events: [{ type: "version:changed", version: "1.32" }],
      data: null,
    });
    expect(toPublicSnapshot(s, 0).kubeVersion).toBe("1.32");
    // The same release again writes nothing.
    expect(run(s, { event: "version:set", payload: { version: "1.32" } })).toEqual({ ok: true, events: [], data: null });
  });

  it("replays what the class saw: a log from before the switch is 1.33's, a switch mid-class stays where it happened", () => {
    expect(created().kubeVersion).toBe("1.33");
    const log: SessionEvent[] = [
      { type: "session:created", id: "s1", code: "KUBE42", title: "t", kubeVersion: "1.35", seq: 1, at: 1 },
      { type: "step:changed", stepIndex: 2, seq: 2, at: 2 },
      { type: "version:changed", version: "1.32", seq: 3, at: 3 },
    ];
    expect(replay(log, 2).kubeVersion).toBe("1.35");
    expect(replay(log).kubeVersion).toBe("1.32");
    // A share link sees the release too: it is what the whole class saw.
    expect(replay(shareableLog(log)).kubeVersion).toBe("1.32");
  });

  it("refuses a release it does not know, in a command or in a log", () => {
    const s = created({ kubeVersion: "1.35" });
    applyEvent(s, { type: "version:changed", version: "1.99" as never, seq: 2, at: 2 });
    expect(s.kubeVersion).toBe("1.35");
    expect(sessionEventSchema.safeParse({ type: "version:changed", version: "1.99", seq: 2, at: 2 }).success).toBe(false);
    expect(sessionEventSchema.safeParse({ type: "version:changed", version: "1.34", seq: 2, at: 2 }).success).toBe(true);
  });

  it("has no release for a teacher's own lesson", () => {
    const s = created({
      lesson: {
        id: "l1",
        version: 1,
        lesson: {
          title: "OAuth",
          lifelines: [{ id: "C", name: "Client" }],
          steps: [{ from: "C", to: "C", line: "solid", head: "filled", title: "hi" }],
        },
      },
    });
    expect(run(s, { event: "version:set", payload: { version: "1.32" } })).toMatchObject({ ok: false, error: { code: "BAD_REQUEST" } });
  });
});
