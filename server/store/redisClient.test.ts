import { ClientOfflineError, ErrorReply } from "redis";
import { describe, expect, it } from "vitest";
import { classifyRedisError } from "./redisClient";
import { LostOwnershipError, StoreError, StoreInDoubtError, StoreUnavailableError } from "./types";

describe("what a failed Redis command means", () => {
  it("is unavailable (nothing ran) while Redis loads its file after a restart or cannot take writes", () => {
    // Found by the ten-minute chaos run: a command that met a restarting Redis was answered INTERNAL.
    for (const reply of [
      "LOADING Redis is loading the dataset in memory",
      "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.",
      "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk.",
      "READONLY You can't write against a read only replica.",
      "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.",
    ]) {
      expect(classifyRedisError(new ErrorReply(reply)), reply).toBeInstanceOf(StoreUnavailableError);
    }
    expect(classifyRedisError(new ClientOfflineError())).toBeInstanceOf(StoreUnavailableError);
  });

  it("is a refusal for fenced writes and other replies, and in doubt when the connection broke mid-answer", () => {
    expect(classifyRedisError(new ErrorReply("ERR FENCED by a newer owner"))).toBeInstanceOf(LostOwnershipError);
    const busyGroup = classifyRedisError(new ErrorReply("BUSYGROUP Consumer Group name already exists"));
    expect(busyGroup).not.toBeInstanceOf(StoreUnavailableError);
    expect(busyGroup).toBeInstanceOf(StoreError);
    expect(classifyRedisError(new Error("Socket closed unexpectedly"))).toBeInstanceOf(StoreInDoubtError);
  });
});
