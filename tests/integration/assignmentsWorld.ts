import { expect } from "vitest";
import { CookieClient } from "../support/cookieClient";
import type { TestServer } from "../support/testServer";

/**
 * Shared by tests/integration/assignments*.test.ts: the self-paced assignment API as an outsider meets it,
 * typed from docs/protocol.md ("Assignments and results") and what the server answers, not from lib/course,
 * so a change of shape there fails here instead of being followed silently.
 */

export const PASSWORD = "correct horse battery staple";

export interface Option {
  id: string;
  text: string;
}
export interface PublicPoll {
  id: string;
  stepIndex: number;
  question: string;
  options: Option[];
}
export interface PublicAssignment {
  id: string;
  title: string;
  stepCount: number;
  polls: PublicPoll[];
  dueAt: number | null;
  requireNickname: boolean;
}
export interface Made {
  assignment: { id: string; title: string; lessonKey: string; pollCount: number; dueAt: number | null; closedAt: number | null };
  path: string;
  skipped: number;
}
export interface Feedback {
  pollId: string;
  optionId: string;
  correct: boolean;
  note: string;
  correctOptionId: string;
  rightNote: string | null;
}
export interface StudentView {
  studentId: string;
  nickname: string;
  stepIndex: number;
  furthestStep: number;
  finished: boolean;
  answers: Feedback[];
}
export interface ProgressStudent {
  id: string;
  nickname: string;
  stepIndex: number;
  furthestStep: number;
  finishedAt: number | null;
  answered: number;
  right: number;
}
export interface ProgressPoll {
  id: string;
  stepIndex: number;
  answered: number;
  options: (Option & { correct: boolean; count: number })[];
}
export interface TeacherProgress {
  id: string;
  /** The whole link students open (its port follows the server's). */
  url: string;
  started: number;
  finished: number;
  closedAt: number | null;
  dueAt: number | null;
  students: ProgressStudent[];
  polls: ProgressPoll[];
}
export interface ResultOption {
  text: string;
  note: string;
  correct: boolean;
  chosen: number;
}
export interface Round {
  right: number;
  total: number;
}
export interface ResultPoll {
  key: string;
  question: string;
  stepIndex: number;
  firstAnswers: number;
  right: number;
  rightShare: number | null;
  options: ResultOption[];
  rounds: { before: Round; after: Round; gain: number | null } | null;
}
export interface Learner {
  learner: string;
  name: string;
  answered: number;
  right: number;
  misconceptions: { pollKey: string; question: string; text: string; note: string; source: { kind: string; title: string } }[];
}
export interface Results {
  lessonKey: string;
  results: { polls: ResultPoll[]; learners: Learner[]; sessions: number; assignments: number };
}

export const WFFC = { kind: "builtin", mode: "WaitForFirstConsumer" } as const;
/** The results key of the built-in WaitForFirstConsumer poll asked at a 0-based step. */
export const wffcKey = (stepIndex: number) => `step:WaitForFirstConsumer:standard:${stepIndex}`;

export async function body<T>(res: Response, status = 200): Promise<T> {
  if (res.status !== status) throw new Error(`${res.url}: expected ${status}, got ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** `[status, code]` of an error answer, and its message must be a sentence a person can read. */
export async function refusal(res: Response): Promise<[number, string]> {
  const text = await res.text();
  let parsed: { error?: { code?: string; message?: string } };
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    throw new Error(`${res.status} answered with something other than JSON: ${text.slice(0, 200)}`);
  }
  expect(parsed.error?.message ?? "", `message of ${parsed.error?.code}`).toMatch(/\w+ \w+/);
  return [res.status, parsed.error?.code ?? "(no code)"];
}

/** A browser with a teacher's account, signed up on this server (the first account is the administrator). */
export async function teacher(srv: TestServer, name: string): Promise<CookieClient> {
  const browser = new CookieClient(srv.url);
  const email = `${name.toLowerCase().replace(/\W+/g, ".")}@school.example`;
  expect((await browser.post("/api/account/sign-up", { email, displayName: name, password: PASSWORD })).status).toBe(201);
  return browser;
}

export async function assign(browser: CookieClient, extra: Record<string, unknown> = {}): Promise<Made> {
  return body<Made>(await browser.post("/api/assignments", { source: WFFC, title: "Week 3 homework", ...extra }), 201);
}

export const progressOf = (browser: CookieClient, id: string) =>
  browser.request(`/api/assignments/${id}?view=progress`).then((r) => body<TeacherProgress>(r));
export const resultsOf = (browser: CookieClient) => browser.request("/api/results/builtin").then((r) => body<Results>(r));
export const publicOf = (url: string, id: string) => fetch(`${url}/api/assignments/${id}`).then((r) => body<PublicAssignment>(r));

/** A student's browser on one assignment: the token `start` gave it, sent as X-Assignment-Token. */
export class Student {
  constructor(
    readonly url: string,
    readonly id: string,
    public token: string,
  ) {}

  static startRaw(url: string, id: string, json: unknown = {}, headers: Record<string, string> = {}): Promise<Response> {
    return fetch(`${url}/api/assignments/${id}/start`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(json),
    });
  }

  static async start(url: string, id: string, nickname?: string): Promise<Student & { view: StudentView }> {
    const started = await body<{ token: string; progress: StudentView }>(await Student.startRaw(url, id, { nickname }), 201);
    return Object.assign(new Student(url, id, started.token), { view: started.progress });
  }

  call(path: "me" | "progress" | "answer", init: { json?: unknown; body?: string; headers?: Record<string, string> } = {}) {
    const post = init.json !== undefined || init.body !== undefined;
    return fetch(`${this.url}/api/assignments/${this.id}/${path}`, {
      method: post ? "POST" : "GET",
      headers: { ...(post ? { "content-type": "application/json" } : {}), "x-assignment-token": this.token, ...init.headers },
      body: init.json !== undefined ? JSON.stringify(init.json) : init.body,
    });
  }

  me = () => this.call("me").then((r) => body<StudentView>(r));
  goRaw = (stepIndex: number) => this.call("progress", { json: { stepIndex } });
  go = (stepIndex: number) => this.goRaw(stepIndex).then((r) => body<StudentView>(r));
  answerRaw = (pollId: string, optionId: string) => this.call("answer", { json: { pollId, optionId } });
  answer = (pollId: string, optionId: string) =>
    this.answerRaw(pollId, optionId).then((r) => body<{ feedback: Feedback; progress: StudentView }>(r));
}

/**
 * The right option of each built-in poll, worked out from the lesson the link shows, not from any answer key: the
 * poll at step i asks what follows step i, and the poll at step i+1 names that step ("What happens next, after
 * CREATE POD?"). The last poll's answer is the lesson's last arrow, MOUNT (LESSON.md).
 */
export function rightByHand(polls: PublicPoll[]): Map<string, Option> {
  const right = new Map<string, Option>();
  polls.forEach((poll, i) => {
    const label = i + 1 < polls.length ? /after (.+)\?$/.exec(polls[i + 1].question)![1] : "MOUNT";
    const matching = poll.options.filter((o) => o.text.startsWith(`${label}:`));
    expect(matching, `the option of ${poll.id} naming ${label}`).toHaveLength(1);
    right.set(poll.id, matching[0]);
  });
  return right;
}

/** The n-th wrong option of a poll (in the order the link shows them). */
export const wrong = (poll: PublicPoll, right: Map<string, Option>, n = 0) =>
  poll.options.filter((o) => o.id !== right.get(poll.id)!.id)[n];

/** RFC 4180 text into rows of cells (quoted cells may hold commas, quotes and line breaks). */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  const endCell = () => {
    row.push(cell);
    cell = "";
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") endCell();
    else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++;
      endCell();
      rows.push(row);
      row = [];
    } else cell += c;
  }
  if (cell !== "" || row.length > 0) {
    endCell();
    rows.push(row);
  }
  return rows;
}
