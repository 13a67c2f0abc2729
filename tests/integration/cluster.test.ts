import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { io as connect } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROTOCOL_VERSION, type Ack, type AnySnapshot, type MyVote, type TallyUpdate, type Welcome } from "../../lib/protocol";
import type { ClientSocket } from "./harness";
import { followPatches, waitUntil, hostSnapshot } from "./harness";
import { Replica, lookingBackOf, myVoteOf, rosterOf, snapshotOf, tallyOf } from "../../lib/protocol/replica";
import { splitRoster } from "../../lib/session/roster";
import { RedisSessionStore, connectRedis } from "../../server/store/redis";
import { freePort, startRedis, type RedisServer } from "../support/loopback";
import { spawnServer, type ServerProcess } from "./process";

let redis: RedisServer;
const nodes: ServerProcess[] = [];
const sockets: ClientSocket[] = [];

beforeAll(async () => {
  redis = await startRedis();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "classroom-cluster-"));
  for (let i = 0; i < 3; i++) {
    nodes.push(await spawnServer({ dataDir: path.join(dataDir, `n${i}`), port: await freePort(), env: { REDIS_URL: redis.url } }));
  }
}, 60_000);

afterAll(async () => {
  for (const s of sockets) s.disconnect();
  for (const n of nodes) n.proc.kill("SIGKILL");
  await redis?.stop();
});

/**
 * A client pinned to one node, as a load balancer would place it. It keeps
 * its socket's records as the browser does (lib/protocol/replica.ts): a gap
 * (a patch it cannot follow on from, another room instance's) asks for the
 * whole projection again with `session:sync`.
 */
function client(url: string, auth: Record<string, unknown>) {
  const replica = new Replica();
  const state = {
    welcome: null as Welcome | null,
    /** The session as this screen shows it (presence and the vote count folded in). */
    get snapshot(): AnySnapshot | null {
      return snapshotOf(replica);
    },
    /** This student's vote as their page shows it. */
    get myVote(): MyVote | null {
      return myVoteOf(replica);
    },
    /** The teacher's count of students looking back (null before the teacher's records arrive). */
    get lookingBack(): number | null {
      return replica.has("host") ? lookingBackOf(replica) : null;
    },
    /** Each running count this screen showed, in order. */
    tallies: [] as TallyUpdate[],
    /** Running-count messages received (the volatile ticks), each a count. */
    tallyTicks: 0,
    gaps: 0,
  };
  const socket: ClientSocket = connect(url, {
    transports: ["websocket"],
    reconnection: false,
    forceNew: true,
    auth: { v: PROTOCOL_VERSION, ...auth },
  });
  sockets.push(socket);
  socket.on("session:welcome", (w) => (state.welcome = w));
  // As the browser does: a gap asks for the whole projection again, once.
  const follower = followPatches(socket, replica);
  socket.on("session:patch", (patch) => {
    if (follower.receive(patch) === "applied") {
      const changed = replica.takeChanges();
      if (changed.has(`${patch.stream}/tally`)) {
        const tally = tallyOf(replica);
        if (tally) state.tallies.push(tally);
        if (patch.volatile) state.tallyTicks += 1;
      }
    }
    state.gaps = follower.gaps;
  });
  const roster = { students: () => splitRoster(rosterOf(replica)?.values() ?? []).listed };
  const emit = (event: string, payload: unknown) =>
    new Promise<Ack<unknown>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ack for ${event}`)), 10_000);
      (socket.emit as (e: string, p: unknown, cb: (r: Ack<unknown>) => void) => void)(event, payload, (r) => {
        clearTimeout(timer);
        // As the bundled client does: the vote's receipt is this tab's vote (the server does not echo it here).
        if (event === "poll:vote" && r.ok) replica.putOwn("me", "vote", r.data);
        resolve(r);
      });
    });
  return { socket, state, replica, roster, emit, ready: () => waitUntil(() => state.snapshot !== null && state.welcome !== null, 10_000) };
}

describe("scale-out on Redis", () => {
  it("refuses to start on Redis data written by a newer version", async () => {
    const other = await startRedis();
    try {
      const { createClient } = await import("redis");
      const client = createClient({ url: other.url });
      await client.connect();
      await client.set("cls:schema", "99");
      await client.quit();
      const node = await spawnServer({
        dataDir: fs.mkdtempSync(path.join(os.tmpdir(), "classroom-newer-")),
        port: await freePort(),
        env: { REDIS_URL: other.url },
        waitReady: false,
      });
      expect(await node.exited).toBe(1);
      expect(node.output()).toMatch(/written by a newer version/);
    } finally {
      await other.stop();
    }
  }, 30_000);

  it("counts a student looking back from one node while their other tab is live on another", async () => {
    const [a, b, c] = nodes;
    const created = (await (
      await fetch(`${a.url}/api/sessions`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })
    ).json()) as { code: string; hostKey: string };
    const teacher = client(b.url, { role: "host", code: created.code, hostKey: created.hostKey });
    await teacher.ready();
    const laptop = client(a.url, { role: "student", code: created.code, nickname: "Ada" });
    await laptop.ready();
    const phone = client(c.url, { role: "student", code: created.code, token: laptop.state.welcome!.token });
    const bo = client(c.url, { role: "student", code: created.code, nickname: "Bo" });
    await Promise.all([phone.ready(), bo.ready()]);
    expect((await teacher.emit("step:go", { stepIndex: 5 })).ok).toBe(true);
    await waitUntil(() => teacher.state.lookingBack === 0, 10_000);

    expect(await laptop.emit("lookback:set", { lookingBack: true })).toEqual({ ok: true, data: null });
    expect((await bo.emit("lookback:set", { lookingBack: true })).ok).toBe(true);
    await waitUntil(() => teacher.state.lookingBack === 2, 10_000);
    expect((await bo.emit("lookback:set", { lookingBack: false })).ok).toBe(true);
    await waitUntil(() => teacher.state.lookingBack === 1, 10_000);
    // Ada's phone, on another node, goes back to live: her laptop still looks back.
    expect((await phone.emit("lookback:set", { lookingBack: true })).ok).toBe(true);
    expect((await phone.emit("lookback:set", { lookingBack: false })).ok).toBe(true);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(teacher.state.lookingBack).toBe(1);
    // The laptop closes; Ada is still here on her phone, live.
    laptop.socket.disconnect();
    await waitUntil(() => teacher.state.lookingBack === 0, 10_000);
    expect(teacher.roster.students().filter((s) => s.connected)).toHaveLength(2);
  });

  it("answers each forwarded call once when the owner stalls and the forwarding node resends it", async () => {
    const [a, b] = nodes;
    // Created through A: A owns the class. Every student is on B, whose calls go to A over Redis.
    const created = (await (
      await fetch(`${a.url}/api/sessions`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })
    ).json()) as { code: string; hostKey: string };
    const teacher = client(a.url, { role: "host", code: created.code, hostKey: created.hostKey });
    await teacher.ready();
    const students = Array.from({ length: 6 }, (_, i) => client(b.url, { role: "student", code: created.code, nickname: `r${i}` }));
    await Promise.all(students.map((s) => s.ready()));

    // Every answer that crosses Redis, by call id.
    const { createClient } = await import("redis");
    const spy = createClient({ url: redis.url });
    await spy.connect();
    const answers = new Map<string, number>();
    await spy.pSubscribe("cls:rpc:*", (message: string) => {
      const m = JSON.parse(message) as { kind: string; id: string };
      if (m.kind === "res") answers.set(m.id, (answers.get(m.id) ?? 0) + 1);
    });
    try {
      // A stalls for 1.5 s (a long pause, not long enough to lose the class): B's first try of each question times
      // out after 1 s and it sends it again; A reads both copies when it resumes.
      a.proc.kill("SIGSTOP");
      const acks = students.map((s, i) => s.emit("question:ask", { text: `Why ${i}?`, target: { kind: "step", stepIndex: 0 } }));
      await new Promise((r) => setTimeout(r, 1_500));
      a.proc.kill("SIGCONT");
      expect((await Promise.all(acks)).map((ack) => ack.ok)).toEqual(students.map(() => true));
      await new Promise((r) => setTimeout(r, 500));
      // One answer per call: the resend of a call still running is not answered a second time.
      const calls = [...answers.values()];
      expect(calls.length).toBeGreaterThanOrEqual(6);
      expect(calls.filter((n) => n > 1)).toEqual([]);
    } finally {
      a.proc.kill("SIGCONT");
      await spy.quit();
    }
  }, 30_000);

  it("acknowledges votes while the owner is stopped, and counts each once when it resumes", async () => {
    const [a, b, c] = nodes;
    const created = (await (
      await fetch(`${a.url}/api/sessions`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })
    ).json()) as { id: string; code: string; hostKey: string };
    const teacher = client(a.url, { role: "host", code: created.code, hostKey: created.hostKey });
    await teacher.ready();
    const students = Array.from({ length: 6 }, (_, i) => client(i % 2 ? b.url : c.url, { role: "student", code: created.code }));
    await Promise.all(students.map((s) => s.ready()));
    const open = (await teacher.emit("poll:open", { kind: "next-step" })) as { ok: true; data: { pollId: string } };
    await waitUntil(() => students.every((s) => s.state.snapshot?.poll?.id === open.data.pollId), 10_000);
    const options = students[0].state.snapshot!.poll!.options;
    const pollId = open.data.pollId;

    // Votes make no round trip to the owner: B and C take them into Redis while A, the owner, is stopped (short of
    // losing the class), and A folds them into the log when it resumes. Each student then changes their vote.
    a.proc.kill("SIGSTOP");
    try {
      const first = await Promise.all(students.map((s) => s.emit("poll:vote", { pollId, optionId: options[0].id })));
      expect(first.map((ack) => ack.ok)).toEqual(students.map(() => true));
      const again = await Promise.all(students.map((s) => s.emit("poll:vote", { pollId, optionId: options[0].id })));
      expect(again.map((ack) => ack.ok)).toEqual(students.map(() => true));
      const changed = await Promise.all(students.map((s, i) => s.emit("poll:vote", { pollId, optionId: options[1 + (i % 2)].id })));
      expect(changed.map((ack) => ack.ok)).toEqual(students.map(() => true));
      // The receipt names the round, and a later vote a later position.
      expect(changed.map((ack) => (ack.ok ? (ack.data as { round: number }).round : 0))).toEqual(students.map(() => 1));
    } finally {
      a.proc.kill("SIGCONT");
    }
    await waitUntil(() => teacher.state.tallies.at(-1)?.total === 6, 10_000);
    // A vote for an option the poll does not have is refused where it is cast, as on one node.
    expect(await students[1].emit("poll:vote", { pollId, optionId: "o99" })).toMatchObject({
      ok: false,
      error: { code: "NO_SUCH_OPTION" },
    });

    // The close folds every vote taken before it; a vote after it is refused.
    expect((await teacher.emit("poll:close", { pollId })).ok).toBe(true);
    expect(await students[0].emit("poll:vote", { pollId, optionId: options[0].id })).toMatchObject({
      ok: false,
      error: { code: "POLL_CLOSED" },
    });
    const store = await RedisSessionStore.open(await connectRedis(redis.url));
    const log = await store.loadEvents(created.id);
    await store.close();
    const voted = log.filter((e) => e.type === "poll:voted");
    // Two writes per student (the repeat wrote nothing), in the order each student sent them.
    expect(voted).toHaveLength(12);
    students.forEach((s, i) => {
      const mine = voted.filter((e) => e.type === "poll:voted" && e.participantId === s.state.welcome!.participantId);
      expect(mine.map((e) => (e.type === "poll:voted" ? e.optionId : ""))).toEqual([options[0].id, options[1 + (i % 2)].id]);
    });
    const closed = log.find((e) => e.type === "poll:closed");
    expect(closed && closed.type === "poll:closed" ? closed.total : -1).toBe(6);
    expect(log.map((e) => e.seq)).toEqual(log.map((_, i) => i + 1));
  }, 30_000);

  it("serves one class from three processes, and survives the teacher's node dying mid-poll", async () => {
    const [a, b, c] = nodes;
    const created = (await (
      await fetch(`${a.url}/api/sessions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ title: "Cluster" }),
      })
    ).json()) as { id: string; code: string; hostKey: string };

    // The teacher joins through B first, so B owns the session.
    const teacher = client(b.url, { role: "host", code: created.code, hostKey: created.hostKey });
    await teacher.ready();
    const projector = client(c.url, { role: "projector", code: created.code });
    const students = Array.from({ length: 12 }, (_, i) =>
      client([a, b, c][i % 3].url, { role: "student", code: created.code, nickname: `s${i}` }),
    );
    await Promise.all([projector.ready(), ...students.map((s) => s.ready())]);
    await waitUntil(() => teacher.roster.students().length === 12, 10_000);

    // Steps reach everyone, on every node.
    for (let i = 0; i < 3; i++) expect((await teacher.emit("step:move", { delta: 1 })).ok).toBe(true);
    await waitUntil(() => [projector, ...students].every((x) => x.state.snapshot?.stepIndex === 3), 10_000);

    // A poll; every node's students vote; tallies are coalesced once per room.
    const open = (await teacher.emit("poll:open", { kind: "next-step" })) as { ok: true; data: { pollId: string } };
    expect(open.ok).toBe(true);
    await waitUntil(() => students.every((s) => s.state.snapshot?.poll?.id === open.data.pollId), 10_000);
    const options = students[0].state.snapshot!.poll!.options;
    const firstHalf = students.slice(0, 8);
    const acks = await Promise.all(firstHalf.map((s, i) => s.emit("poll:vote", { pollId: open.data.pollId, optionId: options[i % 2].id })));
    expect(acks.every((r) => r.ok)).toBe(true);
    await waitUntil(() => teacher.state.tallies.at(-1)?.total === 8, 10_000);
    // Coalesced once per room, on the owner: fewer messages than votes, counts only growing.
    expect(teacher.state.tallyTicks).toBeGreaterThan(0);
    expect(teacher.state.tallyTicks).toBeLessThan(firstHalf.length);
    const totals = teacher.state.tallies.map((t) => t.total);
    expect(totals).toEqual([...totals].sort((a, b) => a - b));

    // The teacher's node dies.
    b.proc.kill("SIGKILL");
    await b.exited;

    // The teacher reconnects through A; students that were on B reconnect through C.
    const teacher2 = client(a.url, { role: "host", code: created.code, hostKey: created.hostKey });
    await teacher2.ready();
    // Whoever sat on B reconnects through C with the same identity (index in `students` -> new client).
    const movedIndex = students.map((_, i) => i).filter((i) => i % 3 === 1);
    const moved = new Map(
      movedIndex.map((i) => [i, client(c.url, { role: "student", code: created.code, token: students[i].state.welcome!.token })]),
    );
    await Promise.all([...moved.values()].map((s) => s.ready()));
    const now = (i: number) => moved.get(i) ?? students[i];
    const snap = hostSnapshot(teacher2.state.snapshot);
    expect(snap.stepIndex).toBe(3);
    expect(snap.poll).toMatchObject({ id: open.data.pollId, status: "open" });
    expect(snap.poll!.results.total).toBe(8);
    expect(teacher2.roster.students()).toHaveLength(12);
    // A moved student's earlier vote is still theirs.
    expect(moved.get(1)!.state.myVote).toMatchObject({ pollId: open.data.pollId, optionId: options[1].id });
    expect(moved.get(1)!.state.welcome!.participantId).toBe(students[1].state.welcome!.participantId);

    // The students who have not voted yet (8..11) vote now, through A and C.
    for (let i = 8; i < 12; i++)
      expect((await now(i).emit("poll:vote", { pollId: open.data.pollId, optionId: options[2].id })).ok).toBe(true);
    expect((await teacher2.emit("poll:close", { pollId: open.data.pollId })).ok).toBe(true);
    await waitUntil(() => hostSnapshot(teacher2.state.snapshot).poll?.status === "closed", 10_000);
    const results = hostSnapshot(teacher2.state.snapshot).poll!.results;
    expect(results.total).toBe(12);
    expect(results.counts).toMatchObject({ [options[0].id]: 4, [options[1].id]: 4, [options[2].id]: 4 });

    // The class carries on everywhere.
    expect((await teacher2.emit("step:move", { delta: 1 })).ok).toBe(true);
    await waitUntil(() => [projector, ...students.map((_, i) => now(i))].every((x) => x.state.snapshot?.stepIndex === 4), 10_000);
  }, 90_000);
});
