import type { MyUpvote } from "@/lib/protocol/wire";
import type { ClassQuestion, HostQuestion, QuestionChanges, QuestionList } from "@/lib/session/questions";

/**
 * The browser's copy of the questions: the list the socket got on join (or
 * resync), with the coalesced changes folded in. Pure, so the store and the
 * tests fold messages the same way.
 *
 * Messages carry the `rev` (the session's seq) they were taken at; one older
 * than what the copy holds is dropped: a batch built just before this socket
 * joined may arrive after the fresher list.
 */
export type QuestionsState =
  | { audience: "public"; rev: number; questions: ClassQuestion[]; mine: string[]; myUpvotes: string[] }
  | { audience: "host"; rev: number; questions: HostQuestion[] };

export function fromList(list: QuestionList): QuestionsState {
  return list.audience === "host"
    ? { audience: "host", rev: list.rev, questions: list.questions }
    : { audience: "public", rev: list.rev, questions: list.questions, mine: list.mine, myUpvotes: list.myUpvotes };
}

function merge<Q extends { id: string }>(current: readonly Q[], changed: readonly Q[], gone: readonly string[]): Q[] {
  const byId = new Map(changed.map((q) => [q.id, q]));
  const drop = new Set(gone);
  const out: Q[] = [];
  for (const q of current) {
    if (drop.has(q.id)) continue;
    const next = byId.get(q.id);
    out.push(next ?? q);
    byId.delete(q.id);
  }
  // New ones arrive in the order they were asked.
  for (const q of byId.values()) if (!drop.has(q.id)) out.push(q);
  return out;
}

/** Folds one batch in (nothing before the list has arrived: the list will carry it). */
export function applyChanges(state: QuestionsState | null, changes: QuestionChanges): QuestionsState | null {
  if (!state || changes.rev < state.rev) return state;
  if (state.audience === "host" && changes.audience === "host") {
    return { ...state, rev: changes.rev, questions: merge(state.questions, changes.questions, changes.gone) };
  }
  if (state.audience === "public" && changes.audience === "public") {
    return { ...state, rev: changes.rev, questions: merge(state.questions, changes.questions, changes.gone) };
  }
  return state;
}

/** This student's upvote changed (here or in another tab). */
export function applyMyUpvote(state: QuestionsState | null, upvote: MyUpvote): QuestionsState | null {
  if (!state || state.audience !== "public") return state;
  const others = state.myUpvotes.filter((id) => id !== upvote.questionId);
  return { ...state, myUpvotes: upvote.upvoted ? [...others, upvote.questionId] : others };
}

/** The server took this student's question: it is theirs (the question itself arrives as a change). */
export function noteAsked(state: QuestionsState | null, questionId: string): QuestionsState | null {
  if (!state || state.audience !== "public" || state.mine.includes(questionId)) return state;
  return { ...state, mine: [...state.mine, questionId] };
}
