import { builtInDiagram, customDiagram, type LessonDiagram } from "../lesson/model";
import { getScenario } from "../lesson/scenarios";
import type { SessionState } from "./types";

/**
 * The lesson a session teaches, in the shared model: the teacher's lesson
 * recorded in its `session:created` event, or the built-in scenario of the
 * current binding mode. Steps, polls and replay all ask here.
 */
export function diagramOf(state: Pick<SessionState, "mode" | "variant"> & { lesson?: SessionState["lesson"] }): LessonDiagram {
  return state.lesson ? customDiagram(state.lesson.lesson) : builtInDiagram(getScenario(state.mode, state.variant));
}
