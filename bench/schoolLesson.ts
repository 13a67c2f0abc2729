import { mulberry32 } from "../tests/support/random";
import { now, type SchoolCommand } from "./messages";
import { command, countPollSeen, note, type Ack, type Room } from "./schoolRoom";
import { median } from "./stats";
import { Arrivals, sleep } from "./wait";

/**
 * One room's lesson in a school worker (bench/schoolWorker.ts): on its own
 * seeded, staggered schedule, steps, and now and then a poll that every
 * student answers, each timed from the teacher's emit to the room's last
 * student with the worker's one clock.
 */

type Run = Extract<SchoolCommand, { cmd: "run" }>;

async function step(room: Room, c: Run): Promise<void> {
  const stepIndex = room.stepIndex === 1 ? 2 : 1; // every command changes the step
  const students = room.students.filter((s) => s.socket.connected);
  for (const s of students) s.stepAt = 0;
  room.step = { stepIndex, arrivals: new Arrivals(students.length, c.receiptTimeoutMs) };
  const sentAt = now();
  const ack = command(room, "step", stepIndex, c.ackTimeoutMs);
  await room.step.arrivals.done;
  room.step = null;
  room.stepIndex = stepIndex;
  const res = await ack;
  if (!res.ok) note(room, `step ${stepIndex}`, res.error?.code ?? "refused");
  const got = students.filter((s) => s.stepAt > 0).map((s) => s.stepAt - sentAt);
  const missing = students.length - got.length;
  room.stats.steps += 1;
  room.stats.stepMissing += missing;
  if (missing > 0) room.stats.stepsIncomplete += 1;
  else if (got.length > 0) room.stats.stepLastMs.push(Math.max(...got));
  if (got.length > 0) room.stats.stepMedianMs.push(median(got));
}

async function poll(room: Room, c: Run, random: () => number): Promise<void> {
  room.stats.polls += 1;
  const students = room.students.filter((s) => s.socket.connected);
  // Open, with live results shown (so the closed poll's snapshot carries the total), and wait until the class has it.
  room.pollWait = { pollId: "", arrivals: new Arrivals(students.length, c.receiptTimeoutMs) };
  const opened = await command(room, "open", 0, c.ackTimeoutMs);
  const data = opened.data as { pollId?: string; options?: string[] } | undefined;
  if (!opened.ok || !data?.pollId) {
    room.pollWait = null;
    return note(room, "poll open", opened.error?.code ?? "refused");
  }
  const pollId = data.pollId;
  if (data.options) room.options.set(pollId, data.options);
  room.pollWait.pollId = pollId;
  const shown = await command(room, "show", 0, c.ackTimeoutMs);
  if (!shown.ok) note(room, "results show", shown.error?.code ?? "refused");
  // Snapshots that came before the open's ack named the poll are counted now.
  for (const s of students) countPollSeen(room, s);
  await room.pollWait.arrivals.done;
  room.pollWait = null;
  const options = room.options.get(pollId);
  if (!options?.length) return note(room, "poll open", "no options reached the class");

  // Every student votes once, at a random moment of the spread, and waits for its ack.
  const votes = students.map(async (s, k) => {
    await sleep(random() * c.voteSpreadMs);
    room.stats.votesSent += 1;
    const sentAt = now();
    const res: Ack = await s.socket
      .timeout(c.ackTimeoutMs)
      .emitWithAck("poll:vote", { pollId, optionId: options[k % options.length] })
      .catch(() => ({ ok: false, error: { code: "timeout" } }));
    if (res.ok) {
      room.stats.votesAcked += 1;
      room.stats.voteAckMs.push(now() - sentAt);
      return 1;
    }
    note(room, "vote", res.error?.code ?? "refused");
    return 0;
  });
  const acked = (await Promise.all(votes)).reduce<number>((a, b) => a + b, 0);

  // Close, and time the closed poll's snapshot to the room's last student.
  for (const s of students) {
    s.finalAt = 0;
    s.finalTotal = -1;
  }
  room.final = { pollId, arrivals: new Arrivals(students.length, c.receiptTimeoutMs) };
  const closedAt = now();
  const closeAck = command(room, "close", pollId, c.ackTimeoutMs);
  await room.final.arrivals.done;
  room.final = null;
  const closed = await closeAck;
  if (!closed.ok) note(room, "poll close", closed.error?.code ?? "refused");
  const got = students.filter((s) => s.finalAt > 0);
  room.stats.finalMissing += students.length - got.length;
  room.stats.finalWrong += got.filter((s) => s.finalTotal !== acked).length;
  if (got.length === students.length && got.length > 0) room.stats.finalLastMs.push(Math.max(...got.map((s) => s.finalAt - closedAt)));
  const totals = got.map((s) => s.finalTotal).filter((t) => t >= 0);
  if (totals.length) room.stats.votesLost += acked - Math.max(...totals);
}

export async function lesson(room: Room, c: Run): Promise<void> {
  // Seeded, so a room's schedule is the same in the product's run and the baseline's.
  const random = mulberry32(c.seed * 100_003 + room.index);
  let at = c.startAt + random() * c.intervalMs; // staggered: the rooms' first actions spread over one interval
  for (let action = 1; at < c.endAt; action++) {
    await sleep(at - now());
    if (action % c.pollEvery === 0) await poll(room, c, random);
    else await step(room, c);
    // The next action is scheduled from this one's start, as a teacher clicks on: a slow action delays only its own room.
    at = Math.max(now(), at + c.intervalMs * (0.5 + random()));
  }
}
