import path from "node:path";
import { z } from "zod";
import { MAX_LESSONS_PER_SERVER } from "../lib/protocol/rest";
import {
  COMMAND_ACK_TIMEOUT_MS,
  DEFAULT_CLUSTER_ACK_BUDGET_MS,
  DEFAULT_CLUSTER_NODE_TTL_MS,
  DEFAULT_CLUSTER_PRESENCE_STALE_MS,
  DEFAULT_IDLE_SESSION_TIMEOUT_MS,
  DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
  DEFAULT_MAX_PENDING_PER_ADDRESS,
} from "../lib/constants";

/** LESSON_WRITES: who may write lessons without the admin token. */
export const LESSON_WRITE_MODES = ["open", "limited", "off"] as const;
export type LessonWrites = (typeof LESSON_WRITE_MODES)[number];

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
  /**
   * Who may write teachers' lessons without the admin token (there are no accounts yet): "open" anyone, "limited"
   * anyone but a few new lessons per address, "off" nobody (lessons already written can still be run and deleted).
   */
  LESSON_WRITES: z.enum(LESSON_WRITE_MODES).default("limited"),
  /** Lessons the server holds; a deleted lesson frees its place. */
  MAX_LESSONS: z.coerce.number().int().min(1).max(1_000_000).default(MAX_LESSONS_PER_SERVER),
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
  /** Teachers' accounts: "closed" lets only the command line (npm run account) create them; school sign-in still does. */
  ACCOUNT_SIGNUP: z.enum(["open", "closed"]).default("open"),
  ACCOUNT_SIGNUP_LIMIT: z.coerce.number().int().min(1).max(100_000).optional(),
  /** The school's OpenID Connect provider (its issuer URL); with the client id and secret it turns on school sign-in. */
  OIDC_ISSUER: z.url().optional(),
  OIDC_CLIENT_ID: z.string().min(1).max(512).optional(),
  OIDC_CLIENT_SECRET: z.string().min(1).max(1024).optional(),
  /** Only school identities whose verified email is in this domain (e.g. school.example.edu). */
  OIDC_ALLOWED_DOMAIN: z
    .string()
    .regex(/^[a-z0-9-]+(\.[a-z0-9-]+)+$/i, "must be a domain name like school.example.edu")
    .optional(),
  /** Only school identities whose `groups` claim holds this group. */
  OIDC_ALLOWED_GROUP: z.string().min(1).max(256).optional(),
});

/** School sign-in (OIDC_*): the provider, this server's client registration, and who may come in. */
export interface OidcConfig {
  issuer: string;
  clientId: string;
  clientSecret: string;
  allowedDomain: string | null;
  allowedGroup: string | null;
}

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
  /** ACCOUNT_SIGNUP=open: anyone may create an account on the sign-up page. */
  accountSignupOpen: boolean;
  /** ACCOUNT_SIGNUP_LIMIT: new accounts one address may create at once (then one every 2 minutes); server/auth's 5 when unset. */
  accountSignupBurst?: number;
  oidc: OidcConfig | null;
  lessonWrites: LessonWrites;
  maxLessons: number;
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
    accountSignupOpen: e.ACCOUNT_SIGNUP === "open",
    accountSignupBurst: e.ACCOUNT_SIGNUP_LIMIT,
    oidc: oidcConfig(e),
    lessonWrites: e.LESSON_WRITES,
    maxLessons: e.MAX_LESSONS,
  };
}

/** OIDC_ISSUER turns school sign-in on, and then the client id and secret must be there too. */
function oidcConfig(e: z.infer<typeof envSchema>): OidcConfig | null {
  if (!e.OIDC_ISSUER) {
    if (e.OIDC_CLIENT_ID || e.OIDC_CLIENT_SECRET)
      throw new Error("invalid configuration: OIDC_CLIENT_ID and OIDC_CLIENT_SECRET need OIDC_ISSUER");
    return null;
  }
  if (!e.OIDC_CLIENT_ID || !e.OIDC_CLIENT_SECRET)
    throw new Error(
      "invalid configuration: OIDC_ISSUER needs OIDC_CLIENT_ID and OIDC_CLIENT_SECRET (this server's registration with the provider)",
    );
  return {
    issuer: e.OIDC_ISSUER,
    clientId: e.OIDC_CLIENT_ID,
    clientSecret: e.OIDC_CLIENT_SECRET,
    allowedDomain: e.OIDC_ALLOWED_DOMAIN?.toLowerCase() ?? null,
    allowedGroup: e.OIDC_ALLOWED_GROUP ?? null,
  };
}
