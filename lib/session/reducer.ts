import { getScenario, isVariantOf } from "../lesson";
import { PROJECTOR_PANELS, type Poll, type SessionEvent, type SessionState } from "./types";

/**
 * The one set of rules. The live server and replay both fold events through
 * `reduce`; it has no clock, no randomness and no I/O. Events that do not
 * apply (a vote on a closed poll, a step out of range) leave the state as it
 * was, apart from the sequence number: the server validates commands before
 * it writes events, so this only guards replays of damaged or hand-made logs.
 */
export function initialState(): SessionState {
  return {
    id: "",
    code: "",
    title: "",
    createdAt: 0,
    endedAt: null,
    status: "live",
    seq: 0,
    lastEventAt: 0,
    mode: "WaitForFirstConsumer",
    variant: "standard",
    stepIndex: 0,
    modeSwitch: null,
    locked: false,
    participants: {},
    polls: {},
    pollOrder: [],
    activePollId: null,
    resultsVisible: false,
    projectorPanel: "none",
  };
}

export function reduce(state: SessionState, event: SessionEvent): SessionState {
  const next = apply(state, event);
  return { ...next, seq: event.seq, lastEventAt: event.at };
}

/** Fold a whole log, or its first `upToSeq` events. */
export function replay(events: readonly SessionEvent[], upToSeq = Infinity): SessionState {
  let state = initialState();
  for (const event of events) {
    if (event.seq > upToSeq) break;
    state = reduce(state, event);
  }
  return state;
}

function apply(state: SessionState, event: SessionEvent): SessionState {
  if (state.status === "ended" && event.type !== "session:created") return state;
  switch (event.type) {
    case "session:created":
      return { ...initialState(), id: event.id, code: event.code, title: event.title, createdAt: event.at };

    case "step:changed": {
      const total = getScenario(state.mode, state.variant).steps.length;
      if (!Number.isInteger(event.stepIndex) || event.stepIndex < 0 || event.stepIndex >= total) return state;
      return { ...state, stepIndex: event.stepIndex, modeSwitch: null };
    }

    case "mode:changed": {
      if (!isVariantOf(event.mode, event.variant)) return state;
      const total = getScenario(event.mode, event.variant).steps.length;
      if (!Number.isInteger(event.stepIndex) || event.stepIndex < 0 || event.stepIndex >= total) return state;
      const fromLabel = getScenario(state.mode, state.variant).steps[state.stepIndex]?.label ?? 1;
      return {
        ...state,
        mode: event.mode,
        variant: event.variant,
        stepIndex: event.stepIndex,
        modeSwitch: { fromMode: state.mode, fromVariant: state.variant, fromLabel, matched: event.matched },
      };
    }

    case "participant:joined": {
      if (own(state.participants, event.participantId)) return state;
      return {
        ...state,
        participants: {
          ...state.participants,
          [event.participantId]: { id: event.participantId, nickname: event.nickname, removed: false },
        },
      };
    }

    case "participant:renamed": {
      const p = own(state.participants, event.participantId);
      if (!p) return state;
      return { ...state, participants: { ...state.participants, [p.id]: { ...p, nickname: event.nickname } } };
    }

    case "participant:removed": {
      const p = own(state.participants, event.participantId);
      if (!p) return state;
      // A removed student's votes stop counting in the open round.
      const polls = { ...state.polls };
      const active = state.activePollId ? polls[state.activePollId] : undefined;
      if (active && active.status === "open" && active.votes[p.id]) {
        const { [p.id]: _dropped, ...votes } = active.votes;
        polls[active.id] = { ...active, votes };
      }
      return { ...state, polls, participants: { ...state.participants, [p.id]: { ...p, removed: true } } };
    }

    case "room:locked":
      return { ...state, locked: event.locked };

    case "poll:opened": {
      if (own(state.polls, event.poll.id)) return state;
      // One poll at a time: a second opening while one is open is not a valid log.
      const current = activePoll(state);
      if (current && current.status === "open") return state;
      const poll: Poll = {
        ...event.poll,
        mode: state.mode,
        variant: state.variant,
        stepIndex: state.stepIndex,
        status: "open",
        round: 1,
        votes: {},
        history: [],
        openedAt: event.at,
        closesAt: event.closesAt,
      };
      return {
        ...state,
        polls: { ...state.polls, [poll.id]: poll },
        pollOrder: [...state.pollOrder, poll.id],
        activePollId: poll.id,
        resultsVisible: false,
      };
    }

    case "poll:voted": {
      const poll = own(state.polls, event.pollId);
      const voter = own(state.participants, event.participantId);
      if (!poll || poll.id !== state.activePollId || poll.status !== "open" || !voter || voter.removed) return state;
      if (!poll.options.some((o) => o.id === event.optionId)) return state;
      const votes = { ...poll.votes, [event.participantId]: event.optionId };
      return { ...state, polls: { ...state.polls, [poll.id]: { ...poll, votes } } };
    }

    case "poll:closed": {
      const poll = own(state.polls, event.pollId);
      if (!poll || poll.status !== "open") return state;
      const closed = countVotes(poll);
      return {
        ...state,
        polls: {
          ...state.polls,
          [poll.id]: {
            ...poll,
            status: "closed",
            closesAt: null,
            history: [...poll.history, { round: poll.round, counts: closed.counts, total: closed.total }],
          },
        },
      };
    }

    case "poll:revealed": {
      const poll = own(state.polls, event.pollId);
      if (!poll || poll.status !== "closed") return state;
      return { ...state, polls: { ...state.polls, [poll.id]: { ...poll, status: "revealed" } } };
    }

    case "poll:reopened": {
      const poll = own(state.polls, event.pollId);
      if (!poll || poll.status === "open") return state;
      return {
        ...state,
        polls: {
          ...state.polls,
          [poll.id]: { ...poll, status: "open", round: poll.round + 1, votes: {}, closesAt: event.closesAt },
        },
        activePollId: poll.id,
        resultsVisible: false,
      };
    }

    case "results:visibility":
      return { ...state, resultsVisible: event.visible };

    case "projector:panelChanged":
      if (!(PROJECTOR_PANELS as readonly string[]).includes(event.panel)) return state;
      return { ...state, projectorPanel: event.panel };

    case "session:ended": {
      // Close whatever is open so the saved session reads as finished.
      const polls = { ...state.polls };
      const active = state.activePollId ? polls[state.activePollId] : undefined;
      if (active && active.status === "open") {
        const closed = countVotes(active);
        polls[active.id] = {
          ...active,
          status: "closed",
          closesAt: null,
          history: [...active.history, { round: active.round, counts: closed.counts, total: closed.total }],
        };
      }
      return { ...state, polls, status: "ended", endedAt: event.at };
    }

    default:
      return assertNever(event);
  }
}

/** Counts per option (every option present, zeros included) for the poll's current round. */
export function countVotes(poll: Pick<Poll, "options" | "votes">): { counts: Record<string, number>; total: number } {
  const counts: Record<string, number> = {};
  for (const option of poll.options) counts[option.id] = 0;
  let total = 0;
  for (const optionId of Object.values(poll.votes)) {
    if (Object.hasOwn(counts, optionId)) {
      counts[optionId] += 1;
      total += 1;
    }
  }
  return { counts, total };
}

export function activePoll(state: SessionState): Poll | null {
  return state.activePollId ? (own(state.polls, state.activePollId) ?? null) : null;
}

/**
 * A record lookup that ignores inherited keys: ids come from clients and logs,
 * and "constructor" or "__proto__" must not find Object.prototype's members.
 */
export function own<T>(record: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

function assertNever(value: never): never {
  throw new Error(`unhandled event ${JSON.stringify(value)}`);
}
