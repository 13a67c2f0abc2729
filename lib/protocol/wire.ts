import type { SessionLesson } from "../lesson/model";
import type { HostSnapshot, PublicSnapshot } from "../session/views";
import type { QuestionChanges, QuestionList } from "../session/questions";
import type { QuestionStatus } from "../session/types";
import type { RosterChanges, RosterFull } from "../session/roster";
import type {
  LookBackSet,
  QuestionAnswer,
  QuestionAsk,
  QuestionHide,
  QuestionRef,
  QuestionShow,
  QuestionUpvote,
  QuestionsConfigure,
  EmptyPayload,
  Handshake,
  ModeSet,
  ParticipantRef,
  ParticipantRename,
  PollOpen,
  PollRef,
  PollReopen,
  PollVote,
  ProjectorFocusChoice,
  ProjectorPanelChoice,
  ResultsVisibility,
  RoomLock,
  StepGo,
  StepMove,
} from "./schemas";

// Payload types are the schemas' own (`z.input`), imported as types only: browsers get them without zod.
export type {
  LookBackSet,
  QuestionAnswer,
  QuestionAsk,
  QuestionHide,
  QuestionRef,
  QuestionShow,
  QuestionUpvote,
  QuestionsConfigure,
  EmptyPayload,
  Handshake,
  ModeSet,
  ParticipantRef,
  ParticipantRename,
  PollOpen,
  PollRef,
  PollReopen,
  PollVote,
  ProjectorFocusChoice,
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

/** Poll timer choices, in seconds (0: no timer). */
export const POLL_DURATIONS_S = [0, 15, 30, 45, 60, 90, 120] as const;

/** Bumped on any incompatible change; a client that states another version is refused with CLIENT_TOO_OLD. */
export const PROTOCOL_VERSION = 1;

export const ROOM_CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";
export const ROOM_CODE_LENGTH = 6;

/** A URL segment as text; a malformed %-escape is kept as typed (it then fails validation) instead of throwing. */
export function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Room codes are case-insensitive on input; look-alikes are not in the alphabet. */
export function normalizeRoomCode(input: string): string {
  return input.trim().toUpperCase().replace(/[\s-]/g, "");
}

export function isRoomCode(code: string): boolean {
  return code.length === ROOM_CODE_LENGTH && [...code].every((c) => ROOM_CODE_ALPHABET.includes(c));
}

export const NICKNAME_MAX = 32;
export const TITLE_MAX = 120;
export const POLL_QUESTION_MAX = 200;
export const POLL_OPTION_MAX = 120;
export const QUESTION_TEXT_MAX = 280;

/**
 * Characters that draw nothing or rewrite what follows: controls (Cc), format
 * characters (Cf: soft hyphen, bidi marks and overrides, zero-width joiners,
 * word joiner and invisible operators, U+061C, U+180E, tag characters),
 * lone surrogates (Cs), and blank letters that fonts draw as nothing (Hangul
 * fillers U+115F, U+1160, U+3164, U+FFA0; braille blank U+2800).
 */
// Each of these is a character of its own here (combining marks included), listed to be removed.
// eslint-disable-next-line no-misleading-character-class
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Cs}\u115f\u1160\u3164\uffa0\u2800\u034f\u17b4\u17b5\u180b-\u180f\ufe00-\ufe0f\u{e0100}-\u{e01ef}]/gu;

const EMOJI_BEFORE = /\p{Extended_Pictographic}\ufe0f?$/u;
const EMOJI_AFTER = /^\p{Extended_Pictographic}/u;

/** Graphemes of a string (an emoji with its modifiers is one), where the platform can tell them apart. */
const graphemes: ((text: string) => string[]) | null =
  typeof Intl !== "undefined" && "Segmenter" in Intl
    ? (() => {
        const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });
        return (text: string) => Array.from(segmenter.segment(text), (s) => s.segment);
      })()
    : null;

/** At most `max` UTF-16 units, cut between graphemes (never half an emoji or a lone surrogate). */
function cutAt(text: string, max: number): string {
  if (text.length <= max) return text;
  if (!graphemes) return text.slice(0, max).replace(/[\ud800-\udbff]$/, "");
  let out = "";
  for (const g of graphemes(text)) {
    if (out.length + g.length > max) break;
    out += g;
  }
  return out;
}

/** Trim, drop invisible and direction-changing characters, cap the length on a grapheme boundary. Never rendered as HTML. */
export function cleanText(input: string, max: number): string {
  const visible = input
    .normalize("NFC")
    // A zero-width joiner between two emoji builds one emoji (👩‍💻), and U+FE0F after an emoji picks its
    // colour form (❤️): kept there, dropped everywhere else (after a letter they only hide a difference).
    .replace(INVISIBLE, (c, at: number, all: string) => {
      const afterEmoji = EMOJI_BEFORE.test(all.slice(Math.max(0, at - 3), at));
      if (c === "\u200d" && afterEmoji && EMOJI_AFTER.test(all.slice(at + 1, at + 3))) return c;
      if (c === "\ufe0f" && afterEmoji) return c;
      return "";
    })
    .replace(/\s+/g, " ")
    .trim();
  return cutAt(visible, max).trim();
}

/**
 * The form under which two nicknames look the same on screen: compatibility
 * forms folded (NFKC: full-width letters, ligatures), case and spacing
 * ignored, and the Latin look-alikes of Cyrillic and Greek letters mapped.
 * The teacher's list marks participants whose names share this form.
 */
export function lookalikeKey(nickname: string): string {
  return nickname
    .normalize("NFKC")
    .toLowerCase()
    .replace(/\s+/g, "")
    .replace(/[аеорсухіјѕԁɡοαβνκτμ]/g, (c) => LOOKALIKES[c] ?? c);
}

const LOOKALIKES: Record<string, string> = {
  а: "a",
  е: "e",
  о: "o",
  р: "p",
  с: "c",
  у: "y",
  х: "x",
  і: "i",
  ј: "j",
  ѕ: "s",
  ԁ: "d",
  ɡ: "g",
  ο: "o",
  α: "a",
  β: "b",
  ν: "v",
  κ: "k",
  τ: "t",
  μ: "u",
};

// ---------------------------------------------------------------------------
// Error codes

export const ERROR_CODES = {
  BAD_REQUEST: "The request was malformed.",
  CLIENT_TOO_OLD: "This page is out of date. Reload it to continue.",
  NO_SUCH_SESSION: "There is no session with that code.",
  SESSION_ENDED: "This session has ended.",
  NOT_HOST: "Only the teacher can do that.",
  NOT_STUDENT: "Only students can vote.",
  ROOM_LOCKED: "The teacher has locked this room.",
  REMOVED: "The teacher removed you from this session.",
  NO_SUCH_POLL: "There is no such poll.",
  NO_SUCH_OPTION: "That is not one of the poll's options.",
  POLL_CLOSED: "This poll is closed.",
  POLL_NOT_CLOSED: "Close the poll first.",
  POLL_ALREADY_OPEN: "A poll is already open.",
  NO_NEXT_STEP: "There is no next step to ask about.",
  STEP_OUT_OF_RANGE: "There is no such step.",
  BAD_MODE: "That mode or variant does not exist.",
  NO_SUCH_PARTICIPANT: "There is no such participant.",
  RATE_LIMITED: "Too many requests. Wait a moment and try again.",
  PAYLOAD_TOO_LARGE: "That message is too large.",
  UNKNOWN_EVENT: "The server does not know that command.",
  ROOM_FULL: "This session has reached its participant limit.",
  VOTE_LIMIT: "You have changed your vote too often in this round; your last vote counts.",
  PROJECTOR_CLOSED: "The teacher closed this projector view. Reload to open it again.",
  LOG_FULL: "This session has reached its size limit. The teacher can end it and start a new one.",
  QUESTIONS_OFF: "The teacher has turned questions off.",
  NO_SUCH_QUESTION: "There is no such question.",
  QUESTION_PENDING: "That question waits for the teacher's approval. Approve it first.",
  QUESTION_LIMIT: "You have asked as many questions as this session allows.",
  NAMES_REQUIRED: "The teacher asks for your name on questions: untick “anonymous” to ask.",
  NO_SUCH_ELEMENT: "That part of the diagram is not on screen yet.",
  UNAVAILABLE: "The class's server is busy or restarting. That was not applied; try again in a moment.",
  UNCONFIRMED: "The server could not confirm that in time. Your screen shows whether it was applied.",
  INTERNAL: "Something went wrong on the server. Try again.",
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && Object.hasOwn(ERROR_CODES, value);
}

export interface ProtocolError {
  code: ErrorCode;
  message: string;
}

export function protocolError(code: ErrorCode, message: string = ERROR_CODES[code]): ProtocolError {
  return { code, message };
}

/** Every acknowledgement: `{ ok: true, data }` or `{ ok: false, error }`. */
export type Ack<T = null> = { ok: true; data: T } | { ok: false; error: ProtocolError };
export type AckCallback<T = null> = (response: Ack<T>) => void;

// ---------------------------------------------------------------------------
// Handshake (socket.io `auth`)

export const ROLES = ["host", "projector", "student"] as const;
export type Role = (typeof ROLES)[number];

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

/** A student's own view of the active poll. */
export interface MyVote {
  pollId: string;
  round: number;
  optionId: string | null;
  /**
   * The log position this is true at (the vote's event, or the session's `rev` on join and resync). Two tabs
   * voting at once get each other's echo and their own receipt in either order: keep the highest.
   */
  rev: number;
}

/** Whether `next` replaces `held` as a student's vote: another poll or round, or a later position in the log. */
export function newerVote(held: MyVote | null, next: MyVote | null): boolean {
  if (!held || !next || held.pollId !== next.pollId || held.round !== next.round) return true;
  return next.rev >= held.rev;
}

export interface TallyUpdate {
  pollId: string;
  round: number;
  counts: Record<string, number>;
  total: number;
  /** the state's seq when the tally was taken */
  rev: number;
}

export type AnySnapshot = PublicSnapshot | HostSnapshot;

/** A student's own upvote on one question (their other tabs are told too). */
export interface MyUpvote {
  questionId: string;
  upvoted: boolean;
}

export interface ServerToClientEvents {
  /** server -> each socket on join: identity and server time */
  "session:welcome": (welcome: Welcome) => void;
  /** server -> room audience (public) or the teacher's sockets (host): the whole current state */
  "session:snapshot": (snapshot: AnySnapshot) => void;
  /** server -> a student's own sockets: their vote in the active poll */
  "poll:myVote": (vote: MyVote | null) => void;
  /** server -> teachers always, the class when results are visible: coalesced counts */
  "poll:tally": (tally: TallyUpdate) => void;
  /** server -> a socket it is about to disconnect, with the reason */
  "session:kicked": (error: ProtocolError) => void;
  /** server -> projectors and teachers (coalesced): students connected now; teachers also get the projector views open */
  "session:presence": (presence: { participantCount: number; projectorCount?: number }) => void;
  /** server -> a teacher's socket on join and resync: every student, with the roster's revision */
  "roster:full": (roster: RosterFull) => void;
  /** server -> teachers (coalesced): the students whose rows changed since revision `from` */
  "roster:changes": (changes: RosterChanges) => void;
  /** server -> one participant's sockets: the teacher changed their nickname */
  "participant:renamed": (payload: { nickname: string }) => void;
  /** server -> everyone before a graceful shutdown: reconnect shortly */
  "server:restarting": () => void;
  /** server -> a socket on join and on resync: the questions its audience may see (a student's own pending ones included) */
  "questions:list": (list: QuestionList) => void;
  /** server -> teachers, the class, or one asker's sockets (coalesced): questions that changed or left that audience's view */
  "questions:changed": (changes: QuestionChanges) => void;
  /** server -> one participant's sockets: their upvote on a question changed */
  "question:myUpvote": (upvote: MyUpvote) => void;
  /** server -> the teacher's sockets (coalesced, and on join): students looking back at an earlier step now */
  "lookback:count": (payload: { count: number }) => void;
}

export interface ClientToServerEvents {
  /** teacher -> server: go to a step (0-based position in the current scenario) */
  "step:go": (payload: StepGo, ack: AckCallback) => void;
  /** teacher -> server: next (+1) or previous (-1) step */
  "step:move": (payload: StepMove, ack: AckCallback) => void;
  /** teacher -> server: switch binding mode / scenario variant, keeping the class's place */
  "mode:set": (payload: ModeSet, ack: AckCallback<{ matched: boolean }>) => void;
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
  /** anyone -> server: resend my snapshot (after a suspected gap) */
  "session:sync": (payload: EmptyPayload, ack: AckCallback) => void;
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
