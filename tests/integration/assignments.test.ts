import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CookieClient } from "../support/cookieClient";
import { freePort } from "../support/loopback";
import { startServer, type TestServer } from "../support/testServer";
import {
  PASSWORD,
  Student,
  assign,
  body,
  parseCsv,
  progressOf,
  publicOf,
  refusal,
  resultsOf,
  rightByHand,
  teacher,
  wrong,
  type Feedback,
  type Option,
  type PublicPoll,
  type StudentView,
  type TeacherProgress,
} from "./assignmentsWorld";
import { spawnServer, type ServerProcess } from "./process";

/**
 * Issue 30 from outside: a teacher assigns the WaitForFirstConsumer scenario, three students take it at their
 * own pace (one leaves at step 5 and comes back), and what the teacher sees is exactly what they did.
 * Results across a course: assignmentsResults.test.ts; refusals and attacks: assignmentsOutsider.test.ts and
 * assignmentsAccess.test.ts.
 */

const servers: TestServer[] = [];
const procs: ServerProcess[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  for (const p of procs.splice(0)) if (p.proc.exitCode === null) p.proc.kill("SIGKILL");
});
async function server(dataDir?: string): Promise<TestServer> {
  const s = await startServer({ dataDir });
  servers.push(s);
  return s;
}

/** A student's choice at one poll: the right option, or the n-th wrong one. */
type Choice = "right" | 0 | 1 | 2;

describe("a self-paced assignment of the WaitForFirstConsumer scenario", () => {
  it("three students at their own pace: feedback per answer, a resume where one stopped, and progress equal to a hand count", async () => {
    const srv = await server();
    const ana = await teacher(srv, "Ms Ana");
    const made = await assign(ana);
    const id = made.assignment.id;
    expect(made).toMatchObject({ path: `/a/${id}`, skipped: 0, assignment: { pollCount: 11, closedAt: null, dueAt: null } });

    const link = await publicOf(srv.url, id);
    expect(link.stepCount).toBe(12);
    // A poll at every step but the last: "what happens next?" has no answer after MOUNT.
    expect(link.polls.map((p) => p.stepIndex)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const right = rightByHand(link.polls);
    // The misconception notes, as the teacher's results page shows them (by option text).
    const notes = new Map((await resultsOf(ana)).results.polls.map((p) => [p.stepIndex, new Map(p.options.map((o) => [o.text, o.note]))]));
    expect(notes.size).toBe(11);

    const plans: Record<string, Choice[]> = {
      Ada: ["right", "right", 0, "right", "right", "right", "right", 1, "right", "right", "right"],
      Bo: [0, "right", "right", 2, "right", 0, "right", "right", 1, "right", "right"],
      Cy: ["right", 0],
    };
    const chosenOf = (name: string, poll: PublicPoll): Option => {
      const c = plans[name][poll.stepIndex];
      return c === "right" ? right.get(poll.id)! : wrong(poll, right, c);
    };
    const received = new Map<string, Feedback[]>(Object.keys(plans).map((n) => [n, []]));

    /** One student answers each poll on their way and steps on, from `from` to `to`. */
    async function walk(name: string, s: Student, from: number, to: number) {
      for (let step = from; step < to; step++) {
        const poll = link.polls[step];
        const chosen = chosenOf(name, poll);
        const { feedback, progress } = await s.answer(poll.id, chosen.id);
        const isRight = chosen.id === right.get(poll.id)!.id;
        // What the student sees: right or wrong, and the misconception note of the option they chose.
        expect(feedback).toEqual({
          pollId: poll.id,
          optionId: chosen.id,
          correct: isRight,
          note: notes.get(step)!.get(chosen.text),
          correctOptionId: right.get(poll.id)!.id,
          rightNote: isRight ? null : notes.get(step)!.get(right.get(poll.id)!.text),
        });
        received.get(name)!.push(feedback);
        // Answering the last poll is not finishing: the last step is still to be seen.
        expect(progress).toMatchObject({ stepIndex: step, furthestStep: step, finished: false });
        const moved = await s.go(step + 1);
        expect(moved).toMatchObject({ stepIndex: step + 1, furthestStep: step + 1, finished: step + 1 === 11 });
      }
    }

    const ada = await Student.start(srv.url, id, "Ada");
    const bo = await Student.start(srv.url, id, "Bo");
    const cy = await Student.start(srv.url, id, "Cy");
    expect(ada.view).toMatchObject({ nickname: "Ada", stepIndex: 0, furthestStep: 0, finished: false, answers: [] });
    // Three phones at once, at different speeds: Ada to the end, Bo to step 5 (index 4), Cy to step 3.
    await Promise.all([walk("Ada", ada, 0, 11), walk("Bo", bo, 0, 4), walk("Cy", cy, 0, 2)]);

    /** The teacher's view, worked out by hand from what each student did. */
    const expectProgress = (p: TeacherProgress, where: Record<string, { step: number; finished: boolean }>) => {
      const names = Object.keys(where);
      expect(p.started).toBe(3);
      expect(p.finished).toBe(names.filter((n) => where[n].finished).length);
      expect(p.students.map((s) => s.nickname).sort()).toEqual(names);
      expect(p.polls).toHaveLength(11);
      for (const s of p.students) {
        const answers = received.get(s.nickname)!;
        expect(s).toMatchObject({
          stepIndex: where[s.nickname].step,
          furthestStep: where[s.nickname].step,
          answered: answers.length,
          right: answers.filter((a) => a.correct).length,
        });
        expect(s.finishedAt === null).toBe(!where[s.nickname].finished);
      }
      for (const poll of p.polls) {
        const all = [...received.values()].flat().filter((a) => a.pollId === poll.id);
        expect(poll.answered, poll.id).toBe(all.length);
        for (const o of poll.options) {
          expect(o.count, `${poll.id} ${o.text}`).toBe(all.filter((a) => a.optionId === o.id).length);
          expect(o.correct).toBe(o.id === right.get(poll.id)!.id);
        }
      }
    };
    expectProgress(await progressOf(ana, id), {
      Ada: { step: 11, finished: true },
      Bo: { step: 4, finished: false },
      Cy: { step: 2, finished: false },
    });

    // Bo comes back later on the same phone: the token his browser kept brings back where he stopped and his answers.
    const boAgain = new Student(srv.url, id, bo.token);
    const resumed = await boAgain.me();
    expect(resumed).toEqual({
      studentId: bo.view.studentId,
      nickname: "Bo",
      stepIndex: 4,
      furthestStep: 4,
      finished: false,
      answers: received.get("Bo")!,
    } satisfies StudentView);
    // The step he stopped at still waits for its answer.
    expect(await refusal(await boAgain.goRaw(5))).toEqual([409, "ANSWER_FIRST"]);
    await walk("Bo", boAgain, 4, 11);

    const final = await progressOf(ana, id);
    expectProgress(final, { Ada: { step: 11, finished: true }, Bo: { step: 11, finished: true }, Cy: { step: 2, finished: false } });

    // Looking back does not undo finishing, nor lose the furthest step.
    expect(await ada.go(3)).toMatchObject({ stepIndex: 3, furthestStep: 11, finished: true });

    // The teacher's export: a row per student, each answer and whether it was right, as above.
    const res = await ana.request(`/api/assignments/${id}/export`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/csv/);
    expect(res.headers.get("content-disposition")).toMatch(/^attachment/);
    const [header, ...rows] = parseCsv(await res.text());
    expect(header).toEqual([
      "student",
      "started",
      "step reached",
      "finished",
      "right",
      ...link.polls.flatMap((p) => [`step ${p.stepIndex + 1}: ${p.question}`, "right?"]),
    ]);
    expect(rows.map((r) => r[0]).sort()).toEqual(["Ada", "Bo", "Cy"]);
    for (const row of rows) {
      const answers = received.get(row[0])!;
      const student = final.students.find((s) => s.nickname === row[0])!;
      expect(row[2]).toBe(String(student.furthestStep + 1));
      expect(row[3] === "").toBe(student.finishedAt === null);
      expect(row[4]).toBe(String(answers.filter((a) => a.correct).length));
      expect(row.slice(5)).toEqual(
        link.polls.flatMap((p) => {
          const a = answers.find((x) => x.pollId === p.id);
          return a ? [p.options.find((o) => o.id === a.optionId)!.text, a.correct ? "yes" : "no"] : ["", ""];
        }),
      );
    }
  });
});

describe("durability", () => {
  it("keeps every acknowledged answer and step across a restart on the same data folder", async () => {
    const first = await server();
    const ana = await teacher(first, "Ms Ana");
    const { assignment } = await assign(ana);
    const link = await publicOf(first.url, assignment.id);
    const right = rightByHand(link.polls);
    const dee = await Student.start(first.url, assignment.id, "Dee");
    await dee.answer("p1", right.get("p1")!.id);
    await dee.go(1);
    await dee.answer("p2", wrong(link.polls[1], right).id);
    await dee.go(2);
    await dee.answer("p3", right.get("p3")!.id);
    const before = await dee.me();
    const progressBefore = await progressOf(ana, assignment.id);
    const resultsBefore = await resultsOf(ana);
    await first.close();
    servers.splice(servers.indexOf(first), 1);

    // As for a live class's students, the server keeps only a hash of the token: no file of its data holds it.
    for (const file of fs.readdirSync(first.dataDir))
      expect(fs.readFileSync(path.join(first.dataDir, file)).includes(dee.token), file).toBe(false);

    const second = await server(first.dataDir);
    const again = new CookieClient(second.url);
    expect((await again.post("/api/account/sign-in", { email: "ms.ana@school.example", password: PASSWORD })).status).toBe(200);
    const deeAgain = new Student(second.url, assignment.id, dee.token);
    expect(await deeAgain.me()).toEqual(before);
    expect(before).toMatchObject({ stepIndex: 2, furthestStep: 2 });
    expect(before.answers.map((a) => [a.pollId, a.correct])).toEqual([
      ["p1", true],
      ["p2", false],
      ["p3", true],
    ]);
    // The link's address follows the server's port, which a restart changes; everything else is what it was.
    const { url: _before, ...kept } = progressBefore;
    const { url: _after, ...now } = await progressOf(again, assignment.id);
    expect(now).toEqual(kept);
    expect(await resultsOf(again)).toEqual(resultsBefore);
    // One answer in force survives the restart: a change is still refused, the same again still a retry.
    expect(await refusal(await deeAgain.answerRaw("p2", right.get("p2")!.id))).toEqual([409, "ALREADY_ANSWERED"]);
    expect((await deeAgain.answer("p2", before.answers[1].optionId)).progress.answers).toHaveLength(3);
    expect(await deeAgain.go(3)).toMatchObject({ stepIndex: 3, furthestStep: 3 });
  });

  it("loses no acknowledged answer when the server process is killed with SIGKILL right after it answered", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "classroom-assign-kill-"));
    const port = await freePort();
    const first = await spawnServer({ dataDir, port });
    procs.push(first);
    const ana = new CookieClient(first.url);
    expect((await ana.post("/api/account/sign-up", { email: "ana@school.example", displayName: "Ana", password: PASSWORD })).status).toBe(
      201,
    );
    const { assignment } = await assign(ana);
    const eve = await Student.start(first.url, assignment.id, "Eve");
    const acked = await eve.answer("p1", "o2");
    first.proc.kill("SIGKILL");
    await first.exited;

    const second = await spawnServer({ dataDir, port });
    procs.push(second);
    const view = await new Student(second.url, assignment.id, eve.token).me();
    expect(view.answers).toEqual([acked.feedback]);
    expect(view.nickname).toBe("Eve");
    const progress = await progressOf(ana, assignment.id);
    expect(progress.started).toBe(1);
    expect(progress.polls[0].options.find((o) => o.id === "o2")!.count).toBe(1);
    expect(progress.polls[0].answered).toBe(1);
    expect(await body<{ ok: boolean }>(await fetch(`${second.url}/api/health`))).toMatchObject({ ok: true });
  }, 120_000);
});
