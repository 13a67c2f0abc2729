import { createStore } from "zustand/vanilla";
import type { AnySnapshot, MyUpvote, MyVote, Patch, ProtocolError, ResyncRequest, TallyUpdate, Welcome } from "@/lib/protocol/wire";
import {
  PatchFollower,
  Replica,
  lookingBackOf,
  myVoteOf,
  nicknameOf,
  questionsOf,
  rosterOf,
  snapshotOf,
  tallyOf,
  type PatchOutcome,
  type QuestionsState,
  type ResyncAnswer,
} from "@/lib/protocol/replica";
import type { RosterRow } from "@/lib/session/roster";

export type { QuestionsState };

/** The teacher's copy of the roster: rows by participant id. */
export interface Roster {
  rows: ReadonlyMap<string, RosterRow>;
}

/** The browser's copy of one live session. Socket handlers write it; components read it. */
export type ConnectionState = "connecting" | "connected" | "reconnecting" | "failed";

export interface LiveState {
  connection: ConnectionState;
  /** A refusal that reconnecting will not fix (no such session, out of date, removed, not host). */
  fatal: ProtocolError | null;
  welcome: Welcome | null;
  /** The session as this audience sees it, with the newest presence and vote count folded in. */
  snapshot: AnySnapshot | null;
  myVote: MyVote | null;
  /** Running counts this view may see (the teacher's always; the class's while results are shown). */
  tally: TallyUpdate | null;
  /** The teacher's: every student. */
  roster: Roster | null;
  /** serverNow - Date.now() at welcome, for countdowns. */
  clockOffsetMs: number;
  /** The last command error, shown briefly in the UI. */
  lastError: ProtocolError | null;
  /** The questions this view may see. */
  questions: QuestionsState | null;
  /** Teachers: students looking back at an earlier step now. */
  lookingBack: number;
}

export interface LiveActions {
  setConnection(state: ConnectionState): void;
  setFatal(error: ProtocolError): void;
  welcome(welcome: Welcome): void;
  /** Follows a socket's patches by the replica's rule; `resync` asks for what changed since what it holds (`session:sync`). */
  follow(resync: (request: ResyncRequest, answered: (answer: ResyncAnswer) => void) => void): (patch: Patch) => PatchOutcome;
  /** This tab's own vote (its receipt): the server does not echo it to the tab that voted. */
  myVote(vote: MyVote | null): void;
  error(error: ProtocolError | null): void;
  /** This student's upvote changed (the receipt; the patch follows on every tab). */
  myUpvote(upvote: MyUpvote): void;
  /** The server took this student's question. */
  questionAsked(questionId: string): void;
}

export type LiveStore = ReturnType<typeof createLiveStore>;

export function createLiveStore() {
  // The records as the server sent them; the state below is what the screens read of them.
  const replica = new Replica();
  return createStore<LiveState & { actions: LiveActions }>()((set, get) => {
    /** Re-reads only the parts the last patches touched. */
    const refresh = () => {
      const changed = replica.takeChanges();
      if (changed.size === 0) return;
      const touched = (...parts: string[]) => parts.some((p) => changed.has(p));
      const next: Partial<LiveState> = {};
      const stream = replica.has("host") ? "host" : "public";
      if (touched(`${stream}/session`, `${stream}/presence`, `${stream}/tally`)) {
        next.snapshot = snapshotOf(replica);
        next.tally = tallyOf(replica);
      }
      if (touched("me/vote")) next.myVote = myVoteOf(replica);
      if (touched("host/r:")) {
        const rows = rosterOf(replica);
        next.roster = rows ? { rows } : null;
      }
      if (touched("host/q:", "public/q:", "me/q:", "me/m:", "me/u:")) next.questions = questionsOf(replica);
      if (touched("host/lookback")) next.lookingBack = lookingBackOf(replica);
      if (touched("me/name")) {
        const welcome = get().welcome;
        const nickname = nicknameOf(replica);
        if (welcome && nickname !== undefined) next.welcome = { ...welcome, nickname };
      }
      set(next);
    };
    return {
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
        follow: (resync) => {
          const follower = new PatchFollower(replica, resync);
          return (patch) => {
            const outcome = follower.receive(patch);
            if (outcome === "applied") refresh();
            return outcome;
          };
        },
        myVote: (vote) => {
          if (!vote) return;
          replica.putOwn("me", "vote", vote);
          refresh();
        },
        error: (lastError) => set({ lastError }),
        myUpvote: ({ questionId, upvoted }) => {
          replica.putOwn("me", `u:${questionId}`, upvoted ? true : undefined);
          refresh();
        },
        questionAsked: (questionId) => {
          replica.putOwn("me", `m:${questionId}`, true);
          refresh();
        },
      },
    };
  });
}
