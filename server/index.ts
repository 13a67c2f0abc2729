import { monitorEventLoopDelay } from "node:perf_hooks";
import next from "next";
import { createClassroomServer, type ClassroomServerOptions, type PageHandler } from "./app";
import { RedisSessionStore, connectRedis } from "./store/redis";
import type { SessionStore } from "./store/types";
import { loadConfig } from "./config";
import { log } from "./logger";
import { SqliteSessionStore } from "./store/sqlite";

/** How often the event loop's delay is sampled for the stats the benchmark reads (SIGUSR2, below). */
const LOOP_DELAY_RESOLUTION_MS = 10;

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
  // The benchmark and the soak (bench/) start the server with --expose-gc and send SIGUSR2 for a full GC before they read
  // the RSS. Each signal also logs (info) the heap after the collection and the event loop's delay since the previous one.
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) {
    const loopDelay = monitorEventLoopDelay({ resolution: LOOP_DELAY_RESOLUTION_MS });
    loopDelay.enable();
    // The histogram holds the sampling timer's whole period; the delay is what exceeds the resolution.
    const delayMs = (ns: number) => Math.max(0, Math.round((ns / 1e6 - LOOP_DELAY_RESOLUTION_MS) * 100) / 100);
    process.on("SIGUSR2", () => {
      const delay = {
        loopDelayP50Ms: delayMs(loopDelay.percentile(50)),
        loopDelayP99Ms: delayMs(loopDelay.percentile(99)),
        loopDelayMaxMs: delayMs(loopDelay.max),
      };
      gc();
      loopDelay.reset(); // the collection's own pause belongs to no interval
      const { rss, heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage();
      log.info("process stats", { ...delay, rss, heapUsed, heapTotal, external, arrayBuffers, liveSessions: server.rooms.liveCount });
    });
  }
}

main().catch((err) => {
  log.error("server failed to start", { error: err instanceof Error ? err.message : String(err) });
  process.exit(1);
});
