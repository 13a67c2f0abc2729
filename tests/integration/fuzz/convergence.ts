import { expect, vi } from "vitest";
import type { MyVote } from "../../../lib/protocol";
import {
  PROJECTOR_PANELS,
  activePoll,
  countVotes,
  initialState,
  reduce,
  replay,
  toHostSnapshot,
  toPublicSnapshot,
  type RosterRow,
  type SessionEvent,
  type SessionState,
} from "../../../lib/session";
import { commandsFor } from "./commands";
import { CONVERGE_TIMEOUT_MS, type FuzzRun } from "./run";
import { current, shownCounts, withoutPresence, withoutVoteDrift, type Tab } from "./wire";

/** Checkpoints: every client shows the server's state, every message matched the log at its rev, the log replays. */
export function convergenceFor(run: FuzzRun) {
  const { room, tabs, stats, where, state, openTabs, durableEvents, hostTab } = run;
  const { command } = commandsFor(run);

  /** The server's vote for a participant as the protocol lets a student read it. */
  function effectiveMyVote(tab: Tab): string | null {
    const snap = current(tab);
    const mine = tab.client.myVotes.at(-1) as MyVote | null | undefined;
    if (!snap.poll || !mine || mine.pollId !== snap.poll.id || mine.round !== snap.poll.round) return null;
    return mine.optionId;
  }

  /** Phase A: with no help, every client shows what it has been sent, and that is the server's state. */
  function convergedWithoutBarrier(): void {
    const s = state();
    const active = activePoll(s);
    const counts = active && active.status === "open" ? countVotes(active).counts : null;
    const at = `${where()} [checkpoint, before the barrier]`;
    for (const tab of openTabs()) {
      const snap = current(tab);
      if (tab.role === "host") {
        expect(withoutVoteDrift(snap, s, true), `${at}: ${tab.name} snapshot`).toEqual(withoutVoteDrift(room.hostSnapshot(), s, true));
        if (counts) expect(shownCounts(tab), `${at}: ${tab.name} tally`).toEqual(counts);
        continue;
      }
      expect(withoutVoteDrift(snap, s, false), `${at}: ${tab.name} snapshot`).toEqual(withoutVoteDrift(room.publicSnapshot(), s, false));
      if (counts && s.resultsVisible) expect(shownCounts(tab), `${at}: ${tab.name} visible tally`).toEqual(counts);
      if (tab.role === "projector") expect(tab.heardCount, `${at}: ${tab.name} participant count`).toBe(room.presence.connectedCount);
      if (tab.identity) {
        const participant = s.participants[tab.identity.participantId];
        expect(effectiveMyVote(tab), `${at}: ${tab.name} myVote`).toBe(active?.votes[tab.identity.participantId] ?? null);
        expect(tab.heardNickname, `${at}: ${tab.name} nickname`).toBe(participant.nickname);
      }
    }
  }

  /** Every snapshot and tally a client ever received equals the durable log's state at its rev. */
  function messagesMatchLog(events: SessionEvent[]): void {
    const states: SessionState[] = [initialState()];
    for (const e of events) states[e.seq] = reduce(states[e.seq - 1], e);
    const noPresence = { connectedCount: 0, isConnected: () => false };
    for (const tab of tabs) {
      const at = `${where()} [message history] ${tab.name}`;
      const { snapshots, tallies } = tab.client;
      for (; tab.checkedSnapshots < snapshots.length; tab.checkedSnapshots++) {
        const snap = snapshots[tab.checkedSnapshots];
        const st = states[snap.rev];
        expect(st, `${at}: snapshot rev ${snap.rev} is past the log`).toBeDefined();
        const expected = tab.role === "host" ? toHostSnapshot(st, noPresence) : toPublicSnapshot(st, 0);
        expect(withoutPresence(snap), `${at}: snapshot #${tab.checkedSnapshots} (rev ${snap.rev})`).toEqual(withoutPresence(expected));
      }
      for (; tab.checkedTallies < tallies.length; tab.checkedTallies++) {
        const tally = tallies[tab.checkedTallies];
        const st = states[tally.rev];
        const poll = st ? activePoll(st) : null;
        expect(poll?.id, `${at}: tally #${tab.checkedTallies} (rev ${tally.rev}) poll`).toBe(tally.pollId);
        expect(poll!.status, `${at}: tally for a poll that was not open`).toBe("open");
        expect(poll!.round, `${at}: tally round`).toBe(tally.round);
        expect({ counts: tally.counts, total: tally.total }, `${at}: tally counts`).toEqual(countVotes(poll!));
        if (tab.role !== "host") expect(st.resultsVisible, `${at}: the class got a tally while results were hidden`).toBe(true);
      }
    }
  }

  async function checkpoint(): Promise<void> {
    stats.checkpoints++;
    await vi.waitFor(() => convergedWithoutBarrier(), { timeout: CONVERGE_TIMEOUT_MS, interval: 25 });

    // Phase B: a publish reaches everyone; then every view equals the server's, rev included.
    const s = state();
    const panel = PROJECTOR_PANELS.find((p) => p !== s.projectorPanel)!;
    await command(await hostTab(), "projector:show", { panel }, "ok", ["projector:panelChanged"]);
    const seq = state().seq;
    await vi.waitFor(
      () => {
        for (const tab of openTabs()) expect(current(tab).rev, `${where()} [barrier]: ${tab.name} rev`).toBe(seq);
      },
      { timeout: CONVERGE_TIMEOUT_MS, interval: 25 },
    );
    const host = withoutPresence(room.hostSnapshot());
    const pub = withoutPresence(room.publicSnapshot());
    for (const tab of openTabs()) {
      expect(withoutPresence(current(tab)), `${where()} [barrier]: ${tab.name} snapshot`).toEqual(tab.role === "host" ? host : pub);
      if (tab.identity) {
        const active = activePoll(state());
        expect(effectiveMyVote(tab), `${where()} [barrier]: ${tab.name} myVote`).toBe(active?.votes[tab.identity.participantId] ?? null);
      }
    }
    // Each teacher tab's roster (whole, then changes) lists who the state holds, as the state holds them.
    const rows = (r: Iterable<RosterRow>) => [...r].map(({ connected: _c, ...row }) => row).sort((a, b) => a.number - b.number);
    const expected = rows(room.roster().rows);
    await vi.waitFor(
      () => {
        for (const tab of openTabs())
          if (tab.role === "host") expect(rows(tab.client.roster?.rows.values() ?? []), `${where()}: ${tab.name} roster`).toEqual(expected);
      },
      { timeout: CONVERGE_TIMEOUT_MS, interval: 25 },
    );
    const events = await durableEvents();
    messagesMatchLog(events);
    expect(replay(events), `${where()}: replaying the durable log`).toEqual(state());
    whatStudentsSeeMatchesTheLog(events);
  }

  /**
   * An oracle that does not use the production views or reducer: from the raw
   * log alone, what a student may see. Before the reveal no student's screen
   * holds the right answer or an option's note; counts shown equal the votes
   * in force (each participant's last logged vote of the round, removed
   * participants left out).
   */
  function whatStudentsSeeMatchesTheLog(events: SessionEvent[]): void {
    const opened = new Map<string, Extract<SessionEvent, { type: "poll:opened" }>>();
    const roundVotes = new Map<string, Map<string, string>>();
    const removed = new Set<string>();
    for (const e of events) {
      if (e.type === "poll:opened") {
        opened.set(e.poll.id, e);
        roundVotes.set(e.poll.id, new Map());
      } else if (e.type === "poll:reopened") roundVotes.set(e.pollId, new Map());
      else if (e.type === "poll:voted") roundVotes.get(e.pollId)?.set(e.participantId, e.optionId);
      else if (e.type === "participant:removed") removed.add(e.participantId);
    }
    for (const tab of openTabs()) {
      const snap = current(tab);
      if (tab.role === "host" || !snap.poll) continue;
      const poll = snap.poll;
      const raw = opened.get(poll.id);
      expect(raw, `${where()} [independent]: ${tab.name} shows a poll the log never opened`).toBeDefined();
      const screen = JSON.stringify(poll);
      if (poll.status !== "revealed" && raw!.poll.correctOptionId !== null) {
        expect(poll.correctOptionId, `${where()} [independent]: ${tab.name} holds the answer before the reveal`).toBeNull();
        for (const o of raw!.poll.options) {
          if (o.note) expect(screen.includes(o.note), `${where()} [independent]: ${tab.name} holds a note before the reveal`).toBe(false);
        }
      }
      if (poll.status === "open" && poll.results) {
        const inForce = [...(roundVotes.get(poll.id) ?? new Map()).entries()].filter(([pid]) => !removed.has(pid));
        expect(poll.results.total, `${where()} [independent]: ${tab.name} count of votes`).toBe(inForce.length);
        for (const o of raw!.poll.options) {
          expect(poll.results.counts[o.id] ?? 0, `${where()} [independent]: ${tab.name} count for ${o.id}`).toBe(
            inForce.filter(([, v]) => v === o.id).length,
          );
        }
      }
    }
  }

  return { checkpoint };
}
