import { describe, expect, it } from "vitest";
import type { Ack } from "../../lib/protocol";
import type { SessionEvent, SessionEventBody } from "../../lib/session";
import { check, type CheckInput } from "./checker";
import { History, type Op } from "./history";

/**
 * The chaos checker on histories written by hand: a clean one passes, and
 * each kind of broken promise the run looks for (an acknowledged step
 * missing, two steps swapped, a step applied after UNAVAILABLE, a vote
 * applied twice, wrong final counts, a receipt naming a place after its vote, an
 * answer over budget, UNAVAILABLE with no fault to explain it) fails it.
 */

const T0 = 1_000_000;
const SESSION = "00000000-0000-4000-8000-000000000001";
const POLL = "poll-1";

function log(bodies: SessionEventBody[]): SessionEvent[] {
  return bodies.map((b, i) => ({ ...b, seq: i + 1, at: T0 + i * 100 }) as SessionEvent);
}

const opened: SessionEventBody = {
  type: "poll:opened",
  poll: {
    id: POLL,
    kind: "custom",
    question: "Which binds first?",
    options: [
      { id: "o1", text: "PVC" },
      { id: "o2", text: "Pod" },
    ],
    correctOptionId: null,
  },
  closesAt: null,
};

const cleanLog = (): SessionEventBody[] => [
  { type: "session:created", id: SESSION, code: "ABCDEF", title: "t" },
  { type: "participant:joined", participantId: "p1", nickname: "Student 1" },
  { type: "step:changed", stepIndex: 1 },
  { type: "step:changed", stepIndex: 2 },
  opened,
  { type: "poll:voted", pollId: POLL, participantId: "p1", optionId: "o1" },
  { type: "poll:closed", pollId: POLL, counts: { o1: 1, o2: 0 }, total: 1 },
];

const ok = (data: unknown = null): Ack<unknown> => ({ ok: true, data });
const refused = (code: string): Ack<unknown> => ({ ok: false, error: { code, message: code } }) as Ack<unknown>;

function scenario(
  edit: {
    events?: SessionEventBody[];
    answers?: Partial<Record<number, Ack<unknown>>>;
    latency?: number;
    redisFault?: boolean;
    /** Room instances the student's screen saw change: [ms after T0, stream, to]. */
    instances?: [number, string, string][];
  } = {},
) {
  const history = new History(1);
  history.sessions = [{ id: SESSION, code: "ABCDEF", sheltered: false }];
  const sent: [string, string, Record<string, unknown>, Ack<unknown>][] = [
    ["c0 teacher", "step:go", { stepIndex: 1 }, ok()],
    ["c0 teacher", "step:go", { stepIndex: 2 }, ok()],
    ["c0 teacher", "poll:open", { kind: "custom", question: "Which binds first?", options: ["PVC", "Pod"] }, ok({ pollId: POLL })],
    ["c0 student 0", "poll:vote", { pollId: POLL, optionId: "o1" }, ok({ pollId: POLL, round: 1, optionId: "o1", rev: 6 })],
    ["c0 teacher", "poll:close", { pollId: POLL }, ok()],
  ];
  sent.forEach(([client, event, payload, ack], i) => {
    const sentAt = T0 + i * 1_000;
    const answer = edit.answers?.[i] ?? ack;
    const at = sentAt + (i === 1 ? (edit.latency ?? 20) : 20);
    const op: Omit<Op, "id"> = { client, cls: 0, conn: 1, node: 0, event, payload, sentAt, answer: { at, ack: answer } };
    op.reported = { at, code: answer.ok ? "ok" : answer.error.code, local: false };
    history.newOp(op);
  });
  if (edit.redisFault) history.faults.push({ kind: "redis-kill", node: null, start: T0, end: T0 + 5_000 });
  for (const [after, stream, to] of edit.instances ?? [])
    history.notes.push({
      client: "c0 student 0",
      cls: 0,
      conn: 1,
      node: 0,
      at: T0 + after,
      kind: "instance",
      detail: `${stream} i1 -> ${to}`,
    });
  const input: CheckInput = {
    history,
    logs: [log(edit.events ?? cleanLog())],
    clients: [
      { name: "c0 teacher", cls: 0, role: "host", participantId: undefined },
      { name: "c0 student 0", cls: 0, role: "student", participantId: "p1" },
    ],
    budgetMs: 5_000,
    slackMs: 1_000,
    crashes: [],
    t0: T0,
    problems: [],
  };
  return check(input).violations.map((v) => `${v.invariant}: ${v.message}`);
}

describe("the chaos checker", () => {
  it("passes a history the log agrees with", () => {
    expect(scenario()).toEqual([]);
  });

  it("fails an acknowledged step missing from the log", () => {
    const events = cleanLog().filter((e) => !(e.type === "step:changed" && e.stepIndex === 2));
    // The vote's receipt names seq 6; without the step it is seq 5.
    expect(scenario({ events, answers: { 3: ok({ pollId: POLL, round: 1, optionId: "o1", rev: 5 }) } }).join("\n")).toMatch(
      /order: .*acknowledged ok but not in the log/,
    );
  });

  it("fails two steps applied in the other order", () => {
    const events = cleanLog();
    [events[2], events[3]] = [events[3], events[2]];
    expect(scenario({ events }).join("\n")).toMatch(/order: /);
  });

  it("fails a step applied though it was answered UNAVAILABLE (not applied)", () => {
    expect(scenario({ answers: { 1: refused("UNAVAILABLE") }, redisFault: true }).join("\n")).toMatch(
      /order: .*answered UNAVAILABLE \(not applied\), yet the log holds what it did:\n.*step:go {"stepIndex":2}/,
    );
  });

  it("lets a step answered UNCONFIRMED be applied, or not", () => {
    expect(scenario({ answers: { 1: refused("UNCONFIRMED") }, redisFault: true })).toEqual([]);
    const events = cleanLog().filter((e) => !(e.type === "step:changed" && e.stepIndex === 2));
    expect(
      scenario({
        events,
        answers: { 1: refused("UNCONFIRMED"), 3: ok({ pollId: POLL, round: 1, optionId: "o1", rev: 5 }) },
        redisFault: true,
      }),
    ).toEqual([]);
  });

  it("fails a command applied after later ones, from a connection its client had given up on", () => {
    const history = new History(1);
    history.sessions = [{ id: SESSION, code: "ABCDEF", sheltered: false }];
    history.conns.push(
      { client: "c0 teacher", cls: 0, conn: 1, node: 0, openedAt: T0 - 1_000, welcomeAt: T0 - 990 },
      { client: "c0 teacher", cls: 0, conn: 2, node: 1, openedAt: T0 + 500, welcomeAt: T0 + 510 },
    );
    history.conns[0].closed = { at: T0 + 400, reason: "ping timeout", byClient: false };
    history.faults.push({ kind: "pause", node: 0, start: T0 - 100, end: T0 + 30_000 });
    const stale = history.newOp({
      client: "c0 teacher",
      cls: 0,
      conn: 1,
      node: 0,
      event: "step:go",
      payload: { stepIndex: 3 },
      sentAt: T0,
    });
    stale.reported = { at: T0 + 8_000, code: "UNCONFIRMED", local: true };
    const later = history.newOp({
      client: "c0 teacher",
      cls: 0,
      conn: 2,
      node: 1,
      event: "step:go",
      payload: { stepIndex: 1 },
      sentAt: T0 + 1_000,
    });
    later.answer = { at: T0 + 1_010, ack: ok() };
    later.reported = { at: T0 + 1_010, code: "ok", local: false };
    const events = log([
      { type: "session:created", id: SESSION, code: "ABCDEF", title: "t" },
      { type: "step:changed", stepIndex: 1 },
      { type: "step:changed", stepIndex: 3 },
    ]).map((e, i) => ({ ...e, at: T0 + i * 15_000 }));
    const input: CheckInput = {
      history,
      logs: [events],
      clients: [{ name: "c0 teacher", cls: 0, role: "host", participantId: undefined }],
      budgetMs: 5_000,
      slackMs: 1_000,
      crashes: [],
      t0: T0,
      problems: [],
    };
    const found = check(input).violations.map((v) => `${v.invariant}: ${v.message}`);
    expect(found.join("\n")).toMatch(
      /order: .*step:go {"stepIndex":3}.*its connection was gone at \+0.400 s; #3 was written at \+30.000 s/s,
    );
  });

  it("fails a vote applied twice", () => {
    const events = cleanLog();
    events.splice(6, 0, { type: "poll:voted", pollId: POLL, participantId: "p1", optionId: "o1" });
    (events[7] as { counts: Record<string, number> }).counts = { o1: 1, o2: 0 };
    expect(scenario({ events }).join("\n")).toMatch(/order: class 0 c0 student 0: event #7/);
  });

  it("fails final counts that are not the votes in force", () => {
    const events = cleanLog();
    events[6] = { type: "poll:closed", pollId: POLL, counts: { o1: 0, o2: 1 }, total: 1 };
    expect(scenario({ events }).join("\n")).toMatch(/votes: .*closed \(#7\) with counts/);
  });

  it("fails a vote receipt that names a place after its vote's event (a rev is exact, or in a cluster a lower bound)", () => {
    expect(scenario({ answers: { 3: ok({ pollId: POLL, round: 1, optionId: "o1", rev: 4 }) } })).toEqual([]);
    expect(scenario({ answers: { 3: ok({ pollId: POLL, round: 1, optionId: "o1", rev: 9 }) } }).join("\n")).toMatch(
      /votes: .*receipt names/,
    );
  });

  it("fails an answer over the budget from a node that kept running", () => {
    expect(scenario({ latency: 7_000 }).join("\n")).toMatch(/budget: not answered within 5000 ms/);
  });

  it("fails UNAVAILABLE where no fault could touch the command, and lets a Redis outage explain it", () => {
    const events = cleanLog().filter((e) => !(e.type === "step:changed" && e.stepIndex === 2));
    const answers = { 1: refused("UNAVAILABLE"), 3: ok({ pollId: POLL, round: 1, optionId: "o1", rev: 5 }) };
    expect(scenario({ events, answers }).join("\n")).toMatch(/isolation: answered UNAVAILABLE though no fault/);
    expect(scenario({ events, answers, redisFault: true })).toEqual([]);
  });

  it("judges a room reload where the class first saw it, not where a quiet stream caught up with it", () => {
    // Redis came back at +5 s: the class's stream shows the reload at once; the student's own stream only at its next
    // patch, half a minute later. Another instance then, with no fault, is a violation.
    expect(
      scenario({
        redisFault: true,
        instances: [
          [6_000, "public", "i2"],
          [40_000, "me", "i2"],
        ],
      }),
    ).toEqual([]);
    expect(scenario({ redisFault: true, instances: [[40_000, "me", "i3"]] }).join("\n")).toMatch(
      /isolation: c0 student 0 conn 1@node 0 at .*instance \(me i1 -> i3\) with no fault to explain it/,
    );
  });
});
