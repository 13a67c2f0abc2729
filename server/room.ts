import { assertNever } from "../lib/assertNever";
import { PRESENCE_BROADCAST_INTERVAL_MS, TALLY_BROADCAST_INTERVAL_MS } from "../lib/constants";
import { protocolError, type Ack, type Command, type MyVote, type ProtocolError, type TallyUpdate } from "../lib/protocol";
import { decide, type Actor } from "../lib/session/decide";
import { logFull } from "../lib/session/rules";
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
    return logFull(this.state);
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
  // Commands

  /**
   * Runs a parsed, role-checked command: `decide` says what it means and
   * whether it is allowed, each resulting event is appended and applied, then
   * published. Only presence commands (closing projector views) are the
   * room's own.
   */
  handle(command: Command, actor: Actor = { participantId: null }): Ack<unknown> {
    if (command.event === "projectors:close") {
      if (this.isEnded) return { ok: false, error: protocolError("SESSION_ENDED") };
      this.deps.outbox.kickProjectors(protocolError("PROJECTOR_CLOSED"));
      return ok;
    }
    const decision = decide(this.state, command, actor, { now: this.deps.now(), newId: this.deps.newId, shuffle: this.deps.shuffle });
    if (!decision.ok) return decision;
    for (const body of decision.events) this.commit(body);
    this.afterEvents(decision.events);
    return { ok: true, data: decision.data };
  }

  /** A returning student who brings a new nickname (a `?name=` link, another tab): everyone who shows it is told. */
  renameIfChanged(participantId: string, nickname: string | undefined): void {
    if (nickname) this.handle({ event: "participant:rename", payload: { participantId, nickname } });
  }

  /** Ends the session (the idle sweep; an open poll is closed first, with its counts). */
  end(): Ack<unknown> {
    return this.handle({ event: "session:end", payload: {} });
  }

  /** What follows a command's events: publishing, coalesced tallies, timers, kicks. */
  private afterEvents(events: readonly SessionEventBody[]): void {
    let publish = false;
    for (const e of events) {
      switch (e.type) {
        case "poll:voted":
          this.scheduleTally();
          // Other tabs of the same browser show the change too.
          this.deps.outbox.myVote(e.participantId, this.myVote(e.participantId));
          break;
        case "participant:renamed":
          // Only the teacher lists names; the student's own tabs are told.
          this.deps.outbox.hostSnapshot(this.hostSnapshot());
          this.deps.outbox.renamed(e.participantId, e.nickname);
          break;
        case "participant:removed":
          publish = true;
          this.deps.outbox.kick(e.participantId, protocolError("REMOVED"));
          break;
        case "poll:closed":
          this.cancelTally();
          publish = true;
          break;
        case "participant:joined":
          // Presence publishes the newcomer, coalesced with the rest of the join storm.
          break;
        case "session:created":
        case "step:changed":
        case "mode:changed":
        case "room:locked":
        case "poll:opened":
        case "poll:revealed":
        case "poll:reopened":
        case "results:visibility":
        case "projector:panelChanged":
        case "session:ended":
          publish = true;
          break;
        default:
          assertNever(e);
      }
    }
    if (publish) this.publish();
    if (events.some((e) => e.type === "poll:opened" || e.type === "poll:closed" || e.type === "poll:reopened")) this.armAutoClose();
    if (this.isEnded) this.dispose();
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
      if (still && still.id === poll.id && still.status === "open") this.handle({ event: "poll:close", payload: { pollId: poll.id } });
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
