import type { Socket } from "socket.io";
import {
  COMMANDS,
  ERROR_CODES,
  PROTOCOL_VERSION,
  handshakeSchema,
  isCommandName,
  isErrorCode,
  normalizeRoomCode,
  protocolError,
  resyncSchema,
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
import { RATE_LIMITS, SLOW_READER_MAX_BUFFERED_BYTES } from "../../lib/constants";
import { REFUSED_FRAME } from "./frameGuard";
import { joinAudience, type IoServer } from "./fanout";
import { bufferedBytes } from "./slowReaders";
import { UnavailableError, type JoinResult, type Member, type RoomGateway } from "../rooms/gateway";
import { toError, errorMessage } from "../../lib/errors";
import { countRateLimited, observeCommand, observeJoinRefused } from "../ops/metrics";
import { SendBudgets } from "./sendBudgets";

/**
 * Join refusals that count against the address's failed-join allowance (they are what a guesser sees).
 * Not RATE_LIMITED for too many new identities: a lecture hall joining at once behind one NAT address must not
 * use up the guessing allowance and lock its latecomers out.
 */
const COUNTED_FAILURES: ReadonlySet<ErrorCode> = new Set(["NO_SUCH_SESSION", "NOT_HOST", "SESSION_ENDED"]);

type IoSocket = Socket<ClientToServerEvents, ServerToClientEvents, InterServerEvents, SocketData>;

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
  /** What each address and session may make the server send again (joins, resyncs). */
  budgets?: SendBudgets;
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
  budgets = new SendBudgets(),
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
  /**
   * What the handshake found, for the connection that follows it: kept beside the socket, not on it (a property
   * added to socket.io's object and deleted again cost a slow property store and a delete per join).
   */
  const admitted = new WeakMap<IoSocket, { joined: Extract<JoinResult, { ok: true }>; address: string }>();

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
      // Every lookup, a returning student's or a teacher's included, costs a whole projection: an address reconnecting
      // in a loop is slowed here, before any lookup, whatever credential it brings (the attacker may be a teacher of its own room).
      if (!budgets.admitJoin(address)) {
        return refuse(rejection("RATE_LIMITED", "Too many connections from this network at once. Try again in a moment."));
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
      admitted.set(socket, { joined, address });
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
    const { joined, address } = admitted.get(socket)!;
    admitted.delete(socket);
    socket.emit("session:welcome", {
      role,
      sessionId,
      participantId: participantId ?? undefined,
      token: joined.token,
      nickname: joined.nickname,
      serverNow: Date.now(),
      ...(joined.lesson ? { lesson: joined.lesson } : {}),
    });
    joinAudience(socket, sessionId, role, participantId);
    for (const patch of joined.projection) socket.emit("session:patch", patch);
    budgets.joinSent(address, JSON.stringify(joined.projection).length);
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
    socket.use((packet) => void dispatch(socket, member, limitKey, address, packet));
  });

  /** Per-socket command buckets, created on a socket's first non-vote command (most students never send one). */
  const commandBuckets = new WeakMap<IoSocket, TokenBucket>();
  const resyncBuckets = new WeakMap<IoSocket, TokenBucket>();
  // Per session: several teacher tabs share one budget of broadcasts to the class.
  const sessionBuckets = new KeyedLimiter(RATE_LIMITS.sessionCommands);

  async function dispatch(
    socket: IoSocket,
    member: Member,
    limitKey: string | null,
    address: string,
    [event, ...args]: unknown[],
  ): Promise<void> {
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

      if (name === "session:sync") return await resync(socket, member, address, payload, reply);

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

  /**
   * `session:sync`: what changed since the clocks the client holds, or the
   * whole of a stream it does not hold (or holds too far behind), then the
   * ack. What one address and one session get resent is budgeted in bytes,
   * so 300 sockets asking for a room's 150 KB of questions twice a second
   * cost what a few do; a refusal says when to ask again.
   */
  async function resync(socket: IoSocket, member: Member, address: string, payload: unknown, reply: (response: Ack<unknown>) => void) {
    const parsed = resyncSchema.safeParse(payload ?? {});
    if (!parsed.success) return reply({ ok: false, error: protocolError("BAD_REQUEST", "Invalid session:sync payload.") });
    const admitted = budgets.admitResync(address, member.sessionId);
    if (!admitted.ok) {
      countRateLimited("resync");
      return reply({ ok: false, error: { ...protocolError("RESYNC_LIMITED"), retryAfterMs: admitted.retryAfterMs } });
    }
    const view = await gateway.view(member, parsed.data?.have);
    const sent = view ? Math.max(1, JSON.stringify(view.projection).length) : 1;
    budgets.resyncSent(address, member.sessionId, sent, admitted.reserved);
    if (!view) return reply({ ok: false, error: protocolError("SESSION_ENDED") });
    for (const patch of view.projection) socket.emit("session:patch", patch);
    reply({ ok: true, data: null });
  }
}

/** Counts a command's answer and sends it, when the client asked for one. */
function answer(event: unknown, ack: unknown, response: Ack<unknown>): void {
  observeCommand(event, response);
  if (typeof ack === "function") Reflect.apply(ack, undefined, [response]);
}
