import type { AssignmentStore } from "./assignments";
import { RedisAssignmentStore } from "./assignmentsRedis";
import { SqliteAssignmentStore } from "./assignmentsSqlite";
import type { RedisClient } from "./redisClient";
import type { SessionStore } from "./types";

/** Assignments live where sessions do: in Redis in scale-out mode, else in the SQLite file; a store with neither keeps none. */
export function openAssignmentStore(sessions: SessionStore, redis: RedisClient | undefined): AssignmentStore | undefined {
  if (redis) return new RedisAssignmentStore(redis);
  const file = sessions.sqliteFile?.();
  return file ? new SqliteAssignmentStore(file) : undefined;
}
