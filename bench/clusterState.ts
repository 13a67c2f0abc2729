import { createClient } from "redis";
import { withTimeout } from "./wait";

/** What the cluster's nodes keep in Redis, read by the driver to check who owns the session and which nodes are alive. */

/** A short-lived Redis connection (the product's own client library) for one or two bounded queries. */
interface QueryClient {
  keys(pattern: string): Promise<string[]>;
  get(key: string): Promise<string | null>;
}
async function withRedis<T>(url: string, fn: (client: QueryClient) => Promise<T>): Promise<T> {
  const client = createClient({ url, RESP: 2, socket: { connectTimeout: 5_000, reconnectStrategy: false } });
  client.on("error", () => undefined); // surfaced by the commands below
  await withTimeout(client.connect(), 5_000, "redis connect");
  try {
    return await withTimeout(fn(client as unknown as QueryClient), 5_000, "redis query");
  } finally {
    client.destroy();
  }
}

/** The node ids heartbeating in Redis (server/scaleout/clusterGateway.ts: cls:node:{id}). */
export async function liveNodeIds(redisUrl: string): Promise<string[]> {
  const keys = await withRedis(redisUrl, (c) => c.keys("cls:node:*"));
  return keys.map((k) => k.slice("cls:node:".length)).sort();
}

/** The owners recorded for live sessions (cls:owner:{sessionId} → node id). */
export async function sessionOwners(redisUrl: string): Promise<string[]> {
  return withRedis(redisUrl, async (c) => {
    const keys = await c.keys("cls:owner:*");
    const owners: string[] = [];
    for (const k of keys) owners.push(String(await c.get(k)));
    return owners;
  });
}
