import { expect, vi } from "vitest";
import type { AnySnapshot, MyVote, Patch } from "../../../lib/protocol";
import type { PublicTally } from "../../../lib/session/projection";
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
import { current, rosterOfRoom, shownCounts, withoutPresence, withoutVoteDrift, type Tab } from "./wire";

/** Checkpoints: every client shows the server's state, every message matched the log at its rev, the log replays. */
export function convergenceFor(run: FuzzRun) {
  const { room, tabs, stats, where, state, openTabs, durableEvents, hostTab } = run;
  const { command } = commandsFor(run);

  const noPresence = { connectedCount: 0, isConnected: () => false };

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

  /**
   * Every session record and running count a client ever received equals the
   * durable log's state at its rev. (The patches as sent: a screen folds the
   * newest count into the session it holds, so its snapshots mix two revs.)
   */
  function messagesMatchLog(events: SessionEvent[]): void {
    const states: SessionState[] = [initialState()];
    for (const e of events) states[e.seq] = reduce(states[e.seq - 1], e);
    for (const tab of tabs) {
      const at = `${where()} [message history] ${tab.name}`;
      const { tallies } = tab.client;
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
      for (; tab.checkedPatches < tab.client.patches.length; tab.checkedPatches++) {
        expectPatchForTab(tab, tab.client.patches[tab.checkedPatches], states, `${at}: patch #${tab.checkedPatches}`);
      }
    }
  }

  /**
   * Every patch a socket got is one of its own audiences': the teacher's
   * stream only to teachers, a participant's own records only to that
   * participant, and the class's running count carries the distribution
   * only while the teacher shows live results (else how many voted, no more).
   */
  function expectPatchForTab(tab: Tab, patch: Patch, states: SessionState[], at: string): void {
    const follows = tab.role === "host" ? ["host"] : tab.role === "student" ? ["public", "me"] : ["public"];
    expect(follows, `${at}: ${tab.name} got a patch of the ${patch.stream} stream`).toContain(patch.stream);
    const latest = states[states.length - 1];
    const session = (patch.put as { session?: AnySnapshot } | undefined)?.session;
    if (session) {
      const st = states[session.rev];
      expect(st, `${at}: session rev ${session.rev} is past the log`).toBeDefined();
      const expected = patch.stream === "host" ? toHostSnapshot(st, noPresence) : toPublicSnapshot(st, 0);
      expect(session.audience, `${at}: the ${patch.stream} stream's session record`).toBe(patch.stream);
      expect(withoutPresence(session), `${at}: session (rev ${session.rev})`).toEqual(withoutPresence(expected));
    }
    if (patch.stream === "public") {
      const tally = patch.put?.tally as PublicTally | undefined;
      if (tally) {
        const st = states[tally.rev];
        expect(st, `${at}: class tally rev ${tally.rev} is past the log`).toBeDefined();
        const poll = activePoll(st);
        expect(poll?.id, `${at}: class tally (rev ${tally.rev}) poll`).toBe(tally.pollId);
        const { counts, total } = countVotes(poll!);
        expect(tally.total, `${at}: class tally (rev ${tally.rev}) count of votes`).toBe(total);
        if (tally.counts !== undefined) {
          expect(st.resultsVisible, `${at}: the class got counts while results were hidden (rev ${tally.rev})`).toBe(true);
          expect(tally.counts, `${at}: class tally counts`).toEqual(counts);
        } else expect(st.resultsVisible, `${at}: the class's tally lacks counts while results were shown`).toBe(false);
      }
    }
    if (patch.stream === "me") {
      // Only this participant's questions ("yours", or waiting for approval) reach their tabs.
      for (const key of Object.keys(patch.put ?? {})) {
        if (!key.startsWith("m:") && !key.startsWith("q:")) continue;
        const question = latest.questions[key.slice(2)];
        expect(question?.participantId, `${at}: ${tab.name} got ${key}, not their question`).toBe(tab.identity?.participantId);
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
    const expected = rows(rosterOfRoom(room));
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
