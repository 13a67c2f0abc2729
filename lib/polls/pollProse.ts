import { WFFC_STEPS } from "../lesson/card";
import { VARIANTS_BY_MODE, getScenario } from "../lesson/scenarios";
import { BINDING_MODES } from "../lesson/types";
import { KUBE_VERSIONS } from "../lesson/versions";
import { plainMessage, type Localized, type ProseCatalog } from "../lesson/localize";
import { FALLBACK_NAMESPACE, POLL_NAMESPACE } from "../lesson/proseKey";
import { generateNextStepPoll } from "./nextStep";

/**
 * A "what happens next?" poll's words reach the phones in English (the server
 * makes them, the wire stays as it is). Each is one of a few sentence shapes
 * around a card caption and a sentence of the lesson's prose; this reads the
 * shape back out of the English, so a phone can say it in its own language:
 * the shape from the `lessonPoll` catalog, the sentence from `lessonProse`.
 * Text that is no known shape (a teacher's own lesson) is left as it is.
 *
 * Client-safe: parsing needs only the card's captions.
 */

export type PollTemplate = "right" | "already" | "later" | "never" | "question" | "option";

export interface PollTextParts {
  template: PollTemplate;
  /** The card caption the sentence names (never translated). */
  title?: string;
  /** Where the named step is in this track, and on the card when that differs. */
  position?: number;
  card?: number;
  /** The lesson sentence inside the shape, itself translated by its prose key. */
  body?: string;
}

const TITLES = new Set(WFFC_STEPS.map((s) => s.title));
const isTitle = (t: string) => TITLES.has(t);

function where(text: string): Pick<PollTextParts, "position" | "card"> | null {
  const m = /^step (\d+)(?: here \(card step (\d+)\))?$/.exec(text);
  if (!m) return null;
  return m[2] === undefined ? { position: Number(m[1]) } : { position: Number(m[1]), card: Number(m[2]) };
}

/**
 * An option's note in parts, or null for a note that is one lesson sentence as it
 * stands (the "another mode" notes) or no sentence of the built-in lesson at all.
 */
export function pollNoteParts(note: string): PollTextParts | null {
  let m = /^Right: ([^]*)$/.exec(note);
  if (m) return { template: "right", body: m[1] };
  m = /^Already happened: (.+?) was (step \d+(?: here \(card step \d+\))?)\. ([^]*)$/.exec(note);
  if (m && isTitle(m[1]) && where(m[2])) return { template: "already", title: m[1], ...where(m[2]), body: m[3] };
  m = /^Not yet: (.+?) comes later, at (step \d+(?: here \(card step \d+\))?)\. ([^]*)$/.exec(note);
  if (m && isTitle(m[1]) && where(m[2])) return { template: "later", title: m[1], ...where(m[2]), body: m[3] };
  m = /^(.+?) never happens in this scenario\. ([^]*)$/.exec(note);
  if (m && isTitle(m[1])) return { template: "never", title: m[1], body: m[2] };
  return null;
}

/** "What happens next, after CREATE PVC?" in parts. */
export function pollQuestionParts(question: string): PollTextParts | null {
  const m = /^What happens next, after (.+)\?$/.exec(question);
  return m && isTitle(m[1]) ? { template: "question", title: m[1] } : null;
}

/** "PICK NODE: the scheduler picks a node" in parts. */
export function pollOptionParts(text: string): PollTextParts | null {
  const m = /^([^:]+): ([^]+)$/.exec(text);
  return m && isTitle(m[1]) ? { template: "option", title: m[1], body: m[2] } : null;
}

/** The English a template makes from its parts (what the catalog's English must reproduce). */
export function englishPollText(parts: PollTextParts): string {
  const at = parts.card === undefined ? `step ${parts.position}` : `step ${parts.position} here (card step ${parts.card})`;
  switch (parts.template) {
    case "right":
      return `Right: ${parts.body}`;
    case "already":
      return `Already happened: ${parts.title} was ${at}. ${parts.body}`;
    case "later":
      return `Not yet: ${parts.title} comes later, at ${at}. ${parts.body}`;
    case "never":
      return `${parts.title} never happens in this scenario. ${parts.body}`;
    case "question":
      return `What happens next, after ${parts.title}?`;
    case "option":
      return `${parts.title}: ${parts.body}`;
    default: {
      const unknown: never = parts.template;
      throw new Error(`no poll template ${String(unknown)}`);
    }
  }
}

/**
 * Every poll the built-in lesson can ask, in every release: its texts, and the lesson
 * sentences inside them (for the prose catalog). Throws on a text no shape reads back,
 * so a new wording in nextStep.ts cannot slip past the translations unnoticed.
 */
export function everyPollText(): { notes: string[]; questions: string[]; options: string[]; bodies: string[] } {
  const notes = new Set<string>();
  const questions = new Set<string>();
  const options = new Set<string>();
  const bodies = new Set<string>();
  for (const version of KUBE_VERSIONS) {
    for (const mode of BINDING_MODES)
      for (const variant of VARIANTS_BY_MODE[mode]) {
        const scenario = getScenario(mode, variant, version);
        scenario.steps.forEach((_, index) => {
          const poll = generateNextStepPoll(scenario, index);
          if (!poll) return;
          questions.add(poll.question);
          for (const o of poll.options) {
            notes.add(o.note);
            options.add(o.text);
          }
        });
      }
  }
  for (const q of questions) if (!pollQuestionParts(q)) throw new Error(`no shape reads the poll question "${q}"`);
  for (const o of options) {
    const parts = pollOptionParts(o);
    if (!parts?.body) throw new Error(`no shape reads the poll option "${o}"`);
    bodies.add(parts.body);
  }
  for (const n of notes) bodies.add(pollNoteParts(n)?.body ?? n);
  return { notes: [...notes], questions: [...questions], options: [...options], bodies: [...bodies] };
}

/** A poll's English words in the reader's language (or as they are, marked "en"), by what kind of text they are. */
export interface PollTextCatalog {
  note(english: string): Localized;
  question(english: string): Localized;
  option(english: string): Localized;
}

const asRecord = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null ? Object.fromEntries(Object.entries(value)) : {};

/**
 * The poll texts' catalog for a page. A text is translated only whole: its shape in the
 * reader's language and its lesson sentence too; otherwise it stays the server's English,
 * so a phone never shows half a sentence in each language.
 */
export function pollTextCatalog(prose: ProseCatalog, messages: unknown): PollTextCatalog {
  const locale = prose.locale;
  const all = asRecord(messages);
  const templates = asRecord(all[POLL_NAMESPACE]);
  const fallback = asRecord(asRecord(all[FALLBACK_NAMESPACE])[POLL_NAMESPACE]);
  const template = (name: string): string | null => {
    const t = templates[name];
    return typeof t === "string" && !(name in fallback) ? t : null;
  };
  const fill = (text: string, parts: PollTextParts | null): Localized => {
    // Words the built-in lesson never says (a teacher's lesson's): as written, language unknown.
    const known = parts?.body !== undefined ? prose.knows(parts.body) : parts !== null || prose.knows(text);
    if (!known) return { text, lang: undefined };
    const english: Localized = { text, lang: "en" };
    if (!parts) return prose.localize(text);
    if (locale === "en") return english;
    const shape = template(parts.template);
    const body = parts.body !== undefined ? prose.localize(parts.body) : null;
    if (!shape || body?.lang === "en") return english;
    const whereShape = template(parts.card === undefined ? "where" : "whereMoved");
    if (parts.position !== undefined && !whereShape) return english;
    try {
      const where =
        whereShape && parts.position !== undefined
          ? plainMessage(whereShape, locale, { position: String(parts.position), card: String(parts.card ?? "") })
          : "";
      return { text: plainMessage(shape, locale, { title: parts.title ?? "", where, body: body?.text ?? "" }), lang: locale };
    } catch {
      return english;
    }
  };
  return {
    note: (text) => fill(text, pollNoteParts(text)),
    question: (text) => fill(text, pollQuestionParts(text)),
    option: (text) => fill(text, pollOptionParts(text)),
  };
}
