import { describe, expect, it } from "vitest";
import { replay } from "./reducer";
import { applyRosterChanges, rosterRow, rosterRows, splitRoster, type RosterRow } from "./roster";
import type { SessionEvent, SessionEventBody, SessionState } from "./types";

function run(bodies: readonly SessionEventBody[]): SessionState {
  const log: SessionEvent[] = bodies.map((body, i) => ({ ...body, seq: i + 1, at: 1_000 * (i + 1) }));
  return replay(log);
}

const connected = (...ids: string[]) => ({ isConnected: (id: string) => ids.includes(id) });

const CLASS: SessionEventBody[] = [
  { type: "session:created", id: "s1", code: "KUBE42", title: "Dynamic provisioning" },
  { type: "participant:joined", participantId: "p1", nickname: "Ada" },
  { type: "participant:joined", participantId: "p2", nickname: "Linus" },
  { type: "participant:joined", participantId: "p3", nickname: "Grace" },
];

describe("roster rows", () => {
  it("lists every participant in join order, removed ones flagged, connected as presence says", () => {
    const state = run([
      ...CLASS,
      { type: "participant:removed", participantId: "p2" },
      { type: "participant:renamed", participantId: "p3", nickname: "Hopper" },
    ]);
    // p2 is still connected (the kick is in flight) but removed: never shown as connected.
    expect(rosterRows(state, connected("p2", "p3"))).toEqual([
      { id: "p1", nickname: "Ada", number: 1, connected: false, removed: false },
      { id: "p2", nickname: "Linus", number: 2, connected: false, removed: true },
      { id: "p3", nickname: "Hopper", number: 3, connected: true, removed: false },
    ]);
    expect(rosterRow(state, "p3", 3, connected())).toEqual({ id: "p3", nickname: "Hopper", number: 3, connected: false, removed: false });
    expect(rosterRow(state, "nobody", 9, connected())).toBeNull();
  });

  it("splits listed and removed students, marking names that look the same, with their join number", () => {
    const state = run([
      ...CLASS,
      { type: "participant:joined", participantId: "p4", nickname: "ADA" },
      // Cyrillic А and full-width letters look like Latin ones on screen.
      { type: "participant:joined", participantId: "p5", nickname: "\u0410da" },
      { type: "participant:joined", participantId: "p6", nickname: "\uff21\uff44\uff41" },
      { type: "participant:removed", participantId: "p2" },
    ]);
    // Given in any order (a Map of rows), listed in join order.
    const { listed, removed } = splitRoster(rosterRows(state, connected()).reverse());
    expect(listed.filter((p) => p.lookalike).map((p) => [p.id, p.number])).toEqual([
      ["p1", 1],
      ["p4", 4],
      ["p5", 5],
      ["p6", 6],
    ]);
    expect(listed.find((p) => p.id === "p3")?.lookalike).toBe(false);
    expect(removed.map((p) => p.id)).toEqual(["p2"]);
  });

  it("does not mark a name whose only look-alike was removed", () => {
    const state = run([
      ...CLASS,
      { type: "participant:joined", participantId: "p4", nickname: "ada" },
      { type: "participant:removed", participantId: "p4" },
    ]);
    expect(splitRoster(rosterRows(state, connected())).listed.some((p) => p.lookalike)).toBe(false);
  });
});

describe("applyRosterChanges", () => {
  const row = (id: string, nickname: string, number: number): RosterRow => ({ id, nickname, number, connected: true, removed: false });
  const held = { epoch: "e1", rev: 3, rows: new Map([["p1", row("p1", "Ada", 1)]]) };

  it("applies changes that follow on from the revision held, replacing and adding rows", () => {
    const next = applyRosterChanges(held, { epoch: "e1", from: 3, to: 4, rows: [row("p1", "Ada L.", 1), row("p2", "Linus", 2)] });
    expect(next?.rev).toBe(4);
    expect([...(next?.rows.values() ?? [])].map((r) => r.nickname)).toEqual(["Ada L.", "Linus"]);
    // The held copy is not touched (React sees a new object).
    expect(held.rows.get("p1")?.nickname).toBe("Ada");
  });

  it("ignores changes already included in the roster held", () => {
    expect(applyRosterChanges(held, { epoch: "e1", from: 2, to: 3, rows: [row("p9", "Old", 9)] })).toBe(held);
  });

  it("reports a gap or another epoch, so the console asks for the whole roster", () => {
    expect(applyRosterChanges(held, { epoch: "e1", from: 4, to: 5, rows: [] })).toBeNull();
    expect(applyRosterChanges(held, { epoch: "e2", from: 3, to: 4, rows: [] })).toBeNull();
    expect(applyRosterChanges(held, { epoch: "e2", from: 0, to: 1, rows: [] })).toBeNull();
  });
});
