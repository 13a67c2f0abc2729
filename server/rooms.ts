import { replay, type SessionEvent } from "../lib/session";
import { log } from "./logger";
import { Room, type RoomOutbox } from "./room";
import { hashSecret, newId, newRoomCode, newSecret, shuffle } from "./secrets";
import type { SessionStore } from "./store/types";

export interface RoomRegistryOptions {
  store: SessionStore;
  /** Builds the outbox of a room; the socket layer routes by session id. */
  outboxFor: (sessionId: string) => RoomOutbox;
  now?: () => number;
  /** Live sessions idle this long with nobody connected are ended. 0 disables. */
  idleTimeoutMs: number;
}

export interface CreatedSession {
  id: string;
  code: string;
  title: string;
  hostKey: string;
  createdAt: number;
}

/**
 * The live rooms of this process. A room is rebuilt from its log the first
 * time it is needed (after a restart, every live session is recovered at
 * start so open polls' countdowns keep running).
 */
export class RoomRegistry {
  private readonly rooms = new Map<string, Room>();
  private readonly byCode = new Map<string, string>();
  private readonly now: () => number;

  constructor(private readonly options: RoomRegistryOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Load every live session from the store. */
  recoverAll(): number {
    let n = 0;
    for (const id of this.options.store.liveSessionIds()) {
      if (this.load(id)) n++;
    }
    return n;
  }

  create(title: string): CreatedSession {
    const { store } = this.options;
    let code = newRoomCode();
    for (let tries = 0; store.codeExists(code) || this.byCode.has(code); tries++) {
      if (tries > 50) throw new Error("could not find a free room code");
      code = newRoomCode();
    }
    const id = newId();
    const hostKey = newSecret();
    const createdAt = this.now();
    const created: SessionEvent = { type: "session:created", id, code, title, seq: 1, at: createdAt };
    store.createSession({ id, code, title, hostKeyHash: hashSecret(hostKey), createdAt, endedAt: null }, created);
    this.attach(replay([created]));
    log.info("session created", { sessionId: id, code });
    return { id, code, title, hostKey, createdAt };
  }

  /** The live room for a code, or null (unknown or ended). */
  byRoomCode(code: string): Room | null {
    const id = this.byCode.get(code);
    if (id) return this.rooms.get(id) ?? null;
    const record = this.options.store.findByCode(code);
    if (!record || record.endedAt !== null) return null;
    return this.load(record.id);
  }

  get(id: string): Room | null {
    return this.rooms.get(id) ?? this.load(id);
  }

  hostKeyHash(id: string): string | null {
    return this.options.store.getSession(id)?.hostKeyHash ?? null;
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
      if (!room.anyoneConnected && room.snapshotState.lastEventAt < cutoff && room.idleSince() < cutoff) {
        log.info("ending idle session", { sessionId: room.id });
        this.end(room);
      }
    }
  }

  end(room: Room): void {
    room.end();
    this.drop(room);
  }

  /** Forget a room that has ended; its log stays in the store. */
  drop(room: Room): void {
    room.dispose();
    this.rooms.delete(room.id);
    this.byCode.delete(room.code);
  }

  disposeAll(): void {
    for (const room of this.rooms.values()) room.dispose();
    this.rooms.clear();
    this.byCode.clear();
  }

  private load(id: string): Room | null {
    const existing = this.rooms.get(id);
    if (existing) return existing;
    const record = this.options.store.getSession(id);
    if (!record || record.endedAt !== null) return null;
    const state = replay(this.options.store.loadEvents(id));
    if (state.status === "ended") return null;
    return this.attach(state);
  }

  private attach(state: ReturnType<typeof replay>): Room {
    const room = new Room(state, {
      store: this.options.store,
      outbox: this.options.outboxFor(state.id),
      now: this.now,
      newId,
      shuffle,
    });
    this.rooms.set(state.id, room);
    this.byCode.set(state.code, state.id);
    return room;
  }
}
