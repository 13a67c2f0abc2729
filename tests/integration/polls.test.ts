import { describe, expect, it } from "vitest";
import { RATE_LIMITS } from "../../lib/constants";
import { connectClient, type TestClient, serverPerTest } from "./harness";

const t = serverPerTest();
const track = t.track;

async function classroom(students: number) {
  const { code, hostKey } = await t.srv.createSession();
  const host = track(await connectClient(t.srv.url, { role: "host", code, hostKey }));
  const projector = track(await connectClient(t.srv.url, { role: "projector", code }));
  const kids: TestClient[] = [];
  for (let i = 0; i < students; i += 50) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(50, students - i) }, (_, j) =>
        connectClient(t.srv.url, { role: "student", code, nickname: `s${i + j}` }),
      ),
    );
    kids.push(...batch.map(track));
  }
  return { code, hostKey, host, projector, kids };
}

const pollOf = (c: TestClient) => c.public().poll;

/** The teacher opens a next-step poll; once `student` shows it, its id and options. */
async function openNextStep(host: TestClient, student: TestClient) {
  const { data } = (await host.emit("poll:open", { kind: "next-step" })) as { data: { pollId: string } };
  await student.waitFor((c) => pollOf(c)?.id === data.pollId);
  return { pollId: data.pollId, options: pollOf(student)!.options };
}

/** A vote sent again while the participant's vote rate refuses it (the rate is not what these tests are about). */
async function voteWithinRate(student: TestClient, payload: { pollId: string; optionId: string }) {
  let ack = await student.emit("poll:vote", payload);
  for (let tries = 0; !ack.ok && ack.error.code === "RATE_LIMITED" && tries < 20; tries++) {
    // One vote's refill, the bucket's own clock (RATE_LIMITS.votes).
    await new Promise((r) => setTimeout(r, 1000 / RATE_LIMITS.votes.refillPerSecond));
    ack = await student.emit("poll:vote", payload);
  }
  return ack;
}

describe("live polls", () => {
  it("puts the right answer at a random position, with ids in screen order", async () => {
    const { host } = await classroom(0);
    const seen = new Set<string>();
    // 12 polls = 24 commands, inside the teacher's burst allowance.
    for (let i = 0; i < 12; i++) {
      const { data } = (await host.emit("poll:open", { kind: "next-step" })) as { data: { pollId: string } };
      await host.waitFor((c) => c.host().poll?.id === data.pollId);
      const poll = host.host().poll!;
      expect(poll.options.map((o) => o.id)).toEqual(["o1", "o2", "o3", "o4"]);
      seen.add(poll.correctOptionId!);
      await host.emit("poll:close", { pollId: data.pollId });
    }
    // 12 shuffles of 4: the chance of one position every time is 4 x (1/4)^12.
    expect(seen.size).toBeGreaterThan(1);
  });

  it("counts 200 simultaneous votes exactly, with receipts and coalesced tallies", async () => {
    const { host, projector, kids } = await classroom(200);
    const open = await host.emit("poll:open", { kind: "next-step" });
    expect(open.ok).toBe(true);
    const pollId = (open as { data: { pollId: string } }).data.pollId;
    for (const k of kids) await k.waitFor((c) => pollOf(c)?.id === pollId);
    const options = pollOf(kids[0])!.options;
    expect(options).toHaveLength(4);
    // Before the reveal, students see neither the answer nor the notes.
    expect(pollOf(kids[0])!.correctOptionId).toBeNull();
    expect(options.every((o) => o.note === undefined)).toBe(true);

    const acks = await Promise.all(kids.map((k, i) => k.emit("poll:vote", { pollId, optionId: options[i % 4].id })));
    expect(acks.every((a) => a.ok)).toBe(true);
    expect(acks.map((a) => (a as { data: { optionId: string } }).data.optionId)).toEqual(kids.map((_, i) => options[i % 4].id));

    await host.waitFor((c) => c.tallies.at(-1)?.total === 200);
    expect(host.tallies.at(-1)!.counts).toEqual(Object.fromEntries(options.map((o) => [o.id, 50])));
    // Coalesced: the storm is a handful of messages, not one per vote (the interval itself is unit-tested with
    // fake timers in server/throttle.test.ts), and the counts only ever grow.
    expect(host.tallies.length).toBeLessThan(kids.length / 4);
    const totals = host.tallies.map((t) => t.total);
    expect(totals).toEqual([...totals].sort((a, b) => a - b));
    // Results are hidden from the class until the teacher says so.
    expect(projector.tallies).toHaveLength(0);
    expect(kids.every((k) => k.tallies.length === 0)).toBe(true);

    expect((await host.emit("poll:close", { pollId })).ok).toBe(true);
    await host.waitFor((c) => c.host().poll?.status === "closed");
    const closed = host.host().poll!;
    expect(closed.results.total).toBe(200);
    expect(pollOf(projector)!.results).toBeNull();

    // A vote after close gets a clear error.
    expect(await kids[0].emit("poll:vote", { pollId, optionId: options[1].id })).toMatchObject({
      ok: false,
      error: { code: "POLL_CLOSED" },
    });

    expect((await host.emit("poll:reveal", { pollId })).ok).toBe(true);
    await projector.waitFor((c) => pollOf(c)?.revealed === true);
    const revealed = pollOf(projector)!;
    expect(revealed.results!.total).toBe(200);
    expect(revealed.correctOptionId).toBe(closed.correctOptionId);
    expect(revealed.options.every((o) => typeof o.note === "string" && o.note.length > 10)).toBe(true);
  });

  it("lets a student change a vote and never counts a reconnecting student twice", async () => {
    const { code, host, kids } = await classroom(3);
    const { pollId, options } = await openNextStep(host, kids[0]);
    const [a, b] = options;
    await kids[0].emit("poll:vote", { pollId, optionId: a.id });
    await kids[0].emit("poll:vote", { pollId, optionId: b.id });
    const token = kids[0].welcome!.token!;
    kids[0].close();
    // Same browser, new socket (a reload), and a second tab at the same time.
    const again = track(await connectClient(t.srv.url, { role: "student", code, token }));
    const tab2 = track(await connectClient(t.srv.url, { role: "student", code, token }));
    expect(again.myVotes.at(-1)).toMatchObject({ pollId, optionId: b.id });
    await tab2.emit("poll:vote", { pollId, optionId: a.id });
    await again.waitFor((c) => c.myVotes.at(-1)?.optionId === a.id);
    await kids[1].emit("poll:vote", { pollId, optionId: a.id });
    await host.emit("poll:close", { pollId });
    await host.waitFor((c) => c.host().poll?.status === "closed");
    const results = host.host().poll!.results;
    expect(results.total).toBe(2);
    expect(results.counts[a.id]).toBe(2);
  });

  it("a student removed after using up their vote changes and let back in can vote again in the same round", async () => {
    const { code, host, kids } = await classroom(2);
    const { pollId, options } = await openNextStep(host, kids[0]);
    const [a, b] = options;
    // Ten logged votes is the round's limit (MAX_VOTES_PER_ROUND); they fit the vote rate's burst (RATE_LIMITS.votes).
    for (let i = 0; i < 10; i++) {
      expect((await kids[0].emit("poll:vote", { pollId, optionId: i % 2 ? b.id : a.id })).ok).toBe(true);
    }
    // The eleventh is refused for the round's limit (once the rate, checked first, allows another vote).
    expect(await voteWithinRate(kids[0], { pollId, optionId: a.id })).toMatchObject({ ok: false, error: { code: "VOTE_LIMIT" } });
    expect((await kids[1].emit("poll:vote", { pollId, optionId: b.id })).ok).toBe(true);
    const participantId = kids[0].welcome!.participantId!;
    const token = kids[0].welcome!.token!;
    // Removing drops the vote; let back in, the student starts the round afresh.
    expect((await host.emit("participant:remove", { participantId })).ok).toBe(true);
    expect((await host.emit("participant:readmit", { participantId })).ok).toBe(true);
    const back = track(await connectClient(t.srv.url, { role: "student", code, token }));
    const ack = await voteWithinRate(back, { pollId, optionId: a.id });
    expect(ack.ok, JSON.stringify(ack)).toBe(true);
    await host.emit("poll:close", { pollId });
    await host.waitFor((c) => c.host().poll?.status === "closed");
    expect(host.host().poll!.results).toMatchObject({ total: 2, counts: { [a.id]: 1, [b.id]: 1 } });
  });

  it("two tabs of one student voting at once both end on the vote that counts, whatever order the echo and receipt arrive in", async () => {
    const { code, host, kids } = await classroom(1);
    const { pollId, options } = await openNextStep(host, kids[0]);
    const tab2 = track(await connectClient(t.srv.url, { role: "student", code, token: kids[0].welcome!.token }));
    const [a, b] = options;
    for (let round = 0; round < 5; round++) {
      // Sent in the same tick: the server applies them in some order, and each tab gets its own receipt and the other's echo.
      const [one, two] = await Promise.all([
        kids[0].emit("poll:vote", { pollId, optionId: round % 2 ? a.id : b.id }),
        tab2.emit("poll:vote", { pollId, optionId: round % 2 ? b.id : a.id }),
      ]);
      expect(one.ok && two.ok).toBe(true);
      // What a fresh tab of the same student is told is the vote in force.
      const fresh = track(await connectClient(t.srv.url, { role: "student", code, token: kids[0].welcome!.token }));
      const inForce = fresh.myVotes.at(-1)!.optionId;
      fresh.close();
      for (const tab of [kids[0], tab2]) await tab.waitFor((c) => c.myVotes.at(-1)?.optionId === inForce);
    }
  });

  it("refuses votes from teachers, for unknown polls and options", async () => {
    const { host, projector, kids } = await classroom(1);
    const { data } = (await host.emit("poll:open", { kind: "next-step" })) as { data: { pollId: string } };
    await kids[0].waitFor((c) => pollOf(c)?.id === data.pollId);
    const optionId = pollOf(kids[0])!.options[0].id;
    expect(await host.emit("poll:vote", { pollId: data.pollId, optionId })).toMatchObject({ ok: false, error: { code: "NOT_STUDENT" } });
    expect(await projector.emit("poll:vote", { pollId: data.pollId, optionId })).toMatchObject({
      ok: false,
      error: { code: "NOT_STUDENT" },
    });
    expect(await kids[0].emit("poll:vote", { pollId: "nope", optionId })).toMatchObject({ ok: false, error: { code: "NO_SUCH_POLL" } });
    expect(await kids[0].emit("poll:vote", { pollId: data.pollId, optionId: "o9" })).toMatchObject({
      ok: false,
      error: { code: "NO_SUCH_OPTION" },
    });
    expect(await host.emit("poll:open", { kind: "next-step" })).toMatchObject({ ok: false, error: { code: "POLL_ALREADY_OPEN" } });
    expect(await host.emit("poll:reveal", { pollId: data.pollId })).toMatchObject({ ok: false, error: { code: "POLL_NOT_CLOSED" } });
  });

  it("runs custom polls, re-opens them and keeps each round's counts", async () => {
    const { host, kids } = await classroom(2);
    const ack = await host.emit("poll:open", {
      kind: "custom",
      question: "Why did the Pod stay Pending?",
      options: ["Zone conflict", "No CPU"],
      correctIndex: 0,
    });
    const pollId = (ack as { data: { pollId: string } }).data.pollId;
    await kids[0].waitFor((c) => pollOf(c)?.id === pollId);
    await kids[0].emit("poll:vote", { pollId, optionId: "o2" });
    await kids[1].emit("poll:vote", { pollId, optionId: "o2" });
    await host.emit("poll:close", { pollId });
    expect((await host.emit("poll:reopen", { pollId })).ok).toBe(true);
    await kids[0].waitFor((c) => pollOf(c)?.round === 2 && pollOf(c)?.status === "open");
    await kids[0].emit("poll:vote", { pollId, optionId: "o1" });
    await kids[1].emit("poll:vote", { pollId, optionId: "o1" });
    await host.emit("poll:close", { pollId });
    await host.emit("poll:reveal", { pollId });
    await host.waitFor((c) => c.host().poll?.status === "revealed");
    const poll = host.host().poll!;
    expect(poll.history.map((h) => h.counts)).toEqual([
      { o1: 0, o2: 2 },
      { o1: 2, o2: 0 },
    ]);
    expect(poll.correctOptionId).toBe("o1");
    for (const bad of [
      { kind: "custom", question: "", options: ["a", "b"] },
      { kind: "custom", question: "q", options: ["a"] },
      { kind: "custom", question: "q", options: ["a", "b", "c", "d", "e", "f", "g"] },
      { kind: "custom", question: "q", options: ["a", "b"], correctIndex: 5 },
      { kind: "quiz" },
    ]) {
      expect(await host.emit("poll:open", bad as never)).toMatchObject({ ok: false, error: { code: "BAD_REQUEST" } });
    }
  });
});
