import { z } from "zod";
import { BINDING_MODES, VARIANTS } from "../lesson/types";
import { LESSON_LIMITS } from "../lesson/model";
import { PROJECTOR_OBJECTS, PROJECTOR_PANELS, QUESTION_MODES, QUESTION_NAMES } from "../session/types";
import {
  NICKNAME_MAX,
  POLL_DURATIONS_S,
  POLL_OPTION_MAX,
  POLL_QUESTION_MAX,
  QUESTION_TEXT_MAX,
  ROLES,
  cleanText,
  type ClientToServerEvents,
  type Role,
} from "./wire";

/**
 * The zod schema of every client payload. Only the server parses with them;
 * browsers import ./wire, which has no zod, so the page stays light.
 */

const text = (max: number) =>
  z
    .string()
    .max(max * 4)
    .transform((s) => cleanText(s, max));

export const handshakeSchema = z.object({
  v: z.number().int(),
  role: z.enum(ROLES),
  code: z.string().max(16),
  /** host only */
  hostKey: z.string().max(128).optional(),
  /** student only: the token the server issued on the first join, kept in the browser */
  token: z.string().max(128).optional(),
  /** student only */
  nickname: text(NICKNAME_MAX).optional(),
});
export type Handshake = z.infer<typeof handshakeSchema>;

// ---------------------------------------------------------------------------
// Client -> server payloads

export const stepGoSchema = z.object({ stepIndex: z.number().int().min(0).max(99) });
export const stepMoveSchema = z.object({ delta: z.union([z.literal(1), z.literal(-1)]) });
export const modeSetSchema = z.object({ mode: z.enum(BINDING_MODES), variant: z.enum(VARIANTS).default("standard") });

const duration = z
  .number()
  .int()
  .refine((n) => (POLL_DURATIONS_S as readonly number[]).includes(n), "unsupported duration")
  .default(0);

export const pollOpenSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("next-step"), durationS: duration }),
  z.object({
    kind: z.literal("custom"),
    question: text(POLL_QUESTION_MAX).pipe(z.string().min(1, "the question is empty")),
    options: z
      .array(text(POLL_OPTION_MAX).pipe(z.string().min(1, "an option is empty")))
      .min(2)
      .max(6),
    /** index into options of the right answer, if there is one */
    correctIndex: z.number().int().min(0).max(5).nullable().default(null),
    durationS: duration,
  }),
]);
export const pollRefSchema = z.object({ pollId: z.string().min(1).max(64) });
export const pollReopenSchema = pollRefSchema.extend({ durationS: duration });
export const pollVoteSchema = z.object({ pollId: z.string().min(1).max(64), optionId: z.string().min(1).max(64) });
export const resultsVisibilitySchema = z.object({ visible: z.boolean() });
export const projectorPanelSchema = z.object({ panel: z.enum(PROJECTOR_PANELS) });
export const projectorFocusSchema = z.object({
  object: z.enum(PROJECTOR_OBJECTS),
  /** the title of a deep dive at the current step, or null for the step's first */
  deepDive: z.string().max(200).nullable().default(null),
});
export const roomLockSchema = z.object({ locked: z.boolean() });
export const participantRefSchema = z.object({ participantId: z.string().min(1).max(64) });
export const participantRenameSchema = participantRefSchema.extend({
  nickname: text(NICKNAME_MAX).pipe(z.string().min(1)),
});
export const emptySchema = z.object({}).optional();

const stepIndex = z.number().int().min(0).max(99);
/** What a question is pinned to; whether that part is on screen yet is the room's rule (NO_SUCH_ELEMENT). */
export const questionTargetSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.enum(["step", "arrow", "note"]), stepIndex }),
  // A lifeline of the lesson: the card's five, or a teacher's lesson's participant ids (checked against the lesson by decide).
  z.object({ kind: z.literal("lifeline"), stepIndex, lifeline: z.string().min(1).max(LESSON_LIMITS.lifelineId) }),
]);
export const questionAskSchema = z.object({
  text: text(QUESTION_TEXT_MAX).pipe(z.string().min(1, "the question is empty")),
  target: questionTargetSchema,
  /** Ask without the nickname (where the teacher allows the choice). */
  anonymous: z.boolean().default(false),
});
export const questionRefSchema = z.object({ questionId: z.string().min(1).max(64) });
export const questionUpvoteSchema = questionRefSchema.extend({ upvoted: z.boolean() });
export const questionAnswerSchema = questionRefSchema.extend({ answered: z.boolean() });
export const questionHideSchema = questionRefSchema.extend({ hidden: z.boolean() });
export const questionShowSchema = z.object({ questionId: z.string().min(1).max(64).nullable() });
export const questionsConfigureSchema = z.object({ mode: z.enum(QUESTION_MODES), names: z.enum(QUESTION_NAMES) });
export const lookBackSetSchema = z.object({ lookingBack: z.boolean() });

export type StepGo = z.infer<typeof stepGoSchema>;
export type StepMove = z.infer<typeof stepMoveSchema>;
export type ModeSet = z.input<typeof modeSetSchema>;
export type PollOpen = z.input<typeof pollOpenSchema>;
export type PollRef = z.infer<typeof pollRefSchema>;
export type PollReopen = z.input<typeof pollReopenSchema>;
export type PollVote = z.infer<typeof pollVoteSchema>;
export type ResultsVisibility = z.input<typeof resultsVisibilitySchema>;
export type ProjectorPanelChoice = z.input<typeof projectorPanelSchema>;
export type ProjectorFocusChoice = z.input<typeof projectorFocusSchema>;
export type RoomLock = z.input<typeof roomLockSchema>;
export type ParticipantRef = z.input<typeof participantRefSchema>;
export type ParticipantRename = z.input<typeof participantRenameSchema>;
export type QuestionAsk = z.input<typeof questionAskSchema>;
export type QuestionRef = z.input<typeof questionRefSchema>;
export type QuestionUpvote = z.input<typeof questionUpvoteSchema>;
export type QuestionAnswer = z.input<typeof questionAnswerSchema>;
export type QuestionHide = z.input<typeof questionHideSchema>;
export type QuestionShow = z.input<typeof questionShowSchema>;
export type QuestionsConfigure = z.input<typeof questionsConfigureSchema>;
export type LookBackSet = z.input<typeof lookBackSetSchema>;
/** Commands that carry nothing: `{}` (or nothing at all). */
export type EmptyPayload = z.input<typeof emptySchema>;

/**
 * Every client command: its payload schema and who may send it. The socket
 * edge enforces exactly this table; anything not in it is UNKNOWN_EVENT.
 */
export const COMMAND_RULES = {
  "step:go": { schema: stepGoSchema, roles: ["host"] },
  "step:move": { schema: stepMoveSchema, roles: ["host"] },
  "mode:set": { schema: modeSetSchema, roles: ["host"] },
  "poll:open": { schema: pollOpenSchema, roles: ["host"] },
  "poll:close": { schema: pollRefSchema, roles: ["host"] },
  "poll:reveal": { schema: pollRefSchema, roles: ["host"] },
  "poll:reopen": { schema: pollReopenSchema, roles: ["host"] },
  "results:show": { schema: resultsVisibilitySchema, roles: ["host"] },
  "projector:show": { schema: projectorPanelSchema, roles: ["host"] },
  "projector:focus": { schema: projectorFocusSchema, roles: ["host"] },
  "room:lock": { schema: roomLockSchema, roles: ["host"] },
  "participant:remove": { schema: participantRefSchema, roles: ["host"] },
  "participant:rename": { schema: participantRenameSchema, roles: ["host"] },
  "participant:readmit": { schema: participantRefSchema, roles: ["host"] },
  "projectors:close": { schema: emptySchema, roles: ["host"] },
  "session:end": { schema: emptySchema, roles: ["host"] },
  "questions:configure": { schema: questionsConfigureSchema, roles: ["host"] },
  "question:approve": { schema: questionRefSchema, roles: ["host"] },
  "question:answer": { schema: questionAnswerSchema, roles: ["host"] },
  "question:hide": { schema: questionHideSchema, roles: ["host"] },
  "question:show": { schema: questionShowSchema, roles: ["host"] },
  "poll:vote": { schema: pollVoteSchema, roles: ["student"] },
  "question:ask": { schema: questionAskSchema, roles: ["student"] },
  "question:upvote": { schema: questionUpvoteSchema, roles: ["student"] },
  "lookback:set": { schema: lookBackSetSchema, roles: ["student"] },
  "session:sync": { schema: emptySchema, roles: ["host", "projector", "student"] },
} satisfies { readonly [E in keyof ClientToServerEvents]: { schema: z.ZodType; roles: readonly Role[] } };

/** A command a client may send (everything in the table but the resync). */
export function isCommandName(name: string): name is Command["event"] {
  return name !== "session:sync" && Object.hasOwn(COMMAND_RULES, name);
}

/** A parsed command: the event and its payload as its schema outputs it (what the rooms receive). */
export type Command = {
  [E in Exclude<keyof typeof COMMAND_RULES, "session:sync">]: { event: E; payload: z.output<(typeof COMMAND_RULES)[E]["schema"]> };
}[Exclude<keyof typeof COMMAND_RULES, "session:sync">];

/**
 * Compile-time proof that the event map (./wire, which browsers import
 * without zod) and the schemas agree: each command's payload type is exactly
 * what its schema accepts. A drift fails the typecheck, naming the command.
 */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type PayloadsAgree = {
  [E in keyof typeof COMMAND_RULES]: Same<Parameters<ClientToServerEvents[E]>[0], z.input<(typeof COMMAND_RULES)[E]["schema"]>>;
};
// A type-level check only: the value is never read.
// eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion
export const PAYLOADS_AGREE = {} as PayloadsAgree satisfies Record<keyof typeof COMMAND_RULES, true>;
