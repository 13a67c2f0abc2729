import { z } from "zod";
import { BINDING_MODES, VARIANTS } from "../lesson/types";
import { LESSON_LIMITS } from "../lesson/model";
import { KUBE_VERSIONS } from "../lesson/versions";
import { NICKNAME_MAX, POLL_DURATIONS_S, POLL_OPTION_MAX, POLL_QUESTION_MAX, QUESTION_TEXT_MAX } from "../constants";
import { cleanText } from "../text";
import { PROJECTOR_OBJECTS, PROJECTOR_CHOICES, QUESTION_MODES, QUESTION_NAMES, ROOM_LANGUAGES, type Role } from "./types";

/**
 * Every command a client can send, in one table: its payload's schema, who
 * may send it, which allowance it spends, and whether running it twice is the
 * same as running it once. The socket edge parses and checks exactly this
 * table; `decide` (./decide.ts) says what a command means. Only the server
 * imports this file (it holds zod); browsers get the payload types through
 * lib/protocol/wire.ts.
 *
 * A new command is a row here, a case in `decide`, a case in `applyEvent`
 * for its event, and a line in docs/protocol.md: leaving out a column does
 * not compile.
 */

/** Text from a person: at most 4x the limit is read, then cleaned and cut (lib/text.ts). */
export const text = (max: number) =>
  z
    .string()
    .max(max * 4)
    .transform((s) => cleanText(s, max));

export const stepGoSchema = z.object({ stepIndex: z.number().int().min(0).max(99) });
export const stepMoveSchema = z.object({ delta: z.union([z.literal(1), z.literal(-1)]) });
export const modeSetSchema = z.object({ mode: z.enum(BINDING_MODES), variant: z.enum(VARIANTS).default("standard") });
export const versionSetSchema = z.object({ version: z.enum(KUBE_VERSIONS) });

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
export const projectorPanelSchema = z.object({ panel: z.enum(PROJECTOR_CHOICES) });
export const projectorFocusSchema = z.object({
  object: z.enum(PROJECTOR_OBJECTS),
  /** the title of a deep dive at the current step, or null for the step's first */
  deepDive: z.string().max(200).nullable().default(null),
});
/** The room's projector language, or null to let each projector follow its own browser. */
export const projectorLanguageSchema = z.object({
  language: z
    .enum(ROOM_LANGUAGES, { error: `not a language the projector has: choose one of ${ROOM_LANGUAGES.join(", ")}, or null` })
    .nullable(),
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
/**
 * Hide one question (or show it again), or clear a flood in one action: every
 * question waiting for approval hidden at once, and with `block` their askers
 * stopped from asking again (showing one of their questions again lets its asker ask).
 */
export const questionHideSchema = z.union([
  questionRefSchema.extend({ hidden: z.boolean() }),
  z.object({ allPending: z.literal(true), block: z.boolean().default(false) }),
]);
export const questionShowSchema = z.object({ questionId: z.string().min(1).max(64).nullable() });
export const questionsConfigureSchema = z.object({ mode: z.enum(QUESTION_MODES), names: z.enum(QUESTION_NAMES) });
export const classPauseSchema = z.object({ paused: z.boolean() });
export const lookBackSetSchema = z.object({ lookingBack: z.boolean() });

export type StepGo = z.infer<typeof stepGoSchema>;
export type StepMove = z.infer<typeof stepMoveSchema>;
export type ModeSet = z.input<typeof modeSetSchema>;
export type VersionSet = z.input<typeof versionSetSchema>;
export type PollOpen = z.input<typeof pollOpenSchema>;
export type PollRef = z.infer<typeof pollRefSchema>;
export type PollReopen = z.input<typeof pollReopenSchema>;
export type PollVote = z.infer<typeof pollVoteSchema>;
export type ResultsVisibility = z.input<typeof resultsVisibilitySchema>;
export type ProjectorPanelChoice = z.input<typeof projectorPanelSchema>;
export type ProjectorFocusChoice = z.input<typeof projectorFocusSchema>;
export type ProjectorLanguageChoice = z.input<typeof projectorLanguageSchema>;
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
export type ClassPause = z.input<typeof classPauseSchema>;
export type LookBackSet = z.input<typeof lookBackSetSchema>;
/** Commands that carry nothing: `{}` (or nothing at all). */
export type EmptyPayload = z.input<typeof emptySchema>;

/**
 * The allowance a command spends (RATE_LIMITS in lib/constants.ts):
 * - `votes`, `questions`, `upvotes`: the participant's own (tabs and reconnects share it);
 * - `commands`: the socket's, and for a teacher also the session's (`sessionCommands`: each step reaches the whole class);
 * - `resyncs`: the socket's `commands` and, on top, its `resyncs` (a resync answers with whole views).
 */
export type RateBucket = "votes" | "questions" | "upvotes" | "commands" | "resyncs";

export interface CommandSpec {
  schema: z.ZodType;
  /** Who may send it; anyone else is refused (NOT_HOST, NOT_STUDENT). */
  roles: readonly Role[];
  bucket: RateBucket;
  /**
   * A second run changes nothing after the first and answers the same: the
   * command names where to go (a step, an option, a setting), not a move from
   * where things are. In a cluster, a command that may have run on an owner
   * that went silent is run again on the node that took over only if this is
   * true; otherwise it is answered UNCONFIRMED (a second "next step" would move twice).
   */
  rerunnable: boolean;
}

const host = ["host"] as const;
const student = ["student"] as const;

export const COMMANDS = {
  "step:go": { schema: stepGoSchema, roles: host, bucket: "commands", rerunnable: true },
  "step:move": { schema: stepMoveSchema, roles: host, bucket: "commands", rerunnable: false },
  // The answer says whether the class's place matched; a second run would say "matched" of the first's result.
  "mode:set": { schema: modeSetSchema, roles: host, bucket: "commands", rerunnable: false },
  "version:set": { schema: versionSetSchema, roles: host, bucket: "commands", rerunnable: true },
  "poll:open": { schema: pollOpenSchema, roles: host, bucket: "commands", rerunnable: false },
  // A second close is refused (POLL_CLOSED): the teacher would read a failure for what succeeded.
  "poll:close": { schema: pollRefSchema, roles: host, bucket: "commands", rerunnable: false },
  "poll:reveal": { schema: pollRefSchema, roles: host, bucket: "commands", rerunnable: true },
  "poll:reopen": { schema: pollReopenSchema, roles: host, bucket: "commands", rerunnable: false },
  "results:show": { schema: resultsVisibilitySchema, roles: host, bucket: "commands", rerunnable: true },
  "projector:show": { schema: projectorPanelSchema, roles: host, bucket: "commands", rerunnable: true },
  "projector:focus": { schema: projectorFocusSchema, roles: host, bucket: "commands", rerunnable: true },
  "projector:language": { schema: projectorLanguageSchema, roles: host, bucket: "commands", rerunnable: true },
  "room:lock": { schema: roomLockSchema, roles: host, bucket: "commands", rerunnable: true },
  "class:pause": { schema: classPauseSchema, roles: host, bucket: "commands", rerunnable: true },
  "participant:remove": { schema: participantRefSchema, roles: host, bucket: "commands", rerunnable: false },
  "participant:rename": { schema: participantRenameSchema, roles: host, bucket: "commands", rerunnable: true },
  "participant:readmit": { schema: participantRefSchema, roles: host, bucket: "commands", rerunnable: false },
  // Presence: closes the projector views open now, which a second run would close again.
  "projectors:close": { schema: emptySchema, roles: host, bucket: "commands", rerunnable: false },
  "session:end": { schema: emptySchema, roles: host, bucket: "commands", rerunnable: true },
  "questions:configure": { schema: questionsConfigureSchema, roles: host, bucket: "commands", rerunnable: true },
  "question:approve": { schema: questionRefSchema, roles: host, bucket: "commands", rerunnable: true },
  "question:answer": { schema: questionAnswerSchema, roles: host, bucket: "commands", rerunnable: true },
  "question:hide": { schema: questionHideSchema, roles: host, bucket: "commands", rerunnable: true },
  "question:show": { schema: questionShowSchema, roles: host, bucket: "commands", rerunnable: true },
  "poll:vote": { schema: pollVoteSchema, roles: student, bucket: "votes", rerunnable: true },
  "question:ask": { schema: questionAskSchema, roles: student, bucket: "questions", rerunnable: false },
  "question:upvote": { schema: questionUpvoteSchema, roles: student, bucket: "upvotes", rerunnable: true },
  // Presence, not logged: this tab looks back or not.
  "lookback:set": { schema: lookBackSetSchema, roles: student, bucket: "commands", rerunnable: true },
  // Not a command to the session: the edge answers it with this audience's whole views.
  "session:sync": { schema: emptySchema, roles: ["host", "projector", "student"], bucket: "resyncs", rerunnable: true },
} as const satisfies Record<string, CommandSpec>;

export type CommandName = Exclude<keyof typeof COMMANDS, "session:sync">;

/** A command a client may send to its session (everything in the table but the resync). */
export function isCommandName(name: string): name is CommandName {
  return name !== "session:sync" && Object.hasOwn(COMMANDS, name);
}

/** A parsed command: the event and its payload as its schema outputs it (what the rooms receive). */
export type Command = {
  [E in CommandName]: { event: E; payload: z.output<(typeof COMMANDS)[E]["schema"]> };
}[CommandName];

/** Whether a command that may have run on a silent owner can run again on the node that took over. */
export function isRerunnable(name: CommandName): boolean {
  return COMMANDS[name].rerunnable;
}
