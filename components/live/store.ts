import { createStore } from "zustand/vanilla";
import {
  newerVote,
  type AnySnapshot,
  type MyUpvote,
  type MyVote,
  type ProtocolError,
  type TallyUpdate,
  type Welcome,
} from "@/lib/protocol/wire";
import { applyRosterChanges, type RosterChanges, type RosterFull, type RosterRow } from "@/lib/session/roster";
import type { QuestionChanges, QuestionList } from "@/lib/session/questions";
import { applyChanges, applyMyUpvote, fromList, noteAsked, type QuestionsState } from "@/components/questions/questionsState";

/** The teacher's copy of the roster: rows by participant id, at a revision of the room's count. */
export interface Roster {
  epoch: string;
  rev: number;
  rows: ReadonlyMap<string, RosterRow>;
}

/** The browser's copy of one live session. Socket handlers write it; components read it. */
export type ConnectionState = "connecting" | "connected" | "reconnecting" | "failed";

export interface LiveState {
  connection: ConnectionState;
  /** A refusal that reconnecting will not fix (no such session, out of date, removed, not host). */
  fatal: ProtocolError | null;
  welcome: Welcome | null;
  snapshot: AnySnapshot | null;
  myVote: MyVote | null;
  tally: TallyUpdate | null;
  /** The teacher's: every student, kept up to date by changes. */
  roster: Roster | null;
  /** serverNow - Date.now() at welcome, for countdowns. */
  clockOffsetMs: number;
  /** The last command error, shown briefly in the UI. */
  lastError: ProtocolError | null;
  /** The questions this view may see (their own channel: never in the snapshot). */
  questions: QuestionsState | null;
  /** Teachers: students looking back at an earlier step now. */
  lookingBack: number;
}

export interface LiveActions {
  setConnection(state: ConnectionState): void;
  setFatal(error: ProtocolError): void;
  welcome(welcome: Welcome): void;
  /** Keeps the newest: a snapshot older than what we hold is dropped. */
  snapshot(snapshot: AnySnapshot): void;
  myVote(vote: MyVote | null): void;
  tally(tally: TallyUpdate): void;
  error(error: ProtocolError | null): void;
  presence(participantCount: number, projectorCount?: number): void;
  rosterFull(roster: RosterFull): void;
  /** Applies the changes; false when they do not follow on from the roster held (the caller resyncs). */
  rosterChanges(changes: RosterChanges): boolean;
  renamed(nickname: string): void;
  questionList(list: QuestionList): void;
  questionChanges(changes: QuestionChanges): void;
  myUpvote(upvote: MyUpvote): void;
  /** The server took this student's question. */
  questionAsked(questionId: string): void;
  lookingBack(count: number): void;
}

export type LiveStore = ReturnType<typeof createLiveStore>;

export function createLiveStore() {
  return createStore<LiveState & { actions: LiveActions }>()((set, get) => ({
    connection: "connecting",
    fatal: null,
    welcome: null,
    snapshot: null,
    myVote: null,
    tally: null,
    roster: null,
    clockOffsetMs: 0,
    lastError: null,
    questions: null,
    lookingBack: 0,
    actions: {
      // Back online: an error from while the connection was down ("Not connected") is no longer true.
      setConnection: (connection) => set(connection === "connected" ? { connection, lastError: null } : { connection }),
      setFatal: (fatal) => set({ fatal, connection: "failed" }),
      welcome: (welcome) => set({ welcome, clockOffsetMs: welcome.serverNow - Date.now() }),
      snapshot: (snapshot) => {
        const current = get().snapshot;
        if (current && snapshot.rev < current.rev) return;
        const tally = get().tally;
        // A tally older than the snapshot's poll state is stale.
        const keepTally =
          tally && snapshot.poll && tally.pollId === snapshot.poll.id && tally.round === snapshot.poll.round && tally.rev > snapshot.rev;
        set({ snapshot, tally: keepTally ? tally : null });
      },
      myVote: (myVote) => {
        if (newerVote(get().myVote, myVote)) set({ myVote });
      },
      tally: (tally) => {
        const snap = get().snapshot;
        if (!snap?.poll || snap.poll.id !== tally.pollId || snap.poll.round !== tally.round) return;
        const current = get().tally;
        if (current && current.pollId === tally.pollId && current.round === tally.round && current.rev > tally.rev) return;
        set({ tally });
      },
      error: (lastError) => set({ lastError }),
      // Presence is not an event: it updates the count without touching rev.
      presence: (participantCount, projectorCount) => {
        const snapshot = get().snapshot;
        if (!snapshot) return;
        if (snapshot.audience === "host" && projectorCount !== undefined)
          set({ snapshot: { ...snapshot, participantCount, projectorCount } });
        else set({ snapshot: { ...snapshot, participantCount } });
      },
      rosterFull: ({ epoch, rev, rows }) => {
        const held = get().roster;
        // A whole roster older than the one held (changes applied since it was taken) is dropped.
        if (held && held.epoch === epoch && held.rev > rev) return;
        set({ roster: { epoch, rev, rows: new Map(rows.map((r) => [r.id, r])) } });
      },
      rosterChanges: (changes) => {
        const held = get().roster;
        if (!held) return false;
        const next = applyRosterChanges(held, changes);
        if (!next) return false;
        if (next !== held) set({ roster: next });
        return true;
      },
      renamed: (nickname) => {
        const welcome = get().welcome;
        if (welcome) set({ welcome: { ...welcome, nickname } });
      },
      questionList: (list) => set({ questions: fromList(list) }),
      questionChanges: (changes) => set({ questions: applyChanges(get().questions, changes) }),
      myUpvote: (upvote) => set({ questions: applyMyUpvote(get().questions, upvote) }),
      questionAsked: (questionId) => set({ questions: noteAsked(get().questions, questionId) }),
      lookingBack: (lookingBack) => set({ lookingBack }),
    },
  }));
}
