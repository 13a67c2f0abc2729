import { LIFELINES } from "../lesson/card";
import { getScenario, isVariantOf } from "../lesson/scenarios";
import type { BindingMode, VariantId } from "../lesson/types";
import type { LessonDiagram } from "../lesson/model";
import { diagramOf } from "./lesson";
import { applyEvent, initialState, own } from "./reducer";
import { questionVisible, removalHides } from "./rules";
import type { Question, QuestionSettings, QuestionStatus, QuestionTarget, SessionEvent, SessionState } from "./types";

/**
 * Questions pinned to the diagram, as each audience may see them. They
 * travel as their own messages (the list once on join, then coalesced
 * changes), never inside the snapshots that every step sends to the whole
 * class. Pure: the room decides when to send, this decides what.
 */

/** The questions' settings and the one on the projector: a few bytes, carried in every snapshot. */
export interface QuestionSettingsView extends QuestionSettings {
  shownId: string | null;
}

/**
 * What students and projectors see of a question. Never the asker's id, and
 * their nickname only on a named question: nothing here tells who asked an
 * anonymous one.
 */
export interface ClassQuestion {
  id: string;
  text: string;
  target: QuestionTarget;
  mode: BindingMode;
  variant: VariantId;
  /** "pending" only in the asker's own copy (nobody else receives a pending question). */
  status: QuestionStatus;
  votes: number;
  askedAt: number;
  /** The asker's nickname on a named question; null on an anonymous one. */
  by: string | null;
}

/** What the teacher sees: every question, pending and hidden ones included. */
export interface HostQuestion extends ClassQuestion {
  anonymous: boolean;
  hidden: boolean;
  /**
   * The asker was removed and the class no longer sees the question: only a
   * named one (an anonymous question stays, and the console, which may be
   * mirrored, says nothing of its asker).
   */
  askerRemoved: boolean;
  /** Hidden, and the teacher stopped its asker's questions (clearing a flood): showing it again lets them ask. */
  askerBlocked?: true;
}

/** The whole list for one socket, on join and on resync. `rev` is the state's seq when it was taken. */
export type QuestionList =
  | {
      audience: "public";
      rev: number;
      questions: ClassQuestion[];
      /** Students: ids of their own questions (so the page can say "yours"; nobody else is told). */
      mine: string[];
      /** Students: the questions they upvoted. */
      myUpvotes: string[];
    }
  | { audience: "host"; rev: number; questions: HostQuestion[] };

/** Questions that changed since the last batch, and ids that left this audience's view (hidden, asker removed). */
export type QuestionChanges =
  | { audience: "public"; rev: number; questions: ClassQuestion[]; gone: string[] }
  | { audience: "host"; rev: number; questions: HostQuestion[]; gone: string[] };

export function questionSettingsView(state: Pick<SessionState, "questionSettings" | "shownQuestionId">): QuestionSettingsView {
  return { mode: state.questionSettings.mode, names: state.questionSettings.names, shownId: state.shownQuestionId };
}

function nicknameOf(state: Pick<SessionState, "participants">, q: Question): string | null {
  if (q.anonymous) return null;
  return own(state.participants, q.participantId)?.nickname ?? null;
}

export function toClassQuestion(state: Pick<SessionState, "participants">, q: Question): ClassQuestion {
  return {
    id: q.id,
    text: q.text,
    target: q.target,
    mode: q.mode,
    variant: q.variant,
    status: q.status,
    votes: q.votes,
    askedAt: q.askedAt,
    by: nicknameOf(state, q),
  };
}

export function toHostQuestion(state: Pick<SessionState, "participants">, q: Question): HostQuestion {
  const view: HostQuestion = {
    ...toClassQuestion(state, q),
    anonymous: q.anonymous,
    hidden: q.hidden,
    askerRemoved: removalHides(state, q),
  };
  if (q.hidden && own(state.participants, q.participantId)?.questionsBlocked) view.askerBlocked = true;
  return view;
}

/**
 * One student's (or, with null, a projector's) view of a question: the
 * class's copy when the class may see it, the asker's own copy while it
 * waits for approval, otherwise nothing.
 */
export function classViewFor(state: SessionState, q: Question, participantId: string | null): ClassQuestion | null {
  if (questionVisible(state, q)) return toClassQuestion(state, q);
  const ownPending = participantId !== null && q.participantId === participantId && q.status === "pending" && !q.hidden;
  return ownPending ? toClassQuestion(state, q) : null;
}

/** The list a student (participantId) or a projector (null) receives on join. */
export function classQuestionList(state: SessionState, participantId: string | null): Extract<QuestionList, { audience: "public" }> {
  const questions: ClassQuestion[] = [];
  const mine: string[] = [];
  const myUpvotes: string[] = [];
  for (const id of state.questionOrder) {
    const q = state.questions[id];
    const view = classViewFor(state, q, participantId);
    if (!view) continue;
    questions.push(view);
    if (participantId === null) continue;
    if (q.participantId === participantId) mine.push(id);
    if (Object.hasOwn(q.upvoters, participantId)) myUpvotes.push(id);
  }
  return { audience: "public", rev: state.seq, questions, mine, myUpvotes };
}

export function hostQuestionList(state: SessionState): Extract<QuestionList, { audience: "host" }> {
  return { audience: "host", rev: state.seq, questions: state.questionOrder.map((id) => toHostQuestion(state, state.questions[id])) };
}

// ---------------------------------------------------------------------------
// Describing and grouping

const LIFELINE_NAMES: Record<string, string> = Object.fromEntries(LIFELINES.map((l) => [l.id, l.name]));

/** A teacher's lesson's steps and lifelines, to name its parts (the built-in lesson's come from the mode's scenario). */
export type LessonNames = Pick<LessonDiagram, "steps" | "lifelines">;

/** "arrow", "note", "step", or "lifeline Scheduler": the element without its step. */
export function elementName(target: QuestionTarget, lesson?: LessonNames): string {
  if (target.kind !== "lifeline") return target.kind;
  const name = lesson ? lesson.lifelines.find((l) => l.id === target.lifeline)?.name : LIFELINE_NAMES[target.lifeline];
  return `lifeline ${name ?? target.lifeline}`;
}

/** The step a question is grouped under, as the class reads it: "Step 5 · PROVISION". */
export function stepName(q: Pick<ClassQuestion, "mode" | "variant" | "target">, lesson?: LessonNames): string {
  const step = lesson
    ? lesson.steps[q.target.stepIndex]
    : isVariantOf(q.mode, q.variant)
      ? getScenario(q.mode, q.variant).steps[q.target.stepIndex]
      : undefined;
  return `Step ${q.target.stepIndex + 1}${step ? ` · ${step.title}` : ""}`;
}

/** "Step 5 · NODE CHOSEN, arrow": what a question (or a part of the diagram) is about. */
export function describeTarget(q: Pick<ClassQuestion, "mode" | "variant" | "target">, lesson?: LessonNames): string {
  return q.target.kind === "step" ? stepName(q, lesson) : `${stepName(q, lesson)}, ${elementName(q.target, lesson)}`;
}

/** A stable key per element: the markers on the diagram and the teacher's groups use it. */
export function targetKey(target: QuestionTarget): string {
  return target.kind === "lifeline" ? `lifeline:${target.lifeline}` : `${target.kind}:${target.stepIndex}`;
}

export interface QuestionGroup<Q extends ClassQuestion> {
  key: string;
  mode: BindingMode;
  variant: VariantId;
  target: QuestionTarget;
  questions: Q[];
}

/** Most upvoted first; among equals, the earlier question first. */
export function byVotes<Q extends Pick<ClassQuestion, "votes" | "askedAt">>(a: Q, b: Q): number {
  return b.votes - a.votes || a.askedAt - b.askedAt;
}

/**
 * The teacher's view of the questions: one group per step and element (in
 * step order, a step's own questions before its arrow, note and lifelines),
 * each sorted by votes.
 */
export function groupQuestions<Q extends ClassQuestion>(questions: readonly Q[]): QuestionGroup<Q>[] {
  const groups = new Map<string, QuestionGroup<Q>>();
  for (const q of questions) {
    const key = `${q.mode}/${q.variant}/${q.target.stepIndex}/${targetKey(q.target)}`;
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { key, mode: q.mode, variant: q.variant, target: q.target, questions: [] }));
    group.questions.push(q);
  }
  const order: Record<QuestionTarget["kind"], number> = { step: 0, arrow: 1, note: 2, lifeline: 3 };
  const list = [...groups.values()];
  for (const g of list) g.questions.sort(byVotes);
  return list.sort(
    (a, b) =>
      a.target.stepIndex - b.target.stepIndex ||
      `${a.mode}/${a.variant}`.localeCompare(`${b.mode}/${b.variant}`) ||
      order[a.target.kind] - order[b.target.kind] ||
      a.key.localeCompare(b.key),
  );
}

// ---------------------------------------------------------------------------
// Shared replays and exports

/**
 * A shared replay's questions: only those the class could still see at the
 * end of the log (never a pending one, a hidden one, or one whose asker was
 * removed), no asker on an anonymous question, and each upvoter replaced by
 * a name of its own per question, so nobody's upvotes can be followed from
 * question to question. The counts stay exact.
 */
export function shareableQuestionEvents(events: readonly SessionEvent[]): SessionEvent[] {
  const final = initialState();
  for (const e of events) applyEvent(final, e);
  const keep = new Set(final.questionOrder.filter((id) => questionVisible(final, final.questions[id])));
  const anonymous = new Set(final.questionOrder.filter((id) => final.questions[id].anonymous));
  const pseudonyms = new Map<string, string>();
  const out: SessionEvent[] = [];
  for (const e of events) {
    switch (e.type) {
      case "question:asked":
        if (!keep.has(e.question.id)) continue;
        out.push(anonymous.has(e.question.id) ? { ...e, question: { ...e.question, participantId: "" } } : e);
        continue;
      case "question:upvoted": {
        if (!keep.has(e.questionId)) continue;
        const key = `${e.questionId}\u0000${e.participantId}`;
        if (!pseudonyms.has(key)) pseudonyms.set(key, `upvoter-${pseudonyms.size + 1}`);
        out.push({ ...e, participantId: pseudonyms.get(key)! });
        continue;
      }
      case "question:approved":
      case "question:answered":
      case "question:hidden":
        if (keep.has(e.questionId)) out.push(e);
        continue;
      case "question:shown":
        if (e.questionId === null || keep.has(e.questionId)) out.push(e);
        else out.push({ ...e, questionId: null });
        continue;
      case "questions:blocked":
        // The class never saw whom the teacher stopped asking; a shared replay does not either.
        continue;
      default:
        out.push(e);
    }
  }
  return out;
}

/** Where the class was with a question at the end of the log, in words. */
function statusText(state: SessionState, q: Question): string {
  if (removalHides(state, q)) return "hidden (student removed)";
  if (q.hidden) return "hidden";
  return q.status;
}

/**
 * One row per question: what it was about (scenario, step, element), its
 * votes and its status at the end. The teacher's copy (`named`) adds who
 * asked a named question; an anonymous one says so and names nobody.
 */
export function questionRows(events: readonly SessionEvent[], named: boolean): (string | number)[][] {
  const state = initialState();
  for (const e of events) applyEvent(state, e);
  const header = ["question", "scenario", "step", "element", "votes", "status", "asked at", ...(named ? ["asked by"] : [])];
  const rows: (string | number)[][] = [header];
  for (const id of state.questionOrder) {
    const q = state.questions[id];
    const lesson = state.lesson ? diagramOf(state) : undefined;
    const scenario = lesson
      ? (state.lesson?.lesson.title ?? "")
      : isVariantOf(q.mode, q.variant)
        ? getScenario(q.mode, q.variant).title
        : `${q.mode} ${q.variant}`;
    const row: (string | number)[] = [q.text, scenario, stepName(q, lesson), elementName(q.target, lesson), q.votes, statusText(state, q)];
    row.push(new Date(q.askedAt).toISOString());
    if (named) row.push(q.anonymous ? "anonymous" : (own(state.participants, q.participantId)?.nickname ?? ""));
    rows.push(row);
  }
  return rows;
}
