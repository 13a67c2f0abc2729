import { z } from "zod";
import { cleanText } from "../text";
import { ARROW_HEADS, LESSON_LIMITS as L, LINE_STYLES, type CustomLesson } from "./model";

/**
 * The server's check of a teacher's lesson. The browser parses Mermaid; the
 * server never runs Mermaid and trusts nothing of what it sends: every text is
 * cleaned (invisible and direction-changing characters dropped) and capped,
 * counts are capped, and every message must join two declared lifelines.
 */

const text = (max: number) =>
  z
    .string()
    .max(max * 4, `is longer than ${max} characters`)
    .transform((t) => cleanText(t, max));
const required = (max: number, what: string) => text(max).refine((t) => t.length > 0, `${what} must not be empty`);
const optional = (max: number) =>
  text(max)
    .optional()
    .transform((t) => (t ? t : undefined));

/**
 * A participant id, and a message's ends that name one: cleaned alike, and never cut (two long ids cut to the
 * same 40 characters would merge, and a message naming the uncut one would name nobody).
 */
const participantRef = z
  .string()
  .max(L.lifelineId * 4, `is longer than ${L.lifelineId} characters`)
  .transform((t) => cleanText(t, L.lifelineId * 4));
const lifelineSchema = z
  .object({
    id: participantRef
      .refine((t) => t.length > 0, "A participant id must not be empty")
      .refine((t) => [...t].length <= L.lifelineId, `A participant id is at most ${L.lifelineId} characters`),
    name: required(L.lifelineName, "A participant name"),
  })
  .strip();

const stepSchema = z
  .object({
    from: participantRef,
    to: participantRef,
    line: z.enum(LINE_STYLES),
    head: z.enum(ARROW_HEADS),
    title: required(L.message, "A message"),
    shortTitle: optional(L.shortTitle),
    note: optional(L.note),
    narration: optional(L.narration),
    speakerNotes: optional(L.speakerNotes),
    why: optional(L.why),
    wrongNote: optional(L.wrongNote),
  })
  .strip();

export const customLessonSchema = z
  .object({
    title: required(L.title, "The title"),
    summary: optional(L.summary),
    lifelines: z
      .array(lifelineSchema)
      .min(1, "A lesson needs at least one participant")
      .max(L.lifelines, `A lesson has at most ${L.lifelines} participants`),
    steps: z.array(stepSchema).min(2, "A lesson needs at least two messages").max(L.steps, `A lesson has at most ${L.steps} messages`),
  })
  .strip()
  .superRefine((lesson, ctx) => {
    const ids = new Set<string>();
    lesson.lifelines.forEach((l, i) => {
      if (ids.has(l.id)) ctx.addIssue({ code: "custom", path: ["lifelines", i, "id"], message: `Participant ${l.id} is declared twice` });
      ids.add(l.id);
    });
    lesson.steps.forEach((s, i) => {
      for (const end of ["from", "to"] as const) {
        if (!ids.has(s[end]))
          ctx.addIssue({
            code: "custom",
            path: ["steps", i, end],
            message: `Message ${i + 1} names ${s[end] ? `"${s[end]}", which is not a declared participant` : "no participant"}`,
          });
      }
    });
  });

/** `POST /api/lessons` and `PUT /api/lessons/{id}`: the parsed lesson and the Mermaid text it came from. */
export const lessonBodySchema = z
  .object({
    lesson: customLessonSchema,
    source: z.string().min(1).max(L.source),
  })
  .strip();

export type LessonBody = z.output<typeof lessonBodySchema>;

/** The first problem, said for a teacher: "steps.3.from: Message 4 names an unknown participant". */
export function lessonIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "The lesson is malformed.";
  const where = issue.path.length ? `${issue.path.join(".")}: ` : "";
  return `${where}${issue.message}`;
}

/** Compile-time check that the schema's output is the model's type. */
export type _SchemaMatchesModel = z.output<typeof customLessonSchema> extends CustomLesson ? true : never;
