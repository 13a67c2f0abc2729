import type { IncomingMessage, ServerResponse } from "node:http";
import { performance } from "node:perf_hooks";
import { READINESS_TIMEOUT_MS, REDIS_PING_INTERVAL_MS } from "../../lib/constants";
import type { Role } from "../../lib/protocol";
import type { IoServer } from "../edge/fanout";
import { sendJson } from "../http/api";
import type { RoomRegistry } from "../rooms/registry";
import { hashSecret, secretMatches } from "../secrets";
import type { RedisClient } from "../store/redis";
import type { SessionStore } from "../store/types";
import { addMetricsSource, enableProcessMetrics, observeRedisPing, registry } from "./metrics";
import { createReadiness } from "./readiness";
import { startRetention } from "./retention";

/** Prometheus scrapes this (with METRICS_TOKEN as a bearer token). */
export const METRICS_PATH = "/metrics";
/** The readiness probe: 200 while this node can save, 503 when it cannot. */
export const READY_PATH = "/api/ready";
/** The liveness probe: 200 while the process answers (server/http/api.ts). */
export const HEALTH_PATH = "/api/health";

export interface OpsOptions {
  config: {
    metricsToken?: string | null;
    retentionDays?: number | null;
    /** Tests only: how often retention runs (RETENTION_SWEEP_INTERVAL_MS). */
    retentionIntervalMs?: number;
  };
  store: SessionStore;
  io: IoServer;
  rooms: RoomRegistry;
  /** Scale-out: the client whose round trip /metrics reports. */
  redisClient?: RedisClient;
}

/**
 * What an operator needs beside the classroom: metrics, readiness and
 * retention, wired to one server. `handle` answers /metrics and /api/ready
 * (false for anything else); `close` stops the timers and turns readiness
 * to "not ready" first, so a load balancer stops sending students here.
 */
export function attachOps({ config, store, io, rooms, redisClient }: OpsOptions) {
  const kind = redisClient ? "redis" : "sqlite";
  const readiness = createReadiness({ store, kind });
  const retention = config.retentionDays
    ? startRetention({ store, days: config.retentionDays, intervalMs: config.retentionIntervalMs })
    : null;
  const metricsTokenHash = config.metricsToken ? hashSecret(config.metricsToken) : null;

  const removeSource = addMetricsSource({
    socketsByRole() {
      const counts: Partial<Record<Role, number>> = {};
      for (const socket of io.of("/").sockets.values()) {
        const role = socket.data.role;
        if (role) counts[role] = (counts[role] ?? 0) + 1;
      }
      return counts;
    },
    liveSessions: () => rooms.liveCount,
  });

  const timers: NodeJS.Timeout[] = [];
  if (metricsTokenHash) {
    enableProcessMetrics();
    if (redisClient) {
      let pinging = false;
      // One PING at a time: while Redis is away, a PING that has not settled is not joined by more in the client's queue.
      const ping = () => {
        if (pinging) return observeRedisPing(null);
        pinging = true;
        void pingRedis(redisClient).finally(() => (pinging = false));
      };
      ping();
      timers.push(setInterval(ping, REDIS_PING_INTERVAL_MS));
    }
  }
  for (const t of timers) t.unref();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const path = (req.url ?? "/").split("?")[0].replace(/\/+$/, "");
    if (path === READY_PATH) {
      if (req.method !== "GET" && req.method !== "HEAD") {
        res.setHeader("Allow", "GET, HEAD");
        sendJson(res, 405, { error: { code: "METHOD_NOT_ALLOWED", message: "Use GET." } });
        return true;
      }
      const report = await readiness.check();
      sendJson(res, report.ready ? 200 : 503, report);
      return true;
    }
    // Off unless METRICS_TOKEN is set: then the path is not even there (the pages answer it with their 404).
    if (path !== METRICS_PATH || !metricsTokenHash) return false;
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.setHeader("Allow", "GET, HEAD");
      sendJson(res, 405, { error: { code: "METHOD_NOT_ALLOWED", message: "Use GET." } });
      return true;
    }
    const header = req.headers.authorization ?? "";
    const presented = header.startsWith("Bearer ") ? header.slice(7).trim() : "";
    if (!secretMatches(presented, metricsTokenHash)) {
      res.setHeader("WWW-Authenticate", 'Bearer realm="metrics"');
      sendJson(res, 401, { error: { code: "NO_ACCESS", message: "Send METRICS_TOKEN as a bearer token." } });
      return true;
    }
    const text = await registry.metrics();
    res.statusCode = 200;
    res.setHeader("Content-Type", registry.contentType);
    res.setHeader("Cache-Control", "no-store");
    res.end(text);
    return true;
  }

  return {
    handle,
    readiness,
    retention,
    /** Not ready from now on; resolves once a retention pass in progress has stopped (close the store after it). */
    async close(): Promise<void> {
      readiness.drain();
      for (const t of timers) clearInterval(t);
      removeSource();
      await retention?.stop();
    },
  };
}

/** Times one PING; a failure or no answer within the readiness timeout is counted as a failure. Settles when the PING does. */
async function pingRedis(client: RedisClient): Promise<void> {
  const started = performance.now();
  let answered = false;
  const timer = setTimeout(() => {
    if (!answered) observeRedisPing(null);
    answered = true;
  }, READINESS_TIMEOUT_MS);
  try {
    await client.sendCommand(["PING"]);
    if (!answered) observeRedisPing((performance.now() - started) / 1000);
  } catch {
    if (!answered) observeRedisPing(null);
  } finally {
    answered = true;
    clearTimeout(timer);
  }
}
