import { protocolError, type ErrorCode, type ProtocolError } from "../errorCodes";
import type { Command } from "./commands";
import type { SessionEventBody } from "./types";

/** The types every part of the decider shares, and its two answers. */

/** The sender of a command, as the socket edge fixed it at the handshake. */
export interface Actor {
  participantId: string | null;
  /**
   * The participants who joined from the sender's address, the sender
   * included (the room's memory, never logged): one address's identities
   * share the bounds a script could otherwise multiply. Absent: not known.
   */
  sameAddress?: ReadonlySet<string>;
}

export interface DecideContext {
  now: number;
  newId(): string;
  /** Fisher-Yates with the server's randomness; tests pass a fixed order. */
  shuffle<T>(items: T[]): T[];
}

/** The events a command produces (possibly none: an idempotent repeat) and what its acknowledgement carries. */
export type Decision<T = unknown> = { ok: true; events: SessionEventBody[]; data: T } | { ok: false; error: ProtocolError };

/** Commands that change the log; `projectors:close` and `lookback:set` act on presence only and are handled by the room. */
export type DurableCommand = Exclude<Command, { event: "projectors:close" | "lookback:set" }>;

export const refuse = (code: ErrorCode, message?: string): Decision<never> => ({ ok: false, error: protocolError(code, message) });
export const accept = <T>(events: SessionEventBody[], data: T): Decision<T> => ({ ok: true, events, data });
