import { createHash } from "node:crypto";
import { ClientClosedError, ClientOfflineError, ErrorReply, createClient } from "redis";
import { errorMessage } from "../../lib/errors";
import { log } from "../logger";
import { LostOwnershipError, StoreError, StoreInDoubtError, StoreUnavailableError } from "./types";

/**
 * Talking to Redis: the connection, the replies read as what this server
 * wrote, and a failed command classified by what it means for the write. The
 * session store, the lesson store and the cluster's own connections share it.
 */

/** The slice of a node-redis client this code uses (raw commands keep replies predictable across versions). */
export interface RedisClient {
  sendCommand(args: string[], options?: { timeout?: number }): Promise<unknown>;
  publish(channel: string, message: string): Promise<unknown>;
  subscribe(channel: string, listener: (message: string) => void): Promise<unknown>;
  unsubscribe(channel: string): Promise<unknown>;
  connect(): Promise<unknown>;
  quit(): Promise<unknown>;
  duplicate(): RedisClient;
  on(event: "error", listener: (err: Error) => void): unknown;
}

/** A RESP2 bulk string reply, or nil. Anything else means the data is not what this server wrote. */
export function asString(reply: unknown): string | null {
  if (reply === null || typeof reply === "string") return reply;
  throw new StoreError(`redis answered ${typeof reply} where a string was expected`);
}

/** A RESP2 array of bulk strings (SMEMBERS, ZRANGE, HGETALL's flat pairs). */
export function asStrings(reply: unknown): string[] {
  if (Array.isArray(reply) && reply.every((x) => typeof x === "string")) return reply;
  throw new StoreError("redis answered something other than a list of strings");
}

/** XRANGE's entries: [id, [field, value, …]]. */
export function asStreamEntries(reply: unknown): [string, string[]][] {
  if (!Array.isArray(reply)) throw new StoreError("redis answered something other than stream entries");
  return reply.map((entry) => {
    if (!Array.isArray(entry) || typeof entry[0] !== "string") throw new StoreError("a stream entry is malformed");
    return [entry[0], asStrings(entry[1] ?? [])];
  });
}

/**
 * A connected client speaking RESP2 (flat arrays for HGETALL, as the parsing below expects).
 *
 * `failFast`: while Redis is unreachable a command fails at once instead of
 * waiting in the client's queue to be sent on reconnect. The store and the
 * cluster's own connections need it: a write queued during an outage would
 * land seconds later, after its command was answered as not applied, and a
 * caller could not bound its wait. (socket.io's adapter keeps the queue: its
 * read loop retries at once on an error, and would spin.)
 */
export async function connectRedis(url: string, options: { failFast?: boolean } = {}): Promise<RedisClient> {
  // node-redis's client type is a deep generic over its modules; this code uses the small slice RedisClient names.
  // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion
  const client = createClient({ url, RESP: 2, disableOfflineQueue: options.failFast ?? false }) as unknown as RedisClient;
  client.on("error", (err: Error) => log.warn("redis client error", { error: err.message }));
  await client.connect();
  return client;
}

/** Error replies with which Redis says it executed nothing because it is not serving right now. */
const NOT_SERVING = /^(LOADING|BUSY|MASTERDOWN|TRYAGAIN|MISCONF|READONLY|CLUSTERDOWN)\b/;

/**
 * What a failed Redis command means for the write: never sent (the client was
 * offline), refused by Redis (a fenced or duplicate entry: nothing written), or
 * unknown (the connection broke while Redis was answering).
 */
export function classifyRedisError(err: unknown): StoreError {
  if (err instanceof StoreError) return err;
  const message = errorMessage(err);
  if (err instanceof ErrorReply && message.includes("FENCED")) return new LostOwnershipError(true);
  // A close, pause or end refused while votes wait in the intake (./redisGate.ts): nothing of it was written, and
  // the owner runs it again once it has folded them, on its room reloaded from the log.
  if (err instanceof ErrorReply && message.includes("INTAKE")) return new LostOwnershipError(false);
  // Redis is up but not serving yet (loading its append-only file after a restart) or cannot take writes now:
  // it ran nothing, as when it is unreachable. (BUSYGROUP, a consumer group that exists, is not BUSY.)
  if (err instanceof ErrorReply && NOT_SERVING.test(message)) return new StoreUnavailableError(`redis is not serving: ${message}`);
  if (err instanceof ErrorReply) return new StoreError(`redis refused a write: ${message}`);
  if (err instanceof ClientOfflineError || err instanceof ClientClosedError)
    return new StoreUnavailableError(`redis is unreachable: ${message}`);
  return new StoreInDoubtError(`redis did not confirm a write: ${message}`);
}

/** One raw command; its failure is a StoreError saying what happened to it (see classifyRedisError). */
export function redisCommand(client: Pick<RedisClient, "sendCommand">, args: (string | number)[]): Promise<unknown> {
  return client.sendCommand(args.map(String)).catch((err: unknown) => {
    throw classifyRedisError(err);
  });
}

const shas = new Map<string, string>();

/**
 * A script by its SHA (EVALSHA), loaded with EVAL when Redis does not know it
 * (NOSCRIPT: nothing ran, so sending it again is safe). For a hot single
 * command; a pipeline of ordered writes keeps EVAL, where a NOSCRIPT retry
 * could land after a later write. No per-command timer (node-redis's costs an
 * AbortSignal per command): the caller bounds its wait (the ack budget).
 */
export function evalCached(
  client: Pick<RedisClient, "sendCommand">,
  script: string,
  keys: number,
  args: (string | number)[],
): Promise<unknown> {
  let sha = shas.get(script);
  if (!sha) shas.set(script, (sha = createHash("sha1").update(script).digest("hex")));
  const rest = [String(keys), ...args.map(String)];
  return client
    .sendCommand(["EVALSHA", sha, ...rest], { timeout: 0 })
    .catch((err: unknown) => {
      if (err instanceof ErrorReply && errorMessage(err).startsWith("NOSCRIPT"))
        return client.sendCommand(["EVAL", script, ...rest], { timeout: 0 });
      throw err;
    })
    .catch((err: unknown) => {
      throw classifyRedisError(err);
    });
}
