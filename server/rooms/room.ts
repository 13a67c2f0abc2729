import { randomBytes } from "node:crypto";
import { MAX_SELF_RENAMES, PRESENCE_BROADCAST_INTERVAL_MS, tallyIntervalMs } from "../../lib/constants";
import { protocolError, type Ack, type Command, type MyVote, type ProtocolError, type TallyUpdate } from "../../lib/protocol";
import { decide, type Actor } from "../../lib/session/decide";
import { logFull } from "../../lib/session/rules";
import { admit, type Admission, type JoinFacts } from "../../lib/session/admission";
import {
  activePoll,
  applyEvent,
  cloneState,
  countVotes,
  own,
  rosterRow,
  rosterRows,
  toHostSnapshot,
  type RosterChanges,
  type RosterFull,
  toPublicSnapshot,
  type HostSnapshot,
  type PublicSnapshot,
  type SessionEventBody,
  type SessionEvent,
  type SessionState,
} from "../../lib/session";
import { Presence } from "./presence";
import { RoomQuestions, silentQuestionOutbox, type QuestionOutbox } from "./questions";
import type { SessionStore } from "../store/types";
import { LeadingEdgeThrottle } from "./throttle";

/** Where a room's messages go. The socket.io adapter implements it; tests can record it. */
export interface RoomOutbox extends QuestionOutbox {
  /** Everyone watching: projector and students. */
  publicSnapshot: (snapshot: PublicSnapshot) => void;
  /** The teacher's sockets. */
  hostSnapshot: (snapshot: HostSnapshot) => void;
  /**
   * One tally tick: the teachers' counts, and what the class sees of it: the
   * same counts while results are shown, else the public snapshot (how many
   * have voted, nothing more).
   */
  tally: (tally: TallyUpdate, forClass: { tally: TallyUpdate } | { snapshot: PublicSnapshot }) => void;
  /**
   * A snapshot for the class is on its way (sent once its event is written):
   * what is left of a tally tick still going out to a large class is stale,
   * stop it now rather than after the write.
   */
  tallySuperseded: () => void;
  /** One participant's sockets (every tab of that browser), but `except` (the socket that voted: its ack says it). */
  myVote: (participantId: string, vote: MyVote | null, except?: string) => void;
  /** Projectors and teachers: the connected-student count (teachers also get the projector views), coalesced. */
  presence: (participantCount: number, projectorCount: number) => void;
  /** The teacher's sockets: the roster rows that changed, coalesced with presence. */
  rosterChanges: (changes: RosterChanges) => void;
  /** One participant's sockets: their nickname changed. */
  renamed: (participantId: string, nickname: string) => void;
  /** Disconnect a participant's sockets with a reason. */
  kick: (participantId: string, error: ProtocolError) => void;
  /** Disconnect every projector view with a reason. */
  kickProjectors: (error: ProtocolError) => void;
}

/** An outbox that sends nothing: for rooms nobody listens to (unit tests, tools). */
export const silentRoomOutbox: RoomOutbox = {
  publicSnapshot: () => undefined,
  hostSnapshot: () => undefined,
  tally: () => undefined,
  tallySuperseded: () => undefined,
  myVote: () => undefined,
  presence: () => undefined,
  rosterChanges: () => undefined,
  renamed: () => undefined,
  kick: () => undefined,
  kickProjectors: () => undefined,
  ...silentQuestionOutbox,
};

export interface RoomDeps {
  store: SessionStore;
  outbox: RoomOutbox;
  now: () => number;
  newId: () => string;
  /** Fisher-Yates with the server's randomness; tests may pass a fixed order. */
  shuffle: <T>(items: T[]) => T[];
}

const ok: Ack = { ok: true, data: null };

/**
 * One live session. Commands are checked here (the socket layer has already
 * parsed payloads and fixed the sender's role), turned into events, appended
 * to the log, applied to the room's own state, and published. Presence (who is connected)
 * lives only here and is never logged.
 */
export class Room {
  private state: SessionState;
  /** Who is connected now (never logged). */
  readonly presence: Presence;
  /** Vote counts reach the room at most 4 times a second, whatever the vote rate. */
  private readonly tally = new LeadingEdgeThrottle(
    () => tallyIntervalMs(this.presence.connectedCount + this.presence.watcherCount),
    () => this.sendTally(),
  );
  /** Joins, leaves and roster changes reach the console (and projectors' counts) at most twice a second. */
  private readonly presenceUpdates = new LeadingEdgeThrottle(PRESENCE_BROADCAST_INTERVAL_MS, () => this.sendPresence());
  /** Each participant's place in join order (the console's `#N`); its size is how many have ever joined. */
  private readonly joinNumbers = new Map<string, number>();
  /** Names this room instance's roster revisions (a reloaded room counts afresh). */
  private readonly rosterEpoch: string;
  private rosterRev = 0;
  /** Students whose roster rows changed since the console was last told. */
  private readonly rosterPending = new Set<string>();
  /** Students looking back reach the console at most twice a second, like presence. */
  private readonly lookBackUpdates = new LeadingEdgeThrottle(PRESENCE_BROADCAST_INTERVAL_MS, () =>
    this.deps.outbox.lookingBack(this.presence.lookingBackCount),
  );
  /** The questions' own channel (lists on join, coalesced changes): never in the snapshots. */
  readonly questions: RoomQuestions;
  private closeTimer: NodeJS.Timeout | null = null;
  private disposed = false;

  constructor(
    state: SessionState,
    private readonly deps: RoomDeps,
  ) {
    this.state = state;
    Object.keys(state.participants).forEach((id, i) => this.joinNumbers.set(id, i + 1));
    this.rosterEpoch = randomBytes(9).toString("base64url");
    this.presence = new Presence(
      deps.now,
      (participantId) => {
        if (participantId) this.rosterPending.add(participantId);
        this.presenceUpdates.request();
      },
      (peak) => deps.store.notePeakParticipants(this.id, peak),
      () => this.lookBackUpdates.request(),
    );
    this.questions = new RoomQuestions(this.state, deps.outbox);
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
  /** The teacher's lesson this session runs, or null for the built-in one. */
  get lesson(): SessionState["lesson"] {
    return this.state.lesson;
  }
  get lastEventAt(): number {
    return this.state.lastEventAt;
  }
  get participantsJoined(): number {
    return this.joinNumbers.size;
  }
  get isEnded(): boolean {
    return this.state.status === "ended";
  }
  /** The log reached MAX_EVENTS_PER_SESSION: only closing, revealing and ending still write. */
  get logFull(): boolean {
    return logFull(this.state);
  }

  // -------------------------------------------------------------------------
  // Views

  publicSnapshot(): PublicSnapshot {
    return toPublicSnapshot(this.state, this.presence.connectedCount);
  }

  hostSnapshot(): HostSnapshot {
    return toHostSnapshot(this.state, {
      connectedCount: this.presence.connectedCount,
      isConnected: (id) => this.presence.isConnected(id),
      projectorCount: this.presence.projectorCount,
    });
  }

  /** The whole roster, for a console that joins or resyncs. */
  roster(): RosterFull {
    return { epoch: this.rosterEpoch, rev: this.rosterRev, rows: rosterRows(this.state, this.presence) };
  }

  myVote(participantId: string): MyVote | null {
    const poll = activePoll(this.state);
    if (!poll) return null;
    return { pollId: poll.id, round: poll.round, optionId: poll.votes[participantId] ?? null, rev: this.state.seq };
  }

  // -------------------------------------------------------------------------
  // Participants and presence

  participant(id: string) {
    return own(this.state.participants, id) ?? null;
  }

  get locked(): boolean {
    return this.state.locked;
  }

  /** Whether a socket may join, and as whom (lib/session/admission.ts); the presence figures are the room's. */
  admit(facts: Omit<JoinFacts, "projectorsOpen" | "participantsJoined">): Admission {
    return admit(this.state, { ...facts, projectorsOpen: this.presence.projectorCount, participantsJoined: this.participantsJoined });
  }

  addParticipant(participantId: string, nickname: string): void {
    if (!own(this.state.participants, participantId)) {
      this.joinNumbers.set(participantId, this.joinNumbers.size + 1);
    }
    this.commit({ type: "participant:joined", participantId, nickname });
  }

  // -------------------------------------------------------------------------
  // Commands

  /**
   * Runs a parsed, role-checked command: `decide` says what it means and
   * whether it is allowed, each resulting event is appended and applied, then
   * published. Only presence commands (closing projector views) are the
   * room's own.
   */
  handle(command: Command, actor: Actor = { participantId: null }, sender?: string): Ack<unknown> {
    if (command.event === "projectors:close") {
      if (this.isEnded) return { ok: false, error: protocolError("SESSION_ENDED") };
      this.deps.outbox.kickProjectors(protocolError("PROJECTOR_CLOSED"));
      return ok;
    }
    if (command.event === "lookback:set") {
      // Presence, like being connected: counted for the console, never logged.
      if (this.isEnded) return { ok: false, error: protocolError("SESSION_ENDED") };
      if (actor.participantId) this.presence.lookBack(actor.participantId, sender ?? "", command.payload.lookingBack);
      return ok;
    }
    const decision = decide(this.state, command, actor, { now: this.deps.now(), newId: this.deps.newId, shuffle: this.deps.shuffle });
    if (!decision.ok) return decision;
    for (const body of decision.events) this.commit(body);
    this.afterEvents(decision.events, sender);
    return { ok: true, data: decision.data };
  }

  /** Renames each student made by rejoining with a new name (bounded: each one is logged). */
  private readonly selfRenames = new Map<string, number>();

  /**
   * A returning student who brings a new nickname (a `?name=` link, another
   * tab): everyone who shows it is told. At most MAX_SELF_RENAMES times per
   * student, or one token reconnecting in a loop could fill the log.
   */
  renameIfChanged(participantId: string, nickname: string | undefined): void {
    if (!nickname || this.participant(participantId)?.nickname === nickname) return;
    const done = this.selfRenames.get(participantId) ?? 0;
    if (done >= MAX_SELF_RENAMES) return;
    if (this.handle({ event: "participant:rename", payload: { participantId, nickname } }).ok)
      this.selfRenames.set(participantId, done + 1);
  }

  /** Ends the session (the idle sweep; an open poll is closed first, with its counts). */
  end(): Ack<unknown> {
    return this.handle({ event: "session:end", payload: {} });
  }

  /** What follows a command's events: publishing, coalesced tallies, timers, kicks. */
  private afterEvents(events: readonly SessionEventBody[], sender?: string): void {
    let publish = false;
    for (const e of events) {
      // Questions travel on their own channel; their settings and the projector's question are in the snapshots.
      if (this.questions.note(e)) publish = true;
      switch (e.type) {
        case "poll:voted":
          this.tally.request();
          // Other tabs of the same browser show the change too; the voting socket has its receipt (the ack),
          // so it is left out: at 10,000 votes a second the echo would double the writes to voters' sockets.
          // A student with one tab (nearly all) has nobody to tell.
          if (this.presence.socketsOf(e.participantId) > 1) this.deps.outbox.myVote(e.participantId, this.myVote(e.participantId), sender);
          break;
        case "participant:renamed":
          // Only the teacher lists names; the student's own tabs are told.
          this.rosterChanged(e.participantId);
          this.deps.outbox.renamed(e.participantId, e.nickname);
          break;
        case "participant:removed":
          publish = true;
          this.rosterChanged(e.participantId);
          this.deps.outbox.kick(e.participantId, protocolError("REMOVED"));
          break;
        case "poll:closed":
          this.tally.cancel();
          publish = true;
          break;
        case "participant:readmitted":
          // Only the teacher lists who was removed; the student is let in on their next join.
          this.rosterChanged(e.participantId);
          break;
        case "participant:joined":
          // Coalesced with the rest of the join storm.
          this.rosterChanged(e.participantId);
          break;
        case "questions:configured":
        case "question:asked":
        case "question:upvoted":
        case "question:approved":
        case "question:answered":
        case "question:hidden":
        case "question:shown":
          break;
        default:
          // Every other fact changes what the snapshots show (a step, a mode, a poll's state, a setting):
          // published whole, so a new event reaches every audience without a case here.
          publish = true;
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
    const event: SessionEvent = { ...body, seq: this.state.seq + 1, at: this.deps.now() };
    this.deps.store.append(this.id, event);
    // The room owns its state: events apply in place (O(1) per vote and join).
    applyEvent(this.state, event);
    return event;
  }

  /** The whole (small) state to everyone: one encode per audience, not per socket. */
  publish(): void {
    this.deps.outbox.tallySuperseded();
    this.deps.outbox.publicSnapshot(this.publicSnapshot());
    this.deps.outbox.hostSnapshot(this.hostSnapshot());
  }

  /** A student's row changed: the console hears of it with the next presence update (leading edge: at once if quiet). */
  private rosterChanged(participantId: string): void {
    this.rosterPending.add(participantId);
    this.presenceUpdates.request();
  }

  /** The counts to projectors and teachers, and the changed roster rows to teachers: O(changes), never the whole class. */
  private sendPresence(): void {
    this.deps.outbox.presence(this.presence.connectedCount, this.presence.projectorCount);
    if (this.rosterPending.size === 0) return;
    const rows = [];
    for (const id of this.rosterPending) {
      const row = rosterRow(this.state, id, this.joinNumbers.get(id) ?? 0, this.presence);
      if (row) rows.push(row);
    }
    this.rosterPending.clear();
    const from = this.rosterRev;
    this.rosterRev += 1;
    this.deps.outbox.rosterChanges({ epoch: this.rosterEpoch, from, to: this.rosterRev, rows });
  }

  private sendTally(): void {
    const poll = activePoll(this.state);
    if (!poll || poll.status !== "open") return;
    const { counts, total } = countVotes(poll);
    const tally: TallyUpdate = { pollId: poll.id, round: poll.round, counts, total, rev: this.state.seq };
    // Without live results the class still sees how many have voted (the public poll's `voted`, a count only).
    this.deps.outbox.tally(tally, this.state.resultsVisible ? { tally } : { snapshot: this.publicSnapshot() });
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
    this.tally.stop();
    this.presenceUpdates.stop();
    this.lookBackUpdates.stop();
    this.questions.dispose();
    if (this.closeTimer) clearTimeout(this.closeTimer);
    this.closeTimer = null;
  }
}
