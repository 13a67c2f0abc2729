import { describe, expect, it } from "vitest";
import { decide, type DurableCommand } from "./decide";
import { applyEvent, initialState } from "./reducer";
import type { SessionEventBody, SessionState } from "./types";
import { toHostSnapshot, toPublicSnapshot } from "./views";
import type { SessionLesson } from "../lesson/model";

/** Decide, then fold what was decided: the way the room runs a teacher's command. */
function run(state: SessionState, command: DurableCommand) {
  const decision = decide(state, command, { participantId: null }, { now: 1_000, newId: () => "poll1", shuffle: (xs) => xs });
  if (decision.ok) for (const body of decision.events) applyEvent(state, { ...body, seq: state.seq + 1, at: 1_000 });
  return decision;
}

function classroom(lesson?: SessionLesson): SessionState {
  const s = initialState();
  const events: SessionEventBody[] = [
    { type: "session:created", id: "s1", code: "KUBE42", title: "t", ...(lesson ? { lesson } : {}) },
    { type: "participant:joined", participantId: "p1", nickname: "Ada" },
    { type: "step:changed", stepIndex: 3 },
  ];
  events.forEach((e, i) => applyEvent(s, { ...e, seq: i + 1, at: 1 }));
  return s;
}

const open: DurableCommand = {
  event: "poll:open",
  payload: { kind: "custom", question: "Which?", options: ["a", "b"], correctIndex: 1, durationS: 0 },
};
const show = (panel: "none" | "objects" | "topology" | "compare" | "hood" | "poll"): DurableCommand => ({
  event: "projector:show",
  payload: { panel },
});

/** What the projector shows, and what the console's "on the projector" choice says: one value. */
function side(s: SessionState) {
  const onProjector = toPublicSnapshot(s, 0).projectorSide;
  expect(toHostSnapshot(s, { isConnected: () => false, connectedCount: 0 }).projectorSide).toBe(onProjector);
  return onProjector;
}

describe("what the projector shows beside the diagram", () => {
  it("puts a poll up when it opens, and the teacher's pick of a panel takes it down (the poll stays on the console)", () => {
    const s = classroom();
    run(s, show("objects"));
    expect(side(s)).toBe("objects");
    run(s, open);
    expect(side(s)).toBe("poll");
    run(s, show("compare"));
    expect(side(s)).toBe("compare");
    expect(toHostSnapshot(s, { isConnected: () => false, connectedCount: 0 }).poll?.status).toBe("open");
    // And back, from the console's choice.
    expect(run(s, show("poll"))).toMatchObject({ ok: true, events: [{ type: "projector:panelChanged", panel: "poll" }] });
    expect(side(s)).toBe("poll");
    // "Diagram only" dismisses it.
    run(s, show("none"));
    expect(side(s)).toBe("none");
  });

  it("takes a closed poll off every screen when the class moves on, and keeps an open one", () => {
    const s = classroom();
    run(s, open);
    run(s, { event: "step:move", payload: { delta: 1 } });
    expect(side(s)).toBe("poll");
    run(s, { event: "poll:close", payload: { pollId: "poll1" } });
    run(s, { event: "room:lock", payload: { locked: true } });
    expect(side(s)).toBe("poll");
    run(s, { event: "step:move", payload: { delta: 1 } });
    expect(side(s)).toBe("none");
    expect(toPublicSnapshot(s, 0).poll).toBeNull();
    expect(toHostSnapshot(s, { isConnected: () => false, connectedCount: 0 }).poll).toBeNull();
    expect(run(s, show("poll"))).toMatchObject({ ok: false, error: { code: "NO_SUCH_POLL" } });
  });

  it("takes a revealed poll off at the next step, and off at a mode switch; the teacher's panel comes back", () => {
    for (const move of [
      { event: "step:move", payload: { delta: 1 } },
      { event: "mode:set", payload: { mode: "Immediate", variant: "standard" } },
    ] as DurableCommand[]) {
      const s = classroom();
      run(s, show("topology"));
      run(s, open);
      run(s, { event: "poll:close", payload: { pollId: "poll1" } });
      run(s, { event: "poll:reveal", payload: { pollId: "poll1" } });
      expect(side(s)).toBe("poll");
      expect(run(s, move)).toMatchObject({ ok: true });
      expect(side(s)).toBe("topology");
      expect(toPublicSnapshot(s, 0).poll).toBeNull();
    }
  });

  it("brings a dismissed poll back for its reveal", () => {
    const s = classroom();
    run(s, open);
    run(s, { event: "poll:close", payload: { pollId: "poll1" } });
    run(s, show("objects"));
    expect(side(s)).toBe("objects");
    run(s, { event: "poll:reveal", payload: { pollId: "poll1" } });
    expect(side(s)).toBe("poll");
  });

  it("shows nothing once the session has ended", () => {
    const s = classroom();
    run(s, show("objects"));
    run(s, open);
    run(s, { event: "session:end", payload: {} });
    expect(side(s)).toBe("none");
  });

  it("offers a teacher's own lesson its polls and the diagram alone, not the Kubernetes panels", () => {
    const lesson: SessionLesson = {
      id: "l1",
      version: 1,
      lesson: {
        title: "OAuth",
        lifelines: [
          { id: "C", name: "Client" },
          { id: "S", name: "Server" },
        ],
        steps: ["one", "two", "three", "four", "five"].map((title, i) => ({
          from: i % 2 ? "S" : "C",
          to: i % 2 ? "C" : "S",
          line: "solid" as const,
          head: "filled" as const,
          title,
        })),
      },
    };
    const s = classroom(lesson);
    expect(run(s, show("objects"))).toMatchObject({ ok: false, error: { code: "BAD_REQUEST" } });
    const opened = run(s, open);
    expect(opened.ok ? null : opened.error).toBeNull();
    expect(side(s)).toBe("poll");
    run(s, show("none"));
    expect(side(s)).toBe("none");
  });
});
