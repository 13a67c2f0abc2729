import { OBJECT_KINDS, type BindingMode, type VariantId } from "../lesson/types";
import type { SessionLesson } from "../lesson/model";
import type { KubeVersion } from "../lesson/versions";

/**
 * Session state and the durable events that change it. Everything here is
 * plain JSON so the same values travel over the socket, into SQLite and
 * through replay.
 */

export interface Participant {
  id: string;
  nickname: string;
  /** Removed by the teacher: may not rejoin with the same identity. */
  removed: boolean;
  /** The teacher stopped this student's questions (clearing a flood); unhiding one of their questions lets them ask again. */
  questionsBlocked?: true;
}

export interface PollOption {
  id: string;
  text: string;
  /** The misconception a wrong option stands for, or why the right one is right. Shown after reveal. */
  note?: string;
}

export type PollStatus = "open" | "closed" | "revealed";

/** The final counts of one round of voting (a poll re-opened after discussion starts a new round). */
export interface PollRound {
  round: number;
  counts: Record<string, number>;
  total: number;
}

export interface Poll {
  id: string;
  kind: "next-step" | "custom";
  question: string;
  options: PollOption[];
  correctOptionId: string | null;
  /** Where the class was when the poll opened. */
  mode: BindingMode;
  variant: VariantId;
  stepIndex: number;
  status: PollStatus;
  round: number;
  /** participantId -> optionId for the current round. */
  votes: Record<string, string>;
  /** participantId -> votes logged this round (first vote and changes); capped so a participant's writes are bounded. */
  voteWrites: Record<string, number>;
  /** Closed rounds, oldest first: the shift between the first and second vote. */
  history: PollRound[];
  openedAt: number;
  /** Server time at which the poll closes by itself, or null. */
  closesAt: number | null;
  /** Where the class was when the answer was revealed (the reveal stays on screen until the class moves on). */
  revealedAt: { mode: BindingMode; variant: VariantId; stepIndex: number } | null;
}

export type SessionStatus = "live" | "ended";

/** What the projector shows beside the diagram; the teacher chooses. */
export const PROJECTOR_PANELS = ["none", "objects", "topology", "compare", "hood"] as const;
export type ProjectorPanel = (typeof PROJECTOR_PANELS)[number];

/** What the teacher can put beside the diagram: a panel, or the current poll (./projectorSide.ts). */
export const PROJECTOR_CHOICES = [...PROJECTOR_PANELS, "poll"] as const;
export type ProjectorChoice = (typeof PROJECTOR_CHOICES)[number];

/** What the projector's "Objects & events" panel shows: one object's YAML, or the Events (the projector cannot scroll or click). */
export const PROJECTOR_OBJECTS = [...OBJECT_KINDS, "events"] as const;
export type ProjectorObject = (typeof PROJECTOR_OBJECTS)[number];

/** Inside the projector's panels, what the teacher pointed at: the object tab, and the "under the hood" deep dive opened (by title). */
export interface ProjectorFocus {
  object: ProjectorObject;
  /** Title of an "under the hood" item of the current step or of the card's "not shown" list; null: the step's first. */
  deepDive: string | null;
}

/** Where the class landed after the last mode switch, so every view can say so. */
export interface ModeSwitchNote {
  fromMode: BindingMode;
  fromVariant: VariantId;
  /** The card step label the class was on before the switch. */
  fromLabel: number;
  /** True when the new scenario has that moment; false when it restarted from the beginning. */
  matched: boolean;
}

/**
 * The interface languages the teacher can set the room's projector to: the shipped locales of i18n/locales.ts,
 * copied because lib/ imports nothing outside lib/ (lib/session/projectorLanguage.test.ts holds the two lists equal).
 */
export const ROOM_LANGUAGES = ["en", "de", "fr", "es", "pt-BR", "ja", "zh-CN", "ar"] as const;
export type RoomLanguage = (typeof ROOM_LANGUAGES)[number];

/** Whether students may ask: freely, only once the teacher approves each question, or not at all. */
export const QUESTION_MODES = ["open", "moderated", "off"] as const;
export type QuestionMode = (typeof QUESTION_MODES)[number];

/** Whose name a question carries: the student chooses, always none, or always their nickname. */
export const QUESTION_NAMES = ["either", "anonymous", "named"] as const;
export type QuestionNames = (typeof QUESTION_NAMES)[number];

export interface QuestionSettings {
  mode: QuestionMode;
  names: QuestionNames;
}

/** The parts of the diagram a question can be pinned to. */
export const QUESTION_TARGET_KINDS = ["step", "arrow", "note", "lifeline"] as const;
export type QuestionTargetKind = (typeof QUESTION_TARGET_KINDS)[number];

/**
 * What a question is about: a step in the list, its arrow or its note, or a
 * lifeline (with the step the student was reading, so the teacher can group
 * it with that step). Always in the scenario the class was in when it was asked.
 */
export type QuestionTarget =
  { kind: "step" | "arrow" | "note"; stepIndex: number } | { kind: "lifeline"; stepIndex: number; lifeline: string };

/** pending: waits for the teacher's approval (moderated); open: the class sees it; answered: marked by the teacher. */
export type QuestionStatus = "pending" | "open" | "answered";

export interface Question {
  id: string;
  /** The asker; "" in a shared log, where an anonymous asker is not recorded. */
  participantId: string;
  text: string;
  anonymous: boolean;
  target: QuestionTarget;
  /** The scenario the target belongs to. */
  mode: BindingMode;
  variant: VariantId;
  status: QuestionStatus;
  /** Hidden by the teacher: nobody but the teacher sees it. */
  hidden: boolean;
  /** participantId -> true: one upvote per participant (changed in place, like a poll's votes). */
  upvoters: Record<string, true>;
  /** How many upvoters there are (kept with the record: views must not count it per message). */
  votes: number;
  /** participantId -> upvote changes logged on this question; capped so a participant's writes are bounded. */
  upvoteWrites: Record<string, number>;
  askedAt: number;
}

export interface SessionState {
  id: string;
  code: string;
  title: string;
  createdAt: number;
  endedAt: number | null;
  status: SessionStatus;
  /** Sequence number of the last event folded in; 0 before any. */
  seq: number;
  lastEventAt: number;
  mode: BindingMode;
  variant: VariantId;
  stepIndex: number;
  modeSwitch: ModeSwitchNote | null;
  locked: boolean;
  /** The teacher paused the class: votes, questions and upvotes are refused until they resume it. */
  paused: boolean;
  participants: Record<string, Participant>;
  polls: Record<string, Poll>;
  /** Poll ids in the order they were opened. */
  pollOrder: string[];
  activePollId: string | null;
  /** Whether the class (projector, students) may see live results before the reveal. */
  resultsVisible: boolean;
  projectorPanel: ProjectorPanel;
  projectorFocus: ProjectorFocus;
  /** The language the teacher chose for the projector (one screen for the whole room); null: each projector's own browser's. */
  projectorLanguage: RoomLanguage | null;
  /**
   * The current poll takes the panel's place on the projector: set when a poll opens, re-opens or is revealed,
   * cleared when the teacher picks a panel or the class moves on from a closed poll.
   */
  pollOnProjector: boolean;
  /** The Kubernetes release whose strings every screen prints (the class's cluster); the teacher may switch it. */
  kubeVersion: KubeVersion;
  /** The teacher's lesson this session runs (id, version and content, from `session:created`); null: the built-in lesson. */
  lesson: SessionLesson | null;
  questionSettings: QuestionSettings;
  questions: Record<string, Question>;
  /** Question ids in the order they were asked. */
  questionOrder: string[];
  /** The question the projector shows beside its element, or null. */
  shownQuestionId: string | null;
}

/** The body of each durable event; the server stamps `seq` and `at`. */
export type SessionEventBody =
  | { type: "session:created"; id: string; code: string; title: string; lesson?: SessionLesson; kubeVersion?: KubeVersion }
  | { type: "version:changed"; version: KubeVersion }
  | { type: "step:changed"; stepIndex: number }
  | {
      type: "mode:changed";
      mode: BindingMode;
      variant: VariantId;
      stepIndex: number;
      matched: boolean;
    }
  | { type: "participant:joined"; participantId: string; nickname: string }
  | { type: "participant:renamed"; participantId: string; nickname: string }
  | { type: "participant:removed"; participantId: string }
  | { type: "participant:readmitted"; participantId: string }
  | { type: "room:locked"; locked: boolean }
  | { type: "class:paused"; paused: boolean }
  | {
      type: "poll:opened";
      poll: Pick<Poll, "id" | "kind" | "question" | "options" | "correctOptionId">;
      closesAt: number | null;
    }
  | { type: "poll:voted"; pollId: string; participantId: string; optionId: string }
  | {
      type: "poll:closed";
      pollId: string;
      counts: Record<string, number>;
      total: number;
      /** Only in a shared log: the teacher did not reveal this round, so its counts were left out. */
      withheld?: true;
    }
  | { type: "poll:revealed"; pollId: string }
  | { type: "poll:reopened"; pollId: string; closesAt: number | null }
  | { type: "results:visibility"; visible: boolean }
  | { type: "projector:panelChanged"; panel: ProjectorChoice }
  | { type: "projector:focusChanged"; focus: ProjectorFocus }
  | { type: "projector:languageChanged"; language: RoomLanguage | null }
  | { type: "session:ended" }
  | { type: "questions:configured"; mode: QuestionMode; names: QuestionNames }
  | {
      type: "question:asked";
      question: Pick<Question, "id" | "participantId" | "text" | "anonymous" | "target">;
      /** Moderated when asked: waits for the teacher's approval. */
      pending: boolean;
    }
  | { type: "question:upvoted"; questionId: string; participantId: string; upvoted: boolean }
  | { type: "question:approved"; questionId: string }
  | { type: "question:answered"; questionId: string; answered: boolean }
  | { type: "question:hidden"; questionId: string; hidden: boolean }
  /** The teacher stopped (or let again) these students asking: logged with the hides of one "hide everything waiting". */
  | { type: "questions:blocked"; participantIds: string[]; blocked: boolean }
  | { type: "question:shown"; questionId: string | null };

export type SessionEventType = SessionEventBody["type"];

export type SessionEvent = SessionEventBody & {
  /** Server sequence number, 1-based, gapless within a session. */
  seq: number;
  /** Server time in ms since the epoch. */
  at: number;
};

/** Version of the event log format; exports carry it and a newer log is refused on start. */
export const EVENT_LOG_VERSION = 1;

/** Who a socket is, fixed at the handshake: the teacher's console, a projector view, or a student. */
export const ROLES = ["host", "projector", "student"] as const;
export type Role = (typeof ROLES)[number];
