/**
 * Every refusal the server can give, with the sentence a person reads, and
 * the shape of every acknowledgement. The session's rules refuse with these
 * codes; the protocol sends them as they are.
 */

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
  RESYNC_LIMITED: "Too many screens on this network asked for the whole class at once. This one catches up in a moment.",
  PAYLOAD_TOO_LARGE: "That message is too large.",
  UNKNOWN_EVENT: "The server does not know that command.",
  ROOM_FULL: "This session has reached its participant limit.",
  VOTE_LIMIT: "You have changed your vote too often in this round; your last vote counts.",
  PROJECTOR_CLOSED: "The teacher closed this projector view. Reload to open it again.",
  LOG_FULL: "This session has reached its size limit. The teacher can end it and start a new one.",
  CLASS_PAUSED: "The teacher has paused the class. Wait for them to resume it.",
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
  /**
   * When to ask again, in ms (RESYNC_LIMITED): the server's budget for this network or this class has room
   * again by then. A client adds a random part of its own, so the screens behind one address do not all ask at once.
   */
  retryAfterMs?: number;
}

export function protocolError(code: ErrorCode, message: string = ERROR_CODES[code]): ProtocolError {
  return { code, message };
}

/** Every acknowledgement: `{ ok: true, data }` or `{ ok: false, error }`. */
export type Ack<T = null> = { ok: true; data: T } | { ok: false; error: ProtocolError };
export type AckCallback<T = null> = (response: Ack<T>) => void;
