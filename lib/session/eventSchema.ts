import { z } from "zod";
import { KUBE_VERSIONS } from "../lesson/versions";
import { BINDING_MODES, VARIANTS } from "../lesson/types";
import { customLessonSchema } from "../lesson/customSchema";
import { MAX_PARTICIPANTS_PER_SESSION } from "../constants";
import { questionTargetSchema } from "./commands";
import { PROJECTOR_OBJECTS, PROJECTOR_CHOICES, QUESTION_MODES, QUESTION_NAMES, ROOM_LANGUAGES, type SessionEvent } from "./types";

/**
 * The shape of every durable event, checked where events are read (a store
 * loading a log, the export worker, a restored backup), so that the reducer
 * can trust what it folds: it keeps only the session's rules (a step in
 * range, a vote on the open poll), not type checks of its own. Unknown keys
 * are dropped. Server-only: it holds zod.
 */

const id = z.string().min(1).max(200);
const counts = z.record(z.string(), z.number().int().min(0));
const option = z.object({ id, text: z.string(), note: z.string().optional() });

const stamp = { seq: z.number().int().min(1), at: z.number(), v: z.number().int().optional() };
/** An event as stored: its body, the sequence number and time the server stamped, and the log format it was written in. */
const event = <T extends z.ZodRawShape>(body: T) => z.object({ ...body, ...stamp });

export const sessionEventSchema = z.discriminatedUnion("type", [
  event({
    type: z.literal("session:created"),
    id,
    code: z.string(),
    title: z.string(),
    lesson: z.object({ id, version: z.number().int(), lesson: customLessonSchema }).optional(),
    kubeVersion: z.enum(KUBE_VERSIONS).optional(),
  }),
  event({ type: z.literal("version:changed"), version: z.enum(KUBE_VERSIONS) }),
  event({ type: z.literal("step:changed"), stepIndex: z.number().int() }),
  event({
    type: z.literal("mode:changed"),
    mode: z.enum(BINDING_MODES),
    variant: z.enum(VARIANTS),
    stepIndex: z.number().int(),
    matched: z.boolean(),
  }),
  event({ type: z.literal("participant:joined"), participantId: id, nickname: z.string() }),
  event({ type: z.literal("participant:renamed"), participantId: id, nickname: z.string() }),
  event({ type: z.literal("participant:removed"), participantId: id }),
  event({ type: z.literal("participant:readmitted"), participantId: id }),
  event({ type: z.literal("room:locked"), locked: z.boolean() }),
  event({ type: z.literal("class:paused"), paused: z.boolean() }),
  event({
    type: z.literal("poll:opened"),
    poll: z.object({
      id,
      kind: z.enum(["next-step", "custom"]),
      question: z.string(),
      options: z.array(option).min(1).max(6),
      correctOptionId: z.string().nullable(),
    }),
    closesAt: z.number().nullable(),
  }),
  // A vote from a shared log has no voter: anonymizeLog leaves votes out altogether.
  event({ type: z.literal("poll:voted"), pollId: id, participantId: id, optionId: z.string() }),
  event({ type: z.literal("poll:closed"), pollId: id, counts, total: z.number().int().min(0), withheld: z.literal(true).optional() }),
  event({ type: z.literal("poll:revealed"), pollId: id }),
  event({ type: z.literal("poll:reopened"), pollId: id, closesAt: z.number().nullable() }),
  event({ type: z.literal("results:visibility"), visible: z.boolean() }),
  event({ type: z.literal("projector:panelChanged"), panel: z.enum(PROJECTOR_CHOICES) }),
  event({
    type: z.literal("projector:focusChanged"),
    focus: z.object({ object: z.enum(PROJECTOR_OBJECTS), deepDive: z.string().nullable() }),
  }),
  event({ type: z.literal("projector:languageChanged"), language: z.enum(ROOM_LANGUAGES).nullable() }),
  event({ type: z.literal("session:ended") }),
  event({ type: z.literal("questions:configured"), mode: z.enum(QUESTION_MODES), names: z.enum(QUESTION_NAMES) }),
  event({
    type: z.literal("question:asked"),
    // "" in a shared log: an anonymous asker is not recorded there.
    question: z.object({ id, participantId: z.string().max(200), text: z.string(), anonymous: z.boolean(), target: questionTargetSchema }),
    pending: z.boolean(),
  }),
  event({ type: z.literal("question:upvoted"), questionId: id, participantId: id, upvoted: z.boolean() }),
  event({ type: z.literal("question:approved"), questionId: id }),
  event({ type: z.literal("question:answered"), questionId: id, answered: z.boolean() }),
  event({ type: z.literal("question:hidden"), questionId: id, hidden: z.boolean() }),
  event({ type: z.literal("questions:blocked"), participantIds: z.array(id).max(MAX_PARTICIPANTS_PER_SESSION), blocked: z.boolean() }),
  event({ type: z.literal("question:shown"), questionId: id.nullable() }),
]);

/**
 * Compile-time proof that the schema reads exactly the events the session
 * writes: one schema per event type, and what it outputs is a SessionEvent.
 */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Parsed = z.output<typeof sessionEventSchema>;
export const EVENT_SCHEMA_AGREES: [Same<Parsed["type"], SessionEvent["type"]>, [Parsed] extends [SessionEvent] ? true : false] = [
  true,
  true,
];

/** One stored row as an event, or an error naming what is wrong with it. */
export function parseStoredEvent(json: string): SessionEvent & { v?: number } {
  const parsed = sessionEventSchema.safeParse(JSON.parse(json));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`a stored row is not an event: ${issue ? `${issue.path.join(".") || "(row)"}: ${issue.message}` : "malformed"}`);
  }
  return parsed.data;
}
