import { expect, it } from "vitest";
import { startRedis } from "../support/loopback";
import { waitUntil } from "./harness";
import { classOf, clickSteps, code, createSession, fleet, fleetPerFile, logOf, pollOf, sleep, type Client } from "./faults/fleet";
import { debugDump, expectBoundedAcks, expectClassLog, lowestCount } from "./faults/expectations";

/**
 * Scale-out under faults (Redis killed (SIGKILL) and restarted mid-poll): three real app processes on one real
 * redis-server (append-only, fsync on every write). Checks what the class would notice: the teacher's commands land
 * in the log in the order sent (or are refused, never applied out of order), every acknowledgement comes back inside
 * the server's budget (below the browser's 8 s timeout) with a documented code, the count of students never dips,
 * and no socket of another session is disconnected. The three faults are three files, each with its own fleet, so
 * they run side by side on separate workers (each is mostly waiting).
 */

fleetPerFile();

it("a Redis restart mid-poll costs the class a pause, never its order, its count or its sockets", async () => {
  // The class is owned by node 0; a bystander class by node 1.
  const session = await createSession(0, "Redis restart");
  const bystander = await createSession(1, "Bystander");
  const cls = await classOf(session, { teacher: 1, projector: 2, students: [0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2] });
  const other = await classOf(bystander, { teacher: 2, projector: 0, students: [0, 1, 2] });

  const open = await cls.teacher.emit("poll:open", { kind: "next-step", durationS: 15 });
  expect(code(open)).toBe("ok");
  await waitUntil(() => cls.students.every((s) => s.snapshot?.poll?.status === "open"), 10_000);
  const poll = pollOf(cls.students[0]);
  const vote = (s: Client, i: number) => s.emit("poll:vote", { pollId: poll.id, optionId: poll.options[i % poll.options.length].id });
  await Promise.all(cls.students.slice(0, 4).map(vote));

  // Redis dies (no shutdown: SIGKILL), for about five seconds, while the teacher clicks on and students vote.
  fleet.redis.proc.kill("SIGKILL");
  await new Promise((r) => fleet.redis.proc.once("exit", r));
  const during = clickSteps(cls.teacher, 1, 4, 700);
  const votesDuring = Promise.all(cls.students.slice(4, 8).map(async (s, i) => (await sleep(i * 400), vote(s, i))));
  await sleep(5_000);
  fleet.redis = await startRedis({ port: fleet.redisPort, appendOnlyDir: fleet.aofDir });
  await Promise.all([during, votesDuring]);

  // Back: the class carries on, the poll's countdown still closes it, the other class was never touched.
  const after = await clickSteps(cls.teacher, 5, 6, 200);
  for (const s of after) expect(code(s), "a step once Redis is back").toBe("ok");
  await Promise.all(cls.students.slice(8).map(vote));
  await waitUntil(() => cls.teacher.snapshot?.poll?.status === "closed", 20_000);
  expect(code(await other.teacher.emit("step:go", { stepIndex: 2 }))).toBe("ok");

  const events = await logOf(session, 2);
  debugDump(cls, events);
  expectClassLog(events, cls, poll.id);
  expect(events.find((e) => e.type === "poll:opened")).toBeDefined();
  expectBoundedAcks([cls.teacher, ...cls.students, other.teacher], ["ok", "UNAVAILABLE", "UNCONFIRMED"]);
  // Nothing acknowledged before the crash was lost: the four first votes are in the log (appendfsync always).
  for (const s of cls.students.slice(0, 4))
    expect(events.some((e) => e.type === "poll:voted" && e.participantId === s.welcome!.participantId)).toBe(true);

  // A pause, not a disconnect, for this class and the other; and the count never dipped.
  for (const c of [cls.teacher, cls.projector, ...cls.students, other.teacher, other.projector, ...other.students]) {
    expect(c.disconnects, `${c.name} was disconnected`).toEqual([]);
  }
  expect(lowestCount(cls.teacher, cls.since), "the teacher's count of 12").toBe(12);
  expect(lowestCount(cls.projector, cls.since), "the projector's count of 12").toBe(12);
}, 60_000);
