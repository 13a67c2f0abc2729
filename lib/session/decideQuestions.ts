import { MAX_QUESTIONS_PER_PARTICIPANT, MAX_QUESTIONS_PER_SESSION } from "../constants";
import { MAX_PENDING_QUESTIONS_PER_ADDRESS, MAX_PENDING_QUESTIONS_PER_PARTICIPANT } from "./limits";
import { own, questionHeld, questionWaiting, targetRefusal } from "./rules";
import { accept, refuse, type Actor, type DecideContext, type Decision, type DurableCommand } from "./decision";
import type { QuestionStatus, SessionEventBody, SessionState } from "./types";

/** The decider's rules for students' questions: asking, and the teacher's one action that clears a flood. */

/**
 * The teacher's one action against a flood: every question waiting for
 * approval is hidden (each its own logged fact, so replays and exports read
 * them like any hide), and with `block` their askers may not ask again, so the
 * queue stays clear while the room is locked to new identities.
 */
export function hideAllPending(state: SessionState, block: boolean): Decision<null> {
  const events: SessionEventBody[] = [];
  const askers = new Set<string>();
  for (const id of state.questionOrder) {
    const q = state.questions[id];
    if (q.status !== "pending" || q.hidden) continue;
    events.push({ type: "question:hidden", questionId: id, hidden: true });
    askers.add(q.participantId);
  }
  if (block) {
    const participantIds = [...askers].filter((id) => {
      const p = own(state.participants, id);
      return p !== undefined && !p.questionsBlocked;
    });
    if (participantIds.length > 0) events.push({ type: "questions:blocked", participantIds, blocked: true });
  }
  return accept(events, null);
}

export function askQuestion(
  state: SessionState,
  command: Extract<DurableCommand, { event: "question:ask" }>["payload"],
  actor: Actor,
  ctx: DecideContext,
): Decision<{ questionId: string; status: QuestionStatus }> {
  if (!actor.participantId) return refuse("NOT_STUDENT");
  const { mode, names } = state.questionSettings;
  if (mode === "off") return refuse("QUESTIONS_OFF");
  const asker = own(state.participants, actor.participantId);
  if (!asker || asker.removed) return refuse("REMOVED");
  if (asker.questionsBlocked) return refuse("QUESTION_LIMIT", "The teacher has stopped your questions in this session.");
  const refusal = targetRefusal(state, command.target);
  if (refusal) return refuse(refusal);
  // Never named against the student's wish: asking anonymously where names are required is refused, not signed.
  if (command.anonymous && names === "named") return refuse("NAMES_REQUIRED");
  const anonymous = names === "anonymous" || command.anonymous;
  const pending = mode === "moderated";
  // Rejected (hidden) questions and those removed with their asker do not count: a script's flood, once cleared, frees the room.
  let held = 0;
  let asked = 0;
  let waitingMine = 0;
  let waitingFromAddress = 0;
  for (const id of state.questionOrder) {
    const q = state.questions[id];
    if (questionHeld(state, q)) held++;
    if (q.participantId === asker.id) asked++;
    if (!pending || !questionWaiting(state, q)) continue;
    if (q.participantId === asker.id) waitingMine++;
    if (actor.sameAddress?.has(q.participantId)) waitingFromAddress++;
  }
  if (held >= MAX_QUESTIONS_PER_SESSION) {
    return refuse("QUESTION_LIMIT", "This session has as many questions as it can take. Ask the teacher directly.");
  }
  if (asked >= MAX_QUESTIONS_PER_PARTICIPANT) return refuse("QUESTION_LIMIT");
  // The approval queue is bounded per student and per address, so one address's identities cannot fill it for everyone.
  if (waitingMine >= MAX_PENDING_QUESTIONS_PER_PARTICIPANT) {
    return refuse(
      "QUESTION_LIMIT",
      `You have ${MAX_PENDING_QUESTIONS_PER_PARTICIPANT} questions waiting for the teacher's approval. Ask more once the teacher has seen them.`,
    );
  }
  if (waitingFromAddress >= MAX_PENDING_QUESTIONS_PER_ADDRESS) {
    return refuse(
      "QUESTION_LIMIT",
      "Many questions from your network are waiting for the teacher's approval. Try again once the teacher has seen them.",
    );
  }
  const id = ctx.newId();
  return accept(
    [{ type: "question:asked", question: { id, participantId: asker.id, text: command.text, anonymous, target: command.target }, pending }],
    { questionId: id, status: pending ? "pending" : "open" },
  );
}
