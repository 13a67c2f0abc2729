import next from "next";
import { createClassroomServer, type ClassroomServerOptions, type PageHandler } from "./app";
import { RedisSessionStore, connectRedis } from "./store/redis";
import type { SessionStore } from "./store/types";
import { loadConfig } from "./config";
import { log } from "./logger";
import { SqliteSessionStore } from "./store/sqlite";

/** Wiring only: configuration, the store, Next.js and the classroom server on one port. */
async function main(): Promise<void> {
  const config = loadConfig();
  let store: SessionStore;
  let redis: ClassroomServerOptions["redis"];
  if (config.redisUrl) {
    // Several processes: the log and room state live in Redis; SQLite is not used. The store's and the cluster's
    // connections fail at once while Redis is away (nothing lands late); socket.io's adapter keeps its queue.
    const client = await connectRedis(config.redisUrl, { failFast: true });
    const redisStore = await RedisSessionStore.open(client);
    store = redisStore;
    redis = {
      store: redisStore,
      client,
      subscriber: await connectRedis(config.redisUrl, { failFast: true }),
      leaseClient: await connectRedis(config.redisUrl, { failFast: true }),
      adapterClient: await connectRedis(config.redisUrl),
      timings: config.cluster,
    };
  } else {
    store = new SqliteSessionStore(config.dbFile);
  }
  let pages: PageHandler | undefined;
  if (config.servePages) {
    const app = next({ dev: config.dev, hostname: config.host, port: config.port });
    const handle = app.getRequestHandler();
    await app.prepare();
    pages = (req, res) => handle(req, res);
  }

  const server = createClassroomServer({ config, store, pages, redis });
  const port = await server.listen();
  log.info("classroom server listening", {
    url: `http://${config.host}:${port}`,
    dataDir: config.redisUrl ? null : config.dataDir,
    redis: !!config.redisUrl,
    dev: config.dev,
  });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info("shutting down", { signal });
    // Every event was written before it was acknowledged; closing tells clients to reconnect.
    await server.close();
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
  // The benchmark (bench/run.ts) starts the server with --expose-gc and sends SIGUSR2 for a full GC before it reads the RSS.
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) process.on("SIGUSR2", () => gc());
}

main().catch((err) => {
  log.error("server failed to start", { error: err instanceof Error ? err.message : String(err) });
  process.exit(1);
});
