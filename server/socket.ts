import type { Server, Socket } from "socket.io";
import type { z } from "zod";
import {
  ERROR_CODES,
  emptySchema,
  PROTOCOL_VERSION,
  handshakeSchema,
  isRoomCode,
  modeSetSchema,
  normalizeRoomCode,
  participantRefSchema,
  participantRenameSchema,
  pollOpenSchema,
  projectorPanelSchema,
  pollRefSchema,
  pollReopenSchema,
  pollVoteSchema,
  protocolError,
  resultsVisibilitySchema,
  roomLockSchema,
  stepGoSchema,
  stepMoveSchema,
  type Ack,
  type ClientToServerEvents,
  type ErrorCode,
  type InterServerEvents,
  type ServerToClientEvents,
  type SocketData,
} from "../lib/protocol";
import { log } from "./logger";
import { KeyedLimiter, TokenBucket } from "./rateLimit";
import { MAX_COMMAND_PAYLOAD_BYTES, MAX_PARTICIPANTS_PER_SESSION } from "../lib/constants";
import type { Room, RoomOutbox } from "./room";
import type { RoomRegistry } from "./rooms";
import { hashSecret, newId, newSecret, secretMatches } from "./secrets";
import type { SessionStore } from "./store/types";

/** Every command a client may send; anything else is answered with UNKNOWN_EVENT. */
const KNOWN_EVENTS: ReadonlySet<string> = new Set<keyof ClientToServerEvents>([
  "step:go",
  "step:move",
  "mode:set",
  "poll:open",
  "poll:close",
  "poll:reveal",
  "poll:reopen",
  "results:show",
  "projector:show",
  "room:lock",
  "participant:remove",
  "participant:rename",
  "session:end",
  "poll:vote",
  "session:sync",
]);

export type IoServer = Server<ClientToServerEvents, ServerToClientEvents, InterServerEvents, SocketData>;
type IoSocket = Socket<ClientToServerEvents, ServerToClientEvents, InterServerEvents, SocketData>;

const publicRoom = (sessionId: string) => `pub:${sessionId}`;
const hostRoom = (sessionId: string) => `host:${sessionId}`;
const participantRoom = (sessionId: string, participantId: string) => `p:${sessionId}:${participantId}`;
const projectorRoom = (sessionId: string) => `proj:${sessionId}`;

/** The socket.io side of a room's outbox: one emit per audience, encoded once by socket.io. */
export function socketOutbox(io: IoServer, sessionId: string): RoomOutbox {
  return {
    publicSnapshot: (snapshot) => io.to(publicRoom(sessionId)).emit("session:snapshot", snapshot),
    hostSnapshot: (snapshot) => io.to(hostRoom(sessionId)).emit("session:snapshot", snapshot),
    tally: (audience, tally) =>
      audience === "host"
        ? io.to(hostRoom(sessionId)).emit("poll:tally", tally)
        : io.to([hostRoom(sessionId), publicRoom(sessionId)]).emit("poll:tally", tally),
    myVote: (participantId, vote) => io.to(participantRoom(sessionId, participantId)).emit("poll:myVote", vote),
    presence: (participantCount) => io.to(projectorRoom(sessionId)).emit("session:presence", { participantCount }),
    renamed: (participantId, nickname) => io.to(participantRoom(sessionId, participantId)).emit("participant:renamed", { nickname }),
    kick: (participantId, error) => {
      const room = participantRoom(sessionId, participantId);
      io.to(room).emit("session:kicked", error);
      // A disconnect packet follows the kick message on the same connection, so it arrives first.
      io.in(room).disconnectSockets();
    },
  };
}

/** A connect_error the browser can read: `err.message` is the code, `err.data` has code and message. */
function rejection(code: ErrorCode, message: string = ERROR_CODES[code]): Error {
  const err = new Error(code) as Error & { data: { code: ErrorCode; message: string } };
  err.data = { code, message };
  return err;
}

export interface SocketLayerOptions {
  io: IoServer;
  rooms: RoomRegistry;
  store: SessionStore;
}

/**
 * Wires socket.io to the rooms: the handshake fixes each socket's role, and
 * every inbound payload is parsed with its zod schema before a room sees it.
 */
export function attachSocketLayer({ io, rooms, store }: SocketLayerOptions): void {
  // Per address: failed joins (guessing room codes or host keys) and new identities.
  const failedJoins = new KeyedLimiter({ capacity: 20, refillPerSecond: 0.5 });
  const newParticipants = new KeyedLimiter({ capacity: 500, refillPerSecond: 20 });
  // Per participant, not per socket: reconnecting does not refill the bucket.
  const voteBuckets = new KeyedLimiter({ capacity: 10, refillPerSecond: 4 });

  io.use(async (socket, next) => {
    try {
      const address = socket.handshake.address;
      if (!failedJoins.peek(address)) return next(rejection("RATE_LIMITED", "Too many failed attempts to join. Wait a minute."));
      const refused = await authenticate(socket);
      if (refused && ["NO_SUCH_SESSION", "NOT_HOST", "SESSION_ENDED", "BAD_REQUEST"].includes(refused.message)) failedJoins.take(address);
      // A new participant's join event is durable before the socket is admitted.
      if (!refused) await store.flush();
      next(refused);
    } catch (err) {
      log.error("handshake failed", { error: (err as Error).message });
      next(rejection("INTERNAL"));
    }
  });

  async function authenticate(socket: IoSocket): Promise<Error | undefined> {
    const parsed = handshakeSchema.safeParse(socket.handshake.auth ?? {});
    if (!parsed.success) {
      // An old client may not even send the fields this version expects.
      const v = (socket.handshake.auth as { v?: unknown } | undefined)?.v;
      if (v !== PROTOCOL_VERSION) return rejection("CLIENT_TOO_OLD");
      return rejection("BAD_REQUEST", "The connection request was malformed.");
    }
    const auth = parsed.data;
    if (auth.v !== PROTOCOL_VERSION) return rejection("CLIENT_TOO_OLD");
    const code = normalizeRoomCode(auth.code);
    if (!isRoomCode(code)) return rejection("NO_SUCH_SESSION");
    const room = await rooms.byRoomCode(code);
    if (!room) {
      return (await store.findByCode(code)) ? rejection("SESSION_ENDED") : rejection("NO_SUCH_SESSION");
    }
    const base = { sessionId: room.id, code: room.code };
    switch (auth.role) {
      case "host": {
        const hash = await rooms.hostKeyHash(room.id);
        if (!hash || !secretMatches(auth.hostKey, hash)) return rejection("NOT_HOST", "This browser does not hold the host key for this session.");
        socket.data = { ...base, role: "host", participantId: null };
        return undefined;
      }
      case "projector":
        socket.data = { ...base, role: "projector", participantId: null };
        return undefined;
      case "student": {
        let participantId = auth.token ? await store.findParticipantByToken(room.id, hashSecret(auth.token)) : null;
        let token = auth.token;
        const known = participantId ? room.participant(participantId) : null;
        if (known?.removed) return rejection("REMOVED");
        if (!known) {
          if (room.locked) return rejection("ROOM_LOCKED");
          if (Object.keys(room.snapshotState.participants).length >= MAX_PARTICIPANTS_PER_SESSION) return rejection("ROOM_FULL");
          if (!newParticipants.take(socket.handshake.address)) return rejection("RATE_LIMITED");
          participantId = newId();
          token = newSecret();
          await store.saveParticipantToken(room.id, participantId, hashSecret(token));
          const count = Object.keys(room.snapshotState.participants).length;
          room.addParticipant(participantId, auth.nickname || `Student ${count + 1}`);
        } else {
          room.renameIfChanged(known.id, auth.nickname);
        }
        socket.data = { ...base, role: "student", participantId: participantId! };
        (socket as IoSocket & { issuedToken?: string }).issuedToken = token;
        return undefined;
      }
    }
  }

  io.on("connection", (socket) => {
    const { sessionId, role, participantId } = socket.data;
    const room = rooms.get(sessionId);
    if (!room) {
      socket.emit("session:kicked", protocolError("SESSION_ENDED"));
      socket.disconnect(true);
      return;
    }
    const participant = participantId ? room.participant(participantId) : null;
    socket.emit("session:welcome", {
      role,
      sessionId,
      participantId: participantId ?? undefined,
      token: (socket as IoSocket & { issuedToken?: string }).issuedToken,
      nickname: participant?.nickname,
      serverNow: Date.now(),
    });
    if (role === "host") {
      socket.join(hostRoom(sessionId));
      socket.emit("session:snapshot", room.hostSnapshot());
      room.watcherJoined();
    } else {
      socket.join(publicRoom(sessionId));
      socket.emit("session:snapshot", room.publicSnapshot());
      if (participantId) {
        socket.join(participantRoom(sessionId, participantId));
        socket.emit("poll:myVote", room.myVote(participantId));
        room.connect(participantId);
      } else {
        socket.join(projectorRoom(sessionId));
        room.watcherJoined();
      }
    }
    socket.on("disconnect", () => {
      // The room may have ended and been dropped; look it up again.
      const current = rooms.get(sessionId);
      if (!current) return;
      if (participantId) current.disconnect(participantId);
      else current.watcherLeft();
    });

    const commands = new TokenBucket({ capacity: 30, refillPerSecond: 10 });

    // Before any handler: unknown events get a named error (never silence), and
    // oversized payloads are refused before parsing.
    socket.use(([event, ...args], next) => {
      const ack = args.at(-1);
      const reply = typeof ack === "function" ? (ack as (r: Ack) => void) : null;
      if (!KNOWN_EVENTS.has(event)) {
        reply?.({ ok: false, error: protocolError("UNKNOWN_EVENT", `Unknown command "${String(event).slice(0, 40)}".`) });
        return;
      }
      const payload = reply ? args.slice(0, -1) : args;
      let size = 0;
      try {
        size = JSON.stringify(payload)?.length ?? 0;
      } catch {
        size = Infinity;
      }
      if (size > MAX_COMMAND_PAYLOAD_BYTES) {
        reply?.({ ok: false, error: protocolError("PAYLOAD_TOO_LARGE", `Payloads are limited to ${MAX_COMMAND_PAYLOAD_BYTES} bytes.`) });
        return;
      }
      next();
    });

    /**
     * Registers one command: checks the ack, the role and the rate, parses the
     * payload, and never lets an exception escape to socket.io.
     */
    function handle<S extends z.ZodType, R>(
      event: keyof ClientToServerEvents,
      schema: S,
      allowed: readonly SocketData["role"][],
      run: (payload: z.output<S>, room: Room) => Ack<R>,
    ): void {
      (socket as unknown as Socket).on(event, async (payload: unknown, ack: unknown) => {
        const reply = typeof ack === "function" ? (ack as (r: Ack<R | null>) => void) : () => undefined;
        try {
          const withinRate = event === "poll:vote" && participantId ? voteBuckets.take(`${sessionId}:${participantId}`) : commands.take();
          if (!withinRate) return reply({ ok: false, error: protocolError("RATE_LIMITED") });
          if (!allowed.includes(socket.data.role)) {
            return reply({
              ok: false,
              error: protocolError(event === "poll:vote" ? "NOT_STUDENT" : "NOT_HOST"),
            });
          }
          const parsed = schema.safeParse(payload ?? {});
          if (!parsed.success) {
            const issue = parsed.error.issues[0];
            const where = issue?.path.length ? ` (${issue.path.join(".")})` : "";
            return reply({ ok: false, error: protocolError("BAD_REQUEST", `Invalid ${event} payload${where}: ${issue?.message ?? "malformed"}`) });
          }
          const current = rooms.get(sessionId);
          // Ending twice is not an error: the second click finds the session already ended.
          if (!current) return reply(event === "session:end" ? { ok: true, data: null } : { ok: false, error: protocolError("SESSION_ENDED") });
          const result = run(parsed.data, current);
          // Acknowledge only what is on disk.
          try {
            await store.flush();
          } catch (err) {
            log.error("events could not be written; reloading the room", { sessionId, error: (err as Error).message });
            rooms.drop(current);
            io.in([publicRoom(sessionId), hostRoom(sessionId)]).disconnectSockets();
            return reply({ ok: false, error: protocolError("INTERNAL", "The server could not save that. Reconnecting…") });
          }
          reply(result);
        } catch (err) {
          log.error("command failed", { event, sessionId, error: (err as Error).stack });
          reply({ ok: false, error: protocolError("INTERNAL") });
        }
      });
    }

    const HOST = ["host"] as const;
    handle("step:go", stepGoSchema, HOST, (p, r) => r.stepGo(p.stepIndex));
    handle("step:move", stepMoveSchema, HOST, (p, r) => r.stepMove(p.delta));
    handle("mode:set", modeSetSchema, HOST, (p, r) => r.setMode(p));
    handle("poll:open", pollOpenSchema, HOST, (p, r) => r.openPoll(p));
    handle("poll:close", pollRefSchema, HOST, (p, r) => r.closePoll(p.pollId));
    handle("poll:reveal", pollRefSchema, HOST, (p, r) => r.revealPoll(p.pollId));
    handle("poll:reopen", pollReopenSchema, HOST, (p, r) => r.reopenPoll(p.pollId, p.durationS));
    handle("results:show", resultsVisibilitySchema, HOST, (p, r) => r.setResultsVisible(p.visible));
    handle("projector:show", projectorPanelSchema, HOST, (p, r) => r.setProjectorPanel(p.panel));
    handle("room:lock", roomLockSchema, HOST, (p, r) => r.setLocked(p.locked));
    handle("participant:remove", participantRefSchema, HOST, (p, r) => r.removeParticipant(p.participantId));
    handle("participant:rename", participantRenameSchema, HOST, (p, r) => r.renameParticipant(p.participantId, p.nickname));
    handle("session:end", emptySchema, HOST, (_p, r) => {
      const result = r.end();
      rooms.drop(r);
      return result;
    });
    handle("poll:vote", pollVoteSchema, ["student"], (p, r) => r.vote(participantId!, p.pollId, p.optionId));
    handle("session:sync", emptySchema, ["host", "projector", "student"], (_p, r) => {
      socket.emit("session:snapshot", role === "host" ? r.hostSnapshot() : r.publicSnapshot());
      if (participantId) socket.emit("poll:myVote", r.myVote(participantId));
      return { ok: true, data: null };
    });
  });
}
