import { reduce, initialState } from "../session/reducer";
import type { Poll, SessionEvent, SessionState } from "../session/types";
import { customPollKey, nextStepKey } from "./pollKeys";
import type { Assignment, AssignmentAnswer, AssignmentStudent } from "./types";

/**
 * One poll as one session or assignment asked it, in the shape the results
 * page adds up (./results.ts): its options with the right one marked, each
 * learner's first answer, and, for a live poll, the counts of every round.
 */
export interface PollRecord {
  key: string;
  question: string;
  /** 0-based step the poll was asked at, for ordering. */
  stepIndex: number;
  options: { id: string; text: string; note?: string; correct: boolean }[];
  hasAnswer: boolean;
  /** First answers: in a live class, the vote each student left when the first round closed; self-paced, the one answer. */
  first: { learner: string; name: string; optionId: string }[];
  /** A live poll's closed rounds, oldest first (counts by option id): the shift between rounds. */
  rounds: { counts: Record<string, number>; total: number }[];
  source: { kind: "session" | "assignment"; id: string; title: string; at: number };
}

/** The name a live class gives a student who typed none ("Student 3"): it says nothing about who they are. */
const GIVEN_NAME = /^student \d+$/;

const normalName = (nickname: string) => nickname.trim().replace(/\s+/g, " ").toLowerCase();

/**
 * Who a learner is across sessions and assignments: a nickname (the same one
 * in class and at home), else one identity in one place. Students have no
 * accounts; an anonymous student (no nickname, the class's "Student N", or a
 * name two students shared in the same class) is counted on their own each time.
 */
export function learnerKey(nickname: string, where: string, id: string, shared = false): string {
  const name = normalName(nickname);
  return name && !shared && !GIVEN_NAME.test(name) ? `name:${name}` : `anon:${where}:${id}`;
}

/** Names more than one identity used in the same session or assignment (they cannot say which student is which). */
function sharedNames(nicknames: Iterable<string>): Set<string> {
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const n of nicknames) {
    const name = normalName(n);
    if (seen.has(name)) twice.add(name);
    seen.add(name);
  }
  return twice;
}

function sessionRecord(state: SessionState, poll: Poll, firstVotes: Record<string, string>): PollRecord {
  const custom = state.lesson !== null;
  const shared = sharedNames(Object.values(state.participants).map((p) => p.nickname));
  return {
    key:
      poll.kind === "custom"
        ? customPollKey(poll.question)
        : nextStepKey(custom ? "custom" : "builtin", poll.mode, poll.variant, poll.stepIndex),
    question: poll.question,
    stepIndex: poll.stepIndex,
    options: poll.options.map((o) => ({
      id: o.id,
      text: o.text,
      ...(o.note ? { note: o.note } : {}),
      correct: o.id === poll.correctOptionId,
    })),
    hasAnswer: poll.correctOptionId !== null,
    first: Object.entries(firstVotes).map(([participantId, optionId]) => {
      const name = state.participants[participantId]?.nickname ?? "";
      return { learner: learnerKey(name, state.id, participantId, shared.has(normalName(name))), name, optionId };
    }),
    rounds: poll.history.map((r) => ({ counts: r.counts, total: r.total })),
    source: { kind: "session", id: state.id, title: state.title, at: state.createdAt },
  };
}

/**
 * The polls of one session's log. The first round's votes are read at the
 * moment it closed (a re-opened poll starts its votes again), or where they
 * stand if the first round is still open.
 */
export function sessionPollRecords(events: readonly SessionEvent[]): PollRecord[] {
  let state = initialState();
  const firstVotes = new Map<string, Record<string, string>>();
  for (const event of events) {
    const closing =
      event.type === "poll:closed"
        ? state.polls[event.pollId]
        : event.type === "session:ended" && state.activePollId
          ? state.polls[state.activePollId]
          : undefined;
    if (closing && closing.status === "open" && closing.round === 1) firstVotes.set(closing.id, { ...closing.votes });
    state = reduce(state, event);
  }
  return state.pollOrder.flatMap((id) => {
    const poll = state.polls[id];
    if (!poll) return [];
    const first = firstVotes.get(id) ?? (poll.round === 1 ? poll.votes : {});
    return [sessionRecord(state, poll, first)];
  });
}

/** The polls of one assignment, with each student's answer. */
export function assignmentPollRecords(
  a: Assignment,
  students: readonly AssignmentStudent[],
  given: readonly AssignmentAnswer[],
): PollRecord[] {
  const byId = new Map(students.map((s) => [s.id, s]));
  const shared = sharedNames(students.map((s) => s.nickname));
  return a.polls.map((poll) => ({
    key: poll.key,
    question: poll.question,
    stepIndex: poll.stepIndex,
    options: poll.options.map((o) => ({
      id: o.id,
      text: o.text,
      ...(o.note ? { note: o.note } : {}),
      correct: o.id === poll.correctOptionId,
    })),
    hasAnswer: poll.correctOptionId !== null,
    first: given
      .filter((g) => g.pollId === poll.id)
      .map((g) => {
        const name = byId.get(g.studentId)?.nickname ?? "";
        return { learner: learnerKey(name, a.id, g.studentId, shared.has(normalName(name))), name, optionId: g.optionId };
      }),
    rounds: [],
    source: { kind: "assignment", id: a.id, title: a.title, at: a.createdAt },
  }));
}
