import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { io as connect } from "socket.io-client";
import { afterEach, describe, expect, it } from "vitest";
import { PROTOCOL_VERSION, type Ack, type Welcome } from "../../lib/protocol";
import { Replica, myVoteOf, questionsOf, rosterOf, snapshotOf } from "../../lib/protocol/replica";
import { replay } from "../../lib/session";
import { splitRoster } from "../../lib/session/roster";
import { SqliteSessionStore, StoreError } from "../../server/store/sqlite";
import type { ClientSocket } from "./harness";
import { waitUntil, hostSnapshot } from "./harness";
import { freePort } from "../support/loopback";
import { spawnServer, type ServerProcess } from "./process";

const procs: ServerProcess[] = [];
const sockets: ClientSocket[] = [];
afterEach(() => {
  for (const s of sockets.splice(0)) s.disconnect();
  for (const p of procs.splice(0)) p.proc.kill("SIGKILL");
});

/**
 * A client that reconnects by itself, like the browser: it resends the token
 * the server issued, and keeps its records by the clients' one rule (a new
 * server's whole patches replace what it held; a gap asks for them again).
 */
function liveClient(url: string, auth: Record<string, unknown>) {
  const replica = new Replica();
  const state = {
    welcome: null as Welcome | null,
    connects: 0,
    /** The room instance each stream's records come from (a restarted server's room is a new one). */
    instances: new Map<string, string>(),
    get snapshot() {
      return snapshotOf(replica);
    },
    get myVote() {
      return myVoteOf(replica);
    },
    get questions() {
      return questionsOf(replica);
    },
  };
  const socket: ClientSocket = connect(url, {
    transports: ["websocket"],
    reconnectionDelay: 100,
    reconnectionDelayMax: 300,
    auth: (cb) => cb({ v: PROTOCOL_VERSION, ...auth, token: state.welcome?.token ?? auth.token }),
  });
  sockets.push(socket);
  socket.on("connect", () => state.connects++);
  socket.on("session:welcome", (w) => (state.welcome = { ...w, token: w.token ?? state.welcome?.token }));
  socket.on("session:patch", (patch) => {
    const outcome = replica.apply(patch);
    if (outcome === "applied") state.instances.set(patch.stream, patch.instance);
    if (outcome === "gap") socket.emit("session:sync", {}, () => undefined);
  });
  const roster = { students: () => splitRoster(rosterOf(replica)?.values() ?? []).listed };
  const emit = (event: string, payload: unknown) =>
    new Promise<Ack<unknown>>((resolve) =>
      (socket.emit as (e: string, p: unknown, cb: (r: Ack<unknown>) => void) => void)(event, payload, (ack) => {
        // As the browser does: this tab's vote is its receipt (the server does not echo it to the tab that voted).
        if (event === "poll:vote" && ack.ok) replica.putOwn("me", "vote", ack.data);
        resolve(ack);
      }),
    );
  return { socket, state, roster, emit };
}

describe("durability", () => {
  it("loses nothing acknowledged when the server is killed with SIGKILL mid-poll", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "classroom-kill-"));
    const port = await freePort();
    const first = await spawnServer({ dataDir, port });
    procs.push(first);
    const created = (await (
      await fetch(`${first.url}/api/sessions`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })
    ).json()) as { code: string; hostKey: string; id: string };

    const host = liveClient(first.url, { role: "host", code: created.code, hostKey: created.hostKey });
    const projector = liveClient(first.url, { role: "projector", code: created.code });
    const students = ["Ana", "Bo", "Cy"].map((nickname) => liveClient(first.url, { role: "student", code: created.code, nickname }));
    const everyone = [host, projector, ...students];
    await waitUntil(() => everyone.every((c) => c.state.snapshot !== null), 10_000);

    await host.emit("step:go", { stepIndex: 4 });
    expect((await host.emit("mode:set", { mode: "Immediate", variant: "standard" })).ok).toBe(true);
    const open = (await host.emit("poll:open", { kind: "next-step" })) as { ok: true; data: { pollId: string } };
    await waitUntil(() => students.every((s) => s.state.snapshot?.poll?.id === open.data.pollId));
    const options = students[0].state.snapshot!.poll!.options;
    const choices = [options[0].id, options[1].id, options[1].id];
    for (const [i, s] of students.entries()) {
      expect((await s.emit("poll:vote", { pollId: open.data.pollId, optionId: choices[i] })).ok).toBe(true);
    }
    // A question about step 5's arrow, anonymous, with two upvotes and the teacher's "answered".
    const asked = (await students[0].emit("question:ask", { text: "Kept?", target: { kind: "arrow", stepIndex: 4 }, anonymous: true })) as {
      ok: true;
      data: { questionId: string };
    };
    expect(asked.ok).toBe(true);
    const questionId = asked.data.questionId;
    for (const s of students.slice(1)) expect((await s.emit("question:upvote", { questionId, upvoted: true })).ok).toBe(true);
    expect((await host.emit("question:answer", { questionId, answered: true })).ok).toBe(true);
    const before = host.state.snapshot!;
    const firstInstance = host.state.instances.get("host");
    expect(firstInstance).toBeDefined();

    first.proc.kill("SIGKILL");
    await first.exited;
    await waitUntil(() => everyone.every((c) => !c.socket.connected), 5000);

    const second = await spawnServer({ dataDir, port });
    procs.push(second);
    await waitUntil(() => everyone.every((c) => c.socket.connected && c.state.connects >= 2), 15_000);
    // Everything each client shows from here came from the new server (its room instance's whole records), not the copy it kept.
    const streams = (c: (typeof everyone)[number]) => (c === host ? ["host"] : c === projector ? ["public"] : ["public", "me"]);
    await waitUntil(
      () => everyone.every((c) => streams(c).every((stream) => ![undefined, firstInstance].includes(c.state.instances.get(stream)))),
      5000,
    );
    await waitUntil(() => hostSnapshot(host.state.snapshot).poll?.results.total === 3, 5000);

    for (const c of everyone) {
      expect(c.state.snapshot).toMatchObject({ mode: "Immediate", stepIndex: before.stepIndex, status: "live" });
      expect(c.state.snapshot!.poll).toMatchObject({ id: open.data.pollId, status: "open" });
    }
    const hostPoll = hostSnapshot(host.state.snapshot).poll!;
    expect(hostPoll.results.counts).toEqual({
      ...Object.fromEntries(options.map((o) => [o.id, 0])),
      [options[0].id]: 1,
      [options[1].id]: 2,
    });
    // Same identities: no new participants, and each student sees their own vote.
    expect(host.roster.students()).toHaveLength(3);
    // Each student's own vote comes with their own records on the reconnect.
    students.forEach((s, i) => expect(s.state.myVote).toMatchObject({ pollId: open.data.pollId, optionId: choices[i] }));
    await waitUntil(() => host.state.snapshot!.participantCount === 3, 5000);

    // The question and its upvotes too, with each student's own upvote; and in the teacher's export.
    await waitUntil(() => students.every((s) => s.state.connects >= 2 && s.state.questions !== null));
    expect(students[1].state.questions).toMatchObject({
      myUpvotes: [questionId],
      questions: [{ id: questionId, text: "Kept?", votes: 2, status: "answered", by: null }],
    });
    expect(students[0].state.questions).toMatchObject({ mine: [questionId], myUpvotes: [] });
    const csv = await (
      await fetch(`${second.url}/api/sessions/${created.id}/export?format=csv&sheet=questions`, {
        headers: { "x-host-key": created.hostKey },
      })
    ).text();
    expect(csv.split("\r\n")[1]).toMatch(/^Kept\?,[^,]+,Step 5 · [^,]+,arrow,2,answered,[^,]+,anonymous$/);

    // The class carries on.
    expect((await host.emit("poll:close", { pollId: open.data.pollId })).ok).toBe(true);
    expect((await host.emit("step:move", { delta: 1 })).ok).toBe(true);
    await waitUntil(() => students.every((s) => s.state.snapshot!.stepIndex === before.stepIndex + 1));
  }, 60_000);

  it("drains on SIGTERM: exits cleanly and keeps every acknowledged event", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "classroom-term-"));
    const port = await freePort();
    const server = await spawnServer({ dataDir, port });
    procs.push(server);
    const created = (await (
      await fetch(`${server.url}/api/sessions`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })
    ).json()) as { code: string; hostKey: string; id: string };
    const host = liveClient(server.url, { role: "host", code: created.code, hostKey: created.hostKey });
    await waitUntil(() => host.state.snapshot !== null);
    for (let i = 0; i < 5; i++) expect((await host.emit("step:move", { delta: 1 })).ok).toBe(true);
    server.proc.kill("SIGTERM");
    expect(await server.exited).toBe(0);
    const store = new SqliteSessionStore(path.join(dataDir, "sessions.sqlite"));
    const state = replay(store.loadEventsSync(created.id));
    store.closeSync();
    expect(state.stepIndex).toBe(5);
  }, 30_000);

  it("records concurrent sessions without mixing them", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "classroom-mix-"));
    const port = await freePort();
    const server = await spawnServer({ dataDir, port });
    procs.push(server);
    const make = async () =>
      (await (
        await fetch(`${server.url}/api/sessions`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })
      ).json()) as {
        code: string;
        hostKey: string;
        id: string;
      };
    const [a, b] = await Promise.all([make(), make()]);
    const hostA = liveClient(server.url, { role: "host", code: a.code, hostKey: a.hostKey });
    const hostB = liveClient(server.url, { role: "host", code: b.code, hostKey: b.hostKey });
    await waitUntil(() => hostA.state.snapshot !== null && hostB.state.snapshot !== null);
    await Promise.all([
      (async () => {
        for (let i = 0; i < 7; i++) await hostA.emit("step:move", { delta: 1 });
      })(),
      (async () => {
        await hostB.emit("mode:set", { mode: "Local", variant: "standard" });
        for (let i = 0; i < 3; i++) await hostB.emit("step:move", { delta: 1 });
      })(),
    ]);
    const store = new SqliteSessionStore(path.join(dataDir, "sessions.sqlite"));
    const logA = store.loadEventsSync(a.id);
    const logB = store.loadEventsSync(b.id);
    store.closeSync();
    expect(logA.map((e) => e.seq)).toEqual(logA.map((_, i) => i + 1));
    expect(logB.map((e) => e.seq)).toEqual(logB.map((_, i) => i + 1));
    expect(replay(logA)).toMatchObject({ id: a.id, mode: "WaitForFirstConsumer", stepIndex: 7 });
    expect(replay(logB)).toMatchObject({ id: b.id, mode: "Local", stepIndex: 3 });
  }, 30_000);
});

describe("a damaged database", () => {
  function dbWithOneSession(): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "classroom-db-"));
    const file = path.join(dir, "sessions.sqlite");
    const store = new SqliteSessionStore(file);
    for (let i = 0; i < 200; i++) {
      void store.createSession(
        {
          id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
          code: `C${i}`,
          title: "x".repeat(100),
          hostKeyHash: "00",
          createdAt: i,
          endedAt: null,
        },
        { type: "session:created", id: `s${i}`, code: `C${i}`, title: "t", seq: 1, at: i },
      );
    }
    store.closeSync();
    return file;
  }

  it("refuses a file that is not a database, with a clear message", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "classroom-db-"));
    const file = path.join(dir, "sessions.sqlite");
    fs.writeFileSync(file, "this is not a database, it is a shopping list".repeat(100));
    expect(() => new SqliteSessionStore(file)).toThrow(StoreError);
    expect(() => new SqliteSessionStore(file)).toThrow(/cannot open the session database .*sessions\.sqlite/);
  });

  it("refuses a truncated database rather than showing an empty list", () => {
    const file = dbWithOneSession();
    const size = fs.statSync(file).size;
    fs.truncateSync(file, Math.floor(size / 2));
    expect(() => {
      const store = new SqliteSessionStore(file);
      // If opening happened to succeed, reading must not quietly return nothing.
      const n = store.liveSessionIdsSync().length;
      store.closeSync();
      if (n !== 200) throw new StoreError(`read ${n} sessions`);
    }).toThrow(StoreError);
  });

  it("the server exits on start with the reason instead of serving an empty list", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "classroom-bad-"));
    fs.writeFileSync(path.join(dataDir, "sessions.sqlite"), "garbage".repeat(500));
    const server = await spawnServer({ dataDir, port: await freePort(), waitReady: false });
    procs.push(server);
    expect(await server.exited).toBe(1);
    expect(server.output()).toMatch(/cannot open the session database/);
  }, 30_000);
});
