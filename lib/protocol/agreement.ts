import type { z } from "zod";
import type { COMMANDS } from "../session/commands";
import type { ClientToServerEvents } from "./wire";
import type { resyncSchema } from "./schemas";

/**
 * Compile-time proof that the event map (./wire, which browsers import
 * without zod) and the command table agree: the same commands, and each
 * command's payload type is exactly what its schema accepts. A drift fails
 * the typecheck, naming the command.
 */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type PayloadsAgree = {
  [E in keyof ClientToServerEvents]: Same<Parameters<ClientToServerEvents[E]>[0], z.input<SchemaOf<E>>>;
};
/**
 * The resync is answered by the socket edge, not the session, and its payload (what the client holds) is parsed
 * there with `resyncSchema`, which lib/session cannot import; the command table's row still names the empty schema.
 */
type SchemaOf<E extends keyof ClientToServerEvents> = E extends "session:sync" ? typeof resyncSchema : (typeof COMMANDS)[E]["schema"];
type TableOnly = Exclude<keyof typeof COMMANDS, keyof ClientToServerEvents>;
// Type-level checks only: the values are never read.
// eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion
export const PAYLOADS_AGREE = {} as PayloadsAgree satisfies Record<keyof typeof COMMANDS, true>;
export const NO_COMMAND_OUTSIDE_THE_EVENT_MAP: [TableOnly] extends [never] ? true : TableOnly = true;
