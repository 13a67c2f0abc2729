import { expect } from "vitest";
import { COMMAND_ACK_TIMEOUT_MS, DEFAULT_CLUSTER_ACK_BUDGET_MS } from "../../../lib/constants";
import type { SessionEvent } from "../../../lib/session";
import { code, type Client } from "./fleet";

/**
 * What the faults*.test.ts files check after each fault, from what the screens were
 * answered and the durable log: acknowledgements in time with documented
 * codes, steps and votes in the log as sent, the count held.
 */

/** An ack inside the server's budget, with room for the loopback round trip and a loaded CI machine. */
const ACK_BOUND_MS = DEFAULT_CLUSTER_ACK_BUDGET_MS + 1_000;

/** The lowest student count a screen showed since `since`. */
export function lowestCount(c: Client, since: number): number {
  return Math.min(...c.counts.filter((x) => x.at >= since).map((x) => x.n));
}

/** Every answer came back inside the server's budget, with a documented code: never INTERNAL, never silence. */
export function expectBoundedAcks(who: Client[], allowed: string[]): void {
  for (const c of who) {
    for (const s of c.sent) {
      const what = `${c.name}: ${s.event} ${JSON.stringify(s.payload)} answered ${code(s)} after ${s.ms} ms`;
      expect(allowed, what).toContain(code(s));
      expect(s.ms, what).toBeLessThan(ACK_BOUND_MS);
    }
  }
  expect(ACK_BOUND_MS).toBeLessThan(COMMAND_ACK_TIMEOUT_MS);
}

/**
 * The teacher's steps (step:go to 1, 2, 3, … in that order) are in the log in
 * the order sent: every acknowledged one is there, none refused as
 * UNAVAILABLE is, and none came after a later one. The log itself is
 * contiguous (Redis kept one writer at a time).
 */
/** The class's log after a fault: its steps in the order sent, every acknowledged vote, the poll closed once. */
export function expectClassLog(events: SessionEvent[], cls: { teacher: Client; students: Client[] }, pollId: string): void {
  expectStepsInOrder(events, cls.teacher);
  expectVotes(events, cls.students, pollId);
  expect(
    events.filter((e) => e.type === "poll:closed"),
    "the poll closed once",
  ).toHaveLength(1);
}

export function expectStepsInOrder(events: SessionEvent[], teacher: Client): void {
  expect(
    events.map((e) => e.seq),
    "the log is contiguous",
  ).toEqual(events.map((_, i) => i + 1));
  const logged = events.flatMap((e) => (e.type === "step:changed" ? [e.stepIndex] : []));
  expect(logged, "steps in the order sent").toEqual([...logged].sort((a, b) => a - b));
  expect(new Set(logged).size, "no step applied twice").toBe(logged.length);
  for (const s of teacher.sent.filter((x) => x.event === "step:go")) {
    const index = s.payload.stepIndex as number;
    if (code(s) === "ok") expect(logged, `acknowledged step ${index}`).toContain(index);
    if (code(s) === "UNAVAILABLE") expect(logged, `step ${index} refused as not applied`).not.toContain(index);
  }
}

/**
 * The teacher's "next" clicks (step:move +1): each moved the class once at
 * most, so the log steps 1, 2, 3, … with none repeated or skipped back; every
 * acknowledged click is there, and none refused as UNAVAILABLE (an
 * UNCONFIRMED one may or may not be).
 */
export function expectMovesOnce(events: SessionEvent[], teacher: Client): void {
  expect(
    events.map((e) => e.seq),
    "the log is contiguous",
  ).toEqual(events.map((_, i) => i + 1));
  const logged = events.flatMap((e) => (e.type === "step:changed" ? [e.stepIndex] : []));
  expect(logged, "one step at a time, never back").toEqual(logged.map((_, i) => i + 1));
  const moves = teacher.sent.filter((x) => x.event === "step:move");
  const ok = moves.filter((x) => code(x) === "ok").length;
  const unconfirmed = moves.filter((x) => code(x) === "UNCONFIRMED").length;
  expect(logged.length, "every acknowledged click moved the class once").toBeGreaterThanOrEqual(ok);
  expect(logged.length, "no click moved it twice, none refused as not applied did").toBeLessThanOrEqual(ok + unconfirmed);
}

/** Votes: every acknowledged one is in the log, none refused as UNAVAILABLE is (each student votes once here). */
export function expectVotes(events: SessionEvent[], students: Client[], pollId: string): void {
  const votes = new Map(events.flatMap((e) => (e.type === "poll:voted" && e.pollId === pollId ? [[e.participantId, e.optionId]] : [])));
  for (const s of students) {
    for (const sent of s.sent.filter((x) => x.event === "poll:vote")) {
      const mine = votes.get(s.welcome!.participantId!);
      if (code(sent) === "ok") expect(mine, `${s.name}'s acknowledged vote`).toBe(sent.payload.optionId);
      if (code(sent) === "UNAVAILABLE") expect(mine, `${s.name}'s vote refused as not applied`).toBeUndefined();
    }
  }
}

/** FAULTS_DEBUG=1 prints what each screen was answered and the log, to see what a run did. */
export function debugDump(cls: { teacher: Client; projector: Client; students: Client[] }, events: SessionEvent[]): void {
  if (!process.env.FAULTS_DEBUG) return;
  const lines = [...cls.teacher.sent.map((x) => `teacher ${x.event} ${JSON.stringify(x.payload)} ${code(x)} ${x.ms} ms`)];
  for (const c of cls.students) for (const x of c.sent) lines.push(`${c.name} ${x.event} ${code(x)} ${x.ms} ms`);
  lines.push(events.map((e) => `${e.seq}:${e.type}${e.type === "step:changed" ? `=${e.stepIndex}` : ""}`).join(" "));
  lines.push(
    `counts: teacher ${cls.teacher.counts.map((x) => x.n).join(",")} | projector ${cls.projector.counts.map((x) => x.n).join(",")}`,
  );
  lines.push(
    `resyncs after a gap: teacher ${cls.teacher.gaps}, projector ${cls.projector.gaps}, students ${cls.students.map((c) => c.gaps).join(",")}`,
  );
  console.log(lines.join("\n"));
}
