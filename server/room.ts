import { getScenario, isVariantOf, mapPosition } from "../lib/lesson";
import { generateNextStepPoll } from "../lib/polls/nextStep";
import {
  protocolError,
  type Ack,
  type ModeSet,
  type MyVote,
  type PollOpen,
  type ProtocolError,
  type TallyUpdate,
} from "../lib/protocol";
import { MAX_EVENTS_PER_SESSION, MAX_VOTES_PER_ROUND, PRESENCE_BROADCAST_INTERVAL_MS, TALLY_BROADCAST_INTERVAL_MS } from "../lib/constants";
import {
  activePoll,
  applyEvent,
  cloneState,
  countVotes,
  own,
  toHostSnapshot,
  toPublicSnapshot,
  type HostSnapshot,
  type PublicSnapshot,
  type SessionEventBody,
  type SessionEvent,
  type SessionState,
} from "../lib/session";
import type { SessionStore } from "./store/types";

/** Where a room's messages go. The socket.io adapter implements it; tests can record it. */
export interface RoomOutbox {
  /** Everyone watching: projector and students. */
  publicSnapshot(snapshot: PublicSnapshot): void;
  /** The teacher's sockets. */
  hostSnapshot(snapshot: HostSnapshot): void;
  tally(audience: "host" | "everyone", tally: TallyUpdate): void;
  /** One participant's sockets (every tab of that browser). */
  myVote(participantId: string, vote: MyVote | null): void;
  /** Projectors: the connected-student count, coalesced. */
  presence(participantCount: number): void;
  /** One participant's sockets: their nickname changed. */
  renamed(participantId: string, nickname: string): void;
  /** Disconnect a participant's sockets with a reason. */
  kick(participantId: string, error: ProtocolError): void;
  /** Disconnect every projector view with a reason. */
  kickProjectors(error: ProtocolError): void;
}

export interface RoomDeps {
  store: SessionStore;
  outbox: RoomOutbox;
  now: () => number;
  newId: () => string;
  /** Fisher-Yates with the server's randomness; tests may pass a fixed order. */
  shuffle: <T>(items: T[]) => T[];
}

const ok: Ack = { ok: true, data: null };
const fail = (code: Parameters<typeof protocolError>[0], message?: string): { ok: false; error: ProtocolError } => ({
  ok: false,
  error: protocolError(code, message),
});

/**
 * One live session. Commands are checked here (the socket layer has already
 * parsed payloads and fixed the sender's role), turned into events, appended
 * to the log, applied to the room's own state, and published. Presence (who is connected)
 * lives only here and is never logged.
 */
export class Room {
  private state: SessionState;
  /** Participants ever joined (a counter, so a join does not count a thousand keys). */
  private participantTotal: number;
  private readonly connections = new Map<string, number>();
  private connectedCount = 0;
  private peak = 0;
  private tallyTimer: NodeJS.Timeout | null = null;
  private tallyDirty = false;
  private presenceTimer: NodeJS.Timeout | null = null;
  private closeTimer: NodeJS.Timeout | null = null;
  private disposed = false;
  /** When the last participant left (or the room was loaded); for the idle sweep. */
  private quietSince: number;

  constructor(
    state: SessionState,
    private readonly deps: RoomDeps,
  ) {
    this.state = state;
    this.participantTotal = Object.keys(state.participants).length;
    this.quietSince = deps.now();
    this.armAutoClose();
  }

  get id(): string {
    return this.state.id;
  }
  get code(): string {
    return this.state.code;
  }
  /** A copy of the state (the room's own keeps changing in place). For inspection and tests. */
  get snapshotState(): SessionState {
    return cloneState(this.state);
  }
  get lastEventAt(): number {
    return this.state.lastEventAt;
  }
  get participantsJoined(): number {
    return this.participantTotal;
  }
  get isEnded(): boolean {
    return this.state.status === "ended";
  }
  /** The log reached MAX_EVENTS_PER_SESSION: only closing, revealing and ending still write. */
  get logFull(): boolean {
    return this.state.seq >= MAX_EVENTS_PER_SESSION;
  }
  get connected(): number {
    return this.connectedCount;
  }
  /** Time since which nobody has been connected (meaningful when `connected` is 0). */
  idleSince(): number {
    return this.quietSince;
  }

  // -------------------------------------------------------------------------
  // Views

  publicSnapshot(): PublicSnapshot {
    return toPublicSnapshot(this.state, this.connectedCount);
  }

  hostSnapshot(): HostSnapshot {
    return toHostSnapshot(this.state, {
      connectedCount: this.connectedCount,
      isConnected: (id) => (this.connections.get(id) ?? 0) > 0,
      projectorCount: this.projectors,
    });
  }

  myVote(participantId: string): MyVote | null {
    const poll = activePoll(this.state);
    if (!poll) return null;
    return { pollId: poll.id, round: poll.round, optionId: poll.votes[participantId] ?? null };
  }

  // -------------------------------------------------------------------------
  // Participants and presence

  participant(id: string) {
    return own(this.state.participants, id) ?? null;
  }

  get locked(): boolean {
    return this.state.locked;
  }

  addParticipant(participantId: string, nickname: string): void {
    if (!own(this.state.participants, participantId)) this.participantTotal += 1;
    this.commit({ type: "participant:joined", participantId, nickname });
  }

  /** A returning student who brings a new nickname (a `?name=` link, another tab): everyone who shows it is told. */
  renameIfChanged(participantId: string, nickname: string | undefined): void {
    if (nickname) this.renameParticipant(participantId, nickname);
  }

  /** Teacher and projector sockets: not students, but they keep a room from counting as idle. */
  private watchers = 0;
  /** Projector views open now (the teacher sees the count: a guesser watching as a projector is not invisible). */
  private projectors = 0;
  watcherJoined(role: "host" | "projector" = "host"): void {
    this.watchers += 1;
    if (role === "projector") {
      this.projectors += 1;
      this.schedulePresence();
    }
  }
  watcherLeft(role: "host" | "projector" = "host"): void {
    this.watchers = Math.max(0, this.watchers - 1);
    if (role === "projector") {
      this.projectors = Math.max(0, this.projectors - 1);
      this.schedulePresence();
    }
    if (this.watchers === 0 && this.connectedCount === 0) this.quietSince = this.deps.now();
  }
  get projectorViews(): number {
    return this.projectors;
  }
  get anyoneConnected(): boolean {
    return this.watchers > 0 || this.connectedCount > 0;
  }

  /**
   * Replace presence with a fresh count (a cluster re-counts sockets on every
   * node, so students of a node that died do not linger).
   */
  resetPresence(participantIds: readonly string[], watchers: number, projectors = 0): void {
    const before = this.connectedCount;
    const projectorsBefore = this.projectors;
    this.projectors = projectors;
    this.connections.clear();
    for (const id of participantIds) this.connections.set(id, (this.connections.get(id) ?? 0) + 1);
    this.connectedCount = this.connections.size;
    this.watchers = watchers;
    if (this.connectedCount > this.peak) {
      this.peak = this.connectedCount;
      this.deps.store.notePeakParticipants(this.id, this.peak);
    }
    if (this.connectedCount !== before || this.projectors !== projectorsBefore) this.schedulePresence();
  }

  /** A student's socket connected. Presence reaches the console coalesced, never the whole class. */
  connect(participantId: string): void {
    const n = this.connections.get(participantId) ?? 0;
    this.connections.set(participantId, n + 1);
    if (n === 0) {
      this.connectedCount += 1;
      if (this.connectedCount > this.peak) {
        this.peak = this.connectedCount;
        this.deps.store.notePeakParticipants(this.id, this.peak);
      }
      this.schedulePresence();
    }
  }

  disconnect(participantId: string): void {
    const n = this.connections.get(participantId) ?? 0;
    if (n <= 1) {
      this.connections.delete(participantId);
      if (n === 1) {
        this.connectedCount -= 1;
        if (this.connectedCount === 0 && this.watchers === 0) this.quietSince = this.deps.now();
        this.schedulePresence();
      }
    } else {
      this.connections.set(participantId, n - 1);
    }
  }

  // -------------------------------------------------------------------------
  // Teacher commands

  stepGo(stepIndex: number): Ack {
    if (this.isEnded) return fail("SESSION_ENDED");
    if (this.logFull) return fail("LOG_FULL");
    const total = getScenario(this.state.mode, this.state.variant).steps.length;
    if (stepIndex < 0 || stepIndex >= total) return fail("STEP_OUT_OF_RANGE");
    if (stepIndex !== this.state.stepIndex) this.commitAndPublish({ type: "step:changed", stepIndex });
    return ok;
  }

  stepMove(delta: 1 | -1): Ack {
    const total = getScenario(this.state.mode, this.state.variant).steps.length;
    const target = Math.min(total - 1, Math.max(0, this.state.stepIndex + delta));
    return this.stepGo(target);
  }

  setMode({ mode, variant = "standard" }: ModeSet): Ack<{ matched: boolean }> {
    if (this.isEnded) return fail("SESSION_ENDED");
    if (this.logFull) return fail("LOG_FULL");
    if (!isVariantOf(mode, variant)) return fail("BAD_MODE");
    if (mode === this.state.mode && variant === this.state.variant) return { ok: true, data: { matched: true } };
    const from = getScenario(this.state.mode, this.state.variant);
    const to = getScenario(mode, variant);
    const { index, matched } = mapPosition(from, this.state.stepIndex, to);
    this.commitAndPublish({ type: "mode:changed", mode, variant, stepIndex: index, matched });
    return { ok: true, data: { matched } };
  }

  openPoll(command: PollOpen): Ack<{ pollId: string }> {
    if (this.isEnded) return fail("SESSION_ENDED");
    if (this.logFull) return fail("LOG_FULL");
    const current = activePoll(this.state);
    if (current && current.status === "open") return fail("POLL_ALREADY_OPEN");
    const id = this.deps.newId();
    let question: string;
    let options: { id: string; text: string; note?: string }[];
    let correctOptionId: string | null;
    if (command.kind === "next-step") {
      const generated = generateNextStepPoll(getScenario(this.state.mode, this.state.variant), this.state.stepIndex);
      if (!generated) return fail("NO_NEXT_STEP");
      // Shuffle first, then number: ids follow screen order, so neither the
      // position nor the id (visible in dev tools) says which one is right.
      const shuffled = this.deps.shuffle([...generated.options]).map((o, i) => ({ ...o, id: `o${i + 1}` }));
      question = generated.question;
      options = shuffled.map(({ id: optionId, text, note }) => ({ id: optionId, text, note }));
      correctOptionId = shuffled.find((o) => o.correct)?.id ?? null;
    } else {
      question = command.question;
      options = command.options.map((text, i) => ({ id: `o${i + 1}`, text }));
      const correctIndex = command.correctIndex ?? null;
      if (correctIndex !== null && correctIndex >= options.length) return fail("BAD_REQUEST", "correctIndex is not an option");
      correctOptionId = correctIndex === null ? null : options[correctIndex].id;
    }
    const durationS = command.durationS ?? 0;
    const closesAt = durationS > 0 ? this.deps.now() + durationS * 1000 : null;
    this.commitAndPublish({
      type: "poll:opened",
      poll: { id, kind: command.kind, question, options, correctOptionId },
      closesAt,
    });
    this.armAutoClose();
    // No poll:myVote here: clients match their vote to the poll's id and round, so a new poll reads as "not voted".
    return { ok: true, data: { pollId: id } };
  }

  closePoll(pollId: string): Ack {
    const poll = own(this.state.polls, pollId);
    if (!poll) return fail("NO_SUCH_POLL");
    if (poll.status !== "open") return fail("POLL_CLOSED");
    const { counts, total } = countVotes(poll);
    this.cancelTally();
    this.commitAndPublish({ type: "poll:closed", pollId, counts, total });
    this.armAutoClose();
    return ok;
  }

  revealPoll(pollId: string): Ack {
    const poll = own(this.state.polls, pollId);
    if (!poll) return fail("NO_SUCH_POLL");
    if (poll.status === "open") return fail("POLL_NOT_CLOSED");
    if (poll.status === "revealed") return ok;
    this.commitAndPublish({ type: "poll:revealed", pollId });
    return ok;
  }

  reopenPoll(pollId: string, durationS: number): Ack {
    if (this.isEnded) return fail("SESSION_ENDED");
    if (this.logFull) return fail("LOG_FULL");
    const poll = own(this.state.polls, pollId);
    if (!poll) return fail("NO_SUCH_POLL");
    if (poll.status === "open") return fail("POLL_ALREADY_OPEN");
    const current = activePoll(this.state);
    if (current && current.id !== pollId && current.status === "open") return fail("POLL_ALREADY_OPEN");
    const closesAt = durationS > 0 ? this.deps.now() + durationS * 1000 : null;
    this.commitAndPublish({ type: "poll:reopened", pollId, closesAt });
    this.armAutoClose();
    return ok;
  }

  setResultsVisible(visible: boolean): Ack {
    if (this.logFull) return fail("LOG_FULL");
    if (visible !== this.state.resultsVisible) this.commitAndPublish({ type: "results:visibility", visible });
    return ok;
  }

  setProjectorPanel(panel: SessionState["projectorPanel"]): Ack {
    if (this.isEnded) return fail("SESSION_ENDED");
    if (this.logFull) return fail("LOG_FULL");
    if (panel !== this.state.projectorPanel) this.commitAndPublish({ type: "projector:panelChanged", panel });
    return ok;
  }

  setLocked(locked: boolean): Ack {
    if (this.isEnded) return fail("SESSION_ENDED");
    if (this.logFull) return fail("LOG_FULL");
    if (locked !== this.state.locked) this.commitAndPublish({ type: "room:locked", locked });
    return ok;
  }

  removeParticipant(participantId: string): Ack {
    if (this.logFull) return fail("LOG_FULL");
    const p = own(this.state.participants, participantId);
    if (!p || p.removed) return fail("NO_SUCH_PARTICIPANT");
    this.commitAndPublish({ type: "participant:removed", participantId });
    this.deps.outbox.kick(participantId, protocolError("REMOVED"));
    return ok;
  }

  renameParticipant(participantId: string, nickname: string): Ack {
    if (this.logFull) return fail("LOG_FULL");
    const p = own(this.state.participants, participantId);
    if (!p || p.removed) return fail("NO_SUCH_PARTICIPANT");
    if (p.nickname !== nickname) {
      this.commit({ type: "participant:renamed", participantId, nickname });
      this.deps.outbox.hostSnapshot(this.hostSnapshot());
      this.deps.outbox.renamed(participantId, nickname);
    }
    return ok;
  }

  /** Closes every projector view (the teacher's own window reconnects with its host key; nobody else can while locked). */
  closeProjectors(): Ack {
    if (this.isEnded) return fail("SESSION_ENDED");
    this.deps.outbox.kickProjectors(protocolError("PROJECTOR_CLOSED"));
    return ok;
  }

  end(): Ack {
    if (this.isEnded) return ok;
    this.cancelTally();
    // Close an open poll first, with its counts on the event, so every export and replay has the round's result.
    const poll = activePoll(this.state);
    if (poll && poll.status === "open") {
      const { counts, total } = countVotes(poll);
      this.commit({ type: "poll:closed", pollId: poll.id, counts, total });
    }
    this.commitAndPublish({ type: "session:ended" });
    this.dispose();
    return ok;
  }

  // -------------------------------------------------------------------------
  // Student commands

  vote(participantId: string, pollId: string, optionId: string): Ack<MyVote> {
    const poll = own(this.state.polls, pollId);
    if (!poll || pollId !== this.state.activePollId) return fail("NO_SUCH_POLL");
    if (poll.status !== "open") return fail("POLL_CLOSED");
    if (!poll.options.some((o) => o.id === optionId)) return fail("NO_SUCH_OPTION");
    const voter = own(this.state.participants, participantId);
    if (!voter || voter.removed) return fail("REMOVED");
    const mine: MyVote = { pollId, round: poll.round, optionId };
    if (poll.votes[participantId] !== optionId) {
      // Bounded writes per participant and round; the vote in force stays counted.
      if ((poll.voteWrites[participantId] ?? 0) >= MAX_VOTES_PER_ROUND) return fail("VOTE_LIMIT");
      if (this.logFull) return fail("LOG_FULL");
      this.commit({ type: "poll:voted", pollId, participantId, optionId });
      this.scheduleTally();
      // Other tabs of the same browser show the change too.
      this.deps.outbox.myVote(participantId, mine);
    }
    return { ok: true, data: mine };
  }

  // -------------------------------------------------------------------------
  // Internals

  /** Append first, then fold: nothing is acknowledged or broadcast that is not on disk. */
  private commit(body: SessionEventBody): SessionEvent {
    const event = { ...body, seq: this.state.seq + 1, at: this.deps.now() } as SessionEvent;
    this.deps.store.append(this.id, event);
    // The room owns its state: events apply in place (O(1) per vote and join).
    applyEvent(this.state, event);
    return event;
  }

  private commitAndPublish(body: SessionEventBody): void {
    this.commit(body);
    this.publish();
  }

  /** The whole (small) state to everyone: one encode per audience, not per socket. */
  publish(): void {
    this.deps.outbox.publicSnapshot(this.publicSnapshot());
    this.deps.outbox.hostSnapshot(this.hostSnapshot());
  }

  private scheduleTally(): void {
    this.tallyDirty = true;
    if (this.tallyTimer || this.disposed) return;
    // Leading edge: the first vote shows at once; the rest are batched.
    this.flushTally();
    this.tallyTimer = setTimeout(() => this.onTallyTimer(), TALLY_BROADCAST_INTERVAL_MS);
  }

  private onTallyTimer(): void {
    this.tallyTimer = null;
    if (this.tallyDirty) this.scheduleTally();
  }

  private flushTally(): void {
    this.tallyDirty = false;
    const poll = activePoll(this.state);
    if (!poll || poll.status !== "open") return;
    const { counts, total } = countVotes(poll);
    const tally: TallyUpdate = { pollId: poll.id, round: poll.round, counts, total, rev: this.state.seq };
    this.deps.outbox.tally(this.state.resultsVisible ? "everyone" : "host", tally);
  }

  private cancelTally(): void {
    if (this.tallyTimer) clearTimeout(this.tallyTimer);
    this.tallyTimer = null;
    this.tallyDirty = false;
  }

  private schedulePresence(): void {
    if (this.presenceTimer || this.disposed) return;
    this.presenceTimer = setTimeout(() => {
      this.presenceTimer = null;
      this.deps.outbox.hostSnapshot(this.hostSnapshot());
      this.deps.outbox.presence(this.connectedCount);
    }, PRESENCE_BROADCAST_INTERVAL_MS);
  }

  /** A poll with a countdown closes itself, also after a restart. */
  private armAutoClose(): void {
    if (this.closeTimer) clearTimeout(this.closeTimer);
    this.closeTimer = null;
    const poll = activePoll(this.state);
    if (!poll || poll.status !== "open" || poll.closesAt === null || this.disposed) return;
    const delay = Math.max(0, poll.closesAt - this.deps.now());
    this.closeTimer = setTimeout(() => {
      this.closeTimer = null;
      const still = activePoll(this.state);
      if (still && still.id === poll.id && still.status === "open") this.closePoll(poll.id);
    }, delay);
  }

  /** Release timers; the room is dropped from memory by its owner. */
  dispose(): void {
    this.disposed = true;
    this.cancelTally();
    if (this.presenceTimer) clearTimeout(this.presenceTimer);
    if (this.closeTimer) clearTimeout(this.closeTimer);
    this.presenceTimer = null;
    this.closeTimer = null;
  }
}
