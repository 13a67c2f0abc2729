import { afterEach, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../support/testServer";
import { Student, assign, body, progressOf, publicOf, refusal, rightByHand, teacher, wrong } from "./assignmentsWorld";

/**
 * A self-paced student who does not play along: no token or someone else's, skipping ahead, answering what they
 * have not reached, changing an answer, hammering one poll from many tabs, malformed bodies, a burst of starts.
 * Every refusal is a named 4xx with a sentence, never a 500, and what the teacher counts stays exact.
 */

const servers: TestServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});
async function classWithAssignment() {
  const srv = await startServer();
  servers.push(srv);
  const ana = await teacher(srv, "Ms Ana");
  const { assignment } = await assign(ana);
  const link = await publicOf(srv.url, assignment.id);
  return { srv, ana, id: assignment.id, link, right: rightByHand(link.polls) };
}

describe("a student's calls", () => {
  it("need the token start gave this browser: none, garbage or another assignment's is NOT_A_STUDENT", async () => {
    const { srv, ana, id } = await classWithAssignment();
    const other = await assign(ana, { title: "Another one" });
    const elsewhere = await Student.start(srv.url, other.assignment.id, "Mallory");
    const tokens = ["", "garbage", "A".repeat(43), "x".repeat(300), elsewhere.token];
    for (const token of tokens) {
      const s = new Student(srv.url, id, token);
      for (const res of [await s.call("me"), await s.goRaw(0), await s.answerRaw("p1", "o1")])
        expect(await refusal(res), `token ${token.slice(0, 12)}`).toEqual([403, "NOT_A_STUDENT"]);
    }
    // No header at all, and the teacher's own cookie is not a student's token either.
    expect(await refusal(await fetch(`${srv.url}/api/assignments/${id}/me`))).toEqual([403, "NOT_A_STUDENT"]);
    expect(await refusal(await ana.request(`/api/assignments/${id}/me`))).toEqual([403, "NOT_A_STUDENT"]);
    // Nothing above made a student or an answer.
    const progress = await progressOf(ana, id);
    expect({ started: progress.started, answered: progress.polls.map((p) => p.answered).reduce((a, b) => a + b) }).toEqual({
      started: 0,
      answered: 0,
    });
  });

  it("cannot skip a step or a poll, answer ahead, or change an answer; the same answer again is a retry counted once", async () => {
    const { srv, ana, id, link, right } = await classWithAssignment();
    const s = await Student.start(srv.url, id, "Ada");
    expect(await refusal(await s.goRaw(2))).toEqual([400, "BAD_STEP"]);
    expect(await refusal(await s.goRaw(12))).toEqual([400, "BAD_STEP"]);
    expect(await refusal(await s.goRaw(99))).toEqual([400, "BAD_STEP"]);
    expect(await refusal(await s.goRaw(1))).toEqual([409, "ANSWER_FIRST"]);
    expect(await refusal(await s.answerRaw("p3", link.polls[2].options[0].id))).toEqual([409, "NOT_THERE_YET"]);
    expect(await refusal(await s.answerRaw("p99", "o1"))).toEqual([404, "NO_SUCH_POLL"]);
    expect(await refusal(await s.answerRaw("p1", "o9"))).toEqual([400, "BAD_OPTION"]);

    const first = await s.answer("p1", wrong(link.polls[0], right).id);
    expect(first.feedback.correct).toBe(false);
    // Changing one's mind after seeing the answer is refused; the answer in force stays the first.
    expect(await refusal(await s.answerRaw("p1", right.get("p1")!.id))).toEqual([409, "ALREADY_ANSWERED"]);
    // A retry (a lost response, a double tap) gets the same feedback again.
    expect(await s.answer("p1", first.feedback.optionId)).toEqual(first);
    expect(await s.go(1)).toMatchObject({ stepIndex: 1, furthestStep: 1 });
    expect(await s.go(0)).toMatchObject({ stepIndex: 0, furthestStep: 1 });
    expect(await s.go(1)).toMatchObject({ stepIndex: 1, furthestStep: 1 });
    expect(await refusal(await s.goRaw(2))).toEqual([409, "ANSWER_FIRST"]);

    const progress = await progressOf(ana, id);
    expect(progress.students).toMatchObject([{ nickname: "Ada", answered: 1, right: 0, stepIndex: 1, furthestStep: 1 }]);
    expect(progress.polls[0].answered).toBe(1);
    expect(progress.polls[0].options.map((o) => o.count)).toEqual(
      progress.polls[0].options.map((o) => (o.id === first.feedback.optionId ? 1 : 0)),
    );
    expect(progress.polls.slice(1).every((p) => p.answered === 0)).toBe(true);
    expect((await s.me()).answers).toEqual([first.feedback]);
  });

  it("answering one poll from many tabs at once stores exactly one answer", async () => {
    const { srv, ana, id, link } = await classWithAssignment();
    const s = await Student.start(srv.url, id, "Tabs");
    const options = link.polls[0].options;
    const responses = await Promise.all(Array.from({ length: 24 }, (_, i) => s.answerRaw("p1", options[i % options.length].id)));
    const answers = await Promise.all(
      responses.map(async (r) => ({ status: r.status, json: (await r.json()) as Record<string, unknown> })),
    );
    const accepted = answers.filter((a) => a.status === 200).map((a) => (a.json.feedback as { optionId: string }).optionId);
    // Whichever came first is the answer: every tab that sent it is told so, every other tab is refused.
    expect(new Set(accepted).size).toBe(1);
    expect(accepted).toHaveLength(24 / options.length);
    expect(answers.filter((a) => a.status !== 200).map((a) => [a.status, (a.json.error as { code: string }).code])).toEqual(
      Array.from({ length: 24 - accepted.length }, () => [409, "ALREADY_ANSWERED"]),
    );
    const progress = await progressOf(ana, id);
    expect(progress.polls[0].answered).toBe(1);
    expect(progress.polls[0].options.find((o) => o.id === accepted[0])!.count).toBe(1);
    expect(progress.students[0].answered).toBe(1);
    expect((await s.me()).answers.map((a) => a.optionId)).toEqual([accepted[0]]);
    // Stepping on from many tabs at once lands on the one next step.
    const moves = await Promise.all(Array.from({ length: 10 }, () => s.goRaw(1)));
    expect(moves.map((m) => m.status)).toEqual(Array.from({ length: 10 }, () => 200));
    expect(await s.me()).toMatchObject({ stepIndex: 1, furthestStep: 1 });
  });
});

describe("malformed requests", () => {
  it("get a clear 4xx, never a 500, and change nothing", async () => {
    const { srv, ana, id } = await classWithAssignment();
    const s = await Student.start(srv.url, id, "Fuzz");
    const cases: [string, Promise<Response>, number, string][] = [
      ["pollId a number", s.call("answer", { json: { pollId: 1, optionId: "o1" } }), 400, "BAD_REQUEST"],
      ["optionId missing", s.call("answer", { json: { pollId: "p1" } }), 400, "BAD_REQUEST"],
      ["an array", s.call("answer", { json: [] }), 400, "BAD_REQUEST"],
      ["null", s.call("answer", { body: "null" }), 400, "BAD_REQUEST"],
      ["not JSON", s.call("answer", { body: "{" }), 400, "BAD_REQUEST"],
      ["a 10,000-character poll id", s.call("answer", { json: { pollId: "p".repeat(10_000), optionId: "o1" } }), 400, "BAD_REQUEST"],
      ["a body over 16 KiB", s.call("answer", { json: { pollId: "p1", optionId: "o".repeat(20_000) } }), 413, "PAYLOAD_TOO_LARGE"],
      [
        "text/plain",
        s.call("answer", { body: '{"pollId":"p1","optionId":"o1"}', headers: { "content-type": "text/plain" } }),
        415,
        "BAD_REQUEST",
      ],
      ["stepIndex a string", s.call("progress", { json: { stepIndex: "1" } }), 400, "BAD_REQUEST"],
      ["stepIndex a fraction", s.call("progress", { json: { stepIndex: 0.5 } }), 400, "BAD_REQUEST"],
      ["stepIndex negative", s.call("progress", { json: { stepIndex: -1 } }), 400, "BAD_REQUEST"],
      ["no stepIndex", s.call("progress", { json: {} }), 400, "BAD_REQUEST"],
      ["nickname a number", Student.startRaw(srv.url, id, { nickname: 5 }), 400, "BAD_REQUEST"],
      ["nickname of 500 characters", Student.startRaw(srv.url, id, { nickname: "x".repeat(500) }), 400, "BAD_REQUEST"],
      ["start as text/plain", fetch(`${srv.url}/api/assignments/${id}/start`, { method: "POST", body: "{}" }), 415, "BAD_REQUEST"],
      ["an unknown mode", ana.post("/api/assignments", { source: { kind: "builtin", mode: "Eventually" } }), 400, "BAD_REQUEST"],
      ["a source that is a string", ana.post("/api/assignments", { source: "builtin" }), 400, "BAD_REQUEST"],
      [
        "dueAt a word",
        ana.post("/api/assignments", { source: { kind: "builtin", mode: "Immediate" }, dueAt: "tomorrow" }),
        400,
        "BAD_REQUEST",
      ],
      [
        "create as text/plain",
        ana.request("/api/assignments", { method: "POST", body: "{}", headers: { "content-type": "text/plain" } }),
        415,
        "BAD_REQUEST",
      ],
      ["closed a string", ana.request(`/api/assignments/${id}`, { method: "PATCH", json: { closed: "yes" } }), 400, "BAD_REQUEST"],
    ];
    for (const [what, res, status, code] of cases) expect(await refusal(await res), what).toEqual([status, code]);

    // Unknown keys are stripped, not obeyed: a student cannot jump ahead or mark themselves finished.
    expect((await s.call("answer", { json: { pollId: "p1", optionId: "o1", correct: true, admin: true } })).status).toBe(200);
    const moved = await body<{ furthestStep: number; finished: boolean }>(
      await s.call("progress", { json: { stepIndex: 1, furthestStep: 11, finished: true } }),
    );
    expect(moved).toMatchObject({ furthestStep: 1, finished: false });
    // A long nickname is cut to the live class's limit (32) rather than refused.
    const long = await Student.start(srv.url, id, "x".repeat(100));
    expect(long.view.nickname.length).toBeLessThanOrEqual(32);

    const progress = await progressOf(ana, id);
    expect(progress.started).toBe(2);
    expect(progress.polls[0].answered).toBe(1);
    expect((await ana.getJson<{ assignments: unknown[] }>("/api/assignments")).assignments).toHaveLength(1);
    expect((await fetch(`${srv.url}/api/health`)).status).toBe(200);
  });

  it("a burst of starts from one address is rate-limited (429) without a failure, and every 201 is one student", async () => {
    const { srv, ana, id } = await classWithAssignment();
    const statuses: number[] = [];
    // Batches of 100 at once until the address's allowance (300 at once, then 60 a second) runs out.
    for (let batch = 0; batch < 15 && !statuses.includes(429); batch++) {
      const answered = await Promise.all(
        Array.from({ length: 100 }, (_, i) => Student.startRaw(srv.url, id, { nickname: `b${batch}-${i}` })),
      );
      statuses.push(...answered.map((r) => r.status));
      for (const r of answered) if (r.status === 429) expect(await refusal(r)).toEqual([429, "RATE_LIMITED"]);
    }
    expect(statuses).toContain(429);
    expect(statuses.filter((st) => st !== 201 && st !== 429)).toEqual([]);
    expect(await body<{ ok: boolean }>(await fetch(`${srv.url}/api/health`))).toMatchObject({ ok: true });
    // The teacher shares the address's allowance: ask until it has refilled, then count.
    let res = await ana.request(`/api/assignments/${id}?view=progress`);
    for (const start = Date.now(); res.status === 429 && Date.now() - start < 10_000;) {
      await new Promise((r) => setTimeout(r, 100));
      res = await ana.request(`/api/assignments/${id}?view=progress`);
    }
    const progress = await body<{ started: number }>(res);
    expect(progress.started).toBe(statuses.filter((st) => st === 201).length);
  });
});
