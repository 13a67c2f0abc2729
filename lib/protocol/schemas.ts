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
