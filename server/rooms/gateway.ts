import { publicLesson, type SessionLesson } from "../../lib/lesson/model";
import { RATE_LIMITS } from "../../lib/constants";
import {
  ERROR_CODES,
  isRoomCode,
  normalizeRoomCode,
  protocolError,
  type Ack,
  type ClientToServerEvents,
  type ErrorCode,
  type HeldStreams,
  type Patch,
  type PatchOf,
  type StreamName,
  type Command,
  type ProtocolError,
  type Role,
} from "../../lib/protocol";
import { log } from "../logger";
import { KeyedLimiter } from "../edge/rateLimit";
import type { RoomRegistry } from "./registry";
import { hashSecret, newId, newSecret, secretMatches } from "../secrets";
import { LostOwnershipError, StoreInDoubtError, StoreUnavailableError, type SessionStore } from "../store/types";
import { errorMessage } from "../../lib/errors";

/**
 * What the socket layer asks of the rooms, as plain data in and out: who may
 * join, run this command, this socket left. One process answers it directly
 * (LocalGateway); a cluster forwards each call to the node that owns the
 * session (server/scaleout/clusterGateway.ts), so every value here must survive JSON.
 */
export interface JoinRequest {
  code: string;
  role: Role;
  hostKey?: string;
  token?: string;
  nickname?: string;
  /** The client's address, for per-address limits. */
  address: string;
  /**
   * False while the address is over its failed-join allowance: only a student
   * with a valid token (or the teacher with the key) gets in; a new identity is refused.
   */
  admitNew?: boolean;
}

export type JoinResult =
  | {
      ok: true;
      sessionId: string;
      code: string;
      role: Role;
      participantId: string | null;
      /** Set for students: the token to keep (new, or the one presented). */
      token?: string;
      nickname?: string;
      /** The whole of every stream this socket follows (lib/session/projection.ts), then patches. */
      projection: Patch[];
      /** The teacher's lesson the session runs (speaker notes for the host only); absent for the built-in lesson. */
      lesson?: SessionLesson;
    }
  | { ok: false; error: ProtocolError };

/** What a resync sends one socket again: for each stream it follows, what changed since the copy it holds, or the whole. */
export interface MemberView {
  projection: Patch[];
}

export interface Member {
  sessionId: string;
  role: Role;
  participantId: string | null;
  /** The member's socket: a command's own receipt is its ack, so echoes to the participant's tabs leave it out. */
  socketId?: string;
}

export type CommandName = Exclude<keyof ClientToServerEvents, "session:sync">;

export interface RoomGateway {
  join(request: JoinRequest): Promise<JoinResult>;
  /** Runs a parsed, role-checked command; resolves once its events are durable. */
  command(member: Member, command: Command): Promise<Ack<unknown>>;
  /** The member's socket is connected (presence only; counted here, not at the handshake, which can be abandoned). */
  connected(member: Member): Promise<void>;
  /** The member's socket is gone (presence only). */
  left(member: Member): Promise<void>;
  /**
   * The member's current view, for a resync: for each stream the member follows, what changed since the copy
   * `have` names (room instance and clock), or the whole of it.
   */
  view(member: Member, have?: HeldStreams): Promise<MemberView | null>;
}

/**
 * A call the rooms could not answer in time or could not reach (scale-out:
 * the owner node or Redis): UNAVAILABLE when it was not applied, UNCONFIRMED
 * when it may have been. The socket layer answers with the code, never INTERNAL.
 */
export class UnavailableError extends Error {
  constructor(
    readonly code: "UNAVAILABLE" | "UNCONFIRMED",
    message: string = ERROR_CODES[code],
  ) {
    super(message);
    this.name = "UnavailableError";
  }
}

/**
 * What a command's sender is told when its events could not be written.
 * A lost ownership is not an answer: the cluster runs the command again on
 * the new owner (nothing was written), so it is thrown on.
 */
function writeFailure(err: unknown): ProtocolError {
  if (err instanceof LostOwnershipError) throw err;
  if (err instanceof StoreUnavailableError)
    return protocolError("UNAVAILABLE", "The class's data store is unreachable: that was not saved. Try again in a moment.");
  if (err instanceof StoreInDoubtError) return protocolError("UNCONFIRMED");
  return protocolError("INTERNAL", "The server could not save that. Reconnecting…");
}

const refuse = (code: ErrorCode, message?: string): JoinResult => ({ ok: false, error: protocolError(code, message) });

/** The rooms of this process, answered directly. */
export class LocalGateway implements RoomGateway {
  // New identities per address and session: a lecture hall behind one NAT address joins in seconds; a script cannot mint millions.
  private readonly newParticipants = new KeyedLimiter(RATE_LIMITS.newParticipants);

  constructor(
    private readonly rooms: RoomRegistry,
    private readonly store: SessionStore,
    /** Closes every socket of a session, so clients reconnect to its durable state. */
    private readonly disconnectAll: (sessionId: string) => void = () => undefined,
  ) {}

  async join(request: JoinRequest): Promise<JoinResult> {
    const code = normalizeRoomCode(request.code);
    if (!isRoomCode(code)) return refuse("NO_SUCH_SESSION");
    const room = await this.rooms.byRoomCode(code);
    if (!room) return (await this.store.findByCode(code)) ? refuse("SESSION_ENDED") : refuse("NO_SUCH_SESSION");
    const lesson = (room.lesson && (request.role === "host" ? room.lesson : publicLesson(room.lesson))) ?? undefined;
    // One shape for every admitted join, field by field (spreading a shared base cost a slow property definition per field).
    const admitted = (participantId: string | null, projection: Patch[], token?: string, nickname?: string): JoinResult => ({
      ok: true,
      sessionId: room.id,
      code: room.code,
      role: request.role,
      participantId,
      token,
      nickname,
      projection,
      lesson,
    });

    // The facts only the server knows; whether they admit this socket, and as whom, is the session's rule.
    const holdsHostKey = request.role !== "student" && request.hostKey !== undefined && (await this.holdsHostKey(room.id, request.hostKey));
    const tokenOf =
      request.role === "student" && request.token ? await this.store.findParticipantByToken(room.id, hashSecret(request.token)) : null;
    const admission = room.admit({
      role: request.role,
      holdsHostKey,
      tokenOf,
      admitNew: request.admitNew !== false,
      address: request.address,
    });
    if (!admission.ok) return admission;

    if (admission.as === "host") return admitted(null, room.projection("host", null));
    if (admission.as === "projector") return admitted(null, room.projection("public", null));

    let participantId: string;
    let token = request.token;
    if (admission.as === "returning") {
      participantId = admission.participantId;
      room.renameIfChanged(participantId, request.nickname);
    } else {
      // Per address and session: a script joining its own session over and over from the class's NAT address
      // must not use up the allowance the class's latecomers need for theirs.
      if (!this.newParticipants.take(`${room.id} ${request.address}`)) return refuse("RATE_LIMITED");
      const count = room.participantsJoined;
      participantId = newId();
      token = newSecret();
      await this.store.saveParticipantToken(room.id, participantId, hashSecret(token));
      room.addParticipant(participantId, request.nickname || `Student ${count + 1}`, request.address);
    }
    // The join event is durable before the socket is admitted.
    try {
      await this.store.flush(room.id);
    } catch (err) {
      // Another node owning the session now is no failure of this one (the cluster runs the join there).
      log[err instanceof LostOwnershipError ? "warn" : "error"]("a join could not be written; reloading the room", {
        sessionId: room.id,
        error: errorMessage(err),
      });
      this.rooms.dropSessions([room.id]);
      const error = writeFailure(err);
      if (error.code === "INTERNAL") this.disconnectAll(room.id);
      // Whether or not it was written, this student was not admitted: they join again as new.
      return { ok: false, error: error.code === "UNCONFIRMED" ? protocolError("UNAVAILABLE") : error };
    }
    return admitted(participantId, room.projection("public", participantId), token, room.participant(participantId)?.nickname);
  }

  /** Whether the presented key opens one of the session's consoles (their hashes are all the server keeps). */
  private async holdsHostKey(sessionId: string, hostKey: string): Promise<boolean> {
    // Each console has its own key (the first, and one per console a teacher opened elsewhere; server/auth/ownership.ts).
    const hashes = await this.store.hostKeyHashes(sessionId);
    return hashes.some((hash) => secretMatches(hostKey, hash));
  }

  async command(member: Member, command: Command): Promise<Ack<unknown>> {
    // Every socket's room is in memory (loaded at its handshake): no await, no extra turn per vote.
    const room = this.rooms.get(member.sessionId) ?? (await this.rooms.load(member.sessionId));
    // Ending twice is not an error: the second click finds the session already ended.
    if (!room) return command.event === "session:end" ? { ok: true, data: null } : { ok: false, error: protocolError("SESSION_ENDED") };
    const result = room.handle(command, { participantId: member.participantId }, member.socketId);
    if (command.event === "session:end") this.rooms.drop(room);
    try {
      // Acknowledge only what is on disk.
      await this.store.flush(member.sessionId);
    } catch (err) {
      log[err instanceof LostOwnershipError ? "warn" : "error"]("events could not be written; reloading the room", {
        sessionId: member.sessionId,
        error: errorMessage(err),
      });
      this.rooms.dropSessions([member.sessionId]);
      const error = writeFailure(err);
      if (error.code === "INTERNAL") this.disconnectAll(member.sessionId);
      return { ok: false, error };
    }
    return result;
  }

  async connected(member: Member): Promise<void> {
    // The room is in memory (its handshake just loaded it): no extra turn per join in a storm.
    const room = this.rooms.get(member.sessionId) ?? (await this.rooms.load(member.sessionId));
    if (!room) return;
    if (member.participantId) room.presence.connect(member.participantId);
    else room.presence.watcherJoined(member.role === "projector" ? "projector" : "host");
  }

  async left(member: Member): Promise<void> {
    const room = this.rooms.get(member.sessionId) ?? (await this.rooms.load(member.sessionId));
    if (!room) return;
    if (member.participantId) room.presence.disconnect(member.participantId, member.socketId ?? "");
    else room.presence.watcherLeft(member.role === "projector" ? "projector" : "host");
  }

  async view(member: Member, have?: HeldStreams): Promise<MemberView | null> {
    const room = await this.rooms.load(member.sessionId);
    if (!room) return null;
    const stream = <S extends StreamName>(name: S, participantId?: string): PatchOf<S>[] => {
      const held = have?.[name];
      return (held && room.sync.changesSince(name, held, participantId)) || [room.sync.whole(name, participantId)];
    };
    if (member.role === "host") return { projection: stream("host") };
    return { projection: [...stream("public"), ...(member.participantId ? stream("me", member.participantId) : [])] };
  }
}
