import { describe, expect, it } from "vitest";
import { MAX_QUESTIONS_PER_PARTICIPANT, MAX_QUESTIONS_PER_SESSION, MAX_UPVOTE_CHANGES_PER_QUESTION } from "../constants";
import { MAX_PENDING_QUESTIONS_PER_ADDRESS, MAX_PENDING_QUESTIONS_PER_PARTICIPANT } from "./limits";
import { decide } from "./decide";
import { ARROW_5, T0, ask, room, upvote } from "../../tests/support/questionRoom";
import { shareableLog } from "./export";
import { classQuestionList, groupQuestions, hostQuestionList } from "./questions";
import { replay } from "./reducer";
import { ReplayTimeline } from "./timeline";
import type { SessionEvent } from "./types";
import { toPublicSnapshot } from "./views";

function errorCode(decision: ReturnType<ReturnType<typeof room>["run"]>): string | null {
  return decision.ok ? null : decision.error.code;
}

describe("questions: decide", () => {
  it("pins a question to a shown part of the diagram, never ahead of the class", () => {
    const r = room();
    expect(r.run(ask("Why dashed?", ARROW_5), "ada")).toEqual({
      ok: true,
      events: [
        {
          type: "question:asked",
          question: { id: "q1", participantId: "ada", text: "Why dashed?", anonymous: false, target: ARROW_5 },
          pending: false,
        },
      ],
      data: { questionId: "q1", status: "open" },
    });
    expect(r.state.questions.q1).toMatchObject({ mode: "WaitForFirstConsumer", variant: "standard", status: "open", votes: 0 });
    // Step 10 has not been shown; step 2 has no note; step 9 has one; every lifeline can be asked about.
    expect(errorCode(r.run(ask("later?", { kind: "arrow", stepIndex: 9 }), "ada"))).toBe("NO_SUCH_ELEMENT");
    expect(errorCode(r.run(ask("note?", { kind: "note", stepIndex: 1 }), "ada"))).toBe("NO_SUCH_ELEMENT");
    expect(r.run(ask("note!", { kind: "note", stepIndex: 8 }), "ada").ok).toBe(true);
    expect(r.run(ask("who?", { kind: "lifeline", stepIndex: 2, lifeline: "scheduler" }), "bo").ok).toBe(true);
    // Only a student asks.
    expect(errorCode(r.run(ask("teacher?", ARROW_5), null))).toBe("NOT_STUDENT");
  });

  it("follows the teacher's settings: off, moderated, and whose names questions carry", () => {
    const r = room();
    expect(r.run({ event: "questions:configure", payload: { mode: "off", names: "either" } }).ok).toBe(true);
    expect(errorCode(r.run(ask("hello?", ARROW_5), "ada"))).toBe("QUESTIONS_OFF");
    r.run({ event: "questions:configure", payload: { mode: "moderated", names: "named" } });
    expect(errorCode(r.run(ask("anon?", ARROW_5, true), "ada"))).toBe("NAMES_REQUIRED");
    expect(r.run(ask("named", ARROW_5), "ada")).toMatchObject({ ok: true, data: { status: "pending" } });
    r.run({ event: "questions:configure", payload: { mode: "open", names: "anonymous" } });
    // Asking with a name where questions are anonymous is safe: the question carries none.
    expect(r.run(ask("signed?", ARROW_5, false), "bo")).toMatchObject({ ok: true, events: [{ question: { anonymous: true } }] });
    // The same settings again write nothing.
    expect(r.run({ event: "questions:configure", payload: { mode: "open", names: "anonymous" } })).toEqual({
      ok: true,
      events: [],
      data: null,
    });
  });

  it("counts one upvote per participant per question, changeable, never on one's own, and bounds the writes", () => {
    const r = room();
    r.run(ask("Why dashed?", ARROW_5), "ada");
    expect(r.run(upvote("q1"), "bo")).toMatchObject({ ok: true, data: { questionId: "q1", upvoted: true, votes: 1 } });
    expect(r.run(upvote("q1"), "bo")).toEqual({ ok: true, events: [], data: { questionId: "q1", upvoted: true, votes: 1 } });
    expect(r.run(upvote("q1"), "cy")).toMatchObject({ ok: true, data: { votes: 2 } });
    expect(r.run(upvote("q1", false), "cy")).toMatchObject({ ok: true, data: { upvoted: false, votes: 1 } });
    expect(r.state.questions.q1.votes).toBe(1);
    expect(errorCode(r.run(upvote("q1"), "ada"))).toBe("BAD_REQUEST");
    expect(errorCode(r.run(upvote("nope"), "bo"))).toBe("NO_SUCH_QUESTION");
    expect(errorCode(r.run(upvote("constructor"), "bo"))).toBe("NO_SUCH_QUESTION");
    // Cy has logged two changes; toggling to the cap, then the upvote stays as it is.
    for (let i = 2; i < MAX_UPVOTE_CHANGES_PER_QUESTION; i++) expect(r.run(upvote("q1", i % 2 === 0), "cy").ok).toBe(true);
    expect(errorCode(r.run(upvote("q1", true), "cy"))).toBe("QUESTION_LIMIT");
    expect(r.state.questions.q1.upvoters.cy).toBeUndefined();
  });

  it("answers a pending or hidden question exactly like an unknown one to a student", () => {
    const r = room();
    r.run({ event: "questions:configure", payload: { mode: "moderated", names: "either" } });
    r.run(ask("secret?", ARROW_5), "ada");
    expect(errorCode(r.run(upvote("q1"), "bo"))).toBe("NO_SUCH_QUESTION");
    r.run({ event: "question:approve", payload: { questionId: "q1" } });
    expect(r.run(upvote("q1"), "bo").ok).toBe(true);
    r.run({ event: "question:hide", payload: { questionId: "q1", hidden: true } });
    expect(errorCode(r.run(upvote("q1"), "cy"))).toBe("NO_SUCH_QUESTION");
  });

  it("lets the teacher approve, answer, hide and show, with the rules that keep the projector honest", () => {
    const r = room();
    r.run({ event: "questions:configure", payload: { mode: "moderated", names: "either" } });
    r.run(ask("first", ARROW_5), "ada");
    expect(errorCode(r.run({ event: "question:answer", payload: { questionId: "q1", answered: true } }))).toBe("QUESTION_PENDING");
    expect(errorCode(r.run({ event: "question:show", payload: { questionId: "q1" } }))).toBe("QUESTION_PENDING");
    expect(r.run({ event: "question:approve", payload: { questionId: "q1" } }).ok).toBe(true);
    expect(r.run({ event: "question:approve", payload: { questionId: "q1" } })).toEqual({ ok: true, events: [], data: null });
    expect(r.run({ event: "question:show", payload: { questionId: "q1" } }).ok).toBe(true);
    expect(r.state.shownQuestionId).toBe("q1");
    expect(r.run({ event: "question:answer", payload: { questionId: "q1", answered: true } }).ok).toBe(true);
    expect(r.state.questions.q1.status).toBe("answered");
    // Hiding the shown question takes it off the projector too; a hidden one cannot go back on.
    r.run({ event: "question:hide", payload: { questionId: "q1", hidden: true } });
    expect(r.state.shownQuestionId).toBeNull();
    expect(errorCode(r.run({ event: "question:show", payload: { questionId: "q1" } }))).toBe("BAD_REQUEST");
    expect(errorCode(r.run({ event: "question:approve", payload: { questionId: "nope" } }))).toBe("NO_SUCH_QUESTION");
  });

  it("bounds the approval queue per student and per address, so another student still asks", () => {
    const r = room();
    r.run({ event: "questions:configure", payload: { mode: "moderated", names: "either" } });
    for (let i = 0; i < MAX_PENDING_QUESTIONS_PER_PARTICIPANT; i++) expect(r.run(ask(`wait ${i}`, ARROW_5), "ada").ok).toBe(true);
    const full = r.run(ask("one more", ARROW_5), "ada");
    expect(full).toMatchObject({ ok: false, error: { code: "QUESTION_LIMIT", message: expect.stringContaining("waiting") } });
    // Approved, one leaves the queue: Ada asks again.
    r.run({ event: "question:approve", payload: { questionId: "q1" } });
    expect(r.run(ask("again", ARROW_5), "ada").ok).toBe(true);

    // A script's identities from one address share the address's part of the queue.
    const bots = Array.from({ length: 40 }, (_, i) => `bot${i}`);
    for (const id of bots) r.fold({ type: "participant:joined", participantId: id, nickname: id });
    const sameAddress = new Set(bots);
    const asked = (id: string) =>
      decide(
        r.state,
        ask(`spam from ${id}`, ARROW_5),
        { participantId: id, sameAddress },
        { now: T0, newId: () => `s-${id}-${r.state.seq}`, shuffle: (x) => x },
      );
    let accepted = 0;
    for (const id of bots) {
      const decision = asked(id);
      if (decision.ok) {
        decision.events.forEach(r.fold);
        accepted++;
      } else expect(decision.error.message).toMatch(/your network/);
    }
    expect(accepted).toBe(MAX_PENDING_QUESTIONS_PER_ADDRESS);
    // Bo, elsewhere, still gets into the queue.
    expect(r.run(ask("a real question", ARROW_5), "bo")).toMatchObject({ ok: true, data: { status: "pending" } });
  });

  it("clears a flood in one action: every waiting question hidden, its askers stopped until the teacher shows one again", () => {
    const r = room();
    r.run({ event: "questions:configure", payload: { mode: "moderated", names: "either" } });
    r.run(ask("spam 1", ARROW_5), "ada");
    r.run(ask("spam 2", ARROW_5), "ada");
    r.run(ask("spam 3", ARROW_5, true), "bo");
    r.run({ event: "question:approve", payload: { questionId: "q3" } });
    r.run(ask("real", ARROW_5), "cy");
    r.run({ event: "question:approve", payload: { questionId: "q4" } });
    r.run(ask("also waiting", ARROW_5), "cy");
    const cleared = r.run({ event: "question:hide", payload: { allPending: true, block: true } });
    expect(cleared).toEqual({
      ok: true,
      events: [
        { type: "question:hidden", questionId: "q1", hidden: true },
        { type: "question:hidden", questionId: "q2", hidden: true },
        { type: "question:hidden", questionId: "q5", hidden: true },
        { type: "questions:blocked", participantIds: ["ada", "cy"], blocked: true },
      ],
      data: null,
    });
    // Nothing waits; the approved ones stay; the stopped askers are refused, others are not.
    expect(hostQuestionList(r.state).questions.filter((q) => q.status === "pending" && !q.hidden)).toEqual([]);
    expect(classQuestionList(r.state, "bo").questions.map((q) => q.id)).toEqual(["q3", "q4"]);
    expect(r.run(ask("more spam", ARROW_5), "ada")).toMatchObject({
      ok: false,
      error: { code: "QUESTION_LIMIT", message: expect.stringMatching(/stopped/) },
    });
    expect(r.run(ask("fine", ARROW_5), "bo").ok).toBe(true);
    // The teacher sees which hidden questions' askers are stopped; showing Cy's again lets Cy ask.
    expect(
      hostQuestionList(r.state)
        .questions.filter((q) => q.askerBlocked)
        .map((q) => q.id),
    ).toEqual(["q1", "q2", "q5"]);
    expect(r.run({ event: "question:hide", payload: { questionId: "q5", hidden: false } })).toMatchObject({
      events: [
        { type: "question:hidden", questionId: "q5", hidden: false },
        { type: "questions:blocked", participantIds: ["cy"], blocked: false },
      ],
    });
    expect(r.run(ask("thanks", ARROW_5), "cy").ok).toBe(true);
    // Again without stopping anyone: the questions waiting now (Cy's shown-again one, Bo's, Cy's new one) are hidden.
    expect(r.run({ event: "question:hide", payload: { allPending: true, block: false } })).toMatchObject({
      events: [
        { type: "question:hidden", questionId: "q5" },
        { type: "question:hidden", questionId: "q6" },
        { type: "question:hidden", questionId: "q7" },
      ],
    });
    expect(r.run({ event: "question:hide", payload: { allPending: true, block: true } })).toEqual({ ok: true, events: [], data: null });
    // The replay reads the log to the same state.
    expect(replay(r.log)).toEqual(r.state);
    // A shared replay says nothing of whom the teacher stopped.
    expect(shareableLog(r.log).some((e) => e.type === "questions:blocked")).toBe(false);
  });

  it("counts a removed student's anonymous question against the session's cap while the class still sees it", () => {
    const r = room();
    r.run(ask("anon", ARROW_5, true), "ada");
    r.run({ event: "participant:remove", payload: { participantId: "ada" } });
    // Still in the class's view, so still held: the cap counts what the class sees.
    for (let i = 0; i < 19; i++) r.fold({ type: "participant:joined", participantId: `p${i}`, nickname: `P${i}` });
    let asked = 1;
    for (let i = 0; asked < MAX_QUESTIONS_PER_SESSION; i++) {
      if (r.run(ask(`q${i}`, ARROW_5), `p${i % 19}`).ok) asked++;
    }
    expect(r.run(ask("over", ARROW_5), "bo")).toMatchObject({ ok: false, error: { code: "QUESTION_LIMIT" } });
  });

  it("caps what one student can make the server keep", () => {
    const r = room();
    for (let i = 0; i < MAX_QUESTIONS_PER_PARTICIPANT; i++) expect(r.run(ask(`q ${i}`, ARROW_5), "ada").ok).toBe(true);
    expect(errorCode(r.run(ask("one more", ARROW_5), "ada"))).toBe("QUESTION_LIMIT");
    expect(r.run(ask("mine", ARROW_5), "bo").ok).toBe(true);
  });
});

describe("questions: reducer and views", () => {
  it("keeps a removed student's anonymous question where it was: removal and readmission say nothing of whose it is", () => {
    const r = room();
    r.run(ask("Who am I?", ARROW_5, true), "ada");
    r.run(upvote("q1"), "bo");
    r.run({ event: "question:show", payload: { questionId: "q1" } });
    const before = classQuestionList(r.state, "bo");
    r.run({ event: "participant:remove", payload: { participantId: "ada" } });
    expect(classQuestionList(r.state, "bo")).toEqual({ ...before, rev: r.state.seq });
    expect(classQuestionList(r.state, null).questions.map((q) => q.id)).toEqual(["q1"]);
    expect(r.state.shownQuestionId).toBe("q1");
    // The console (which may be mirrored) does not say its asker was removed either.
    expect(hostQuestionList(r.state).questions).toMatchObject([{ id: "q1", askerRemoved: false }]);
    expect(r.run(upvote("q1"), "cy").ok).toBe(true);
    r.run({ event: "participant:readmit", payload: { participantId: "ada" } });
    expect(classQuestionList(r.state, "bo").questions.map((q) => [q.id, q.votes])).toEqual([["q1", 2]]);
    // It leaves the class's view only when the teacher hides it, like any other question.
    r.run({ event: "question:hide", payload: { questionId: "q1", hidden: true } });
    expect(classQuestionList(r.state, "bo").questions).toEqual([]);
  });

  it("hides a removed student's questions from the class, takes theirs off the projector, and brings them back on readmit", () => {
    const r = room();
    r.run(ask("Why dashed?", ARROW_5), "ada");
    r.run({ event: "question:show", payload: { questionId: "q1" } });
    r.run({ event: "participant:remove", payload: { participantId: "ada" } });
    expect(r.state.shownQuestionId).toBeNull();
    expect(classQuestionList(r.state, "bo").questions).toEqual([]);
    expect(hostQuestionList(r.state).questions).toMatchObject([{ id: "q1", askerRemoved: true }]);
    expect(errorCode(r.run(upvote("q1"), "bo"))).toBe("NO_SUCH_QUESTION");
    r.run({ event: "participant:readmit", payload: { participantId: "ada" } });
    expect(classQuestionList(r.state, "bo").questions.map((q) => q.id)).toEqual(["q1"]);
  });

  it("never gives the class the asker of an anonymous question, and shows a student their own pending one only", () => {
    const r = room();
    r.run(ask("anon", ARROW_5, true), "ada");
    r.run(ask("named", { kind: "step", stepIndex: 2 }), "bo");
    r.run({ event: "questions:configure", payload: { mode: "moderated", names: "either" } });
    r.run(ask("waiting", ARROW_5), "cy");
    r.run(upvote("q1"), "bo");
    const forBo = classQuestionList(r.state, "bo");
    expect(forBo).toMatchObject({ audience: "public", mine: ["q2"], myUpvotes: ["q1"] });
    expect(forBo.questions.map((q) => [q.id, q.by, q.votes])).toEqual([
      ["q1", null, 1],
      ["q2", "Bo", 0],
    ]);
    // Nothing in the class's copy names or identifies Ada.
    expect(JSON.stringify(forBo)).not.toMatch(/ada|Ada/);
    expect(classQuestionList(r.state, "cy").questions.map((q) => [q.id, q.status])).toEqual([
      ["q1", "open"],
      ["q2", "open"],
      ["q3", "pending"],
    ]);
    expect(classQuestionList(r.state, null)).toMatchObject({ mine: [], myUpvotes: [] });
    expect(classQuestionList(r.state, null).questions).toHaveLength(2);
    expect(hostQuestionList(r.state).questions.map((q) => [q.id, q.status, q.by, q.anonymous])).toEqual([
      ["q1", "open", null, true],
      ["q2", "open", "Bo", false],
      ["q3", "pending", "Cy", false],
    ]);
    // The snapshot carries the settings and the shown question, never the list.
    const snapshot = toPublicSnapshot(r.state, 3);
    expect(snapshot.questions).toEqual({ mode: "moderated", names: "either", shownId: null });
    expect(JSON.stringify(snapshot)).not.toContain("anon");
  });

  it("groups the teacher's questions by step and element, most upvoted first", () => {
    const r = room();
    r.run(ask("a", ARROW_5), "ada");
    r.run(ask("b", ARROW_5), "bo");
    r.run(ask("c", { kind: "step", stepIndex: 1 }), "cy");
    r.run(ask("d", { kind: "lifeline", stepIndex: 4, lifeline: "csi" }), "cy");
    r.run(upvote("q2"), "ada");
    const groups = groupQuestions(hostQuestionList(r.state).questions);
    expect(groups.map((g) => [g.target.stepIndex, g.target.kind, g.questions.map((q) => q.text)])).toEqual([
      [1, "step", ["c"]],
      [4, "arrow", ["b", "a"]],
      [4, "lifeline", ["d"]],
    ]);
  });

  it("ignores damaged question events in a log", () => {
    const log: SessionEvent[] = [
      { type: "session:created", id: "s1", code: "KUBE42", title: "t", seq: 1, at: T0 },
      { type: "participant:joined", participantId: "p1", nickname: "Ada", seq: 2, at: T0 },
      // Ahead of the class (step 0), and without a text.
      {
        type: "question:asked",
        question: { id: "x", participantId: "p1", text: "?", anonymous: false, target: ARROW_5 },
        pending: false,
        seq: 3,
        at: T0,
      },
      {
        type: "question:asked",
        question: { id: "y", participantId: "p1", text: "", anonymous: false, target: { kind: "step", stepIndex: 0 } },
        pending: false,
        seq: 4,
        at: T0,
      },
      { type: "question:upvoted", questionId: "__proto__", participantId: "p1", upvoted: true, seq: 5, at: T0 },
      { type: "question:shown", questionId: "x", seq: 6, at: T0 },
    ];
    const state = replay(log);
    expect(state.questionOrder).toEqual([]);
    expect(state.shownQuestionId).toBeNull();
    expect(state.seq).toBe(6);
  });

  it("marks the replay's timeline where each question was asked", () => {
    const r = room();
    r.run(ask("Why dashed?", ARROW_5), "ada");
    const marks = new ReplayTimeline(r.log).marks.filter((m) => m.kind === "question");
    expect(marks).toEqual([expect.objectContaining({ kind: "question", label: "Question: Why dashed?", seq: r.log.at(-1)!.seq })]);
  });
});
