import type { Socket } from "socket.io-client";
import type { Patch, PublicRecords } from "../lib/protocol";

/**
 * What the bench's simulated students read of the server's one message kind,
 * `session:patch` (lib/session/projection.ts), without keeping a Replica
 * (lib/protocol/replica.ts): a bench student only needs a few facts, and
 * thousands of them share one worker process. Both servers send the class's
 * stream ("public") in the product's shape (the baseline, bench/bareServer.ts,
 * mimics it), and nothing in a bench run loses a message, so these readers
 * take each patch as it comes:
 *
 * - the session record (`put.session`, a PublicSnapshot: step index, the poll
 *   with its status and results) from any patch of the class's stream, the
 *   whole one on join included;
 * - a running count from a volatile patch that puts `tally` (what the old
 *   `poll:tally` message was).
 *
 * Patches of a student's own stream ("me": their vote, name, questions) are
 * not read by the bench.
 */

export type PublicSession = PublicRecords["session"];

/** The session record a patch for the class puts (the whole on join, a step, a poll opened, shown or closed), if any. */
export function classSession(patch: Patch): PublicSession | undefined {
  return patch.stream === "public" ? patch.put?.session : undefined;
}

/** A running count for the class: a volatile patch of the class's stream that puts `tally`. */
export function isClassTally(patch: Patch): boolean {
  return patch.stream === "public" && patch.volatile === true && patch.put?.tally !== undefined;
}

/**
 * Resolves with the first session record the class's stream brings this socket
 * (its join: the whole patch after `session:welcome`), or rejects with the
 * connect_error's code. No timer: callers bound it.
 */
export function firstClassSession(socket: Socket): Promise<PublicSession> {
  return new Promise((resolve, reject) => {
    const onPatch = (patch: Patch) => {
      const session = classSession(patch);
      if (!session) return;
      socket.off("session:patch", onPatch);
      resolve(session);
    };
    socket.on("session:patch", onPatch);
    socket.once("connect_error", (err: Error & { data?: { code?: string } }) => {
      socket.off("session:patch", onPatch);
      reject(new Error(err.data?.code ?? err.message));
    });
  });
}
