import { expect, it } from "vitest";
import { waitUntil } from "./harness";
import {
  classOf,
  client,
  code,
  createSession,
  fleet,
  fleetPerFile,
  logOf,
  pollOf,
  sleep,
  startNode,
  type Client,
  type Sent,
} from "./faults/fleet";
import { debugDump, expectBoundedAcks, expectMovesOnce, expectVotes, lowestCount } from "./faults/expectations";

/**
 * Scale-out under faults (the owner of a class killed (SIGKILL) in the middle of a teacher's commands): three real
 * app processes on one real redis-server (append-only, fsync on every write). Checks what the class would notice:
 * the teacher's commands land in the log in the order sent (or are refused, never applied out of order), every
 * acknowledgement comes back inside the server's budget (below the browser's 8 s timeout) with a documented code,
 * the count of students never dips, and no socket of another session is disconnected. The three faults are three
 * files, each with its own fleet, so they run side by side on separate workers (each is mostly waiting).
 */

fleetPerFile();

it("an owner killed in the middle of the teacher's commands: taken over in order, restarted, nobody else touched", async () => {
  // Node 2 owns both classes. The bystander class's sockets are all on the nodes that stay up, and nobody in it
  // does anything after the kill: its poll countdown must still close it (a node with its sockets takes it over).
  const session = await createSession(2, "Killed owner");
  const bystander = await createSession(2, "Bystander with a countdown");
  const other = await classOf(bystander, { teacher: 0, projector: 1, students: [0, 1, 0, 1] });
  expect(code(await other.teacher.emit("poll:open", { kind: "next-step", durationS: 15 }))).toBe("ok");
  const cls = await classOf(session, { teacher: 0, projector: 1, students: [0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2] });
  const open = await cls.teacher.emit("poll:open", { kind: "next-step", durationS: 60 });
  expect(code(open)).toBe("ok");
  await waitUntil(() => cls.students.every((s) => s.snapshot?.poll?.status === "open"), 10_000);
  const poll = pollOf(cls.students[0]);
  const vote = (s: Client, i: number) => s.emit("poll:vote", { pollId: poll.id, optionId: poll.options[i % poll.options.length].id });

  // The teacher clicks "next" (step:move, what the console sends) every 100 ms; the owner is killed just after
  // the fourth click has left, while it is on its way.
  const steps = (async () => {
    const sent: Promise<Sent>[] = [];
    for (let i = 0; i < 10; i++) {
      sent.push(cls.teacher.emit("step:move", { delta: 1 }));
      await sleep(100);
    }
    return Promise.all(sent);
  })();
  await sleep(3 * 100 + 5);
  const killed = fleet.nodes[2];
  killed.proc.kill("SIGKILL");
  await killed.exited;
  // Its students notice at once (the connection drops) and come back through node 1, as a browser would.
  const movedIndex = cls.students.map((_, i) => i).filter((i) => i % 3 === 2);
  await waitUntil(() => movedIndex.every((i) => cls.students[i].disconnects.length > 0), 5_000);
  await sleep(300);
  const moved = movedIndex.map((i) =>
    client(`student ${i}, back through node 1`, 1, { role: "student", code: session.code, token: cls.students[i].welcome!.token }),
  );
  await Promise.all(moved.map((m) => m.ready()));
  await startNode(2);
  await steps;

  // The class goes on, through every node, the restarted one included.
  expect(code(await cls.teacher.emit("step:move", { delta: 1 }))).toBe("ok");
  const newcomer = client("a student joining through the restarted node", 2, { role: "student", code: session.code });
  await newcomer.ready();
  const stayed = cls.students.filter((_, i) => i % 3 !== 2);
  await Promise.all([...stayed, ...moved, newcomer].map(vote));
  // The bystander's countdown closed its poll, with nobody touching it, once.
  await waitUntil(() => other.teacher.snapshot?.poll?.status === "closed", 20_000);
  const otherEvents = await logOf(bystander, 0);
  expect(
    otherEvents.filter((e) => e.type === "poll:closed"),
    "the bystander's poll closed once",
  ).toHaveLength(1);
  expect(code(await other.teacher.emit("step:go", { stepIndex: 1 }))).toBe("ok");

  const events = await logOf(session, 2);
  debugDump({ ...cls, students: [...cls.students, ...moved, newcomer] }, events);
  expectMovesOnce(events, cls.teacher);
  expectVotes(events, [...stayed, ...moved, newcomer], poll.id);
  for (const m of moved) expect(m.welcome!.participantId, "the same student came back").toBeDefined();
  expect(new Set(moved.map((m) => m.welcome!.participantId))).toEqual(
    new Set(movedIndex.map((i) => cls.students[i].welcome!.participantId)),
  );
  expectBoundedAcks([cls.teacher, ...stayed, ...moved, newcomer, other.teacher], ["ok", "UNAVAILABLE", "UNCONFIRMED"]);
  // The clicks before the kill and those after the takeover went through.
  expect(cls.teacher.sent.filter((x) => code(x) === "ok").length).toBeGreaterThanOrEqual(8);

  // Only the killed node's own sockets dropped; the other class was not touched at all.
  for (const c of [cls.teacher, cls.projector, ...stayed, other.teacher, other.projector, ...other.students]) {
    expect(c.disconnects, `${c.name} was disconnected`).toEqual([]);
  }
  // The count held while node 2's students moved: their last known figure counted until they were back.
  expect(lowestCount(cls.teacher, cls.since), "the teacher's count").toBeGreaterThanOrEqual(12);
  expect(lowestCount(cls.projector, cls.since), "the projector's count").toBeGreaterThanOrEqual(12);
  await waitUntil(() => cls.teacher.snapshot?.participantCount === 13, 10_000);
}, 60_000);
