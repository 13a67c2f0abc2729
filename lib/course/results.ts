import { toCsv } from "../session/export";
import type { PollRecord } from "./records";

/**
 * Results across a course: every session and assignment of one lesson added
 * up per poll. For each poll, the share of first answers that were right and,
 * for every wrong option, how often it was chosen with the misconception it
 * stands for (most chosen first); for a poll the class answered twice (the
 * teacher re-opened it after discussion), the shift between the rounds and the
 * normalized gain (after - before) / (1 - before), the figure peer-instruction
 * research reports (Hake 1998; Crouch & Mazur 2001). Per learner, the
 * misconceptions they chose. Pure: the server reads the logs and answers.
 */

export interface OptionResult {
  text: string;
  note: string | null;
  correct: boolean;
  /** First answers that chose it. */
  chosen: number;
}

export interface RoundsResult {
  /** How many times the poll was answered twice (each live session that re-opened it). */
  times: number;
  before: { right: number; total: number };
  after: { right: number; total: number };
  /** after share - before share, in points of a share (0.25 = 25 points). */
  shift: number;
  /** (after - before) / (1 - before); null when everyone was right before. */
  gain: number | null;
}

export interface PollResult {
  key: string;
  question: string;
  stepIndex: number;
  hasAnswer: boolean;
  firstAnswers: number;
  right: number;
  /** right / firstAnswers; null with no answers or no right answer. */
  rightShare: number | null;
  /** Every option, the right one first, then the wrong ones by how often they were chosen. */
  options: OptionResult[];
  /** Sessions and assignments that asked it. */
  asked: number;
  rounds: RoundsResult | null;
}

export interface LearnerResult {
  learner: string;
  name: string;
  answered: number;
  right: number;
  misconceptions: { pollKey: string; question: string; text: string; note: string | null; source: PollRecord["source"] }[];
}

export interface CourseResults {
  polls: PollResult[];
  learners: LearnerResult[];
  sessions: number;
  assignments: number;
}

const share = (part: number, whole: number) => (whole > 0 ? part / whole : 0);

export function normalizedGain(before: number, after: number): number | null {
  return before >= 1 ? null : (after - before) / (1 - before);
}

/** The track a poll key belongs to ("step:Immediate:standard"), so polls of one scenario stay together in step order. */
function trackOf(key: string): string {
  const parts = key.split(":");
  return parts[0] === "step" && parts.length === 4 ? parts.slice(0, 3).join(":") : parts[0];
}

function pollResult(records: PollRecord[]): PollResult {
  const latest = records.reduce((a, b) => (b.source.at >= a.source.at ? b : a));
  const options = new Map<string, OptionResult>();
  // The latest wording of each note wins; the options' order and correctness come from the text.
  for (const r of [...records].sort((a, b) => a.source.at - b.source.at)) {
    for (const o of r.options) {
      const known = options.get(o.text);
      options.set(o.text, { text: o.text, note: o.note ?? known?.note ?? null, correct: o.correct, chosen: known?.chosen ?? 0 });
    }
  }
  let firstAnswers = 0;
  let right = 0;
  for (const r of records) {
    const textOf = new Map(r.options.map((o) => [o.id, o]));
    for (const f of r.first) {
      const option = textOf.get(f.optionId);
      if (!option) continue;
      firstAnswers++;
      if (option.correct) right++;
      const result = options.get(option.text);
      if (result) result.chosen++;
    }
  }
  const hasAnswer = latest.hasAnswer;
  // A round nobody answered (re-opened, then closed at once) is no second answer: counted, it read as a loss.
  const twice = records.filter((r) => r.hasAnswer && r.rounds.length >= 2 && r.rounds[0].total > 0 && r.rounds[1].total > 0);
  let rounds: RoundsResult | null = null;
  if (twice.length > 0) {
    const sum = { before: { right: 0, total: 0 }, after: { right: 0, total: 0 } };
    for (const r of twice) {
      const correct = r.options.find((o) => o.correct)?.id;
      const [one, two] = r.rounds;
      sum.before.total += one.total;
      sum.after.total += two.total;
      if (correct) {
        sum.before.right += one.counts[correct] ?? 0;
        sum.after.right += two.counts[correct] ?? 0;
      }
    }
    const before = share(sum.before.right, sum.before.total);
    const after = share(sum.after.right, sum.after.total);
    rounds = { times: twice.length, ...sum, shift: after - before, gain: sum.before.total > 0 ? normalizedGain(before, after) : null };
  }
  const sorted = [...options.values()].sort(
    (a, b) => Number(b.correct) - Number(a.correct) || b.chosen - a.chosen || a.text.localeCompare(b.text),
  );
  return {
    key: latest.key,
    question: latest.question,
    stepIndex: latest.stepIndex,
    hasAnswer,
    firstAnswers,
    right: hasAnswer ? right : 0,
    rightShare: hasAnswer && firstAnswers > 0 ? right / firstAnswers : null,
    options: sorted,
    asked: records.length,
    rounds,
  };
}

function learnerResults(records: readonly PollRecord[]): LearnerResult[] {
  const learners = new Map<string, LearnerResult>();
  for (const r of records) {
    const byId = new Map(r.options.map((o) => [o.id, o]));
    for (const f of r.first) {
      const option = byId.get(f.optionId);
      if (!option) continue;
      const l = learners.get(f.learner) ?? { learner: f.learner, name: f.name, answered: 0, right: 0, misconceptions: [] };
      if (f.name) l.name = f.name;
      l.answered++;
      if (r.hasAnswer && option.correct) l.right++;
      if (r.hasAnswer && !option.correct) {
        l.misconceptions.push({ pollKey: r.key, question: r.question, text: option.text, note: option.note ?? null, source: r.source });
      }
      learners.set(f.learner, l);
    }
  }
  return [...learners.values()].sort((a, b) => b.misconceptions.length - a.misconceptions.length || a.name.localeCompare(b.name));
}

export function courseResults(records: readonly PollRecord[]): CourseResults {
  const byKey = new Map<string, PollRecord[]>();
  for (const r of records) byKey.set(r.key, [...(byKey.get(r.key) ?? []), r]);
  const polls = [...byKey.values()]
    .map(pollResult)
    .sort((a, b) => trackOf(a.key).localeCompare(trackOf(b.key)) || a.stepIndex - b.stepIndex || a.question.localeCompare(b.question));
  const sources = (kind: "session" | "assignment") => new Set(records.filter((r) => r.source.kind === kind).map((r) => r.source.id)).size;
  return { polls, learners: learnerResults(records), sessions: sources("session"), assignments: sources("assignment") };
}

const percent = (x: number | null) => (x === null ? "" : (Math.round(x * 1000) / 10).toFixed(1));

/** The per-poll table as CSV: one row per option, with the poll's totals and, for polls asked twice, the gain. No names. */
export function resultsCsv(results: CourseResults): string {
  const rows: (string | number | null)[][] = [
    [
      "poll",
      "question",
      "first answers",
      "right",
      "right %",
      "option",
      "correct",
      "chosen",
      "note",
      "round 1 right %",
      "round 2 right %",
      "normalized gain",
    ],
  ];
  for (const p of results.polls) {
    const r = p.rounds;
    for (const o of p.options) {
      rows.push([
        p.key,
        p.question,
        p.firstAnswers,
        p.hasAnswer ? p.right : "",
        percent(p.rightShare),
        o.text,
        p.hasAnswer ? (o.correct ? "yes" : "no") : "",
        o.chosen,
        o.note ?? "",
        r ? percent(share(r.before.right, r.before.total)) : "",
        r ? percent(share(r.after.right, r.after.total)) : "",
        r && r.gain !== null ? r.gain.toFixed(3) : "",
      ]);
    }
  }
  return toCsv(rows);
}

/** Per learner, every wrong first answer: for the teacher only (it names students). */
export function learnersCsv(results: CourseResults): string {
  const rows: (string | number | null)[][] = [["student", "answered", "right", "question", "chose", "misconception", "where", "when"]];
  for (const l of results.learners) {
    const name = l.name || "(no nickname)";
    if (l.misconceptions.length === 0) rows.push([name, l.answered, l.right, "", "", "", "", ""]);
    for (const m of l.misconceptions) {
      rows.push([
        name,
        l.answered,
        l.right,
        m.question,
        m.text,
        m.note ?? "",
        `${m.source.kind}: ${m.source.title}`,
        new Date(m.source.at).toISOString(),
      ]);
    }
  }
  return toCsv(rows);
}
