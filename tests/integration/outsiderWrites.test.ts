import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CustomLesson } from "../../lib/lesson/model";
import { questionsOf, snapshotOf } from "../../lib/protocol/replica";
import type { HostQuestion } from "../../lib/session/questions";
import type { SessionEvent } from "../../lib/session";
import { connectClient, httpRequest, rawJoin, serverPerTest, waitUntil, type RawSocket, type TestClient } from "./harness";
import { freePort } from "../support/loopback";
import { spawnServer, type ServerProcess } from "./process";

/**
 * What an outsider can make the server keep, attacked from outside as an
 * outside review did (issue 28): only the running server's published doors,
 * from many loopback addresses (127.x.y.z are all this machine's), and what
 * the attacker and the class next to them can observe.
 *
 * - a lesson flood from many addresses, with no credential, that filled the
 *   server's lesson cap and locked every teacher out of saving a new lesson
 *   (deleting did not free the cap);
 * - an edit flood that kept every version of a lesson forever;
 * - a moderated room flooded with waiting questions by one student's script
 *   of a hundred identities, which a real student could then not ask into,
 *   and which refilled after the room was locked;
 * - removing and readmitting a student, which moved their anonymous question
 *   out of and back into the class's view: the class could tell whose it was.
 */

const ADMIN = "outsider-writes-admin-0123456789";
const MAX_LESSONS = 40;
/** New lessons one address may create at once (LESSON_CREATIONS_PER_ADDRESS), and versions a lesson keeps (LESSON_VERSIONS_KEPT). */
const CREATIONS_PER_ADDRESS = 10;
const VERSIONS_KEPT = 10;
/** Questions waiting for approval per address and per student (lib/session/limits.ts). */
const WAITING_PER_ADDRESS = 30;

const step = (from: string, to: string, title: string) => ({ from, to, line: "solid" as const, head: "filled" as const, title });
const lesson = (title: string): CustomLesson => ({
  title,
  lifelines: [
    { id: "C", name: "Client" },
    { id: "S", name: "Server" },
  ],
  steps: [step("C", "S", "SYN"), step("S", "C", "SYN-ACK"), step("C", "S", "ACK")],
});
const SOURCE = "sequenceDiagram\n  C->>S: SYN\n  S->>C: SYN-ACK\n  C->>S: ACK\n";

const errorCode = (body: string) => (JSON.parse(body) as { error?: { code?: string } }).error?.code;

async function startProcess(env: Record<string, string>): Promise<ServerProcess> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "outsider-writes-"));
  return spawnServer({ dataDir, port: await freePort(), env: { ADMIN_TOKEN: ADMIN, ...env } });
}

function lessonsApi(srv: () => ServerProcess) {
  const call = (method: string, p: string, address: string, headers: Record<string, string> = {}, body?: unknown) =>
    httpRequest(srv().url, p, {
      method,
      localAddress: address,
      headers: { ...(body !== undefined ? { "content-type": "application/json" } : {}), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  return {
    create: (address: string, title: string, headers: Record<string, string> = {}) =>
      call("POST", "/api/lessons", address, headers, { lesson: lesson(title), source: SOURCE }),
    edit: (address: string, id: string, key: string, title: string) =>
      call("PUT", `/api/lessons/${id}`, address, { "X-Lesson-Key": key }, { lesson: lesson(title), source: SOURCE }),
    read: (address: string, id: string, key: string, version?: number) =>
      call("GET", `/api/lessons/${id}${version === undefined ? "" : `?version=${version}`}`, address, { "X-Lesson-Key": key }),
    remove: (address: string, id: string, headers: Record<string, string>) => call("DELETE", `/api/lessons/${id}`, address, headers),
    startSession: (address: string, id: string, key: string, version?: number) =>
      call("POST", "/api/sessions", address, { "X-Lesson-Key": key }, { lesson: { id, ...(version ? { version } : {}) } }),
  };
}

describe("lessons an outsider writes are bounded (a real server process, anonymous writes limited)", () => {
  let srv: ServerProcess;
  beforeAll(async () => {
    srv = await startProcess({ MAX_LESSONS: String(MAX_LESSONS) });
  }, 60_000);
  afterAll(() => {
    srv?.proc.kill();
  });
  const api = lessonsApi(() => srv);

  it("an edit flood keeps a bounded number of versions, the versions sessions ran among them", async () => {
    const address = "127.0.4.1";
    const created = await api.create(address, "Week 1");
    expect(created.status).toBe(201);
    const { id, lessonKey } = JSON.parse(created.body) as { id: string; lessonKey: string };
    // A class runs version 1; then 25 edits in a row (the per-address write allowance takes 30 a minute).
    expect((await api.startSession(address, id, lessonKey)).status).toBe(201);
    const edits = 25;
    for (let i = 1; i <= edits; i++) {
      const res = await api.edit(address, id, lessonKey, `Week 1, edit ${i}`);
      expect(res.status, res.body).toBe(200);
      expect(JSON.parse(res.body)).toEqual({ id, version: i + 1 });
    }
    const latest = edits + 1;
    const readable: number[] = [];
    for (let v = 1; v <= latest; v++) {
      const res = await api.read(address, id, lessonKey, v);
      if (res.status === 200) readable.push(v);
      else expect(errorCode(res.body)).toBe("NO_SUCH_LESSON");
    }
    // The version the class ran, and the newest ten: every other one is gone from the disk.
    expect(readable).toEqual([1, ...Array.from({ length: VERSIONS_KEPT }, (_, i) => latest - VERSIONS_KEPT + 1 + i)]);
    expect(JSON.parse((await api.read(address, id, lessonKey)).body)).toMatchObject({ version: latest, latestVersion: latest });
  });

  it("a flood from many addresses is bounded per address, fills no more than the cap, and deleting frees the cap", async () => {
    const teacher = "127.0.2.1";
    const mine = await api.create(teacher, "My lesson");
    expect(mine.status).toBe(201);
    const { id: myId, lessonKey: myKey } = JSON.parse(mine.body) as { id: string; lessonKey: string };

    // The flooder moves from address to address; each one is cut off after its allowance.
    const flood: { id: string; lessonKey: string; address: string }[] = [];
    let full = false;
    for (let a = 1; a <= 20 && !full; a++) {
      const address = `127.0.1.${a}`;
      const statuses: number[] = [];
      for (let i = 0; i <= CREATIONS_PER_ADDRESS; i++) {
        const res = await api.create(address, `spam ${a}.${i}`);
        statuses.push(res.status);
        if (res.status === 201) flood.push({ ...(JSON.parse(res.body) as { id: string; lessonKey: string }), address });
        else if (res.status === 507) {
          expect(errorCode(res.body)).toBe("LESSONS_FULL");
          full = true;
          break;
        } else {
          expect(res.status, res.body).toBe(429);
          expect(errorCode(res.body)).toBe("RATE_LIMITED");
          break;
        }
      }
      // Never more than the allowance from one address.
      expect(statuses.filter((s) => s === 201).length, `address ${address}: ${statuses.join(",")}`).toBeLessThanOrEqual(
        CREATIONS_PER_ADDRESS,
      );
      if (!full) expect(statuses.at(-1), `address ${address}`).toBe(429);
    }
    expect(full).toBe(true);
    // The cap holds: the two lessons of the teachers (the edit flood's and this one), the flood, nothing more.
    const all = JSON.parse((await httpRequest(srv.url, "/api/lessons", { headers: { authorization: `Bearer ${ADMIN}` } })).body) as {
      lessons: unknown[];
    };
    expect(all.lessons).toHaveLength(MAX_LESSONS);
    expect(flood).toHaveLength(MAX_LESSONS - 2);

    // A full server still takes the teacher's edits (an edit adds no lesson); a new lesson waits for room.
    expect((await api.edit(teacher, myId, myKey, "My lesson, revised")).status).toBe(200);
    const refused = await api.create(teacher, "Another");
    expect(refused.status).toBe(507);

    // Deleting frees places: the flooder's own keys (or the admin) delete, and the teacher saves at once.
    for (const spam of flood.slice(0, 3))
      expect((await api.remove(spam.address, spam.id, { "X-Lesson-Key": spam.lessonKey })).status).toBe(200);
    expect((await api.remove(teacher, flood[3].id, { authorization: `Bearer ${ADMIN}` })).status).toBe(200);
    expect((await api.create(teacher, "Another")).status).toBe(201);
    // A deleted lesson reads nothing, for its key or anyone.
    expect((await api.read(flood[0].address, flood[0].id, flood[0].lessonKey)).status).toBe(404);
  });
});

describe("with LESSON_WRITES=off, only the admin writes lessons", () => {
  let srv: ServerProcess;
  beforeAll(async () => {
    srv = await startProcess({ LESSON_WRITES: "off" });
  }, 60_000);
  afterAll(() => {
    srv?.proc.kill();
  });
  const api = lessonsApi(() => srv);

  it("refuses a new lesson and an edit without the admin token; the admin writes; a key still reads, runs and deletes", async () => {
    const outsider = "127.0.5.1";
    const refused = await api.create(outsider, "spam");
    expect(refused.status).toBe(403);
    expect(errorCode(refused.body)).toBe("NO_ACCESS");
    const made = await api.create(outsider, "Written by the admin", { authorization: `Bearer ${ADMIN}` });
    expect(made.status).toBe(201);
    const { id, lessonKey } = JSON.parse(made.body) as { id: string; lessonKey: string };
    expect((await api.edit(outsider, id, lessonKey, "changed")).status).toBe(403);
    expect((await api.read(outsider, id, lessonKey)).status).toBe(200);
    expect((await api.startSession(outsider, id, lessonKey)).status).toBe(201);
    expect((await api.remove(outsider, id, { "X-Lesson-Key": lessonKey })).status).toBe(200);
  });
});

// ---------------------------------------------------------------------------
// Questions

const ARROW_5 = { kind: "arrow", stepIndex: 4 } as const;

describe("questions an outsider's identities write are bounded, and the teacher clears a flood in one action", () => {
  const t = serverPerTest();
  const raws: RawSocket[] = [];
  const clients: TestClient[] = [];
  afterAll(() => {
    for (const r of raws) r.close();
  });

  async function student(code: string, address: string, nickname: string) {
    const joined = await rawJoin(t.srv.url, { role: "student", code, nickname }, { localAddress: address });
    expect(joined.code, nickname).toBeNull();
    raws.push(joined.raw);
    return joined;
  }
  const waiting = (host: TestClient) =>
    (questionsOf(host.replica)?.questions ?? []).filter((q) => q.status === "pending" && !(q as HostQuestion).hidden);

  it("a hundred identities from one address hold a bounded part of the queue; a real student asks; lock and one action clear it for good", async () => {
    const { id: sessionId, code, hostKey } = await t.srv.createSession();
    const host = await connectClient(t.srv.url, { role: "host", code, hostKey });
    clients.push(host);
    expect((await host.emit("questions:configure", { mode: "moderated", names: "either" })).ok).toBe(true);
    expect((await host.emit("step:go", { stepIndex: 4 })).ok).toBe(true);

    const school = "127.0.3.1";
    const ana = await student(code, "127.0.3.2", "Ana");
    // Cleo sits in the same classroom as the script's author: same NAT address.
    const cleo = await student(code, school, "Cleo");
    const bots = [];
    for (let i = 0; i < 110; i++) bots.push(await student(code, school, `bot${i}`));

    // One bot asks once first (it keeps two of its three questions' allowance), then all of them ask three at once.
    const first = await bots[0].raw.emit("question:ask", { text: "spam first", target: ARROW_5 });
    expect(first).toMatchObject({ ok: true, data: { status: "pending" } });
    const acks = await Promise.all(
      bots.slice(1).flatMap((b, i) => [0, 1, 2].map((k) => b.raw.emit("question:ask", { text: `spam ${i}.${k}`, target: ARROW_5 }))),
    );
    const accepted = acks.filter((a) => a.ok).length + 1;
    // The address holds its part of the queue, whatever its number of identities; the rest is refused by name.
    expect(accepted).toBe(WAITING_PER_ADDRESS);
    for (const a of acks.filter((x) => !x.ok)) expect(["QUESTION_LIMIT", "RATE_LIMITED"]).toContain(a.ok ? "" : a.error.code);

    // A real student elsewhere still asks into the queue.
    const asked = await ana.raw.emit("question:ask", { text: "Why is the PV created before the pod?", target: ARROW_5 });
    expect(asked).toMatchObject({ ok: true, data: { status: "pending" } });
    const anaQuestion = (asked as { ok: true; data: { questionId: string } }).data.questionId;
    await waitUntil(() => waiting(host).length === WAITING_PER_ADDRESS + 1);

    // The teacher approves Ana's question, locks the room: the script makes no new identity.
    expect((await host.emit("question:approve", { questionId: anaQuestion })).ok).toBe(true);
    expect((await host.emit("room:lock", { locked: true })).ok).toBe(true);
    const late = await rawJoin(t.srv.url, { role: "student", code, nickname: "bot-late" }, { localAddress: school });
    late.raw.close();
    expect(late.code).toBe("ROOM_LOCKED");

    // One action: everything waiting is hidden, and its askers stopped.
    expect(await host.emit("question:hide", { allPending: true, block: true })).toEqual({ ok: true, data: null });
    await waitUntil(() => waiting(host).length === 0);
    expect(questionsOf(host.replica)!.questions.filter((q) => (q as HostQuestion).askerBlocked)).toHaveLength(WAITING_PER_ADDRESS);

    // It stays cleared: a stopped bot is refused by name, however much allowance it has left.
    const again = await bots[0].raw.emit("question:ask", { text: "spam again", target: ARROW_5 });
    expect(again).toMatchObject({ ok: false, error: { code: "QUESTION_LIMIT", message: expect.stringMatching(/stopped/) } });
    // Cleo, behind the script's address, now asks: the address's queue is free again.
    expect(await cleo.raw.emit("question:ask", { text: "Is the node chosen first?", target: ARROW_5 })).toMatchObject({
      ok: true,
      data: { status: "pending" },
    });
    // Hers is the only one: question changes reach the console in order, so a refused or hidden one coming back
    // would have arrived before it.
    await waitUntil(() => waiting(host).some((q) => q.text === "Is the node chosen first?"));
    expect(waiting(host).map((q) => q.text)).toEqual(["Is the node chosen first?"]);
    // Ana's approved question is still the class's.
    expect(questionsOf(ana.raw.records())!.questions.map((q) => q.id)).toContain(anaQuestion);

    // The log says what happened, so the replay shows it: each hide, and whom the teacher stopped.
    const log = JSON.parse(
      (await httpRequest(t.srv.url, `/api/sessions/${sessionId}/events`, { headers: { "X-Host-Key": hostKey } })).body,
    ) as { events: SessionEvent[] };
    expect(log.events.filter((e) => e.type === "question:hidden" && e.hidden)).toHaveLength(WAITING_PER_ADDRESS);
    const blocked = log.events.filter((e) => e.type === "questions:blocked");
    expect(blocked).toHaveLength(1);
    expect(blocked[0]).toMatchObject({ blocked: true });
    expect(blocked[0].type === "questions:blocked" && blocked[0].participantIds).toContain(bots[0].welcome!.participantId);
    host.close();
  }, 60_000);
});

describe("anonymity holds through removal", () => {
  const t = serverPerTest();
  const raws: RawSocket[] = [];
  afterAll(() => {
    for (const r of raws) r.close();
  });
  async function join(code: string, nickname: string) {
    const joined = await rawJoin(t.srv.url, { role: "student", code, nickname });
    expect(joined.code).toBeNull();
    raws.push(joined.raw);
    return joined;
  }

  it("removing and readmitting the asker of an anonymous question tells the class nothing about it, now or later", async () => {
    const { code, hostKey } = await t.srv.createSession();
    const host = await connectClient(t.srv.url, { role: "host", code, hostKey });
    expect((await host.emit("step:go", { stepIndex: 4 })).ok).toBe(true);
    const ada = await join(code, "Ada");
    const cy = await join(code, "Cy");
    const bo = await join(code, "Bo");
    const projector = await rawJoin(t.srv.url, { role: "projector", code });
    raws.push(projector.raw);

    const anon = await ada.raw.emit("question:ask", { text: "Is this a silly question?", target: ARROW_5, anonymous: true });
    const anonId = (anon as { ok: true; data: { questionId: string } }).data.questionId;
    const named = await cy.raw.emit("question:ask", { text: "Signed question", target: ARROW_5 });
    const namedId = (named as { ok: true; data: { questionId: string } }).data.questionId;
    expect((await bo.raw.emit("question:upvote", { questionId: anonId, upvoted: true })).ok).toBe(true);
    expect((await host.emit("question:show", { questionId: anonId })).ok).toBe(true);
    for (const watcher of [bo.raw, projector.raw]) {
      await waitUntil(() => (questionsOf(watcher.records())?.questions ?? []).length === 2);
      await waitUntil(() => snapshotOf(watcher.records())?.questions.shownId === anonId);
    }

    // From here, what the class receives must say nothing new of Ada's question.
    const marks = [bo.raw, projector.raw].map((r) => r.frames.length);
    const adaId = ada.welcome!.participantId!;
    expect((await host.emit("participant:remove", { participantId: adaId })).ok).toBe(true);
    expect((await host.emit("participant:remove", { participantId: cy.welcome!.participantId! })).ok).toBe(true);
    // A named question leaves with its asker, as before: that is the class's signal that the batches went out.
    for (const watcher of [bo.raw, projector.raw])
      await waitUntil(() => !(questionsOf(watcher.records())?.questions ?? []).some((q) => q.id === namedId));
    expect((await host.emit("participant:readmit", { participantId: adaId })).ok).toBe(true);
    // Bo asks after the readmission: once his question has reached the class, so has whatever the readmission
    // changed in the questions (they reach each socket in the order they were made).
    const after = await bo.raw.emit("question:ask", { text: "Asked after the readmission", target: ARROW_5 });
    const afterId = (after as { ok: true; data: { questionId: string } }).data.questionId;
    for (const watcher of [bo.raw, projector.raw])
      await waitUntil(() => (questionsOf(watcher.records())?.questions ?? []).some((q) => q.id === afterId));

    for (const [i, watcher] of [bo.raw, projector.raw].entries()) {
      // No record of it put or taken away (the session record, re-sent on every removal, still shows it on the projector).
      const touched = watcher
        .patches()
        .filter(({ index }) => index >= marks[i])
        .flatMap(({ patch }) => [...Object.keys(patch.put ?? {}), ...(patch.del ?? [])]);
      expect(touched, "the class heard of the anonymous question after its asker was removed").not.toContain(`q:${anonId}`);
      const held = questionsOf(watcher.records())!.questions.filter((q) => q.id !== afterId);
      expect(held.map((q) => [q.id, q.votes, q.by])).toEqual([[anonId, 1, null]]);
      // Still on the projector: taking it down at that moment would have said whose it was.
      expect(snapshotOf(watcher.records())?.questions.shownId).toBe(anonId);
    }
    // The teacher's console, which may be mirrored, does not mark it as the removed student's either.
    await waitUntil(
      () => (questionsOf(host.replica)!.questions.find((q) => q.id === namedId) as HostQuestion | undefined)?.askerRemoved === true,
    );
    expect(questionsOf(host.replica)!.questions.find((q) => q.id === anonId)).toMatchObject({ askerRemoved: false, anonymous: true });
    host.close();
  });
});
