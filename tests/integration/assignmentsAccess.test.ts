import { afterEach, describe, expect, it } from "vitest";
import { CookieClient } from "../support/cookieClient";
import { connectClient, type TestClient } from "../support/testClient";
import { startServer, type TestServer } from "../support/testServer";
import {
  Student,
  assign,
  body,
  progressOf,
  publicOf,
  refusal,
  resultsOf,
  rightByHand,
  teacher,
  wrong,
  type Made,
  type TeacherProgress,
} from "./assignmentsWorld";

/**
 * Who may do what with an assignment, from outside: a closed or past-due one refuses new students and answers
 * and opens again, a required nickname, what the link alone reveals (nothing of anyone's), another teacher and a
 * signed-out browser, another site, which sessions can be assigned, and deleting.
 */

const servers: TestServer[] = [];
const clients: TestClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  for (const s of servers.splice(0)) await s.close();
});
async function server() {
  const srv = await startServer();
  servers.push(srv);
  return srv;
}
const patch = (browser: CookieClient, id: string, json: unknown) => browser.request(`/api/assignments/${id}`, { method: "PATCH", json });

describe("closing and due dates", () => {
  it("a closed or past-due assignment refuses new students and answers with a clear message, and reopening works", async () => {
    const srv = await server();
    const ana = await teacher(srv, "Ms Ana");
    const { assignment } = await assign(ana);
    const id = assignment.id;
    const early = await Student.start(srv.url, id, "Early");

    const closed = await body<TeacherProgress>(await patch(ana, id, { closed: true }));
    expect(closed.closedAt).toEqual(expect.any(Number));
    const late = await Student.startRaw(srv.url, id, { nickname: "Late" });
    const lateBody = (await late.clone().json()) as { error: { message: string } };
    expect(await refusal(late)).toEqual([409, "ASSIGNMENT_CLOSED"]);
    expect(lateBody.error.message).toMatch(/closed/i);
    expect(await refusal(await early.answerRaw("p1", "o1"))).toEqual([409, "ASSIGNMENT_CLOSED"]);

    expect((await body<TeacherProgress>(await patch(ana, id, { closed: false }))).closedAt).toBeNull();
    const late2 = await Student.start(srv.url, id, "Late");
    await early.answer("p1", "o1");

    const due = await body<TeacherProgress>(await patch(ana, id, { dueAt: Date.now() - 60_000 }));
    expect(due.dueAt).toBeLessThan(Date.now());
    const tooLate = await Student.startRaw(srv.url, id, { nickname: "Later" });
    const tooLateBody = (await tooLate.clone().json()) as { error: { message: string } };
    expect(await refusal(tooLate)).toEqual([409, "ASSIGNMENT_DUE"]);
    expect(tooLateBody.error.message).toMatch(/due/i);
    expect(await refusal(await late2.answerRaw("p1", "o2"))).toEqual([409, "ASSIGNMENT_DUE"]);
    // What was answered before stays readable.
    expect((await early.me()).answers.map((a) => a.optionId)).toEqual(["o1"]);

    expect((await body<TeacherProgress>(await patch(ana, id, { dueAt: Date.now() + 3_600_000 }))).dueAt).toBeGreaterThan(Date.now());
    await Student.start(srv.url, id, "Later");
    await late2.answer("p1", "o2");
    const progress = await progressOf(ana, id);
    expect(progress.started).toBe(3);
    expect(progress.polls[0].answered).toBe(2);
    expect(progress.polls[0].options.filter((o) => o.count > 0).map((o) => [o.id, o.count])).toEqual([
      ["o1", 1],
      ["o2", 1],
    ]);
  });

  it("asks for a nickname when the teacher requires one", async () => {
    const srv = await server();
    const ana = await teacher(srv, "Ms Ana");
    const { assignment } = await assign(ana, { requireNickname: true });
    expect((await publicOf(srv.url, assignment.id)).requireNickname).toBe(true);
    for (const json of [{}, { nickname: "" }, { nickname: "   " }, { nickname: "\u200b\u202e" }])
      expect(await refusal(await Student.startRaw(srv.url, assignment.id, json)), JSON.stringify(json)).toEqual([400, "NICKNAME_REQUIRED"]);
    expect((await Student.start(srv.url, assignment.id, "  Ada  ")).view.nickname).toBe("Ada");
    expect((await progressOf(ana, assignment.id)).started).toBe(1);
  });
});

describe("what each person can read and change", () => {
  it("the link alone reveals no right answer, note, answer or nickname, even after students answered", async () => {
    const srv = await server();
    const ana = await teacher(srv, "Ms Ana");
    const { assignment } = await assign(ana);
    const link = await publicOf(srv.url, assignment.id);
    const right = rightByHand(link.polls);
    const names = ["Quinn Zebedee", "Rowan Ypsilanti"];
    const students = [];
    for (const [i, name] of names.entries()) {
      const s = await Student.start(srv.url, assignment.id, name);
      await s.answer("p1", i === 0 ? right.get("p1")!.id : wrong(link.polls[0], right).id);
      students.push(s);
    }
    const notes = (await resultsOf(ana)).results.polls.flatMap((p) => p.options.map((o) => o.note));
    expect(notes.length).toBe(44);
    const progress = await progressOf(ana, assignment.id);

    // As a stranger, and as a student holding a token: the same public copy.
    for (const headers of [{}, { "x-assignment-token": students[1].token }] as Record<string, string>[]) {
      const text = await (await fetch(`${srv.url}/api/assignments/${assignment.id}`, { headers })).text();
      expect(text).not.toMatch(/"(correct|correctOptionId|note|rightNote|count|answered|answers|students|nickname)"/);
      for (const note of notes) expect(text).not.toContain(note);
      for (const s of [...names, ...students.map((x) => x.token), ...progress.students.map((x) => x.id)]) expect(text).not.toContain(s);
    }
    // A student's token reads their own answers, never the teacher's pages.
    for (const path of [`?view=progress`, `/export`])
      expect(
        await refusal(
          await fetch(`${srv.url}/api/assignments/${assignment.id}${path}`, { headers: { "x-assignment-token": students[0].token } }),
        ),
      ).toEqual([401, "SIGNED_OUT"]);
    const own = JSON.stringify(await students[1].me());
    expect(own).not.toContain(names[0]);
    expect(own).not.toContain(progress.students.find((s) => s.nickname === names[0])!.id);
  });

  it("a teacher's own lesson: the link carries neither its speaker notes nor its misconception notes; the answer does", async () => {
    const srv = await server();
    const ana = await teacher(srv, "Ms Ana");
    const arrow = (from: string, to: string, title: string, wrongNote: string) => ({
      from,
      to,
      line: "solid",
      head: "filled",
      title,
      speakerNotes: `Speaker note about ${title}, for the teacher alone`,
      wrongNote,
    });
    const steps = [
      arrow("C", "S", "Hello", "Misconception: the server speaks first"),
      arrow("S", "C", "Welcome", "Misconception: nobody answers a hello"),
      arrow("C", "S", "Ready", "Misconception: ready comes before welcome"),
      arrow("C", "S", "Payload", "Misconception: data flows before the handshake ends"),
    ];
    const lesson = {
      title: "Handshake",
      lifelines: [
        { id: "C", name: "Client" },
        { id: "S", name: "Server" },
      ],
      steps,
    };
    const saved = await body<{ id: string }>(await ana.post("/api/lessons", { lesson, source: "sequenceDiagram\n  C->>S: Hello\n" }), 201);
    const made = await assign(ana, { source: { kind: "lesson", lessonId: saved.id } });
    const text = await (await fetch(`${srv.url}/api/assignments/${made.assignment.id}`)).text();
    for (const st of steps) {
      expect(text).not.toContain(st.wrongNote);
      expect(text).not.toContain(st.speakerNotes);
    }
    const link = await publicOf(srv.url, made.assignment.id);
    const first = link.polls.find((p) => p.stepIndex === 0)!;
    // At step 1 the next arrow is Welcome; Payload comes later, and its note says what choosing it means.
    const payload = first.options.find((o) => o.text.includes("Payload"))!;
    const s = await Student.start(srv.url, made.assignment.id, "Ada");
    const { feedback } = await s.answer(first.id, payload.id);
    expect(feedback.correct).toBe(false);
    expect(feedback.note).toBe(steps[3].wrongNote);
    expect(first.options.find((o) => o.id === feedback.correctOptionId)!.text).toContain("Welcome");
  });

  it("another teacher cannot read, export, change, delete or count an assignment; a signed-out browser gets 401", async () => {
    const srv = await server();
    const ana = await teacher(srv, "Ms Ana");
    const { assignment } = await assign(ana);
    const id = assignment.id;
    const s = await Student.start(srv.url, id, "Ada");
    await s.answer("p1", "o1");
    const before = await progressOf(ana, id);

    const bo = await teacher(srv, "Mr Bo");
    const attempts = [
      bo.request(`/api/assignments/${id}?view=progress`),
      bo.request(`/api/assignments/${id}/export`),
      patch(bo, id, { closed: true }),
      bo.request(`/api/assignments/${id}`, { method: "DELETE" }),
    ];
    for (const res of attempts) expect(await refusal(await res)).toEqual([404, "NO_SUCH_ASSIGNMENT"]);
    expect((await bo.getJson<{ assignments: unknown[] }>("/api/assignments")).assignments).toEqual([]);
    const his = await resultsOf(bo);
    expect(his.results).toMatchObject({ assignments: 0, learners: [] });
    expect(his.results.polls.every((p) => p.firstAnswers === 0)).toBe(true);
    expect((await bo.request("/api/results/builtin/export?sheet=students").then((r) => r.text())).includes("Ada")).toBe(false);

    const nobody = new CookieClient(srv.url);
    const signedOut = [
      nobody.post("/api/assignments", { source: { kind: "builtin", mode: "WaitForFirstConsumer" } }),
      nobody.request("/api/assignments"),
      nobody.request(`/api/assignments/${id}?view=progress`),
      nobody.request(`/api/assignments/${id}/export`),
      patch(nobody, id, { closed: true }),
      nobody.request(`/api/assignments/${id}`, { method: "DELETE" }),
      nobody.request("/api/results/builtin"),
      nobody.request("/api/results/builtin/export?sheet=polls"),
    ];
    for (const res of signedOut) expect(await refusal(await res)).toEqual([401, "SIGNED_OUT"]);

    // Nothing changed for its teacher.
    expect(await progressOf(ana, id)).toEqual(before);
  });

  it("refuses writes from another site before reading them", async () => {
    const srv = await server();
    const ana = await teacher(srv, "Ms Ana");
    const { assignment } = await assign(ana);
    const s = await Student.start(srv.url, assignment.id, "Ada");
    const evil = { origin: "https://evil.example" };
    const crossSite = { "sec-fetch-site": "cross-site" };
    const attempts = [
      Student.startRaw(srv.url, assignment.id, { nickname: "Forged" }, evil),
      Student.startRaw(srv.url, assignment.id, { nickname: "Forged" }, crossSite),
      s.call("answer", { json: { pollId: "p1", optionId: "o1" }, headers: evil }),
      s.call("progress", { json: { stepIndex: 0 }, headers: crossSite }),
      ana.request("/api/assignments", { method: "POST", json: { source: { kind: "builtin", mode: "Immediate" } }, origin: evil.origin }),
      ana.request(`/api/assignments/${assignment.id}`, { method: "PATCH", json: { closed: true }, origin: evil.origin }),
      ana.request(`/api/assignments/${assignment.id}`, { method: "DELETE", origin: evil.origin }),
    ];
    for (const res of attempts) expect(await refusal(await res)).toEqual([403, "CROSS_ORIGIN"]);
    const progress = await progressOf(ana, assignment.id);
    expect({ started: progress.started, answered: progress.polls[0].answered, closedAt: progress.closedAt }).toEqual({
      started: 1,
      answered: 0,
      closedAt: null,
    });
    expect((await ana.getJson<{ assignments: unknown[] }>("/api/assignments")).assignments).toHaveLength(1);
  });
});

describe("sources and deleting", () => {
  it("assigns only the account's ended sessions, with the polls the teacher asked", async () => {
    const srv = await server();
    const ana = await teacher(srv, "Ms Ana");
    const bo = await teacher(srv, "Mr Bo");
    const fromSession = (browser: CookieClient, sessionId: string) =>
      browser.post("/api/assignments", { source: { kind: "session", sessionId } });

    expect(await refusal(await fromSession(ana, crypto.randomUUID()))).toEqual([404, "NO_SUCH_SESSION"]);
    expect((await refusal(await fromSession(ana, "not-a-session")))[0]).toBeGreaterThanOrEqual(400);

    const live = await body<{ id: string; code: string; hostKey: string }>(await ana.post("/api/sessions", { title: "Live" }), 201);
    const host = await connectClient(srv.url, { role: "host", code: live.code, hostKey: live.hostKey });
    clients.push(host);
    // Asked at steps 2 and 5.
    for (const step of [1, 4]) {
      expect((await host.emit("step:go", { stepIndex: step })).ok).toBe(true);
      const opened = (await host.emit("poll:open", { kind: "next-step" })) as { ok: true; data: { pollId: string } };
      expect((await host.emit("poll:close", { pollId: opened.data.pollId })).ok).toBe(true);
    }
    expect(await refusal(await fromSession(ana, live.id))).toEqual([409, "SESSION_LIVE"]);
    expect((await host.emit("session:end", {})).ok).toBe(true);
    // Another teacher's ended session is not theirs to assign.
    expect(await refusal(await fromSession(bo, live.id))).toEqual([404, "NO_SUCH_SESSION"]);

    const made = await body<Made>(await fromSession(ana, live.id), 201);
    expect(made.assignment.pollCount).toBe(2);
    const link = await publicOf(srv.url, made.assignment.id);
    expect(link.polls.map((p) => p.stepIndex)).toEqual([1, 4]);
    expect(link.polls.map((p) => p.question)).toEqual(["What happens next, after CREATE POD?", "What happens next, after NODE CHOSEN?"]);
  });

  it("deleting an assignment makes its link 404 and takes it out of the teacher's list and results", async () => {
    const srv = await server();
    const ana = await teacher(srv, "Ms Ana");
    const { assignment } = await assign(ana);
    const id = assignment.id;
    const s = await Student.start(srv.url, id, "Ada");
    await s.answer("p1", "o1");
    expect((await resultsOf(ana)).results).toMatchObject({ assignments: 1, learners: [{ name: "Ada" }] });

    expect(await body<{ deleted: boolean }>(await ana.request(`/api/assignments/${id}`, { method: "DELETE" }))).toEqual({ deleted: true });
    for (const res of [
      await fetch(`${srv.url}/api/assignments/${id}`),
      await Student.startRaw(srv.url, id, { nickname: "Late" }),
      await s.call("me"),
      await s.answerRaw("p1", "o1"),
      await ana.request(`/api/assignments/${id}?view=progress`),
      await ana.request(`/api/assignments/${id}`, { method: "DELETE" }),
    ])
      expect(await refusal(res)).toEqual([404, "NO_SUCH_ASSIGNMENT"]);
    expect((await ana.getJson<{ assignments: unknown[] }>("/api/assignments")).assignments).toEqual([]);
    expect((await resultsOf(ana)).results).toMatchObject({ assignments: 0, sessions: 0, learners: [], polls: [] });
  });
});
