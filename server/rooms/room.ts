import { MAX_SELF_RENAMES, PRESENCE_BROADCAST_INTERVAL_MS, tallyIntervalMs } from "../../lib/constants";
import { RoomAddresses } from "./addresses";
import { protocolError, type Ack, type Command, type MyVote, type Patch, type PatchOf } from "../../lib/protocol";
import { decide, type Actor } from "../../lib/session/decide";
import { logFull } from "../../lib/session/rules";
import { admit, type Admission, type JoinFacts } from "../../lib/session/admission";
import {
  activePoll,
  applyEvent,
  cloneState,
  own,
  rosterRow,
  toHostSnapshot,
  toPublicSnapshot,
  type HostSnapshot,
  type PublicSnapshot,
  type SessionEventBody,
  type SessionEvent,
  type SessionState,
} from "../../lib/session";
import {
  hostProjection,
  hostTally,
  myVoteIn,
  participantProjection,
  publicProjection,
  publicTally,
  recordKey,
} from "../../lib/session/projection";
import { Presence } from "./presence";
import { RoomQuestions } from "./questions";
import { RoomSync, type RoomOutbox } from "./roomSync";
import type { SessionStore } from "../store/types";
import { LeadingEdgeThrottle } from "./throttle";
export { silentRoomOutbox, type RoomOutbox } from "./roomSync";

export interface RoomDeps {
  store: SessionStore;
  outbox: RoomOutbox;
  now: () => number;
  newId: () => string;
  shuffle: <T>(items: T[]) => T[]; // Fisher-Yates with the server's randomness; tests may pass a fixed order
  closeDue?: (pollId: string) => void; // scale-out: the cluster closes a poll that is due, folding other nodes' votes first
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
  /** Students whose roster rows changed since the console was last told. */
  private readonly rosterPending = new Set<string>();
  /** Where students joined from (./addresses.ts): memory only, never logged. */
  private readonly addresses = new RoomAddresses();
  /** Students looking back reach the console at most twice a second, like presence. */
  private readonly lookBackUpdates = new LeadingEdgeThrottle(PRESENCE_BROADCAST_INTERVAL_MS, () =>
    this.sync.toHosts({ put: { lookback: { count: this.presence.lookingBackCount } } }),
  );
  /** This instance's clock, and the patches each audience is sent. */
  readonly sync: RoomSync;
  /** Changed questions, coalesced: never in the session record every step sends. */
  readonly questions: RoomQuestions;
  private closeTimer: NodeJS.Timeout | null = null;
  private disposed = false;

  constructor(
    state: SessionState,
    private readonly deps: RoomDeps,
  ) {
    this.state = state;
    Object.keys(state.participants).forEach((id, i) => this.joinNumbers.set(id, i + 1));
    this.sync = new RoomSync(deps.outbox, {
      public: () => publicProjection(this.state, this.presence),
      host: () => hostProjection(this.state, this.presenceView()),
      me: (participantId) => participantProjection(this.state, participantId),
    });
    this.presence = new Presence(
      deps.now,
      (participantId) => {
        if (participantId) this.rosterPending.add(participantId);
        this.presenceUpdates.request();
      },
      (peak) => deps.store.notePeakParticipants(this.id, peak),
      () => this.lookBackUpdates.request(),
    );
    this.questions = new RoomQuestions(this.state, this.sync);
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
    return toHostSnapshot(this.state, this.presenceView());
  }

  private presenceView() {
    return {
      connectedCount: this.presence.connectedCount,
      isConnected: (id: string) => this.presence.isConnected(id),
      projectorCount: this.presence.projectorCount,
      lookingBack: this.presence.lookingBackCount,
      joinNumber: (id: string) => this.joinNumbers.get(id),
    };
  }

  /**
   * Everything a socket of this audience holds, whole: the class's or the
   * teacher's records, and a student's own. Later patches follow on from it.
   */
  projection(audience: "host" | "public", participantId: string | null): Patch[] {
    if (audience === "host") return [this.sync.whole("host")];
    const patches: Patch[] = [this.sync.whole("public")];
    if (participantId) patches.push(this.sync.whole("me", participantId));
    return patches;
  }

  myVote(participantId: string): MyVote | null {
    return myVoteIn(this.state, participantId);
  }

  // -------------------------------------------------------------------------
  // Participants and presence

  participant(id: string) {
    return own(this.state.participants, id) ?? null;
  }

  get locked(): boolean {
    return this.state.locked;
  }

  /**
   * Whether a socket may join, and as whom (lib/session/admission.ts), with the room's presence figures and
   * address counts; a returning student is noted at the address they join from now.
   */
  admit(facts: Omit<JoinFacts, "projectorsOpen" | "participantsJoined" | "identitiesFromAddress"> & { address?: string }): Admission {
    const { address, ...rest } = facts;
    const admission = admit(this.state, {
      ...rest,
      projectorsOpen: this.presence.projectorCount,
      participantsJoined: this.participantsJoined,
      identitiesFromAddress: this.addresses.added(address),
    });
    if (admission.ok && admission.as === "returning" && address !== undefined) this.addresses.note(admission.participantId, address);
    return admission;
  }

  /** A new student's join (logged), and the address it came from (remembered, not logged). */
  addParticipant(participantId: string, nickname: string, address?: string): void {
    if (!own(this.state.participants, participantId)) {
      this.joinNumbers.set(participantId, this.joinNumbers.size + 1);
      if (address !== undefined) this.addresses.countNew(address);
    }
    if (address !== undefined) this.addresses.note(participantId, address);
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
    // A question spends its address's share of the approval queue: the room knows who joined from where.
    if (command.event === "question:ask" && actor.participantId)
      actor = { ...actor, sameAddress: this.addresses.sameAs(actor.participantId) };
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
          if (this.presence.socketsOf(e.participantId) > 1) {
            const vote = this.myVote(e.participantId);
            if (vote) this.sync.toParticipant(e.participantId, { put: { vote } }, { volatile: true, except: sender });
          }
          break;
        case "participant:renamed":
          // Only the teacher lists names; the student's own tabs are told.
          this.rosterChanged(e.participantId);
          this.sync.toParticipant(e.participantId, { put: { name: { nickname: e.nickname } } });
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
        case "questions:blocked":
          // Only the teacher hears of it, on the rows of the askers' hidden questions (./questions.ts).
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

  /**
   * The session record (small) to everyone, with the running count it goes
   * with: one encode per audience, not per socket.
   */
  publish(): void {
    this.deps.outbox.tallySuperseded();
    const forClass = publicTally(this.state);
    const forHosts = hostTally(this.state);
    this.sync.toClass(
      forClass ? { put: { session: this.publicSnapshot(), tally: forClass } } : { put: { session: this.publicSnapshot() }, del: ["tally"] },
    );
    this.sync.toHosts(
      forHosts ? { put: { session: this.hostSnapshot(), tally: forHosts } } : { put: { session: this.hostSnapshot() }, del: ["tally"] },
    );
  }

  /** A student's row changed: the console hears of it with the next presence update (leading edge: at once if quiet). */
  private rosterChanged(participantId: string): void {
    this.rosterPending.add(participantId);
    this.presenceUpdates.request();
  }

  /** The counts to projectors and teachers, and the changed roster rows to teachers: O(changes), never the whole class. */
  private sendPresence(): void {
    const participantCount = this.presence.connectedCount;
    this.sync.toProjectors({ put: { presence: { participantCount } } });
    const put: NonNullable<PatchOf<"host">["put"]> = { presence: { participantCount, projectorCount: this.presence.projectorCount } };
    for (const id of this.rosterPending) {
      const row = rosterRow(this.state, id, this.joinNumbers.get(id) ?? 0, this.presence);
      if (row) put[recordKey("r", id)] = row;
    }
    // Counts alone may be skipped (a newer count replaces them); changed rows may not.
    const volatile = this.rosterPending.size === 0;
    this.rosterPending.clear();
    this.sync.toHosts({ put }, volatile);
  }

  private sendTally(): void {
    const forHosts = hostTally(this.state);
    const forClass = publicTally(this.state);
    // Without live results the class still sees how many have voted (a count only).
    if (forHosts && forClass) this.sync.tally({ put: { tally: forHosts } }, { put: { tally: forClass } });
  }

  /** A poll with a countdown closes itself, also after a restart. */
  private armAutoClose(): void {
    if (this.closeTimer) clearTimeout(this.closeTimer);
    this.closeTimer = null;
    const poll = activePoll(this.state);
    if (!poll || poll.status !== "open" || poll.closesAt === null || this.disposed) return;
    const delay = Math.max(0, poll.closesAt - this.deps.now());
    this.closeTimer = setTimeout(() => {
      const still = activePoll(this.state);
      if (still?.id === poll.id && still.status === "open")
        (this.deps.closeDue ?? ((id: string) => this.handle({ event: "poll:close", payload: { pollId: id } })))(poll.id);
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
