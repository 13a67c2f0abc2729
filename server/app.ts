import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Server } from "socket.io";
import { IDLE_SWEEP_INTERVAL_MS, MAX_SOCKET_MESSAGE_BYTES, SOCKET_PING_INTERVAL_MS, SOCKET_PING_TIMEOUT_MS } from "../lib/constants";
import type { Config } from "./config";
import { createApiHandler, sendJson, setSecurityHeaders } from "./http";
import { log } from "./logger";
import { RoomRegistry } from "./rooms";
import { createAdapter } from "@socket.io/redis-streams-adapter";
import { attachSocketLayer, countPresence, disconnectSession, socketOutbox, type IoServer } from "./socket";
import { LocalGateway } from "./gateway";
import { ClusterGateway } from "./cluster";
import type { RedisClient, RedisSessionStore } from "./store/redis";
import type { SessionStore } from "./store/types";

/** Same origin as the page (or PUBLIC_URL); requests without an Origin header come from non-browser clients. */
export function originAllowed(origin: string | undefined, host: string | undefined, publicUrl: string | null): boolean {
  if (!origin) return true;
  try {
    const url = new URL(origin);
    if (host && url.host === host) return true;
    return publicUrl !== null && new URL(publicUrl).origin === url.origin;
  } catch {
    return false;
  }
}

export type PageHandler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

export interface ClassroomServerOptions {
  config: Pick<Config, "publicUrl" | "port" | "host" | "idleTimeoutMs" | "dev" | "adminToken"> & { sessionCreateLimitPerMinute?: number; trustProxy?: boolean };
  store: SessionStore;
  /** Next.js's request handler; absent in socket-level tests. */
  pages?: PageHandler;
  /** Scale-out: several processes share sessions through Redis. `store` must then be a RedisSessionStore. */
  redis?: { client: RedisClient; subscriber: RedisClient; adapterClient: RedisClient };
}

export interface ClassroomServer {
  httpServer: HttpServer;
  io: IoServer;
  rooms: RoomRegistry;
  listen(): Promise<number>;
  close(): Promise<void>;
}

/**
 * One HTTP server for everything: the API, socket.io on /socket.io/, and the
 * pages. `server/index.ts` only wires this to Next and the environment.
 */
export function createClassroomServer({ config, store, pages, redis }: ClassroomServerOptions): ClassroomServer {
  let io: IoServer;
  const rooms = new RoomRegistry({ store, outboxFor: (id) => socketOutbox(io, id), idleTimeoutMs: config.idleTimeoutMs });
  const api = createApiHandler({ config, rooms, store });

  const httpServer = createServer(async (req, res) => {
    setSecurityHeaders(res, config.dev);
    try {
      if (await api(req, res)) return;
      if (pages) return await pages(req, res);
      sendJson(res, 404, { error: { code: "NOT_FOUND", message: "Not found." } });
    } catch (err) {
      log.error("request failed", { url: req.url?.split("#")[0], error: (err as Error).stack });
      if (!res.headersSent) sendJson(res, 500, { error: { code: "INTERNAL", message: "Something went wrong on the server." } });
      else res.end();
    }
  });

  io = new Server(httpServer, {
    maxHttpBufferSize: MAX_SOCKET_MESSAGE_BYTES,
    // WebSocket only: no long-polling, so several nodes need no sticky sessions.
    transports: ["websocket"],
    // Browsers may connect only from pages this server served (non-browser clients send no Origin).
    allowRequest: (req, callback) => callback(null, originAllowed(req.headers.origin, req.headers.host, config.publicUrl)),
    serveClient: false,
    pingInterval: SOCKET_PING_INTERVAL_MS,
    pingTimeout: SOCKET_PING_TIMEOUT_MS,
  });
  // Whatever failed to write, rooms in memory may now be ahead of the log: drop them all and let every client
  // reconnect to the durable state (a full disk or a lost Redis is rare, and nothing unsaved was acknowledged).
  store.onWriteError(() => {
    rooms.disposeAll();
    io.disconnectSockets();
  });
  const local = new LocalGateway(rooms, store, (sessionId) => disconnectSession(io, sessionId));
  let cluster: ClusterGateway | null = null;
  if (redis) {
    // Broadcasts reach sockets on every node (clients resync from whole snapshots, so connection-state recovery is not needed).
    io.adapter(createAdapter(redis.adapterClient));
    cluster = new ClusterGateway({
      local,
      rooms,
      store: store as RedisSessionStore,
      client: redis.client,
      subscriber: redis.subscriber,
      countPresence: (sessionId) => countPresence(io, sessionId),
    });
  }
  attachSocketLayer({ io, gateway: cluster ?? local, trustProxy: config.trustProxy });

  const sweep = setInterval(() => rooms.sweepIdle(), IDLE_SWEEP_INTERVAL_MS);
  sweep.unref();

  return {
    httpServer,
    io,
    rooms,
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
          resolve((httpServer.address() as AddressInfo).port);
        });
      });
    },
    close: async () => {
      clearInterval(sweep);
      // Everything acknowledged is already durable; flush what is still queued, then tell clients to come back.
      await store.flush().catch((err: Error) => log.error("events still queued at shutdown could not be written", { error: err.message }));
      await cluster?.stop();
      io.emit("server:restarting");
      rooms.disposeAll();
      const closed = new Promise<void>((resolve) => io.close(() => resolve()));
      httpServer.closeIdleConnections();
      await closed;
      await store.close();
    },
  };
}
