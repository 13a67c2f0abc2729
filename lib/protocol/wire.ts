import type { SessionLesson } from "../lesson/model";
import type { HostSnapshot, MyUpvote, MyVote, PublicSnapshot } from "../session/views";
import type { Patch } from "../session/projection";
import type { QuestionStatus, Role } from "../session/types";
import type { AckCallback, ProtocolError } from "../errorCodes";

// The protocol is the top layer of lib/: what it sends is defined by the layers below, and re-exported here so
// server and browser have one place to import the contract from.
export * from "../errorCodes";
export * from "../roomCode";
export { safeDecode, cleanText, lookalikeKey } from "../text";
export { NICKNAME_MAX, TITLE_MAX, POLL_QUESTION_MAX, POLL_OPTION_MAX, QUESTION_TEXT_MAX, POLL_DURATIONS_S } from "../constants";
export { ROLES, ROOM_LANGUAGES, type Role, type RoomLanguage } from "../session/types";
export { newerVote, type MyUpvote, type MyVote, type TallyUpdate } from "../session/views";
export type { Patch, PatchOf, StreamName, StreamRecords, PublicRecords, HostRecords, MeRecords } from "../session/projection";
import type {
  ClassPause,
  LookBackSet,
  QuestionAnswer,
  QuestionAsk,
  QuestionHide,
  QuestionRef,
  QuestionShow,
  QuestionUpvote,
  QuestionsConfigure,
  EmptyPayload,
  ModeSet,
  VersionSet,
  ParticipantRef,
  ParticipantRename,
  PollOpen,
  PollRef,
  PollReopen,
  PollVote,
  ProjectorFocusChoice,
  ProjectorLanguageChoice,
  ProjectorPanelChoice,
  ResultsVisibility,
  RoomLock,
  StepGo,
  StepMove,
} from "../session/commands";
import type { Handshake, HeldStreams, ResyncRequest } from "./schemas";

// Payload types are the schemas' own (`z.input`), imported as types only: browsers get them without zod.
export type {
  Handshake,
  HeldStreams,
  ResyncRequest,
  ClassPause,
  LookBackSet,
  QuestionAnswer,
  QuestionAsk,
  QuestionHide,
  QuestionRef,
  QuestionShow,
  QuestionUpvote,
  QuestionsConfigure,
  EmptyPayload,
  ModeSet,
  VersionSet,
  ParticipantRef,
  ParticipantRename,
  PollOpen,
  PollRef,
  PollReopen,
  PollVote,
  ProjectorFocusChoice,
  ProjectorLanguageChoice,
  ProjectorPanelChoice,
  ResultsVisibility,
  RoomLock,
  StepGo,
  StepMove,
};

/**
 * The wire contract without zod: constants, error codes, payload types and
 * socket.io's event maps. Browsers import this; the schemas are in ./schemas.
 */

/** Bumped on any incompatible change; a client that states another version is refused with CLIENT_TOO_OLD. */
export const PROTOCOL_VERSION = 2;

// ---------------------------------------------------------------------------
// Handshake (socket.io `auth`)

// ---------------------------------------------------------------------------
// Server -> client payloads

/** Sent once to a socket when it joins: who the server thinks it is. */
export interface Welcome {
  role: Role;
  sessionId: string;
  /** Students: their participant id and the token to keep for reconnects. */
  participantId?: string;
  token?: string;
  nickname?: string;
  /** Server time, so countdowns can be drawn against the server's clock. */
  serverNow: number;
  /** The teacher's lesson this session runs (speaker notes only to the host); absent for the built-in lesson. */
  lesson?: SessionLesson;
}

export type AnySnapshot = PublicSnapshot | HostSnapshot;

export interface ServerToClientEvents {
  /** server -> each socket on join: identity and server time */
  "session:welcome": (welcome: Welcome) => void;
  /**
   * server -> a socket's audiences (the class, the teacher's sockets, one participant's tabs): a change to the
   * records that audience holds, or the whole of them (on join, resync, and a room instance's first patch).
   * One ordering rule for all of them: lib/protocol/replica.ts.
   */
  "session:patch": (patch: Patch) => void;
  /** server -> a socket it is about to disconnect, with the reason */
  "session:kicked": (error: ProtocolError) => void;
  /** server -> everyone before a graceful shutdown: reconnect shortly */
  "server:restarting": () => void;
}

export interface ClientToServerEvents {
  /** teacher -> server: go to a step (0-based position in the current scenario) */
  "step:go": (payload: StepGo, ack: AckCallback) => void;
  /** teacher -> server: next (+1) or previous (-1) step */
  "step:move": (payload: StepMove, ack: AckCallback) => void;
  /** teacher -> server: switch binding mode / scenario variant, keeping the class's place */
  "mode:set": (payload: ModeSet, ack: AckCallback<{ matched: boolean }>) => void;
  /** teacher -> server: the Kubernetes release the class runs; every screen prints its strings */
  "version:set": (payload: VersionSet, ack: AckCallback) => void;
  /** teacher -> server: open a "what happens next?" or custom poll */
  "poll:open": (payload: PollOpen, ack: AckCallback<{ pollId: string }>) => void;
  /** teacher -> server: close the poll to votes */
  "poll:close": (payload: PollRef, ack: AckCallback) => void;
  /** teacher -> server: reveal the answer and the distribution */
  "poll:reveal": (payload: PollRef, ack: AckCallback) => void;
  /** teacher -> server: run the same question again after discussion */
  "poll:reopen": (payload: PollReopen, ack: AckCallback) => void;
  /** teacher -> server: let the class see live results before the reveal */
  "results:show": (payload: ResultsVisibility, ack: AckCallback) => void;
  /** teacher -> server: choose what the projector shows beside the diagram */
  "projector:show": (payload: ProjectorPanelChoice, ack: AckCallback) => void;
  /** teacher -> server: choose the object tab and the deep dive the projector's panels show */
  "projector:focus": (payload: ProjectorFocusChoice, ack: AckCallback) => void;
  /** teacher -> server: the language every projector of the room reads (null: each projector's own browser's) */
  "projector:language": (payload: ProjectorLanguageChoice, ack: AckCallback) => void;
  /** teacher -> server: pause the class (votes, questions and upvotes are refused until it resumes) or resume it */
  "class:pause": (payload: ClassPause, ack: AckCallback) => void;
  /** teacher -> server: lock or unlock the room to new joins */
  "room:lock": (payload: RoomLock, ack: AckCallback) => void;
  /** teacher -> server: remove a participant */
  "participant:remove": (payload: ParticipantRef, ack: AckCallback) => void;
  /** teacher -> server: let a removed participant back in (they rejoin with the token their browser kept) */
  "participant:readmit": (payload: ParticipantRef, ack: AckCallback) => void;
  /** teacher -> server: change the nickname shown for a participant */
  "participant:rename": (payload: ParticipantRename, ack: AckCallback) => void;
  /** teacher -> server: close every projector view (the teacher's own reconnects with the host key) */
  "projectors:close": (payload: EmptyPayload, ack: AckCallback) => void;
  /** teacher -> server: end the session; it becomes read-only and replayable */
  "session:end": (payload: EmptyPayload, ack: AckCallback) => void;
  /** student -> server: vote (or change the vote) in the open poll */
  "poll:vote": (payload: PollVote, ack: AckCallback<MyVote>) => void;
  /** student -> server: ask a question about one part of the diagram */
  "question:ask": (payload: QuestionAsk, ack: AckCallback<{ questionId: string; status: QuestionStatus }>) => void;
  /** student -> server: upvote another student's question, or take the upvote back */
  "question:upvote": (payload: QuestionUpvote, ack: AckCallback<MyUpvote & { votes: number }>) => void;
  /** student -> server: "I am looking back at an earlier step" (true) or "back to live" (false); presence, not logged */
  "lookback:set": (payload: LookBackSet, ack: AckCallback) => void;
  /** teacher -> server: turn questions on, off or moderated, and say whose names they carry */
  "questions:configure": (payload: QuestionsConfigure, ack: AckCallback) => void;
  /** teacher -> server: let the class see a question asked while moderated */
  "question:approve": (payload: QuestionRef, ack: AckCallback) => void;
  /** teacher -> server: mark a question answered (or not) */
  "question:answer": (payload: QuestionAnswer, ack: AckCallback) => void;
  /** teacher -> server: hide a question from the class (or show it again) */
  "question:hide": (payload: QuestionHide, ack: AckCallback) => void;
  /** teacher -> server: put a question on the projector beside its element (null: none) */
  "question:show": (payload: QuestionShow, ack: AckCallback) => void;
  /** anyone -> server: after a gap, resend what changed since the clocks I hold (`have`), or the whole of what I follow */
  "session:sync": (payload: ResyncRequest, ack: AckCallback) => void;
}

/** What a command's acknowledgement carries when it succeeds (its `data`). */
export type AckData<E extends keyof ClientToServerEvents> = Parameters<ClientToServerEvents[E]>[1] extends AckCallback<infer T> ? T : never;

export type InterServerEvents = Record<string, never>;

/** Filled by the handshake middleware; fixed for the socket's life. */
export interface SocketData {
  role: Role;
  sessionId: string;
  code: string;
  participantId: string | null;
  /** A student's tab is looking back at an earlier step (`lookback:set`); counted where the socket is. */
  lookingBack?: boolean;
}
