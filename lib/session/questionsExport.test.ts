import { describe, expect, it } from "vitest";
import { questionCsv, renderExport, shareableLog } from "./export";
import { toClassQuestion } from "./questions";
import { replay } from "./reducer";
import { ARROW_5, ask, room, upvote } from "../../tests/support/questionRoom";

describe("questions: shared replays and exports", () => {
  function finishedClass() {
    const r = room();
    r.run(ask("anon, visible", ARROW_5, true), "ada");
    r.run(ask("named, visible", { kind: "note", stepIndex: 8 }), "bo");
    r.run(ask("hidden later", ARROW_5), "cy");
    r.run({ event: "questions:configure", payload: { mode: "moderated", names: "either" } });
    r.run(ask("never approved", ARROW_5), "cy");
    r.run(upvote("q1"), "bo");
    r.run(upvote("q1"), "cy");
    r.run(upvote("q2"), "cy");
    r.run({ event: "question:hide", payload: { questionId: "q3", hidden: true } });
    r.run({ event: "question:answer", payload: { questionId: "q2", answered: true } });
    return r;
  }

  it("gives a shared replay only what the class could see, with no asker on an anonymous question and exact counts", () => {
    const r = finishedClass();
    const shared = shareableLog(r.log);
    const asked = shared.filter((e) => e.type === "question:asked");
    expect(asked.map((e) => e.question.text)).toEqual(["anon, visible", "named, visible"]);
    expect(asked[0].question.participantId).toBe("");
    // Upvoters are new names per question: Cy's two upvotes cannot be linked.
    const upvoters = shared.flatMap((e) => (e.type === "question:upvoted" ? [e.participantId] : []));
    expect(new Set(upvoters).size).toBe(3);
    expect(upvoters.some((id) => ["ada", "bo", "cy"].includes(id))).toBe(false);
    const state = replay(shared);
    expect(state.questionOrder.map((id) => [state.questions[id].text, state.questions[id].votes])).toEqual([
      ["anon, visible", 2],
      ["named, visible", 1],
    ]);
    expect(toClassQuestion(state, state.questions.q2).by).toBe("Student 2");
  });

  it("exports one row per question with step, element, votes and status; names only in the teacher's copy", () => {
    const r = finishedClass();
    const teacher = questionCsv(r.log, true).split("\r\n");
    expect(teacher[0]).toBe("question,scenario,step,element,votes,status,asked at,asked by");
    expect(teacher[1]).toMatch(/^"anon, visible",[^,]+,Step 5 · NODE CHOSEN,arrow,2,open,[^,]+,anonymous$/);
    expect(teacher[2]).toMatch(/^"named, visible",[^,]+,Step 9 · BIND PVC\+PV,note,1,answered,[^,]+,Bo$/);
    expect(teacher[3]).toMatch(/^hidden later,.*,arrow,0,hidden,.*,Cy$/);
    expect(teacher[4]).toMatch(/^never approved,.*,0,pending,.*,Cy$/);
    const viewer = renderExport(r.log, "questionCsv", "viewer").split("\r\n");
    expect(viewer[0]).toBe("question,scenario,step,element,votes,status,asked at");
    expect(viewer.slice(1, -1).map((row) => row.split(",")[0])).toEqual(['"anon', '"named']);
    expect(viewer.join("\n")).not.toMatch(/Ada|Bo\b|Cy|hidden|pending/);
  });
});
