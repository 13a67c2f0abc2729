import { assertNever } from "../assertNever";
import { MAX_PARTICIPANTS_PER_SESSION, MAX_PROJECTORS_PER_SESSION } from "../constants";
import { MAX_IDENTITIES_PER_ADDRESS } from "./limits";
import { protocolError, type ErrorCode, type ProtocolError } from "../errorCodes";
import { logFull, own } from "./rules";
import type { Role, SessionState } from "./types";

/**
 * Who may join a live session, and as whom: the admission half of the rules,
 * beside `decide` for commands. Pure: what only the server can know (whether
 * the presented host key matches, whose token it is, how many projector
 * views are open, whether the address is over its failed-join allowance)
 * comes in as facts. The checks run in the order docs/protocol.md lists.
 */
export interface JoinFacts {
  role: Role;
  /** The presented host key matches the session's (false when none was presented). */
  holdsHostKey: boolean;
  /** A student's token belongs to this participant; null when none was presented or it is unknown. */
  tokenOf: string | null;
  /**
   * False while the address is over its failed-join allowance: only those who
   * bring a credential get in (a returning student's token, the host key), and
   * everything else is refused exactly like an unknown code, so success stops
   * telling a guesser that a code is live.
   */
  admitNew: boolean;
  /** Projector views open now (presence, never logged). */
  projectorsOpen: number;
  /** Participants who have ever joined, removed ones included. */
  participantsJoined: number;
  /** New participants the joining address has added to this session (the room's memory; 0 when unknown). */
  identitiesFromAddress?: number;
}

export type Admission =
  | { ok: true; as: "host" | "projector" }
  | { ok: true; as: "returning"; participantId: string }
  /** A new student: the server still applies its per-address allowance for new identities, then logs the join. */
  | { ok: true; as: "new" }
  | { ok: false; error: ProtocolError };

const refuse = (code: ErrorCode, message?: string): Admission => ({ ok: false, error: protocolError(code, message) });

export function admit(state: SessionState, facts: JoinFacts): Admission {
  if (state.status === "ended") return refuse("SESSION_ENDED");
  switch (facts.role) {
    case "host":
      if (facts.holdsHostKey) return { ok: true, as: "host" };
      // Over the allowance a wrong key is one more guess: refused like an unknown code, or NOT_HOST would say the code is live.
      if (!facts.admitNew) return refuse("NO_SUCH_SESSION");
      return refuse("NOT_HOST", "This browser does not hold the host key for this session.");

    case "projector":
      // A room has one or two projectors; a script opening hundreds is refused (the console shows the count).
      if (facts.projectorsOpen >= MAX_PROJECTORS_PER_SESSION) {
        return refuse("ROOM_FULL", "This session has as many projector views open as it allows. Close one first.");
      }
      // A locked room admits no new watchers, except the teacher's own projector (it holds the host key); neither
      // does an address over its allowance (a projector would tell a guesser the code is live).
      if ((state.locked || !facts.admitNew) && !facts.holdsHostKey) return refuse(facts.admitNew ? "ROOM_LOCKED" : "NO_SUCH_SESSION");
      return { ok: true, as: "projector" };

    case "student": {
      const known = facts.tokenOf ? own(state.participants, facts.tokenOf) : undefined;
      if (known?.removed) return refuse("REMOVED");
      if (known) return { ok: true, as: "returning", participantId: known.id };
      // Over the allowance an unknown token is one more guess: refused exactly like an unknown code.
      if (!facts.admitNew) return refuse("NO_SUCH_SESSION");
      if (state.locked) return refuse("ROOM_LOCKED");
      if (logFull(state)) return refuse("LOG_FULL");
      if (facts.participantsJoined >= MAX_PARTICIPANTS_PER_SESSION) return refuse("ROOM_FULL");
      // A lecture hall behind one NAT address fits; a script minting identities from one address stops here.
      if ((facts.identitiesFromAddress ?? 0) >= MAX_IDENTITIES_PER_ADDRESS) {
        return refuse("ROOM_FULL", "As many students have joined this session from your network as it allows.");
      }
      return { ok: true, as: "new" };
    }
    default:
      return assertNever(facts.role);
  }
}
