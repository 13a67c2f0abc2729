import type { SessionLesson } from "../../lib/lesson/model";
import { DEFAULT_KUBE_VERSION, type KubeVersion } from "../../lib/lesson/versions";
import { replay, type SessionEvent, type SessionState } from "../../lib/session";
import { log } from "../logger";
import { Room, type RoomOutbox } from "./room";
import { hashSecret, newId, newRoomCode, newSecret, shuffle } from "../secrets";
import type { SessionStore } from "../store/types";

export interface RoomRegistryOptions {
  store: SessionStore;
  /** Builds the outbox of a room; the socket layer routes by session id. */
  outboxFor: (sessionId: string) => RoomOutbox;
  now?: () => number;
  /** Live sessions idle this long with nobody connected are ended. 0 disables. */
  idleTimeoutMs: number;
  /** Scale-out: makes this node the owner of a session it has just created, before its room exists. */
  claimNew?: (sessionId: string) => Promise<void>;
  /**
   * Scale-out: who is connected to a session across the nodes, so a room
   * loaded by a new owner starts with the class's count instead of zero.
   */
  presenceOf?: (sessionId: string) => Promise<PresenceFigure | null>;
}

/** Who is connected to a session: students by participant id (one entry per socket), and watchers. */
export interface PresenceFigure {
  participants: string[];
  /** Students with a socket looking back at an earlier step (one entry per such socket). */
  lookingBack: string[];
  watchers: number;
  projectors: number;
}

export interface CreatedSession {
  id: string;
  code: string;
  title: string;
  hostKey: string;
  createdAt: number;
}

/**
 * Holds back a room's messages until the events they report are durable:
 * nothing reaches a client that a crash could take back.
 */
export function durableOutbox(store: SessionStore, sessionId: string, outbox: RoomOutbox): RoomOutbox {
  const gate =
    <A extends unknown[]>(fn: (...args: A) => void) =>
    (...args: A) =>
      store.afterDurable(() => fn(...args), sessionId);
  return {
    toClass: gate(outbox.toClass),
    toProjectors: gate(outbox.toProjectors),
    toHosts: gate(outbox.toHosts),
    toParticipant: gate(outbox.toParticipant),
    tally: gate(outbox.tally),
    // Ungated: it only withholds a stale count from students who are about to get a newer patch.
    tallySuperseded: outbox.tallySuperseded,
    kick: gate(outbox.kick),
    kickProjectors: gate(outbox.kickProjectors),
  };
}

/**
 * The live rooms of this process. A room is rebuilt from its log the first
 * time it is needed; after a restart every live session is recovered at start
 * so open polls' countdowns keep running.
 */
export class RoomRegistry {
  private readonly rooms = new Map<string, Room>();
  private readonly byCode = new Map<string, string>();
  private readonly loading = new Map<string, Promise<Room | null>>();
  /** Sessions ended by this process: never reloaded, even before the end is on disk. */
  private readonly ended = new Set<string>();
  private readonly now: () => number;
  /** Scale-out (server/scaleout/clusterGateway.ts): who closes a poll whose countdown ran out; the room itself when unset. */
  private closeDue: ((sessionId: string, pollId: string) => void) | null = null;

  constructor(private readonly options: RoomRegistryOptions) {
    this.now = options.now ?? Date.now;
  }

  get store(): SessionStore {
    return this.options.store;
  }

  /** Load every live session from the store. */
  async recoverAll(): Promise<number> {
    let n = 0;
    for (const id of await this.options.store.liveSessionIds()) {
      if (await this.load(id)) n++;
    }
    return n;
  }

  /** `lesson`: a teacher's lesson version, recorded in `session:created` so the session, its replay and exports keep it. */
  async create(title: string, lesson?: SessionLesson, kubeVersion: KubeVersion = DEFAULT_KUBE_VERSION): Promise<CreatedSession> {
    const { store } = this.options;
    let code = newRoomCode();
    for (let tries = 0; this.byCode.has(code) || (await store.codeExists(code)); tries++) {
      if (tries > 50) throw new Error("could not find a free room code");
      code = newRoomCode();
    }
    const id = newId();
    const hostKey = newSecret();
    const createdAt = this.now();
    // A teacher's own lesson prints no Kubernetes strings: only the built-in one carries a release.
    const created: SessionEvent = {
      type: "session:created",
      id,
      code,
      title,
      ...(lesson ? { lesson } : { kubeVersion }),
      seq: 1,
      at: createdAt,
    };
    await store.createSession({ id, code, title, hostKeyHash: hashSecret(hostKey), createdAt, endedAt: null }, created);
    await this.options.claimNew?.(id);
    this.attach(replay([created]));
    log.info("session created", { sessionId: id, code });
    return { id, code, title, hostKey, createdAt };
  }

  /** The live room for a code, or null (unknown or ended). */
  async byRoomCode(code: string): Promise<Room | null> {
    const id = this.byCode.get(code);
    if (id) return this.rooms.get(id) ?? null;
    const record = await this.options.store.findByCode(code);
    if (!record || record.endedAt !== null) return null;
    return this.load(record.id);
  }

  /** A room already in memory (every socket's room is: it was loaded at the handshake). */
  get(id: string): Room | null {
    return this.rooms.get(id) ?? null;
  }

  async hostKeyHash(id: string): Promise<string | null> {
    return (await this.options.store.getSession(id))?.hostKeyHash ?? null;
  }

  get liveCount(): number {
    return this.rooms.size;
  }

  /** End sessions nobody has touched for the idle timeout. */
  sweepIdle(): void {
    const { idleTimeoutMs } = this.options;
    if (idleTimeoutMs <= 0) return;
    const cutoff = this.now() - idleTimeoutMs;
    for (const room of [...this.rooms.values()]) {
      if (!room.presence.anyoneConnected && room.lastEventAt < cutoff && room.presence.idleSince < cutoff) {
        log.info("ending idle session", { sessionId: room.id });
        room.end();
        this.drop(room);
      }
    }
  }

  /** Forget a room (ended, or its in-memory state can no longer be trusted); its log stays in the store. */
  drop(room: Room): void {
    if (room.isEnded) this.ended.add(room.id);
    room.dispose();
    if (this.rooms.get(room.id) === room) this.rooms.delete(room.id);
    if (this.byCode.get(room.code) === room.id) this.byCode.delete(room.code);
  }

  /** Forget the rooms of these sessions (their writes failed); the next client reloads each from its log. */
  dropSessions(ids: Iterable<string>): void {
    for (const id of ids) {
      const room = this.rooms.get(id);
      if (room) this.drop(room);
      // An end that failed to write did not happen: the session may be loaded again.
      this.ended.delete(id);
    }
  }

  disposeAll(): void {
    for (const room of this.rooms.values()) room.dispose();
    this.rooms.clear();
    this.byCode.clear();
  }

  /** Scale-out: rooms attached from now on leave a due poll's close to `closeDue`. */
  closeDueWith(closeDue: (sessionId: string, pollId: string) => void): void {
    this.closeDue = closeDue;
  }

  /** Loads a live session's room from its log; concurrent callers share one load. */
  load(id: string): Promise<Room | null> {
    const existing = this.rooms.get(id);
    if (existing) return Promise.resolve(existing);
    let pending = this.loading.get(id);
    if (!pending) {
      pending = this.readRoom(id).finally(() => this.loading.delete(id));
      this.loading.set(id, pending);
    }
    return pending;
  }

  /** Every room in memory. */
  all(): Room[] {
    return [...this.rooms.values()];
  }

  private async readRoom(id: string): Promise<Room | null> {
    if (this.ended.has(id)) return null;
    const record = await this.options.store.getSession(id);
    if (!record || record.endedAt !== null) return null;
    const state = replay(await this.options.store.loadEvents(id));
    if (state.status === "ended" || !state.id || this.ended.has(id)) return null;
    const presence = (await this.options.presenceOf?.(id)) ?? null;
    const existing = this.rooms.get(id);
    if (existing || this.ended.has(id)) return existing ?? null;
    const room = this.attach(state);
    // Before anything is published (an overdue poll closes on the next turn): the count the class already had.
    if (presence) room.presence.reset(presence.participants, presence.watchers, presence.projectors, presence.lookingBack);
    return room;
  }

  private attach(state: SessionState): Room {
    const room = new Room(state, {
      store: this.options.store,
      outbox: durableOutbox(this.options.store, state.id, this.options.outboxFor(state.id)),
      now: this.now,
      newId,
      shuffle,
      ...(this.closeDue ? { closeDue: this.closeDue.bind(null, state.id) } : {}),
    });
    this.rooms.set(state.id, room);
    this.byCode.set(state.code, state.id);
    return room;
  }
}
