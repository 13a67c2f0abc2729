import path from "node:path";
import { z } from "zod";
import {
  COMMAND_ACK_TIMEOUT_MS,
  DEFAULT_CLUSTER_ACK_BUDGET_MS,
  DEFAULT_CLUSTER_NODE_TTL_MS,
  DEFAULT_CLUSTER_PRESENCE_STALE_MS,
  DEFAULT_IDLE_SESSION_TIMEOUT_MS,
  DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
  DEFAULT_MAX_PENDING_PER_ADDRESS,
} from "../lib/constants";

/** Every setting comes from the environment; the README lists them. */
const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /** All interfaces by default: students join from their own phones. */
  HOST: z.string().default("0.0.0.0"),
  /** The address students should use, e.g. https://class.example.edu; otherwise derived from the console's address. */
  PUBLIC_URL: z.url().optional(),
  DATA_DIR: z.string().default("./data"),
  /** Grants the full saved-session list at /sessions and /api/sessions. */
  ADMIN_TOKEN: z.string().min(16).optional(),
  IDLE_SESSION_TIMEOUT_MINUTES: z.coerce.number().min(0).optional(),
  /** New sessions one address may create per minute. */
  SESSION_CREATE_LIMIT: z.coerce.number().int().min(1).max(100_000).default(10),
  /** "1" behind a load balancer you trust: per-address limits use the last X-Forwarded-For address (the one it appended). */
  TRUST_PROXY: z.enum(["0", "1"]).default("0"),
  /** Connections one client address may hold open (WebSockets and HTTP); a lecture hall behind one NAT address fits. */
  MAX_CONNECTIONS_PER_ADDRESS: z.coerce.number().int().min(1).max(1_000_000).default(DEFAULT_MAX_CONNECTIONS_PER_ADDRESS),
  /** Of those, connections that have not finished a handshake. */
  MAX_PENDING_PER_ADDRESS: z.coerce.number().int().min(1).max(1_000_000).default(DEFAULT_MAX_PENDING_PER_ADDRESS),
  NODE_ENV: z.string().default("development"),
  /** "0" serves the API and sockets only (benchmarks, socket-level tests): no Next.js build needed. */
  SERVE_PAGES: z.enum(["0", "1"]).default("1"),
  /** Scale-out: several processes share sessions through this Redis. */
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, "must start with redis:// or rediss://")
    .optional(),
  /** Bearer token for /metrics (Prometheus text format); unset, /metrics answers 404. */
  METRICS_TOKEN: z.string().min(16).optional(),
  /** Ended sessions (their log, participants, tokens and share keys) are deleted this many days after they end; unset keeps them. */
  RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).optional(),
  /** Read by server/logger.ts when it loads; listed here so a typo stops the server instead of being ignored. */
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
  /** Scale-out: a node silent this long is taken over (it renews its key every third of it). */
  CLUSTER_NODE_TTL_MS: z.coerce.number().int().min(300).max(60_000).default(DEFAULT_CLUSTER_NODE_TTL_MS),
  /** Scale-out: every command is answered within this; below the browser's own timeout, so no answer arrives too late. */
  CLUSTER_ACK_BUDGET_MS: z.coerce
    .number()
    .int()
    .min(500)
    .max(COMMAND_ACK_TIMEOUT_MS - 1_000)
    .default(DEFAULT_CLUSTER_ACK_BUDGET_MS),
  /** Scale-out: a node that stops reporting its sockets keeps counting with its last figure this long. */
  CLUSTER_PRESENCE_STALE_MS: z.coerce.number().int().min(1_000).max(600_000).default(DEFAULT_CLUSTER_PRESENCE_STALE_MS),
});

/** Every environment variable the server reads (deploy/ is checked against this list). */
export const CONFIG_ENV_NAMES: readonly string[] = Object.keys(envSchema.shape);

export interface Config {
  port: number;
  host: string;
  publicUrl: string | null;
  dataDir: string;
  dbFile: string;
  adminToken: string | null;
  idleTimeoutMs: number;
  dev: boolean;
  servePages: boolean;
  redisUrl: string | null;
  /** Scale-out timings (see server/scaleout/clusterGateway.ts). */
  cluster: { nodeTtlMs: number; ackBudgetMs: number; presenceStaleMs: number };
  sessionCreateLimitPerMinute: number;
  trustProxy: boolean;
  maxConnectionsPerAddress: number;
  maxPendingPerAddress: number;
  metricsToken: string | null;
  retentionDays: number | null;
}

export function loadConfig(env: Readonly<Record<string, string | undefined>> = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`invalid configuration: ${issue.path.join(".")}: ${issue.message}`);
  }
  const e = parsed.data;
  const dataDir = path.resolve(e.DATA_DIR);
  return {
    port: e.PORT,
    host: e.HOST,
    publicUrl: e.PUBLIC_URL ? e.PUBLIC_URL.replace(/\/+$/, "") : null,
    dataDir,
    dbFile: path.join(dataDir, "sessions.sqlite"),
    adminToken: e.ADMIN_TOKEN ?? null,
    idleTimeoutMs: e.IDLE_SESSION_TIMEOUT_MINUTES !== undefined ? e.IDLE_SESSION_TIMEOUT_MINUTES * 60_000 : DEFAULT_IDLE_SESSION_TIMEOUT_MS,
    dev: e.NODE_ENV !== "production",
    servePages: e.SERVE_PAGES === "1",
    redisUrl: e.REDIS_URL ?? null,
    cluster: { nodeTtlMs: e.CLUSTER_NODE_TTL_MS, ackBudgetMs: e.CLUSTER_ACK_BUDGET_MS, presenceStaleMs: e.CLUSTER_PRESENCE_STALE_MS },
    sessionCreateLimitPerMinute: e.SESSION_CREATE_LIMIT,
    trustProxy: e.TRUST_PROXY === "1",
    maxConnectionsPerAddress: e.MAX_CONNECTIONS_PER_ADDRESS,
    maxPendingPerAddress: e.MAX_PENDING_PER_ADDRESS,
    metricsToken: e.METRICS_TOKEN ?? null,
    retentionDays: e.RETENTION_DAYS ?? null,
  };
}
