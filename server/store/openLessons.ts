import { SqliteLessonStore, type LessonStore } from "./lessons";
import { RedisLessonStore } from "./lessonsRedis";
import type { RedisClient } from "./redisClient";
import type { SessionStore } from "./types";

/** Lessons live where sessions do: in Redis in scale-out mode, else in the SQLite file; a store with neither keeps none. */
export function openLessonStore(sessions: SessionStore, redis: RedisClient | undefined): LessonStore | undefined {
  if (redis) return new RedisLessonStore(redis);
  const file = sessions.sqliteFile?.();
  return file ? new SqliteLessonStore(file) : undefined;
}
