import { assertNever } from "../assertNever";
import { getScenario, isVariantOf } from "../lesson/scenarios";
import { activePoll, focusIsValid, own, questionVisible, stepInRange, targetRefusal, upvoteRefusal, voteRefusal } from "./rules";
import { PROJECTOR_PANELS, QUESTION_MODES, QUESTION_NAMES, type Poll, type Question, type SessionEvent, type SessionState } from "./types";
import { QUESTION_TEXT_MAX } from "../constants";
import { countVotes, recount } from "./counts";
import { closeRound, moveOn, validCounts } from "./pollLife";
import { isKubeVersion, type KubeVersion } from "../lesson/versions";

/** The release a session created before the version switch printed: its events carry none. */
const LOGGED_BEFORE_VERSIONS: KubeVersion = "1.33";

export { activePoll, own, countVotes };

/**
 * The one set of rules. The live server and replay both fold events through
 * `applyEvent` (`reduce` is its pure form); no clock, no randomness, no I/O. Events that do not
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
    paused: false,
    participants: {},
    polls: {},
    pollOrder: [],
    activePollId: null,
    resultsVisible: false,
    projectorPanel: "none",
    projectorFocus: { object: "PersistentVolumeClaim", deepDive: null },
    projectorLanguage: null,
    pollOnProjector: false,
    kubeVersion: LOGGED_BEFORE_VERSIONS,
    lesson: null,
    questionSettings: { mode: "open", names: "either" },
    questions: {},
    questionOrder: [],
    shownQuestionId: null,
  };
}

/**
 * A copy that `applyEvent` may change without touching `state`: records are
 * copied one level down, and each poll's votes (the only thing changed in
 * place) are copied too, and so are each question's upvoters. Participants,
 * options and history arrays are never changed in place, so they are shared.
 */
export function cloneState(state: SessionState): SessionState {
  const polls: Record<string, Poll> = {};
  for (const id of Object.keys(state.polls))
    polls[id] = { ...state.polls[id], votes: { ...state.polls[id].votes }, voteWrites: { ...state.polls[id].voteWrites } };
  const questions: Record<string, Question> = {};
  for (const id of Object.keys(state.questions)) {
    const q = state.questions[id];
    questions[id] = { ...q, upvoters: { ...q.upvoters }, upvoteWrites: { ...q.upvoteWrites } };
  }
  return {
    ...state,
    participants: { ...state.participants },
    polls,
    pollOrder: [...state.pollOrder],
    questions,
    questionOrder: [...state.questionOrder],
  };
}

/** Pure: the state after one event, leaving `state` as it was. */
export function reduce(state: SessionState, event: SessionEvent): SessionState {
  const next = cloneState(state);
  applyEvent(next, event);
  return next;
}

/** Fold a whole log, or its first `upToSeq` events, in linear time. */
export function replay(events: readonly SessionEvent[], upToSeq = Infinity): SessionState {
  const state = initialState();
  for (const event of events) {
    if (event.seq > upToSeq) break;
    applyEvent(state, event);
  }
  return state;
}

/**
 * The rules, applied to a state the caller owns (the live room's, or a replay's draft). Changing it in place keeps a
 * join or a vote O(1) in a lecture hall: copying a thousand-entry record per vote made a vote storm quadratic.
 * `reduce` and `replay` are built on this; there is no second implementation of the rules.
 */
export function applyEvent(state: SessionState, event: SessionEvent): void {
  apply(state, event);
  state.seq = event.seq;
  state.lastEventAt = event.at;
}

function apply(s: SessionState, event: SessionEvent): void {
  if (s.status === "ended" && event.type !== "session:created") return;
  switch (event.type) {
    case "session:created":
      Object.assign(s, initialState(), {
        id: event.id,
        code: event.code,
        title: event.title,
        createdAt: event.at,
        lesson: event.lesson ?? null,
        // A log from before the switch existed showed 1.33's strings: its replay shows what that class saw.
        kubeVersion: isKubeVersion(event.kubeVersion) ? event.kubeVersion : LOGGED_BEFORE_VERSIONS,
      });
      return;

    case "version:changed":
      if (s.lesson || !isKubeVersion(event.version)) return;
      s.kubeVersion = event.version;
      return;

    case "step:changed": {
      if (!stepInRange(s, event.stepIndex)) return;
      s.stepIndex = event.stepIndex;
      s.modeSwitch = null;
      moveOn(s);
      return;
    }

    case "mode:changed": {
      // A teacher's lesson has no binding modes.
      if (s.lesson) return;
      if (!isVariantOf(event.mode, event.variant) || !stepInRange(event, event.stepIndex)) return;
      const fromLabel = getScenario(s.mode, s.variant).steps[s.stepIndex]?.label ?? 1;
      s.modeSwitch = { fromMode: s.mode, fromVariant: s.variant, fromLabel, matched: event.matched };
      s.mode = event.mode;
      s.variant = event.variant;
      s.stepIndex = event.stepIndex;
      moveOn(s);
      return;
    }

    case "participant:joined": {
      if (own(s.participants, event.participantId)) return;
      s.participants[event.participantId] = { id: event.participantId, nickname: event.nickname, removed: false };
      return;
    }

    case "participant:renamed": {
      const p = own(s.participants, event.participantId);
      if (!p) return;
      s.participants[p.id] = { ...p, nickname: event.nickname };
      return;
    }

    case "participant:removed": {
      const p = own(s.participants, event.participantId);
      if (!p) return;
      // A removed student's vote stops counting in the open round; let back in, they start the round afresh
      // (with the vote dropped, VOTE_LIMIT's "your last vote counts" would no longer be true).
      const active = activePoll(s);
      if (active && active.status === "open") {
        if (Object.hasOwn(active.votes, p.id)) {
          recount(active, active.votes[p.id], undefined);
          delete active.votes[p.id];
        }
        if (active.voteWrites && Object.hasOwn(active.voteWrites, p.id)) delete active.voteWrites[p.id];
      }
      s.participants[p.id] = { ...p, removed: true };
      // Their named questions leave the class's view, so none of them stays on the projector (an anonymous one
      // stays where it is: taking it down at this moment would say whose it was).
      const shown = s.shownQuestionId ? own(s.questions, s.shownQuestionId) : undefined;
      if (shown && !questionVisible(s, shown)) s.shownQuestionId = null;
      return;
    }

    case "participant:readmitted": {
      const p = own(s.participants, event.participantId);
      if (!p || !p.removed) return;
      s.participants[p.id] = { ...p, removed: false };
      return;
    }

    case "questions:blocked":
      for (const id of event.participantIds) {
        const p = own(s.participants, id);
        if (!p) continue;
        const { questionsBlocked: _, ...rest } = p;
        s.participants[id] = event.blocked ? { ...rest, questionsBlocked: true } : rest;
      }
      return;

    case "room:locked":
      s.locked = event.locked;
      return;

    case "class:paused":
      s.paused = event.paused;
      return;

    case "poll:opened": {
      if (own(s.polls, event.poll.id)) return;
      // One poll at a time: a second opening while one is open is not a valid log.
      const current = activePoll(s);
      if (current && current.status === "open") return;
      s.polls[event.poll.id] = {
        ...event.poll,
        mode: s.mode,
        variant: s.variant,
        stepIndex: s.stepIndex,
        status: "open",
        round: 1,
        votes: {},
        voteWrites: {},
        history: [],
        openedAt: event.at,
        closesAt: event.closesAt,
        revealedAt: null,
      };
      s.pollOrder = [...s.pollOrder, event.poll.id];
      s.activePollId = event.poll.id;
      s.resultsVisible = false;
      s.pollOnProjector = true;
      return;
    }

    case "poll:voted": {
      if (voteRefusal(s, event.participantId, event.pollId, event.optionId)) return;
      const poll = s.polls[event.pollId];
      recount(poll, poll.votes[event.participantId], event.optionId);
      poll.votes[event.participantId] = event.optionId;
      // Logs written before this field existed (and shared logs) fold to an empty record first.
      poll.voteWrites ??= {};
      poll.voteWrites[event.participantId] = (poll.voteWrites[event.participantId] ?? 0) + 1;
      return;
    }

    case "poll:closed": {
      const poll = own(s.polls, event.pollId);
      if (!poll || poll.status !== "open") return;
      // The counts the server took at the close are the round's result (a shared replay has no individual votes).
      closeRound(s, poll, validCounts(poll, event.counts, event.total));
      return;
    }

    case "poll:revealed": {
      const poll = own(s.polls, event.pollId);
      if (!poll || poll.status !== "closed") return;
      s.polls[poll.id] = { ...poll, status: "revealed", revealedAt: { mode: s.mode, variant: s.variant, stepIndex: s.stepIndex } };
      // The answer is for the class to see: back on the projector if the teacher had put a panel there.
      if (s.activePollId === poll.id) s.pollOnProjector = true;
      return;
    }

    case "poll:reopened": {
      const poll = own(s.polls, event.pollId);
      if (!poll || poll.status === "open") return;
      s.polls[poll.id] = {
        ...poll,
        status: "open",
        round: poll.round + 1,
        votes: {},
        voteWrites: {},
        closesAt: event.closesAt,
        revealedAt: null,
      };
      s.activePollId = poll.id;
      s.resultsVisible = false;
      s.pollOnProjector = true;
      return;
    }

    case "results:visibility":
      s.resultsVisible = event.visible;
      return;

    case "projector:panelChanged":
      if (event.panel === "poll") {
        if (activePoll(s)) s.pollOnProjector = true;
        return;
      }
      if (!(PROJECTOR_PANELS as readonly string[]).includes(event.panel)) return;
      // The teacher's pick replaces whatever was there, the poll included: the console's choice is the one truth.
      s.projectorPanel = event.panel;
      s.pollOnProjector = false;
      return;

    case "projector:focusChanged":
      if (!focusIsValid(s, event.focus)) return;
      s.projectorFocus = { object: event.focus.object, deepDive: event.focus.deepDive };
      return;

    case "projector:languageChanged":
      // Which languages there are was checked where the event was read (./eventSchema.ts).
      s.projectorLanguage = event.language;
      return;

    case "session:ended": {
      // Close whatever is open so the saved session reads as finished.
      const active = activePoll(s);
      if (active && active.status === "open") closeRound(s, active);
      s.status = "ended";
      s.endedAt = event.at;
      return;
    }

    case "questions:configured":
      if (!(QUESTION_MODES as readonly string[]).includes(event.mode) || !(QUESTION_NAMES as readonly string[]).includes(event.names))
        return;
      s.questionSettings = { mode: event.mode, names: event.names };
      return;

    case "question:asked": {
      const q = event.question;
      // The event's shape was checked where it was read (./eventSchema.ts); these are the session's rules.
      if (own(s.questions, q.id) || q.text.length === 0 || q.text.length > QUESTION_TEXT_MAX || targetRefusal(s, q.target)) return;
      s.questions[q.id] = {
        id: q.id,
        participantId: q.participantId,
        text: q.text,
        anonymous: q.anonymous,
        // Rebuilt field by field: the state holds a target of its own, not the event's object.
        target:
          q.target.kind === "lifeline"
            ? { kind: "lifeline", stepIndex: q.target.stepIndex, lifeline: q.target.lifeline }
            : { kind: q.target.kind, stepIndex: q.target.stepIndex },
        mode: s.mode,
        variant: s.variant,
        status: event.pending ? "pending" : "open",
        hidden: false,
        upvoters: {},
        votes: 0,
        upvoteWrites: {},
        askedAt: event.at,
      };
      // Replaced, never pushed to: a replay checkpoint may share the old array.
      s.questionOrder = [...s.questionOrder, q.id];
      return;
    }

    case "question:upvoted": {
      if (upvoteRefusal(s, event.participantId, event.questionId)) return;
      const q = s.questions[event.questionId];
      const had = Object.hasOwn(q.upvoters, event.participantId);
      if (event.upvoted === had) return;
      if (event.upvoted) {
        q.upvoters[event.participantId] = true;
        q.votes += 1;
      } else {
        delete q.upvoters[event.participantId];
        q.votes -= 1;
      }
      q.upvoteWrites[event.participantId] = (q.upvoteWrites[event.participantId] ?? 0) + 1;
      return;
    }

    case "question:approved": {
      const q = own(s.questions, event.questionId);
      if (!q || q.status !== "pending") return;
      s.questions[q.id] = { ...q, status: "open" };
      return;
    }

    case "question:answered": {
      const q = own(s.questions, event.questionId);
      if (!q || q.status === "pending") return;
      s.questions[q.id] = { ...q, status: event.answered ? "answered" : "open" };
      return;
    }

    case "question:hidden": {
      const q = own(s.questions, event.questionId);
      if (!q) return;
      s.questions[q.id] = { ...q, hidden: event.hidden };
      if (event.hidden && s.shownQuestionId === q.id) s.shownQuestionId = null;
      return;
    }

    case "question:shown": {
      if (event.questionId === null) {
        s.shownQuestionId = null;
        return;
      }
      const q = own(s.questions, event.questionId);
      if (!q || !questionVisible(s, q)) return;
      s.shownQuestionId = q.id;
      return;
    }

    default:
      assertNever(event);
  }
}
