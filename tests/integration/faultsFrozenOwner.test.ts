import { expect, it } from "vitest";
import { waitUntil } from "./harness";
import { classOf, clickSteps, code, createSession, fleet, fleetPerFile, logOf, pollOf, sleep, type Client } from "./faults/fleet";
import { debugDump, expectBoundedAcks, expectClassLog, lowestCount } from "./faults/expectations";

/**
 * Scale-out under faults (the owner of a class frozen (SIGSTOP) with a poll timer due while it is stopped): three
 * real app processes on one real redis-server (append-only, fsync on every write). Checks what the class would
 * notice: the teacher's commands land in the log in the order sent (or are refused, never applied out of order),
 * every acknowledgement comes back inside the server's budget (below the browser's 8 s timeout) with a documented
 * code, the count of students never dips, and no socket of another session is disconnected. The three faults are
 * three files, each with its own fleet, so they run side by side on separate workers (each is mostly waiting).
 */

fleetPerFile();

it("a frozen owner is taken over, and when it resumes its timers write nothing and disturb nobody", async () => {
  // Node 0 owns both classes. The bystander's poll countdown falls due while node 0 is stopped, with nobody
  // else touching that class: node 0 must close it itself once it has confirmed it still owns it.
  const session = await createSession(0, "Frozen owner");
  const bystander = await createSession(0, "Bystander with a countdown");
  const other = await classOf(bystander, { teacher: 1, projector: 2, students: [0, 1, 2] });
  const otherOpen = await other.teacher.emit("poll:open", { kind: "next-step", durationS: 15 });
  expect(code(otherOpen)).toBe("ok");
  const countdownStarted = Date.now();
  const cls = await classOf(session, { teacher: 1, projector: 2, students: [0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2] });
  const open = await cls.teacher.emit("poll:open", { kind: "next-step", durationS: 60 });
  expect(code(open)).toBe("ok");
  await waitUntil(() => cls.students.every((s) => s.snapshot?.poll?.status === "open"), 10_000);
  const poll = pollOf(cls.students[0]);
  const vote = (s: Client, i: number) => s.emit("poll:vote", { pollId: poll.id, optionId: poll.options[i % poll.options.length].id });
  const onNode0 = cls.students.filter((_, i) => i % 3 === 0);
  const elsewhere = cls.students.filter((_, i) => i % 3 !== 0);
  await vote(elsewhere[0], 0);

  // Freeze node 0 so that the bystander's countdown falls due about halfway through an 8 s stop.
  await sleep(Math.max(0, countdownStarted + 11_000 - Date.now()));
  const frozen = fleet.nodes[0];
  frozen.proc.kill("SIGSTOP");
  const frozenAt = Date.now();
  const steps = clickSteps(cls.teacher, 1, 5, 900);
  // Students everywhere vote while the owner is stopped: node 0's own students' votes wait in its socket buffers.
  const votes = Promise.all([...elsewhere.slice(1), ...onNode0].map(async (s, i) => (await sleep(300 + i * 350), vote(s, i))));
  await sleep(Math.max(0, frozenAt + 8_000 - Date.now()));
  frozen.proc.kill("SIGCONT");
  const resumedAt = Date.now();
  await Promise.all([steps, votes]);

  // The class carried on without node 0, and goes on with it.
  expect(code(await cls.teacher.emit("step:go", { stepIndex: 6 }))).toBe("ok");
  expect(code(await cls.teacher.emit("poll:close", { pollId: poll.id }))).toBe("ok");
  // The bystander's countdown was closed by node 0 after it resumed (nobody else had taken that class over).
  await waitUntil(() => other.teacher.snapshot?.poll?.status === "closed", 10_000);
  expect(Date.now()).toBeGreaterThanOrEqual(resumedAt);

  const events = await logOf(session, 1);
  debugDump(cls, events);
  expectClassLog(events, cls, poll.id);
  const otherEvents = await logOf(bystander, 2);
  expect(
    otherEvents.filter((e) => e.type === "poll:closed"),
    "the bystander's poll closed once",
  ).toHaveLength(1);
  expect(otherEvents.map((e) => e.seq)).toEqual(otherEvents.map((_, i) => i + 1));

  // The votes that sat in node 0's buffers through the stop were counted afterwards, and answered: the answer
  // (late, for a browser that gave up after 8 s) carries the vote, which the bundled client shows as its own.
  for (const s of onNode0) {
    const sent = s.sent.find((x) => x.event === "poll:vote")!;
    expect(code(sent), `${s.name}'s vote sent during the stop`).toBe("ok");
    expect(sent.ack, `${s.name}'s answer`).toMatchObject({ ok: true, data: { pollId: poll.id, optionId: sent.payload.optionId } });
  }
  // Sockets on the nodes that kept running answered inside the budget, with documented codes.
  expectBoundedAcks([cls.teacher, ...elsewhere], ["ok", "UNAVAILABLE", "UNCONFIRMED"]);
  // Nobody was disconnected, in either class: a stopped node's sockets wait; a resumed owner's refused write
  // drops its own room, nothing else.
  for (const c of [cls.teacher, cls.projector, ...cls.students, other.teacher, other.projector, ...other.students]) {
    expect(c.disconnects, `${c.name} was disconnected`).toEqual([]);
  }
  // The count stayed whole while node 0 was silent: its students were still there.
  expect(lowestCount(cls.teacher, cls.since), "the teacher's count of 12").toBe(12);
  expect(lowestCount(cls.projector, cls.since), "the projector's count of 12").toBe(12);
  expect(frozen.output(), "node 0 said it paused its sessions").toMatch(/ownership lease ran out/);
}, 60_000);
