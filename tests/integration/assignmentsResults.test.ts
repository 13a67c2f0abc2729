import { afterEach, describe, expect, it } from "vitest";
import { connectClient, type TestClient } from "../support/testClient";
import { startServer, type TestServer } from "../support/testServer";
import {
  Student,
  assign,
  body,
  parseCsv,
  publicOf,
  resultsOf,
  rightByHand,
  teacher,
  wffcKey,
  wrong,
  type Option,
  type PublicPoll,
  type Results,
} from "./assignmentsWorld";

/**
 * Issue 30's results across a course, from outside: an assignment and a live class of the built-in lesson add up
 * per poll (first answers, share right, every wrong option by how often it was chosen), a poll asked twice in
 * class gives the normalized gain, and the CSV exports say the same as the page. Every figure is a hand count.
 */

const servers: TestServer[] = [];
const clients: TestClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  for (const s of servers.splice(0)) await s.close();
});
const track = (c: TestClient) => (clients.push(c), c);

/** Who chose which option (by text: ids are shuffled per poll) as their first answer, per results key. */
type Tally = Map<string, { name: string; text: string; right: boolean }[]>;
const count = (tally: Tally, key: string, name: string, text: string, right: boolean) =>
  tally.set(key, [...(tally.get(key) ?? []), { name, text, right }]);

describe("results across a course", () => {
  it("adds a live class to the assignment's results, by hand count, with the gain of a poll asked twice, and exports the same", async () => {
    const srv = await startServer();
    servers.push(srv);
    const ana = await teacher(srv, "Ms Ana");
    const { assignment } = await assign(ana);
    const link = await publicOf(srv.url, assignment.id);
    const right = rightByHand(link.polls);
    const tally: Tally = new Map();

    // Self-paced: three students answer the polls at steps 1 to 3 (Kai only the first two).
    const plans: Record<string, ("right" | 0 | 1)[]> = { Ines: ["right", 0, "right"], Jon: [0, 0, 1], Kai: [1, "right"] };
    for (const [name, plan] of Object.entries(plans)) {
      const s = await Student.start(srv.url, assignment.id, name);
      for (const [step, choice] of plan.entries()) {
        const poll = link.polls[step];
        const chosen = choice === "right" ? right.get(poll.id)! : wrong(poll, right, choice);
        await s.answer(poll.id, chosen.id);
        await s.go(step + 1);
        count(tally, wffcKey(step), name, chosen.text, choice === "right");
      }
    }

    // A live class of the same lesson, started by the same teacher signed in: the session is hers.
    const live = await body<{ code: string; hostKey: string }>(await ana.post("/api/sessions", { title: "Live week 3" }), 201);
    const host = track(await connectClient(srv.url, { role: "host", code: live.code, hostKey: live.hostKey }));
    const names = ["Lia", "Max", "Noa", "Oli"];
    const kids = new Map<string, TestClient>();
    for (const nickname of names) kids.set(nickname, track(await connectClient(srv.url, { role: "student", code: live.code, nickname })));
    const liveNotes = new Map<number, Map<string, string | undefined>>();

    /** The teacher opens the next-step poll at this step; its options by the text the link shows. */
    async function open(step: number) {
      const opened = (await host.emit("poll:open", { kind: "next-step" })) as { ok: true; data: { pollId: string } };
      expect(opened.ok).toBe(true);
      await host.waitFor((c) => c.host().poll?.id === opened.data.pollId);
      const poll = host.host().poll!;
      liveNotes.set(step, new Map(poll.options.map((o) => [o.text, o.note])));
      // The live class's answer is the one the hand rule found for the assignment.
      expect(poll.options.find((o) => o.id === poll.correctOptionId)!.text).toBe(right.get(link.polls[step].id)!.text);
      return { pollId: opened.data.pollId, idOf: (o: Option) => poll.options.find((x) => x.text === o.text)!.id };
    }
    async function vote(name: string, pollId: string, optionId: string) {
      const kid = kids.get(name)!;
      await kid.waitFor((c) => c.public().poll?.id === pollId && c.public().poll?.status === "open");
      expect((await kid.emit("poll:vote", { pollId, optionId })).ok).toBe(true);
    }
    async function close(pollId: string) {
      expect((await host.emit("poll:close", { pollId })).ok).toBe(true);
      await host.waitFor((c) => c.host().poll?.status === "closed");
    }
    const at = (step: number) => link.polls[step];
    const r = (step: number) => right.get(at(step).id)!;

    // Step 1, first round: Oli changes his mind; the vote he left when the round closed is his first answer.
    const first = await open(0);
    const firstRound: [string, Option][] = [
      ["Lia", wrong(at(0), right, 0)],
      ["Max", r(0)],
      ["Noa", wrong(at(0), right, 1)],
      ["Oli", r(0)],
      ["Oli", wrong(at(0), right, 0)],
    ];
    for (const [name, o] of firstRound) await vote(name, first.pollId, first.idOf(o));
    await close(first.pollId);
    for (const [name, o] of firstRound.slice(0, 3).concat([firstRound[4]])) count(tally, wffcKey(0), name, o.text, o === r(0));
    // Second round after discussion: three vote, two of them right.
    expect((await host.emit("poll:reopen", { pollId: first.pollId })).ok).toBe(true);
    await host.waitFor((c) => c.host().poll?.status === "open");
    for (const [name, o] of [
      ["Lia", r(0)],
      ["Max", r(0)],
      ["Noa", wrong(at(0), right, 1)],
    ] as const)
      await vote(name, first.pollId, first.idOf(o));
    await close(first.pollId);

    // Step 3, one round.
    expect((await host.emit("step:go", { stepIndex: 2 })).ok).toBe(true);
    const third = await open(2);
    for (const [name, o] of [
      ["Lia", r(2)],
      ["Max", wrong(at(2), right, 2)],
      ["Noa", wrong(at(2), right, 2)],
    ] as const) {
      await vote(name, third.pollId, third.idOf(o));
      count(tally, wffcKey(2), name, o.text, o === r(2));
    }
    await close(third.pollId);
    expect((await host.emit("session:end", {})).ok).toBe(true);

    // A class started signed out is nobody's: it adds nothing to Ms Ana's results.
    const stranger = await srv.createSession("Not hers");
    const otherHost = track(await connectClient(srv.url, { role: "host", code: stranger.code, hostKey: stranger.hostKey }));
    const otherKid = track(await connectClient(srv.url, { role: "student", code: stranger.code, nickname: "Zoe" }));
    const otherPoll = (await otherHost.emit("poll:open", { kind: "next-step" })) as { ok: true; data: { pollId: string } };
    await otherKid.waitFor((c) => c.public().poll?.id === otherPoll.data.pollId);
    expect((await otherKid.emit("poll:vote", { pollId: otherPoll.data.pollId, optionId: "o1" })).ok).toBe(true);
    expect((await otherHost.emit("poll:close", { pollId: otherPoll.data.pollId })).ok).toBe(true);

    const results = await resultsOf(ana);
    expect(results.lessonKey).toBe("builtin");
    expect(results.results).toMatchObject({ sessions: 1, assignments: 1 });
    expectPolls(results, tally, link.polls);
    // The note beside each option is the one the class was shown live.
    for (const step of [0, 2]) {
      const poll = results.results.polls.find((p) => p.key === wffcKey(step))!;
      for (const o of poll.options) expect(o.note).toBe(liveNotes.get(step)!.get(o.text));
    }
    // Asked twice in class: round 1 had 1 right of 4, round 2 had 2 right of 3. Gain = (2/3 - 1/4) / (1 - 1/4) = 5/9.
    const twice = results.results.polls.find((p) => p.key === wffcKey(0))!;
    expect(twice.rounds).toMatchObject({ before: { right: 1, total: 4 }, after: { right: 2, total: 3 } });
    expect(twice.rounds!.gain).toBeCloseTo(5 / 9, 10);
    expect(results.results.polls.find((p) => p.key === wffcKey(2))!.rounds).toBeNull();

    // Per student (teacher only): each one's first answers and the misconceptions they chose, wherever they answered.
    const everyone = new Map<string, { answered: number; right: number; wrong: string[] }>();
    for (const [key, answers] of tally)
      for (const a of answers) {
        const me = everyone.get(a.name) ?? { answered: 0, right: 0, wrong: [] };
        everyone.set(a.name, {
          answered: me.answered + 1,
          right: me.right + (a.right ? 1 : 0),
          wrong: a.right ? me.wrong : [...me.wrong, `${key} ${a.text}`],
        });
      }
    expect(results.results.learners.map((l) => l.name).sort()).toEqual([...everyone.keys()].sort());
    for (const l of results.results.learners) {
      const me = everyone.get(l.name)!;
      expect({ answered: l.answered, right: l.right }, l.name).toEqual({ answered: me.answered, right: me.right });
      expect(l.misconceptions.map((m) => `${m.pollKey} ${m.text}`).sort()).toEqual([...me.wrong].sort());
    }

    await expectExports(ana, results, [...everyone.keys(), "Zoe"]);

    // Another teacher's results hold none of it.
    const bo = await teacher(srv, "Mr Bo");
    const his = await resultsOf(bo);
    expect(his.results).toMatchObject({ sessions: 0, assignments: 0, learners: [] });
    expect(his.results.polls.every((p) => p.firstAnswers === 0)).toBe(true);

    // Deleting the assignment takes its answers out of the results; the live class's stay.
    expect((await ana.request(`/api/assignments/${assignment.id}`, { method: "DELETE" })).status).toBe(200);
    const after = await resultsOf(ana);
    expect(after.results).toMatchObject({ sessions: 1, assignments: 0 });
    const liveOnly: Tally = new Map([...tally].map(([k, v]) => [k, v.filter((a) => names.includes(a.name))]));
    // Only the polls the class was asked are left.
    expect(after.results.polls.map((p) => p.key).sort()).toEqual([wffcKey(0), wffcKey(2)]);
    expectPolls(after, liveOnly, [link.polls[0], link.polls[2]]);
  });
});

describe("results of co-taught classes", () => {
  it("counts a class the teacher co-teaches, and a poll everyone got right in round 1 has no gain rather than a division by zero", async () => {
    const srv = await startServer();
    servers.push(srv);
    const ana = await teacher(srv, "Ms Ana");
    const bo = await teacher(srv, "Mr Bo");
    const live = await body<{ id: string; code: string; hostKey: string }>(await bo.post("/api/sessions", { title: "Bo's class" }), 201);
    expect((await bo.post(`/api/sessions/${live.id}/coteachers`, { email: "ms.ana@school.example" })).status).toBe(201);
    const host = track(await connectClient(srv.url, { role: "host", code: live.code, hostKey: live.hostKey }));
    const kid = track(await connectClient(srv.url, { role: "student", code: live.code, nickname: "Pia" }));
    const opened = (await host.emit("poll:open", { kind: "next-step" })) as { ok: true; data: { pollId: string } };
    await host.waitFor((c) => c.host().poll?.id === opened.data.pollId);
    const pollId = opened.data.pollId;
    const rightId = host.host().poll!.correctOptionId!;
    for (let round = 1; round <= 2; round++) {
      if (round === 2) expect((await host.emit("poll:reopen", { pollId })).ok).toBe(true);
      await kid.waitFor((c) => c.public().poll?.id === pollId && c.public().poll?.status === "open");
      expect((await kid.emit("poll:vote", { pollId, optionId: rightId })).ok).toBe(true);
      expect((await host.emit("poll:close", { pollId })).ok).toBe(true);
    }
    for (const who of [ana, bo]) {
      const results = await resultsOf(who);
      expect(results.results).toMatchObject({ sessions: 1, assignments: 0 });
      const poll = results.results.polls.find((p) => p.key === wffcKey(0))!;
      expect(poll).toMatchObject({ firstAnswers: 1, right: 1, rightShare: 1 });
      expect(poll.rounds).toMatchObject({ before: { right: 1, total: 1 }, after: { right: 1, total: 1 }, gain: null });
    }
    const csv = parseCsv(await (await ana.request("/api/results/builtin/export?sheet=polls")).text());
    expect(csv.slice(1).map((r) => r.slice(9))).toEqual(csv.slice(1).map(() => ["100.0", "100.0", ""]));
  });
});

/** Per poll: first answers, right, share right, and every option's times chosen equal the hand count. */
function expectPolls(results: Results, tally: Tally, polls: PublicPoll[]) {
  const keyed = new Map(results.results.polls.map((p) => [p.key, p]));
  expect(keyed.size).toBe(polls.length);
  for (const poll of polls) {
    const got = keyed.get(wffcKey(poll.stepIndex))!;
    expect(got, wffcKey(poll.stepIndex)).toBeDefined();
    const answers = tally.get(got.key) ?? [];
    const nRight = answers.filter((a) => a.right).length;
    expect({ firstAnswers: got.firstAnswers, right: got.right, rightShare: got.rightShare }, got.key).toEqual({
      firstAnswers: answers.length,
      right: nRight,
      rightShare: answers.length === 0 ? null : nRight / answers.length,
    });
    expect(got.options.map((o) => o.text).sort()).toEqual(poll.options.map((o) => o.text).sort());
    for (const o of got.options) expect(o.chosen, `${got.key} ${o.text}`).toBe(answers.filter((a) => a.text === o.text).length);
    // The wrong options are listed by how often they were chosen, most first.
    const wrongChosen = got.options.filter((o) => !o.correct).map((o) => o.chosen);
    expect(wrongChosen).toEqual([...wrongChosen].sort((a, b) => b - a));
    expect(got.options.filter((o) => o.correct)).toHaveLength(1);
  }
}

const percent = (share: number | null) => (share === null ? "" : (share * 100).toFixed(1));

/** Both CSV sheets say what the JSON says; the polls sheet names nobody. */
async function expectExports(ana: Awaited<ReturnType<typeof teacher>>, results: Results, nicknames: string[]) {
  const pollsRes = await ana.request("/api/results/builtin/export?sheet=polls");
  expect(pollsRes.status).toBe(200);
  expect(pollsRes.headers.get("content-type")).toMatch(/^text\/csv/);
  const pollsText = await pollsRes.text();
  for (const name of nicknames) expect(pollsText).not.toContain(name);
  const [header, ...rows] = parseCsv(pollsText);
  expect(header).toEqual([
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
  ]);
  const expected = results.results.polls.flatMap((p) =>
    p.options.map((o) => [
      p.key,
      p.question,
      String(p.firstAnswers),
      String(p.right),
      percent(p.rightShare),
      o.text,
      o.correct ? "yes" : "no",
      String(o.chosen),
      o.note,
      p.rounds ? percent(p.rounds.before.right / p.rounds.before.total) : "",
      p.rounds ? percent(p.rounds.after.right / p.rounds.after.total) : "",
      p.rounds?.gain != null ? p.rounds.gain.toFixed(3) : "",
    ]),
  );
  expect(rows).toEqual(expected);
  expect(rows.find((r) => r[0] === "step:WaitForFirstConsumer:standard:0")!.slice(9)).toEqual(["25.0", "66.7", "0.556"]);

  const studentsRes = await ana.request("/api/results/builtin/export?sheet=students");
  expect(studentsRes.status).toBe(200);
  const [sHeader, ...sRows] = parseCsv(await studentsRes.text());
  expect(sHeader).toEqual(["student", "answered", "right", "question", "chose", "misconception", "where", "when"]);
  const sExpected = results.results.learners.flatMap((l) =>
    l.misconceptions.map((m) => [
      l.name,
      String(l.answered),
      String(l.right),
      m.question,
      m.text,
      m.note,
      `${m.source.kind}: ${m.source.title}`,
    ]),
  );
  expect(sRows.map((r) => r.slice(0, 7))).toEqual(sExpected);
  expect(sRows.every((r) => !Number.isNaN(Date.parse(r[7])))).toBe(true);
}
