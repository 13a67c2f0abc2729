import { activePoll } from "./rules";
import type { ProjectorChoice, SessionState } from "./types";

/**
 * What the projector shows beside the diagram, decided once on the server
 * and read by the projector and the console alike: the console's "on the
 * projector" choice is what the projector shows, always.
 *
 * - nothing once the session has ended;
 * - the current poll while it is on the projector (it goes up when it opens,
 *   re-opens or is revealed, and leaves when the teacher picks a panel or
 *   the class moves on from it: see the reducer's `moveOn`);
 * - otherwise the teacher's panel, and none for a teacher's own lesson (the
 *   panels explain the Kubernetes lesson only).
 */
export function projectorSide(
  state: Pick<SessionState, "status" | "activePollId" | "polls" | "pollOnProjector" | "projectorPanel" | "lesson">,
): ProjectorChoice {
  if (state.status === "ended") return "none";
  if (state.pollOnProjector && activePoll(state)) return "poll";
  return state.lesson ? "none" : state.projectorPanel;
}
