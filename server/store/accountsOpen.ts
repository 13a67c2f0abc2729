import type { AccountStore } from "./accounts";
import { RedisAccountStore } from "./accountsRedis";
import { SqliteAccountStore } from "./accountsSqlite";
import type { RedisClient } from "./redisClient";
import type { SessionStore } from "./types";

/** Accounts live where sessions do: Redis in scale-out mode, else the SQLite file; a store with neither keeps none. */
export function openAccountStore(sessions: SessionStore, redis: RedisClient | undefined): AccountStore | undefined {
  if (redis) return new RedisAccountStore(redis);
  const file = sessions.sqliteFile?.();
  return file ? new SqliteAccountStore(file) : undefined;
}
