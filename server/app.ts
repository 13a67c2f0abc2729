import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http";
import { SendBudgets } from "./edge/sendBudgets";
import type { AddressBudgets } from "../lib/protocol/budgets";
import { Server } from "socket.io";
import {
  DEFAULT_CLUSTER_ACK_BUDGET_MS,
  DEFAULT_CLUSTER_NODE_TTL_MS,
  DEFAULT_CLUSTER_PRESENCE_STALE_MS,
  DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
  DEFAULT_MAX_PENDING_PER_ADDRESS,
  IDLE_SWEEP_INTERVAL_MS,
  MAX_SOCKET_MESSAGE_BYTES,
  RATE_LIMITS,
  SOCKET_CONNECT_TIMEOUT_MS,
  SOCKET_PING_INTERVAL_MS,
  SOCKET_PING_TIMEOUT_MS,
} from "../lib/constants";
import type { Config } from "./config";
import { ConnectionGuard } from "./edge/connectionGuard";
import { createFrameGuard } from "./edge/frameGuard";
import { createApiHandler, sendHtml, sendJson, setSecurityHeaders } from "./http/api";
import { createOriginPolicy } from "./edge/origin";
import { KeyedLimiter, addressOf } from "./edge/rateLimit";
import { log } from "./logger";
import { RoomRegistry } from "./rooms/registry";
import { createAdapter } from "@socket.io/redis-streams-adapter";
import { attachSocketLayer } from "./edge/socket";
import { disconnectSession, localPresence, socketOutbox, type IoServer } from "./edge/fanout";
import { startSlowReaderSweep } from "./edge/slowReaders";
import { flushTogether } from "./edge/flushTogether";
import { LocalGateway } from "./rooms/gateway";
import type { RoomOutbox } from "./rooms/room";
import { ClusterGateway, type ClusterTimings } from "./scaleout/clusterGateway";
import type { RedisClient, RedisSessionStore } from "./store/redis";
import type { SessionStore } from "./store/types";
import { openLessonStore } from "./store/openLessons";
import { openAccountStore } from "./store/accountsOpen";
import { openAssignmentStore } from "./store/openAssignments";
import { createAuthHandler } from "./auth/http";
import { createOwnership } from "./auth/ownership";
import { createOwnershipRoutes } from "./auth/ownershipRoutes";
import { createSignedInReader } from "./auth/signIns";
import { retentionPolicy } from "./http/api";
import { toError } from "../lib/errors";
import { attachOps } from "./ops";
import { timedOutbox } from "./ops/metrics";

export type PageHandler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

export interface ClassroomServerOptions {
  config: Pick<Config, "publicUrl" | "port" | "host" | "idleTimeoutMs" | "dev" | "adminToken"> & {
    sessionCreateLimitPerMinute?: number;
    trustProxy?: boolean;
    maxConnectionsPerAddress?: number;
    maxPendingPerAddress?: number;
    /** METRICS_TOKEN, RETENTION_DAYS (server/ops). */
    metricsToken?: string | null;
    retentionDays?: number | null;
    retentionIntervalMs?: number;
    /** Tests only: the class size from which tallies go out a slice at a time (PACED_FANOUT_MIN). */
    pacedFanoutMin?: number;
    /** Tests only: what one address may make the server send again (lib/protocol/budgets.ts when absent). */
    addressBudgets?: AddressBudgets;
    /** Teachers' accounts (server/auth): ACCOUNT_SIGNUP=open (the default) and school sign-in (OIDC_*). */
    accountSignupOpen?: boolean;
    /** ACCOUNT_SIGNUP_LIMIT: new accounts per address at once (server/auth's default when absent). */
    accountSignupBurst?: number;
    oidc?: Config["oidc"];
  };
  store: SessionStore;
  /** Next.js's request handler; absent in socket-level tests. */
  pages?: PageHandler;
  /** Scale-out: several processes share sessions through Redis (`store` is then `redis.store`). */
  redis?: {
    store: RedisSessionStore;
    /** Fails at once while Redis is unreachable (connectRedis's failFast), as does `subscriber`. */
    client: RedisClient;
    subscriber: RedisClient;
    /** The cluster's heartbeat alone (failFast): never queued behind the node's writes. */
    leaseClient: RedisClient;
    adapterClient: RedisClient;
    timings?: Partial<ClusterTimings>;
  };
}

export interface ClassroomServer {
  httpServer: HttpServer;
  io: IoServer;
  rooms: RoomRegistry;
  /** Per-address connection caps (tests read its counts). */
  connections: ConnectionGuard;
  /** Metrics, readiness and retention (server/ops). */
  ops: ReturnType<typeof attachOps>;
  listen(): Promise<number>;
  close(): Promise<void>;
}

/**
 * One HTTP server for everything: the API, socket.io on /socket.io/, and the
 * pages. `server/index.ts` only wires this to Next and the environment.
 */
export function createClassroomServer({ config, store, pages, redis }: ClassroomServerOptions): ClassroomServer {
  let io: IoServer;
  // Scale-out: created below, once the rooms exist; the rooms' hooks reach it when they run.
  let cluster: ClusterGateway | null = null;
  const trustProxy = config.trustProxy ?? false;
  const rooms = new RoomRegistry({
    store,
    // In a cluster, a room broadcasts only while this node surely owns its session: a node resuming from a freeze
    // must not show the class the state it had before it was taken over.
    outboxFor: (id) => {
      const outbox = timedOutbox(socketOutbox(io, id, config.pacedFanoutMin));
      return cluster ? onlyWhile(() => cluster?.mayPublish(id) ?? false, outbox) : outbox;
    },
    idleTimeoutMs: config.idleTimeoutMs,
    claimNew: redis ? (id) => cluster!.claimNew(id) : undefined,
    presenceOf: redis ? (id) => cluster!.presenceOf(id) : undefined,
  });
  // One allowance of failed joins per address, shared by the socket handshake and /api/join-info: a guesser gets
  // 60 tries at once, then one a second, whichever door they knock on.
  const failedJoins = new KeyedLimiter(RATE_LIMITS.failedJoins);
  const lessons = openLessonStore(store, redis?.client);
  // Accounts live where sessions do; their routes (/api/account…, /auth/…) are answered before the rest of the API.
  const accounts = openAccountStore(store, redis?.client);
  // Self-paced assignments live where sessions do; they belong to accounts, so a store without accounts keeps none.
  const assignments = accounts ? openAssignmentStore(store, redis?.client) : undefined;
  const settings = {
    publicUrl: config.publicUrl,
    trustProxy,
    signupOpen: config.accountSignupOpen ?? true,
    oidc: config.oidc ?? null,
    signupBurst: config.accountSignupBurst,
  };
  // What an account owns and may open (server/auth/ownership.ts). Ending a session goes through the gateway below
  // (in a cluster, the node that runs it); a revoked console's socket is closed so it must present its key again.
  const ownership = accounts
    ? createOwnership({
        accounts,
        sessions: store,
        lessons,
        assignments,
        accountOf: createSignedInReader(accounts, settings),
        endSession: async (sessionId) => {
          const ack = await gateway.command({ sessionId, role: "host", participantId: null }, { event: "session:end", payload: {} });
          if (!ack.ok) throw new Error(`the session could not be ended: ${ack.error.code}`);
        },
        // The consoles' socket.io room (server/edge/fanout.ts hostRoom): each reconnects with its key.
        consolesRevoked: (sessionId) => io.in(`host:${sessionId}`).disconnectSockets(),
        retention: retentionPolicy(config),
      })
    : undefined;
  const ownershipRoutes = ownership ? createOwnershipRoutes(ownership, { trustProxy }) : undefined;
  const api = createApiHandler({
    config,
    rooms,
    store,
    failedJoins,
    lessons,
    ownership: ownership && ownershipRoutes ? { access: ownership, routes: ownershipRoutes } : undefined,
    assignments,
  });
  const auth = accounts
    ? createAuthHandler({
        store: accounts,
        settings,
        ownership: ownershipRoutes,
        removeAccountData: ownership && ((id) => ownership.removeAccountData(id)),
      })
    : null;
  const origins = createOriginPolicy({ publicUrl: config.publicUrl, trustProxy });
  const connections = new ConnectionGuard(
    {
      maxOpenPerAddress: config.maxConnectionsPerAddress ?? DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
      maxPendingPerAddress: config.maxPendingPerAddress ?? DEFAULT_MAX_PENDING_PER_ADDRESS,
    },
    trustProxy,
  );
  const frames = createFrameGuard({
    addressOf: (conn) => addressOf(conn.request.socket.remoteAddress, conn.request.headers["x-forwarded-for"], trustProxy),
    onConnect: (conn) => connections.connecting(conn),
  });

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    try {
      if (await ops.handle(req, res)) return;
      if (auth && (await auth(req, res))) return;
      if (await api(req, res)) return;
      if (pages) return await pages(req, res);
      sendJson(res, 404, { error: { code: "NOT_FOUND", message: "Not found." } });
    } catch (err) {
      log.error("request failed", { url: req.url?.split("#")[0], error: toError(err).stack });
      if (!res.headersSent) sendJson(res, 500, { error: { code: "INTERNAL", message: "Something went wrong on the server." } });
      else res.end();
    }
  };
  const httpServer = createServer((req, res) => void handle(req, res));

  io = new Server(httpServer, {
    maxHttpBufferSize: MAX_SOCKET_MESSAGE_BYTES,
    // WebSocket only: no long-polling, so several nodes need no sticky sessions.
    transports: ["websocket"],
    // Every inbound frame spends its sender's budget before it is parsed (server/edge/frameGuard.ts).
    parser: frames.parser,
    // A WebSocket that does not join a session soon is closed (it held a file descriptor for 45 s before).
    connectTimeout: SOCKET_CONNECT_TIMEOUT_MS,
    // Browsers may connect only from pages this server served (non-browser clients send no Origin), to a host we
    // answer, and within the address's connection caps.
    allowRequest: (req, callback) => {
      if (!origins.hostAllowed(req) || !origins.originAllowed(req)) return callback("origin not allowed", false);
      const admitted = connections.admitUpgrade(req);
      callback(admitted ? null : "too many connections from this address", admitted);
    },
    serveClient: false,
    pingInterval: SOCKET_PING_INTERVAL_MS,
    pingTimeout: SOCKET_PING_TIMEOUT_MS,
  });
  frames.watch(io.engine);
  flushTogether(io.engine);
  io.engine.on("connection", (conn: Parameters<ConnectionGuard["opened"]>[0]) => connections.opened(conn));

  // engine.io took over the server's "request" listeners to serve /socket.io/; put one gate in front of all of
  // them so every response (socket.io's own included) carries the security headers, unknown hosts are turned
  // away (DNS rebinding), and a malformed address is a 400 instead of a 500 from deep in the page renderer.
  const handlers = httpServer.listeners("request");
  httpServer.removeAllListeners("request");
  httpServer.on("request", (req: IncomingMessage, res: ServerResponse) => {
    setSecurityHeaders(res, config.dev);
    if (!origins.hostAllowed(req)) {
      return sendJson(res, 421, { error: { code: "BAD_REQUEST", message: "This server does not answer for that host name." } });
    }
    if (!wellFormedPath(req.url)) {
      return sendHtml(res, 400, "Bad address", "This address is malformed. Check the link, or go to the start page.");
    }
    // The app has no server actions: a made-up Next-Action header only made Next.js print an error per request.
    if (req.headers["next-action"] !== undefined) {
      return sendJson(res, 404, { error: { code: "NOT_FOUND", message: "This server has no server actions." } });
    }
    for (const handler of handlers) Reflect.apply(handler, httpServer, [req, res]);
  });
  connections.attach(httpServer);

  // A failed write affects only its own sessions, on this node: their rooms may be ahead of the log, so they are
  // dropped and reloaded from it. Other classes carry on, and no socket of another session is touched. (Nothing
  // unsaved was acknowledged or broadcast: both wait for the write.)
  // One process: that session's sockets reconnect to the durable state, a turn later so the failed commands'
  // acknowledgements reach the teacher first. Only this node's sockets, never through the adapter.
  // A cluster disconnects nobody: Redis was unreachable (the room comes back once it answers) or another node
  // owns the session now (the class is being served there).
  const reloadSessions = (sessionIds: Iterable<string>) => {
    const ids = [...sessionIds];
    setImmediate(() => ids.forEach((id) => disconnectSession(io.local, id)));
  };
  store.onWriteError((failures) => {
    rooms.dropSessions(failures.keys());
    if (cluster) cluster.writesFailed(failures);
    else reloadSessions(failures.keys());
  });
  const local = new LocalGateway(rooms, store, (sessionId) => {
    if (!redis) reloadSessions([sessionId]);
  });
  if (redis) {
    // Broadcasts reach sockets on every node (clients resync from whole snapshots, so connection-state recovery is not needed).
    io.adapter(createAdapter(redis.adapterClient));
    cluster = new ClusterGateway({
      local,
      rooms,
      store: redis.store,
      client: redis.client,
      subscriber: redis.subscriber,
      leaseClient: redis.leaseClient,
      localPresence: (sessionId) => localPresence(io, sessionId),
      connected: (socketId) => io.sockets.sockets.get(socketId)?.connected === true,
      timings: {
        nodeTtlMs: redis.timings?.nodeTtlMs ?? DEFAULT_CLUSTER_NODE_TTL_MS,
        ackBudgetMs: redis.timings?.ackBudgetMs ?? DEFAULT_CLUSTER_ACK_BUDGET_MS,
        presenceStaleMs: redis.timings?.presenceStaleMs ?? DEFAULT_CLUSTER_PRESENCE_STALE_MS,
      },
    });
  }
  const gateway = cluster ?? local;
  attachSocketLayer({
    io,
    gateway,
    trustProxy,
    failedJoins,
    quarantined: frames.blocked,
    budgets: new SendBudgets(config.addressBudgets),
  });
  const ops = attachOps({ config, store, io, rooms, redisClient: redis?.client });

  const sweep = setInterval(() => rooms.sweepIdle(), IDLE_SWEEP_INTERVAL_MS);
  sweep.unref();
  const stopSlowReaderSweep = startSlowReaderSweep(io);

  return {
    httpServer,
    io,
    rooms,
    connections,
    ops,
    listen: async () => {
      if (cluster) {
        // Sessions are taken over on demand by whichever node needs them first.
        await cluster.start();
      } else {
        const recovered = await rooms.recoverAll();
        if (recovered > 0) log.info("recovered live sessions", { count: recovered });
      }
      return new Promise<number>((resolve, reject) => {
        httpServer.once("error", reject);
        httpServer.listen(config.port, config.host, () => {
          httpServer.off("error", reject);
          const address = httpServer.address();
          resolve(typeof address === "object" && address !== null ? address.port : config.port);
        });
      });
    },
    close: async () => {
      // Readiness says "not ready" from here on; a retention pass stops after its current session, before the store closes.
      const opsClosed = ops.close();
      clearInterval(sweep);
      stopSlowReaderSweep();
      // Everything acknowledged is already durable; flush what is still queued, then tell clients to come back.
      await store.flush().catch((err: Error) => log.error("events still queued at shutdown could not be written", { error: err.message }));
      await cluster?.stop();
      io.emit("server:restarting");
      rooms.disposeAll();
      const closed = new Promise<void>((resolve) => void io.close(() => resolve()));
      httpServer.closeIdleConnections();
      await closed;
      await api.close();
      await opsClosed;
      await lessons?.close();
      await accounts?.close();
      await assignments?.close();
      await store.close();
    },
  };
}

/** The same outbox, sending nothing while `allowed` says no (every function of it, whatever RoomOutbox holds). */
function onlyWhile(allowed: () => boolean, outbox: RoomOutbox): RoomOutbox {
  const gated: Record<string, unknown> = {};
  for (const [message, send] of Object.entries(outbox) as [string, unknown][]) {
    gated[message] =
      typeof send !== "function"
        ? send
        : (...args: unknown[]) => {
            if (allowed()) Reflect.apply(send, outbox, args);
          };
  }
  // The same keys, each function with its own signature (only wrapped): the outbox's type still holds.
  // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion
  return gated as unknown as RoomOutbox;
}

/** Whether every %-escape of the path decodes (Next.js answers a malformed one with a 500). */
function wellFormedPath(url: string | undefined): boolean {
  const path = (url ?? "/").split("?")[0];
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}
