import { decide, type DurableCommand } from "../../lib/session/decide";
import { applyEvent, initialState } from "../../lib/session/reducer";
import type { SessionEvent, SessionEventBody } from "../../lib/session/types";

/** Shared by lib/session/questions*.test.ts: a room in miniature where students ask and the teacher answers. */

export const T0 = 1_700_000_000_000;

/** A live room in miniature: decide, stamp, fold, and keep the log. */
export function room() {
  const state = initialState();
  const log: SessionEvent[] = [];
  let n = 0;
  const fold = (body: SessionEventBody) => {
    const event = { ...body, seq: state.seq + 1, at: T0 + (state.seq + 1) * 1000 } as SessionEvent;
    log.push(event);
    applyEvent(state, event);
  };
  const run = (command: DurableCommand, participantId: string | null = null) => {
    const decision = decide(state, command, { participantId }, { now: T0, newId: () => `q${++n}`, shuffle: (xs) => xs });
    if (decision.ok) decision.events.forEach(fold);
    return decision;
  };
  fold({ type: "session:created", id: "s1", code: "KUBE42", title: "t" });
  for (const [id, nickname] of [
    ["ada", "Ada"],
    ["bo", "Bo"],
    ["cy", "Cy"],
  ])
    fold({ type: "participant:joined", participantId: id, nickname });
  fold({ type: "step:changed", stepIndex: 8 });
  return { state, log, run, fold };
}

export const ask = (text: string, target: Extract<DurableCommand, { event: "question:ask" }>["payload"]["target"], anonymous = false) =>
  ({ event: "question:ask", payload: { text, target, anonymous } }) as const;
export const upvote = (questionId: string, upvoted = true) => ({ event: "question:upvote", payload: { questionId, upvoted } }) as const;
export const ARROW_5 = { kind: "arrow", stepIndex: 4 } as const;
