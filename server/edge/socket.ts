import type { Server, Socket } from "socket.io";
import {
  COMMANDS,
  ERROR_CODES,
  PROTOCOL_VERSION,
  handshakeSchema,
  isCommandName,
  isErrorCode,
  normalizeRoomCode,
  protocolError,
  type Ack,
  type ClientToServerEvents,
  type Command,
  type CommandSpec,
  type RateBucket,
  type ErrorCode,
  type InterServerEvents,
  type ServerToClientEvents,
  type SocketData,
} from "../../lib/protocol";
import { log } from "../logger";
import { KeyedLimiter, TokenBucket, addressOf } from "./rateLimit";
import { RATE_LIMITS, SLOW_READER_MAX_BUFFERED_BYTES, SLOW_READER_SWEEP_MS } from "../../lib/constants";
import { REFUSED_FRAME } from "./frameGuard";
import type { RoomOutbox } from "../rooms/room";
import type { PresenceFigure } from "../rooms/registry";
import type { QuestionOutbox } from "../rooms/questions";
import { UnavailableError, type JoinResult, type Member, type RoomGateway } from "../rooms/gateway";
import { toError, errorMessage } from "../../lib/errors";
import { isRecord } from "../../lib/guards";
import { observeCommand, observeJoinRefused } from "../ops/metrics";

/**
 * Join refusals that count against the address's failed-join allowance (they are what a guesser sees).
 * Not RATE_LIMITED for too many new identities: a lecture hall joining at once behind one NAT address must not
 * use up the guessing allowance and lock its latecomers out.
 */
const COUNTED_FAILURES: ReadonlySet<ErrorCode> = new Set(["NO_SUCH_SESSION", "NOT_HOST", "SESSION_ENDED"]);

export type IoServer = Server<ClientToServerEvents, ServerToClientEvents, InterServerEvents, SocketData>;
type IoSocket = Socket<ClientToServerEvents, ServerToClientEvents, InterServerEvents, SocketData>;

const publicRoom = (sessionId: string) => `pub:${sessionId}`;
const hostRoom = (sessionId: string) => `host:${sessionId}`;
const participantRoom = (sessionId: string, participantId: string) => `p:${sessionId}:${participantId}`;
const projectorRoom = (sessionId: string) => `proj:${sessionId}`;
/** Every student and projector socket is also in one of FANOUT_SLICES slices of its session's class. */
const sliceRoom = (sessionId: string, slice: number) => `pub:${sessionId}#${slice}`;

/** A class with at least this many sockets on this node hears its messages a slice at a time. */
export const PACED_FANOUT_MIN = 1_000;
/**
 * Slices of a class; sockets are dealt to them in turn as they connect. At
 * 10,000 sockets a slice takes about 9 ms to send: a vote, or the teacher's
 * close, read while a tick is on its way waits at most that long (with 8
 * slices, 35 ms: the closed poll reached the first student 49 ms after the
 * close, against 3 ms for bare socket.io; with 32, 20 ms).
 */
export const FANOUT_SLICES = 32;
let nextSlice = 0;

/**
 * A vote burst's tallies reach a large class a slice at a time. Sending one
 * message to 10,000 sockets takes about 290 ms on a 2-core machine; done at
 * once, every vote that arrives meanwhile waits, and at 10,000 votes a second
 * the server never caught up (each vote's ack took 0.6 s). So a tally (or,
 * with results hidden, the snapshot saying how many voted) goes to one slice
 * of the class per turn of the event loop, and the votes read in between are
 * answered between slices. A newer tick takes over the slices the older one
 * has not reached (the older one is stale there), and any other snapshot for
 * the class (a step, the closed poll) replaces a tick still on its way: the
 * client drops a tally older than its snapshot anyway. Everything else, and
 * every message to a class under PACED_FANOUT_MIN, goes in one emit.
 */
function pacedTicks(io: IoServer, sessionId: string, pacedFrom: number) {
  let send: ((room: string) => void) | null = null;
  let slice = 0;
  let left = 0;
  let scheduled = false;
  const pump = () => {
    scheduled = false;
    if (!send) return;
    send(sliceRoom(sessionId, slice));
    slice = (slice + 1) % FANOUT_SLICES;
    if (--left === 0) send = null;
    else {
      scheduled = true;
      setImmediate(pump);
    }
  };
  return {
    tick(next: (room: string) => void): void {
      if ((io.of("/").adapter.rooms.get(publicRoom(sessionId))?.size ?? 0) < pacedFrom) {
        send = null;
        return next(publicRoom(sessionId));
      }
      send = next;
      left = FANOUT_SLICES;
      if (!scheduled) pump();
    },
    /** A newer snapshot is going to the whole class. */
    cancel(): void {
      send = null;
    },
  };
}

/** The socket.io side of a room's question messages: one emit per audience (see server/rooms/questions.ts). */
function questionSocketOutbox(io: IoServer, sessionId: string): QuestionOutbox {
  return {
    questionChanges: (changes) =>
      io.to(changes.audience === "host" ? hostRoom(sessionId) : publicRoom(sessionId)).emit("questions:changed", changes),
    questionChangesFor: (participantId, changes) => io.to(participantRoom(sessionId, participantId)).emit("questions:changed", changes),
    myUpvote: (participantId, upvote) => io.to(participantRoom(sessionId, participantId)).emit("question:myUpvote", upvote),
    lookingBack: (count) => io.to(hostRoom(sessionId)).emit("lookback:count", { count }),
  };
}

/** The socket.io side of a room's outbox: one emit per audience, encoded once by socket.io. */
export function socketOutbox(io: IoServer, sessionId: string, pacedFrom = PACED_FANOUT_MIN): RoomOutbox {
  const ticks = pacedTicks(io, sessionId, pacedFrom);
  return {
    ...questionSocketOutbox(io, sessionId),
    publicSnapshot: (snapshot) => {
      ticks.cancel();
      io.to(publicRoom(sessionId)).emit("session:snapshot", snapshot);
    },
    hostSnapshot: (snapshot) => io.to(hostRoom(sessionId)).emit("session:snapshot", snapshot),
    tallySuperseded: () => ticks.cancel(),
    tally: (tally, forClass) => {
      io.to(hostRoom(sessionId)).emit("poll:tally", tally);
      ticks.tick(
        "tally" in forClass
          ? (room) => io.to(room).emit("poll:tally", forClass.tally)
          : (room) => io.to(room).emit("session:snapshot", forClass.snapshot),
      );
    },
    myVote: (participantId, vote, except) => {
      const room = io.to(participantRoom(sessionId, participantId));
      (except ? room.except(except) : room).emit("poll:myVote", vote);
    },
    presence: (participantCount, projectorCount) => {
      io.to(projectorRoom(sessionId)).emit("session:presence", { participantCount });
      io.to(hostRoom(sessionId)).emit("session:presence", { participantCount, projectorCount });
    },
    rosterChanges: (changes) => io.to(hostRoom(sessionId)).emit("roster:changes", changes),
    renamed: (participantId, nickname) => io.to(participantRoom(sessionId, participantId)).emit("participant:renamed", { nickname }),
    kickProjectors: (error) => {
      io.to(projectorRoom(sessionId)).emit("session:kicked", error);
      io.in(projectorRoom(sessionId)).disconnectSockets();
    },
    kick: (participantId, error) => {
      const room = participantRoom(sessionId, participantId);
      io.to(room).emit("session:kicked", error);
      // A disconnect packet follows the kick message on the same connection, so it arrives first.
      io.in(room).disconnectSockets();
    },
  };
}

/** A connect_error the browser can read: `err.message` is the code, `err.data` has code and message. */
class Refusal extends Error {
  constructor(readonly data: { code: ErrorCode; message: string }) {
    super(data.code);
  }
}

function rejection(code: ErrorCode, message: string = ERROR_CODES[code]): Error {
  return new Refusal({ code, message });
}

export interface SocketLayerOptions {
  io: IoServer;
  gateway: RoomGateway;
  /** Take the client's address from X-Forwarded-For (behind a load balancer you trust). */
  trustProxy?: boolean;
  /** Failed joins per address (shared with /api/join-info). */
  failedJoins?: KeyedLimiter;
  /**
   * Whether an address's connections keep being closed for abuse (server/edge/frameGuard.ts). From such an
   * address only those who bring a credential get in (a returning student's token, the teacher's key): a whole
   * class behind one NAT address shares it, and one student's script must not lock the others out.
   */
  quarantined?: (address: string) => boolean;
}

/**
 * The transport edge: the handshake fixes each socket's role, every inbound
 * payload is parsed with its zod schema and role-checked here, and the
 * gateway (this process's rooms, or the owning node in a cluster) does the rest.
 */
export function attachSocketLayer({
  io,
  gateway,
  trustProxy = false,
  failedJoins = new KeyedLimiter(RATE_LIMITS.failedJoins),
  quarantined = () => false,
}: SocketLayerOptions): void {
  // failedJoins, per address: guessing room codes or host keys. Generous enough for a class behind one NAT
  // address mistyping codes; far too slow to walk 887 million codes.
  // Per participant, not per socket: reconnecting does not refill the bucket.
  // A student's votes, questions and upvotes: per participant, so tabs and reconnects share one allowance.
  const participantBuckets = {
    votes: new KeyedLimiter(RATE_LIMITS.votes),
    questions: new KeyedLimiter(RATE_LIMITS.questions),
    upvotes: new KeyedLimiter(RATE_LIMITS.upvotes),
  } satisfies Partial<Record<RateBucket, KeyedLimiter>>;

  /**
   * Failures are counted per address. Within the allowance (60 at once, then
   * one a second) each failure says what went wrong; beyond it every failure
   * is RATE_LIMITED, and so is every attempt that could tell a live code from
   * a dead one (a projector, a new student), so success stops being a signal.
   * A student holding a valid token still gets back in: a class behind one
   * NAT address is not locked out by one guesser.
   */
  const refuseFailure = (address: string, error: Error): Error =>
    failedJoins.take(address) ? error : rejection("RATE_LIMITED", "Too many failed attempts to join from this network. Wait a minute.");
  /**
   * Lookups that could still fail, per address. Each one may spend a token
   * when it fails, so no more may be in flight than the address has tokens:
   * otherwise a burst of handshakes sent together (and a lookup that waits on
   * Redis) would each be looked up on one token, and the live code among them
   * would simply join.
   */
  const lookups = new Map<string, Map<string, number>>();

  io.use((socket, next) => void handshake(socket, next));

  async function handshake(socket: IoSocket, next: (err?: Error) => void): Promise<void> {
    // One attempt per WebSocket: after a refusal the connection closes (the browser opens a new one to retry),
    // so every attempt passes the per-address connection caps again.
    const refuse = (error: Error) => {
      observeJoinRefused(error);
      next(error);
      // socket.io sends the refusal on the next tick; close once it is queued (engine.io drains it first).
      setImmediate(() => socket.conn.close());
    };
    try {
      const address = addressOf(socket.handshake.address, socket.handshake.headers["x-forwarded-for"], trustProxy);
      const auth = socket.handshake.auth as { v?: unknown; [REFUSED_FRAME]?: ErrorCode } | undefined;
      // The frame guard refused the handshake frame unread (too large or too deep).
      const refusedFrame = auth?.[REFUSED_FRAME];
      if (refusedFrame) return refuse(refuseFailure(address, rejection(refusedFrame)));
      // An old client may not even send the fields this version expects; it counts as a failed join like any other.
      if (auth?.v !== PROTOCOL_VERSION) return refuse(refuseFailure(address, rejection("CLIENT_TOO_OLD")));
      const parsed = handshakeSchema.safeParse(auth);
      if (!parsed.success) return refuse(refuseFailure(address, rejection("BAD_REQUEST", "The connection request was malformed.")));
      const request = parsed.data;
      // Lookups of the same code do not multiply guesses: a lecture hall behind one address joining one code at once
      // holds one token, however many phones; a script trying many codes at once holds one per code.
      const code = normalizeRoomCode(request.code);
      const inFlight = lookups.get(address) ?? new Map<string, number>();
      // A join that brings nothing to check: a new student, a projector without the host key.
      const anonymous = (request.role === "projector" && !request.hostKey) || (request.role === "student" && !request.token);
      const wary = quarantined(address);
      if (wary && (anonymous || (request.role === "host" && !request.hostKey))) {
        return refuse(rejection("RATE_LIMITED", "Too many broken connections came from this network. Try again in a minute."));
      }
      const overAllowance = inFlight.size + (inFlight.has(code) ? 0 : 1) > failedJoins.available(address) || wary;
      // Over the allowance, nothing that could reveal whether a code is live is even looked up.
      // (The teacher's own projector window holds the host key; the gateway checks it.)
      if (overAllowance && anonymous) {
        return refuse(refuseFailure(address, rejection("NO_SUCH_SESSION")));
      }
      // A lookup that could reveal a live code (admitNew) holds one of the address's tokens until it is answered.
      if (!overAllowance) lookups.set(address, inFlight.set(code, (inFlight.get(code) ?? 0) + 1));
      const joined = await gateway
        .join({
          code: request.code,
          role: request.role,
          hostKey: request.hostKey,
          token: request.role === "student" ? request.token : undefined,
          nickname: request.role === "student" ? request.nickname : undefined,
          address,
          admitNew: !overAllowance,
        })
        .finally(() => {
          if (overAllowance) return;
          const codes = lookups.get(address);
          if (!codes) return;
          const left = (codes.get(code) ?? 1) - 1;
          if (left > 0) codes.set(code, left);
          else codes.delete(code);
          if (codes.size === 0) lookups.delete(address);
        });
      if (!joined.ok) {
        const error = rejection(joined.error.code, joined.error.message);
        return refuse(COUNTED_FAILURES.has(joined.error.code) ? refuseFailure(address, error) : error);
      }
      socket.data = { sessionId: joined.sessionId, code: joined.code, role: joined.role, participantId: joined.participantId };
      (socket as IoSocket & { joined?: typeof joined }).joined = joined;
      next();
    } catch (err) {
      if (err instanceof UnavailableError) return refuse(rejection("UNAVAILABLE"));
      log.error("handshake failed", { error: errorMessage(err) });
      refuse(rejection("INTERNAL"));
    }
  }

  io.on("connection", (socket) => {
    const { sessionId, role, participantId } = socket.data;
    const member: Member = { sessionId, role, participantId, socketId: socket.id };
    const joined = (socket as IoSocket & { joined?: Extract<JoinResult, { ok: true }> }).joined!;
    delete (socket as IoSocket & { joined?: unknown }).joined;
    socket.emit("session:welcome", {
      role,
      sessionId,
      participantId: participantId ?? undefined,
      token: joined.token,
      nickname: joined.nickname,
      serverNow: Date.now(),
      ...(joined.lesson ? { lesson: joined.lesson } : {}),
    });
    if (role === "host") {
      void socket.join(hostRoom(sessionId));
    } else {
      void socket.join([publicRoom(sessionId), sliceRoom(sessionId, nextSlice++ % FANOUT_SLICES)]);
      void socket.join(participantId ? participantRoom(sessionId, participantId) : projectorRoom(sessionId));
    }
    socket.emit("session:snapshot", joined.snapshot);
    if (joined.roster) socket.emit("roster:full", joined.roster);
    if (participantId) socket.emit("poll:myVote", joined.myVote);
    if (joined.questions) socket.emit("questions:list", joined.questions);
    if (role === "host") socket.emit("lookback:count", { count: joined.lookingBack ?? 0 });
    // Presence counts from here: a handshake abandoned half-way never reaches "connection", so it is never counted.
    const counted = gateway.connected(member).catch((err: Error) => log.warn("presence update failed", { sessionId, error: err.message }));
    socket.on("disconnect", () => {
      // After the count above has landed, or a quick disconnect would be undone by it.
      void counted.then(() =>
        gateway.left(member).catch((err: Error) => log.warn("presence update failed", { sessionId, error: err.message })),
      );
    });

    // One middleware per socket does all the work (no listener per command:
    // a lecture hall of sockets each holding sixteen closures costs real memory).
    // It never calls next(): every packet is answered here.
    // Per-participant limits are keyed by this string, built once per socket (not once per vote).
    const limitKey = participantId !== null ? `${sessionId}:${participantId}` : null;
    socket.use((packet) => void dispatch(socket, member, limitKey, packet));
  });

  /** Per-socket command buckets, created on a socket's first non-vote command (most students never send one). */
  const commandBuckets = new WeakMap<IoSocket, TokenBucket>();
  const resyncBuckets = new WeakMap<IoSocket, TokenBucket>();
  // Per session: several teacher tabs share one budget of broadcasts to the class.
  const sessionBuckets = new KeyedLimiter(RATE_LIMITS.sessionCommands);

  async function dispatch(socket: IoSocket, member: Member, limitKey: string | null, [event, ...args]: unknown[]): Promise<void> {
    // The ack is always the last argument, whether or not a payload came first.
    const ack = args.at(-1);
    // Bound, not an arrow: the loader names every arrow assigned to a const (a defineProperty per vote).
    const reply: (response: Ack<unknown>) => void = answer.bind(null, event, ack);
    const payload = typeof ack === "function" ? (args.length > 1 ? args[0] : undefined) : args[0];
    const name = typeof event === "string" ? event : "";
    try {
      // The frame guard already refused this frame unread (over budget, too large or too deep, malformed).
      if (event === REFUSED_FRAME) return reply({ ok: false, error: protocolError(isErrorCode(payload) ? payload : "BAD_REQUEST") });
      // Unknown events get a named error, never silence.
      if (!isCommandName(name) && name !== "session:sync") {
        return reply({ ok: false, error: protocolError("UNKNOWN_EVENT", `Unknown command "${name.slice(0, 40)}".`) });
      }
      // The allowance the command table names for it (a participant's own only for a student's socket).
      const { bucket } = COMMANDS[name];
      let withinRate: boolean;
      const perParticipant = limitKey !== null && (bucket === "votes" || bucket === "questions" || bucket === "upvotes");
      if (perParticipant) withinRate = participantBuckets[bucket].take(limitKey);
      else {
        let perSocket = commandBuckets.get(socket);
        if (!perSocket) commandBuckets.set(socket, (perSocket = new TokenBucket(RATE_LIMITS.commands)));
        withinRate = perSocket.take();
        if (withinRate && bucket === "resyncs") {
          let resyncs = resyncBuckets.get(socket);
          if (!resyncs) resyncBuckets.set(socket, (resyncs = new TokenBucket(RATE_LIMITS.resyncs)));
          // A socket that has not read what it was sent gets no second copy on top.
          withinRate = resyncs.take() && bufferedBytes(socket.conn) < SLOW_READER_MAX_BUFFERED_BYTES / 4;
        } else if (withinRate && member.role === "host") {
          withinRate = sessionBuckets.take(member.sessionId);
        }
      }
      if (!withinRate) return reply({ ok: false, error: protocolError("RATE_LIMITED") });

      if (name === "session:sync") {
        const view = await gateway.view(member);
        if (!view) return reply({ ok: false, error: protocolError("SESSION_ENDED") });
        socket.emit("session:snapshot", view.snapshot);
        if (view.roster) socket.emit("roster:full", view.roster);
        if (member.participantId) socket.emit("poll:myVote", view.myVote);
        if (view.questions) socket.emit("questions:list", view.questions);
        return reply({ ok: true, data: null });
      }

      if (!isCommandName(name)) return reply({ ok: false, error: protocolError("UNKNOWN_EVENT") });
      const command = name;
      const { schema, roles }: CommandSpec = COMMANDS[command];
      if (!roles.includes(member.role)) {
        if (command === "poll:vote") return reply({ ok: false, error: protocolError("NOT_STUDENT") });
        return reply({
          ok: false,
          error: roles.includes("student") ? protocolError("NOT_STUDENT", "Only students can do that.") : protocolError("NOT_HOST"),
        });
      }
      const parsed = schema.safeParse(payload ?? {});
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const where = issue?.path.length ? ` (${issue.path.join(".")})` : "";
        return reply({
          ok: false,
          error: protocolError("BAD_REQUEST", `Invalid ${command} payload${where}: ${issue?.message ?? "malformed"}`),
        });
      }
      // The one cast: the payload has just passed this command's schema (TypeScript cannot correlate the two).
      // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion
      const valid = { event: command, payload: parsed.data ?? {} } as Command;
      // Looking back is this tab's, counted where its socket is (in a cluster, from each node's presence figure).
      if (valid.event === "lookback:set") socket.data.lookingBack = valid.payload.lookingBack;
      reply(await gateway.command(member, valid));
    } catch (err) {
      if (err instanceof UnavailableError) return reply({ ok: false, error: protocolError(err.code, err.message) });
      log.error("command failed", { event: name.slice(0, 40), sessionId: member.sessionId, error: toError(err).stack });
      reply({ ok: false, error: protocolError("INTERNAL") });
    }
  }
}

/** Counts a command's answer and sends it, when the client asked for one. */
function answer(event: unknown, ack: unknown, response: Ack<unknown>): void {
  observeCommand(event, response);
  if (typeof ack === "function") Reflect.apply(ack, undefined, [response]);
}

/** Bytes waiting to be sent on an engine.io connection: its own queue and its WebSocket's. */
export function bufferedBytes(conn: object): number {
  // engine.io queues packets while its transport waits for the previous write to reach the kernel
  // (`writeBuffer`, private), and ws holds what the TCP socket has not taken (`bufferedAmount`).
  const transport: unknown = Reflect.get(conn, "transport");
  const queue: unknown = Reflect.get(conn, "writeBuffer");
  // The usual case, checked first (the sweep visits every socket each second): the transport has taken
  // everything engine.io gave it (it is writable again once ws has handed the last write to the kernel).
  if (isRecord(transport) && transport.writable === true && Array.isArray(queue) && queue.length === 0) return 0;
  const ws = isRecord(transport) ? transport.socket : undefined;
  const inWs = isRecord(ws) && typeof ws.bufferedAmount === "number" ? ws.bufferedAmount : 0;
  let queued = 0;
  if (Array.isArray(queue)) {
    for (const packet of queue) {
      const data: unknown = isRecord(packet) ? packet.data : undefined;
      queued += typeof data === "string" ? data.length : 64;
    }
  }
  return inWs + queued;
}

/** The sweep below checks this share of the sockets at a time (so at 10,000 sockets it never stops the loop for 25 ms). */
const SLOW_READER_SWEEP_PARTS = 8;

/**
 * Closes sockets that do not read what they are sent (a phone that went away
 * without a FIN is caught by the heartbeat; a script that simply stops reading
 * is caught here): their queued messages would otherwise grow without bound.
 * The client reconnects and resyncs with one fresh snapshot.
 *
 * Every socket is checked about once per SLOW_READER_SWEEP_MS, an eighth of
 * them at a time: checked all at once, a class of 10,000 just sent a snapshot
 * (every socket with a write in flight) held the loop for about 25 ms each
 * second, and a teacher's command arriving then waited for it.
 */
export function startSlowReaderSweep(io: IoServer): () => void {
  let pass: Iterator<IoSocket> | null = null;
  const timer = setInterval(() => {
    const sockets = io.of("/").sockets;
    // A Map's iterator carries on across sockets added and removed since it started.
    pass ??= sockets.values();
    let closed = 0;
    for (let budget = Math.ceil(sockets.size / SLOW_READER_SWEEP_PARTS); budget > 0; budget--) {
      const next = pass.next();
      if (next.done) {
        pass = null;
        break;
      }
      if (bufferedBytes(next.value.conn) > SLOW_READER_MAX_BUFFERED_BYTES) {
        next.value.conn.close();
        closed += 1;
      }
    }
    if (closed > 0) log.warn("closed sockets that stopped reading", { count: closed });
  }, SLOW_READER_SWEEP_MS / SLOW_READER_SWEEP_PARTS);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Students (by participant id, one entry per socket) and watchers (teacher,
 * projector) connected to a session through this process. In a cluster each
 * node reports its own and the owner adds them up (server/scaleout/presenceBoard.ts):
 * asking every node at once would wait on the slowest, or on a frozen one.
 */
export function localPresence(io: IoServer, sessionId: string): PresenceFigure {
  const nsp = io.of("/");
  const participants: string[] = [];
  const lookingBack: string[] = [];
  let projectors = 0;
  for (const id of nsp.adapter.rooms.get(publicRoom(sessionId)) ?? []) {
    const data = nsp.sockets.get(id)?.data;
    const participantId = data?.participantId;
    if (participantId) {
      participants.push(participantId);
      if (data.lookingBack) lookingBack.push(participantId);
    } else if (participantId === null) projectors += 1;
  }
  const hosts = nsp.adapter.rooms.get(hostRoom(sessionId))?.size ?? 0;
  return { participants, lookingBack, watchers: hosts + projectors, projectors };
}

/** Closes every socket of a session (all nodes, with an adapter) so clients reconnect to its durable state. */
export function disconnectSession(io: Pick<IoServer, "in">, sessionId: string): void {
  io.in([publicRoom(sessionId), hostRoom(sessionId)]).disconnectSockets();
}
