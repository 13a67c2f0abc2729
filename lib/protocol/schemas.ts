import { z } from "zod";
import { NICKNAME_MAX } from "../constants";
import { text } from "../session/commands";
import { ROLES } from "../session/types";

/**
 * The zod schemas the server parses with: the handshake here, and every
 * command's payload in the command table (lib/session/commands.ts), which
 * this module re-exports. Browsers import ./wire, which has no zod, so the
 * page stays light.
 */
export * from "../session/commands";

export const handshakeSchema = z.object({
  v: z.number().int(),
  role: z.enum(ROLES),
  code: z.string().max(16),
  /** host only */
  hostKey: z.string().max(128).optional(),
  /** student only: the token the server issued on the first join, kept in the browser */
  token: z.string().max(128).optional(),
  /** student only */
  nickname: text(NICKNAME_MAX).optional(),
});
export type Handshake = z.infer<typeof handshakeSchema>;

/** One stream as a client holds it: the room instance that numbered it and the clock its next ordered patch starts from. */
const heldStream = z.object({ instance: z.string().min(1).max(64), clock: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER) });

/**
 * `session:sync`: what the client already holds, per stream. A stream it holds at a recent clock of the room
 * instance that serves it gets only what changed since; any other (or no `have`: `{}`) gets its whole projection.
 */
export const resyncSchema = z
  .object({ have: z.object({ public: heldStream.optional(), host: heldStream.optional(), me: heldStream.optional() }).optional() })
  .optional();
export type ResyncRequest = z.input<typeof resyncSchema>;
/** The streams a resync request says it holds (what `Replica.held` reports). */
export type HeldStreams = NonNullable<NonNullable<ResyncRequest>["have"]>;
