import { describe, expect, it } from "vitest";
import { RATE_LIMITS } from "../../lib/constants";
import type { QuestionsState } from "../../lib/protocol/replica";
import type { ClassQuestion, HostQuestion } from "../../lib/session";
import { connectClient, rawJoin, serverPerTest, waitUntil } from "./harness";

const t = serverPerTest();
const track = t.track;

/** A client that keeps the questions the way the browser does (its replica), and every message it received (to look for leaks). */
interface Asker {
  client: Awaited<ReturnType<typeof connectClient>>;
  questions: () => QuestionsState | null;
  /** The teacher's count of students looking back; null until one arrived (never, for a student). */
  lookingBack: () => number | null;
  /** Every server message, as JSON text. */
  heard: string[];
}

async function join(auth: Record<string, unknown>, url = t.srv.url): Promise<Asker> {
  const heard: string[] = [];
  const client = track(
    await connectClient(url, auth, {
      listen: (socket) => socket.onAny((event: string, ...args: unknown[]) => heard.push(JSON.stringify([event, ...args]))),
    }),
  );
  return {
    client,
    questions: () => client.questions(),
    lookingBack: () => client.replica.single<{ count: number }>("host", "lookback")?.count ?? null,
    heard,
  };
}

/** connectClient waits for the session record; the questions come in the same whole patch. */
async function classroom() {
  const { code, hostKey, id } = await t.srv.createSession();
  const host = await join({ role: "host", code, hostKey });
  const projector = await join({ role: "projector", code });
  const ada = await join({ role: "student", code, nickname: "Ada" });
  const bo = await join({ role: "student", code, nickname: "Bo" });
  const cy = await join({ role: "student", code, nickname: "Cy" });
  const everyone = [host, projector, ada, bo, cy];
  await waitUntil(() => everyone.every((c) => c.questions() !== null));
  expect((await host.client.emit("step:go", { stepIndex: 8 })).ok).toBe(true);
  return { code, hostKey, id, host, projector, ada, bo, cy, everyone };
}

const classQuestions = (c: Asker): ClassQuestion[] => {
  const q = c.questions();
  if (q?.audience !== "public") throw new Error("not the class's questions");
  return q.questions;
};
const hostQuestions = (c: Asker): HostQuestion[] => {
  const q = c.questions();
  if (q?.audience !== "host") throw new Error("not the teacher's questions");
  return q.questions;
};
/** A student's own questions ("yours"), as their page marks them. */
const mine = (c: Asker): string[] => {
  const q = c.questions();
  return q?.audience === "public" ? q.mine : [];
};
const ARROW_5 = { kind: "arrow", stepIndex: 4 } as const;

describe("questions over real sockets", () => {
  it("a question on step 5's arrow reaches everyone; upvotes count once each; the teacher shows and answers it", async () => {
    const { host, projector, ada, bo, cy, everyone } = await classroom();
    const asked = await ada.client.emit("question:ask", { text: "  Why is this arrow dashed?  ", target: ARROW_5 });
    expect(asked).toMatchObject({ ok: true, data: { status: "open" } });
    const questionId = (asked as { ok: true; data: { questionId: string } }).data.questionId;
    for (const c of [projector, ada, bo, cy]) {
      await waitUntil(() => classQuestions(c).some((q) => q.id === questionId));
      expect(classQuestions(c)).toEqual([
        expect.objectContaining({
          id: questionId,
          text: "Why is this arrow dashed?",
          target: ARROW_5,
          votes: 0,
          by: "Ada",
          status: "open",
        }),
      ]);
    }
    await waitUntil(() => hostQuestions(host).length === 1);

    expect(await bo.client.emit("question:upvote", { questionId, upvoted: true })).toEqual({
      ok: true,
      data: { questionId, upvoted: true, votes: 1 },
    });
    // Twice is still once; and nobody upvotes their own.
    expect(await bo.client.emit("question:upvote", { questionId, upvoted: true })).toMatchObject({ ok: true, data: { votes: 1 } });
    expect(await ada.client.emit("question:upvote", { questionId, upvoted: true })).toMatchObject({
      ok: false,
      error: { code: "BAD_REQUEST" },
    });
    expect(await cy.client.emit("question:upvote", { questionId, upvoted: true })).toMatchObject({ ok: true, data: { votes: 2 } });
    for (const c of everyone) await waitUntil(() => c.questions()?.questions[0]?.votes === 2);
    expect(bo.questions()).toMatchObject({ myUpvotes: [questionId] });
    expect(cy.questions()).toMatchObject({ mine: [], myUpvotes: [questionId] });
    // Ada's page marks her question as hers (her own records say so, on every tab); a resync lists it as hers too.
    await waitUntil(() => mine(ada).includes(questionId));
    expect(bo.questions()).toMatchObject({ mine: [] });
    const wholeBefore = ada.client.patches.filter((p) => p.whole).length;
    // The whole patches come before the ack, on the same socket.
    expect((await ada.client.emit("session:sync", {})).ok).toBe(true);
    expect(
      ada.client.patches
        .filter((p) => p.whole)
        .map((p) => p.stream)
        .slice(wholeBefore),
    ).toEqual(["public", "me"]);
    expect(ada.questions()).toMatchObject({ mine: [questionId], myUpvotes: [], questions: [{ id: questionId, votes: 2 }] });

    expect((await host.client.emit("question:show", { questionId })).ok).toBe(true);
    for (const c of everyone) await c.client.waitFor((x: Asker["client"]) => x.latest().questions.shownId === questionId);
    expect((await host.client.emit("question:answer", { questionId, answered: true })).ok).toBe(true);
    for (const c of everyone) await waitUntil(() => c.questions()?.questions[0]?.status === "answered");

    // A late joiner gets the list whole, with counts and the shown question.
    const late = await join({ role: "student", code: host.client.latest().code, nickname: "Di" });
    await waitUntil(() => late.questions() !== null);
    expect(classQuestions(late)).toEqual([expect.objectContaining({ id: questionId, votes: 2, status: "answered" })]);
    expect(late.client.latest().questions.shownId).toBe(questionId);
  });

  it("moderated: nobody but the asker and the teacher sees a question before approval", async () => {
    const { host, projector, ada, bo, cy } = await classroom();
    expect((await host.client.emit("questions:configure", { mode: "moderated", names: "either" })).ok).toBe(true);
    await bo.client.waitFor((x: Asker["client"]) => x.latest().questions.mode === "moderated");
    const asked = await ada.client.emit("question:ask", { text: "The secret pending question", target: ARROW_5 });
    expect(asked).toMatchObject({ ok: true, data: { status: "pending" } });
    const questionId = (asked as { ok: true; data: { questionId: string } }).data.questionId;
    await waitUntil(() => classQuestions(ada).some((q) => q.id === questionId && q.status === "pending"));
    await waitUntil(() => hostQuestions(host).some((q) => q.id === questionId && q.status === "pending"));
    // An upvote on it answers exactly like a made-up id; a resync does not bring it either.
    expect(await bo.client.emit("question:upvote", { questionId, upvoted: true })).toMatchObject({
      ok: false,
      error: { code: "NO_SUCH_QUESTION" },
    });
    expect((await bo.client.emit("session:sync", {})).ok).toBe(true);
    for (const c of [bo, cy, projector]) expect(classQuestions(c)).toEqual([]);
    expect((await host.client.emit("question:approve", { questionId })).ok).toBe(true);
    for (const c of [bo, cy, projector]) await waitUntil(() => classQuestions(c).some((q) => q.id === questionId && q.status === "open"));
    // The approval is the first the class heard of it: question changes reach each socket in the order they were
    // made, so anything sent about it while it waited would have come before.
    for (const c of [bo, cy, projector]) expect(c.heard.find((m) => m.includes("secret pending"))).toContain('"status":"open"');
  });

  it("never lets a student learn who asked an anonymous question, on the wire or in a shared replay", async () => {
    const { host, projector, ada, bo, cy, id, hostKey } = await classroom();
    const adaId = ada.client.welcome!.participantId!;
    const asked = await ada.client.emit("question:ask", {
      text: "Anonymous worry",
      target: { kind: "note", stepIndex: 8 },
      anonymous: true,
    });
    const questionId = (asked as { ok: true; data: { questionId: string } }).data.questionId;
    await bo.client.emit("question:upvote", { questionId, upvoted: true });
    await host.client.emit("question:show", { questionId });
    for (const c of [bo, cy, projector]) await waitUntil(() => classQuestions(c)[0]?.votes === 1);
    // A resync and a fresh socket too.
    await bo.client.emit("session:sync", {});
    const late = await join({ role: "student", code: ada.client.latest().code });
    await waitUntil(() => late.questions() !== null);
    // Everything the class was sent about it so far has arrived once a later change to it has (changes to the
    // questions reach each socket in order): the teacher marks it answered.
    expect((await host.client.emit("question:answer", { questionId, answered: true })).ok).toBe(true);
    for (const c of [bo, cy, projector, late]) await waitUntil(() => classQuestions(c)[0]?.status === "answered");
    for (const c of [bo, cy, projector, late]) {
      const wire = c.heard.join("\n");
      expect(wire).toContain("Anonymous worry");
      expect(wire).not.toContain(adaId);
      expect(wire).not.toContain('"Ada"');
    }
    expect(classQuestions(bo)[0].by).toBeNull();
    // The teacher's console does not print the name either (it may be on the projector's mirror).
    expect(hostQuestions(host)[0]).toMatchObject({ by: null, anonymous: true });

    // A shared replay link: the anonymous question is there, its asker is not.
    const share = await fetch(`${t.srv.url}/api/sessions/${id}/share`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-host-key": hostKey },
    });
    const { replayKey } = (await share.json()) as { replayKey: string };
    const shared = (await (await fetch(`${t.srv.url}/api/sessions/${id}/events`, { headers: { "x-replay-key": replayKey } })).json()) as {
      events: { type: string; question?: { participantId: string; text: string }; participantId?: string }[];
    };
    const askedEvent = shared.events.find((e) => e.type === "question:asked")!;
    expect(askedEvent.question).toMatchObject({ text: "Anonymous worry", participantId: "" });
    expect(shared.events.filter((e) => e.type === "question:upvoted").map((e) => e.participantId)).not.toContain(
      bo.client.welcome!.participantId,
    );
  });

  it("a student cannot ask or upvote as another, nor drive the questions", async () => {
    const { host, ada, bo } = await classroom();
    const adaId = ada.client.welcome!.participantId!;
    // Extra keys naming someone else are stripped: the server knows who sent it.
    const forged = await bo.client.emit("question:ask", {
      text: "Posted as Ada?",
      target: ARROW_5,
      participantId: adaId,
      by: "Ada",
      status: "answered",
    } as never);
    expect(forged).toMatchObject({ ok: true, data: { status: "open" } });
    await waitUntil(() => hostQuestions(host).length === 1);
    expect(hostQuestions(host)[0]).toMatchObject({ by: "Bo", status: "open", votes: 0 });
    const questionId = hostQuestions(host)[0].id;
    // The same by hand on the raw wire, with Ada's id where the upvoter would go.
    const raw = await rawJoin(t.srv.url, { role: "student", code: ada.client.latest().code, token: bo.client.welcome!.token });
    expect(await raw.raw.emit("question:upvote", { questionId, upvoted: true, participantId: adaId })).toMatchObject({
      ok: false,
      error: { code: "BAD_REQUEST" },
    });
    raw.raw.close();
    // Teacher commands from a student, student commands from the teacher.
    for (const [event, payload] of [
      ["question:approve", { questionId }],
      ["question:answer", { questionId, answered: true }],
      ["question:hide", { questionId, hidden: true }],
      ["question:show", { questionId }],
      ["questions:configure", { mode: "off", names: "either" }],
    ] as const) {
      expect(await ada.client.emit(event, payload as never)).toMatchObject({ ok: false, error: { code: "NOT_HOST" } });
    }
    for (const [event, payload] of [
      ["question:ask", { text: "teacher?", target: ARROW_5 }],
      ["question:upvote", { questionId, upvoted: true }],
      ["lookback:set", { lookingBack: true }],
    ] as const) {
      expect(await host.client.emit(event, payload as never)).toMatchObject({ ok: false, error: { code: "NOT_STUDENT" } });
    }
    // Malformed: too long, empty after cleaning, a step never shown, an unknown element.
    const bad = [
      { text: "x".repeat(2000), target: ARROW_5 },
      { text: "\u200b\u200b ", target: ARROW_5 },
      { text: "ahead?", target: { kind: "arrow", stepIndex: 11 } },
      { text: "what?", target: { kind: "banner", stepIndex: 1 } },
      { text: "who?", target: { kind: "lifeline", stepIndex: 1, lifeline: "etcd" } },
    ];
    const codes = [];
    for (const payload of bad) {
      // A refused question spends the asker's allowance too (three at once): a fresh student for each.
      const student = await join({ role: "student", code: ada.client.latest().code });
      const ack = await student.client.emit("question:ask", payload as never);
      codes.push(ack.ok ? "ok" : ack.error.code);
    }
    // A lifeline id is checked against the session's lesson (a teacher's lesson has its own), so "etcd" is no element of this one.
    expect(codes).toEqual(["BAD_REQUEST", "BAD_REQUEST", "NO_SUCH_ELEMENT", "BAD_REQUEST", "NO_SUCH_ELEMENT"]);
    expect(hostQuestions(host)).toHaveLength(1);
  });

  it("limits how fast one student asks, across reconnects; turning questions off stops them", async () => {
    const { host, ada, code } = await classroom();
    const token = ada.client.welcome!.token!;
    const acks = [];
    for (let i = 0; i < RATE_LIMITS.questions.capacity; i++)
      acks.push(await ada.client.emit("question:ask", { text: `q${i}`, target: ARROW_5 }));
    expect(acks.every((a) => a.ok)).toBe(true);
    expect(await ada.client.emit("question:ask", { text: "one more", target: ARROW_5 })).toMatchObject({
      ok: false,
      error: { code: "RATE_LIMITED" },
    });
    ada.client.close();
    const again = track(await connectClient(t.srv.url, { role: "student", code, token }));
    expect(await again.emit("question:ask", { text: "after reconnect", target: ARROW_5 })).toMatchObject({
      ok: false,
      error: { code: "RATE_LIMITED" },
    });
    const bo = await join({ role: "student", code });
    expect((await host.client.emit("questions:configure", { mode: "off", names: "either" })).ok).toBe(true);
    expect(await bo.client.emit("question:ask", { text: "off?", target: ARROW_5 })).toMatchObject({
      ok: false,
      error: { code: "QUESTIONS_OFF" },
    });
  });

  it("hides a removed student's questions from the class at once", async () => {
    const { host, ada, bo, projector } = await classroom();
    const asked = await ada.client.emit("question:ask", { text: "Rude question", target: ARROW_5 });
    const questionId = (asked as { ok: true; data: { questionId: string } }).data.questionId;
    for (const c of [bo, projector]) await waitUntil(() => classQuestions(c).length === 1);
    await host.client.emit("question:show", { questionId });
    expect((await host.client.emit("participant:remove", { participantId: ada.client.welcome!.participantId! })).ok).toBe(true);
    for (const c of [bo, projector]) {
      await waitUntil(() => classQuestions(c).length === 0);
      await c.client.waitFor((x: Asker["client"]) => x.latest().questions.shownId === null);
    }
    await waitUntil(() => hostQuestions(host)[0]?.askerRemoved === true);
  });

  it("counts students looking back for the teacher (a number, never who), and logs nothing", async () => {
    const { host, ada, bo, cy, code, hostKey } = await classroom();
    await waitUntil(() => host.lookingBack() === 0);
    const sessionId = host.client.welcome!.sessionId;
    const logged = (await t.srv.store.loadEvents(sessionId)).length;
    expect(await ada.client.emit("lookback:set", { lookingBack: true })).toEqual({ ok: true, data: null });
    expect((await bo.client.emit("lookback:set", { lookingBack: true })).ok).toBe(true);
    await waitUntil(() => host.lookingBack() === 2);
    // The students hear nothing of it.
    expect(cy.heard.join("\n")).not.toContain("lookback");
    expect(await bo.client.emit("lookback:set", { lookingBack: false })).toEqual({ ok: true, data: null });
    await waitUntil(() => host.lookingBack() === 1);
    // A teacher's second window hears the count as it joins.
    const second = await join({ role: "host", code, hostKey });
    expect(second.lookingBack()).toBe(1);
    ada.client.close();
    await waitUntil(() => host.lookingBack() === 0 && second.lookingBack() === 0);
    expect(await t.srv.store.loadEvents(sessionId)).toHaveLength(logged);
  });

  it("counts a student with two tabs as looking back while either tab does", async () => {
    const { host, ada, cy, code } = await classroom();
    const token = ada.client.welcome!.token!;
    const phone = await join({ role: "student", code, token });
    expect(phone.client.welcome!.participantId).toBe(ada.client.welcome!.participantId);
    expect((await ada.client.emit("lookback:set", { lookingBack: true })).ok).toBe(true);
    await waitUntil(() => host.lookingBack() === 1);
    // The other tab is live: the first one still looks back.
    expect((await phone.client.emit("lookback:set", { lookingBack: true })).ok).toBe(true);
    expect((await phone.client.emit("lookback:set", { lookingBack: false })).ok).toBe(true);
    // The count reaches the console at most twice a second, the latest figure each time: Cy looking back too makes
    // it 2 only if Ada still counts (a count that forgot her would read 1).
    expect((await cy.client.emit("lookback:set", { lookingBack: true })).ok).toBe(true);
    await waitUntil(() => host.lookingBack() === 2);
    // The tab that looks back closes; Ada is still here, live on her phone: only Cy is looking back.
    ada.client.close();
    await waitUntil(() => host.lookingBack() === 1);
  });
});
