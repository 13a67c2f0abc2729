import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import type { ClaimResult, ConsoleList, CoteacherList, OpenedConsole } from "../../lib/account/ownership";

import type { LessonDetail, SessionDetail, ShareLink } from "../../lib/protocol/rest";
import { CookieClient } from "../support/cookieClient";
import { connectClient, connectError } from "./harness";
import { revised } from "./storeContractStores";
import {
  track,
  PASSWORD,
  mySessions,
  myLessons,
  server,
  teacher,
  signIn,
  body,
  errorCode,
  startSession,
  saveLesson,
} from "./ownershipHarness";

/**
 * What follows a teacher's account (issue 29), through the running server as
 * browsers meet it: keys claimed at sign-in, the signed-in lists on another
 * browser, a second console that drives the same class beside the first and
 * is revoked on its own, co-teachers, a stranger who gets nothing, the
 * administrator's account, and deleting an account. Students never sign in.
 */

describe("what follows a teacher's account", () => {
  it("owns what is made while signed in, and claims what this browser's keys hold when signing in", async () => {
    const srv = await server();
    const ana = await teacher(srv, "Ana Admin");
    const rivera = await teacher(srv, "Ms Rivera");
    const session = await startSession(rivera);
    const lesson = await saveLesson(rivera);

    // Before signing in, on the laptop: a session and a lesson held by their keys alone.
    const laptop = new CookieClient(srv.url);
    const early = await startSession(laptop);
    const earlyLesson = await saveLesson(laptop);
    expect((await mySessions(rivera)).sessions.map((s) => s.id)).toEqual([session.id]);

    // Signing in on the laptop, the page proves it holds the keys: they become the account's.
    expect((await laptop.post("/api/account/sign-in", { email: "ms.rivera@school.example", password: PASSWORD })).status).toBe(200);
    const claim = await laptop.request("/api/account/claim", {
      method: "POST",
      json: {},
      headers: { "X-Host-Keys": [early.hostKey, session.hostKey].join(","), "X-Lesson-Keys": earlyLesson.lessonKey },
    });
    expect(await body<ClaimResult>(claim)).toEqual({ sessions: 1, lessons: 1 });
    // Claiming again changes nothing; another account's key claims nothing it does not hold already.
    const again = await laptop.request("/api/account/claim", { method: "POST", json: {}, headers: { "X-Host-Keys": early.hostKey } });
    expect(await body<ClaimResult>(again)).toEqual({ sessions: 0, lessons: 0 });
    const stolen = await ana.request("/api/account/claim", { method: "POST", json: {}, headers: { "X-Host-Keys": session.hostKey } });
    expect(await body<ClaimResult>(stolen)).toEqual({ sessions: 0, lessons: 0 });

    const sessions = await mySessions(rivera, { "X-Host-Keys": session.hostKey });
    expect(sessions.scope).toBe("mine");
    expect(sessions.sessions.map((s) => [s.id, s.relation, s.owner, s.access]).sort()).toEqual(
      [
        [session.id, "owner", "Ms Rivera", "host"],
        [early.id, "owner", "Ms Rivera", "host"],
      ].sort(),
    );
    // The live session's consoles; the browser that sent a key is told which console is its own.
    const live = sessions.sessions.find((s) => s.id === session.id)!;
    expect(live.consoles).toEqual([expect.objectContaining({ openedBy: null, here: true })]);
    expect((await myLessons(rivera)).lessons.map((l) => [l.id, l.relation, l.keyHere]).sort()).toEqual(
      [
        [lesson.id, "owner", false],
        [earlyLesson.id, "owner", false],
      ].sort(),
    );
    // The lists need a sign-in; a claim without one is refused.
    const nobody = new CookieClient(srv.url);
    expect(await errorCode(await nobody.request("/api/account/sessions"))).toEqual([401, "SIGNED_OUT"]);
    expect(await errorCode(await nobody.post("/api/account/claim", {}))).toEqual([401, "SIGNED_OUT"]);

    // What the database keeps: the owner's id beside the session and lesson, the console key's hash, never the key.
    const db = new Database(path.join(srv.dataDir, "sessions.sqlite"), { readonly: true });
    const rows = JSON.stringify([db.prepare(`SELECT * FROM session_consoles`).all(), db.prepare(`SELECT * FROM sessions`).all()]);
    const owners = db.prepare<[], { owner_account_id: string }>(`SELECT owner_account_id FROM lessons ORDER BY created_at`).all();
    db.close();
    expect(rows).not.toContain(session.hostKey);
    expect(owners.map((o) => o.owner_account_id)).toEqual([rivera.account.id, rivera.account.id]);
  });

  it("on another browser: the replay, exports and share link by the account alone, and the lesson to edit and start", async () => {
    const srv = await server();
    await teacher(srv, "Ana Admin");
    const a = await teacher(srv, "Ms Rivera");
    const lesson = await saveLesson(a);
    const session = await startSession(a);
    const host = track(await connectClient(srv.url, { role: "host", code: session.code, hostKey: session.hostKey }));
    const student = track(await connectClient(srv.url, { role: "student", code: session.code, nickname: "Sam" }));
    await host.emit("step:move", { delta: 1 });
    await student.waitFor((c) => c.latest().stepIndex === 1);

    const b = await signIn(srv, "ms.rivera@school.example");
    expect(await body<SessionDetail>(await b.request(`/api/sessions/${session.id}`))).toMatchObject({ access: "host", status: "live" });
    const log = await body<{ access: string; events: { type: string; nickname?: string }[] }>(
      await b.request(`/api/sessions/${session.id}/events`),
    );
    expect(log.access).toBe("host");
    expect(log.events.find((e) => e.type === "participant:joined")).toMatchObject({ nickname: "Sam" });
    const students = await b.request(`/api/sessions/${session.id}/export?format=csv&sheet=students`);
    expect(students.status).toBe(200);
    expect(await students.text()).toContain("Sam");

    // Sharing from B, then from A with the key: the same link, which a viewer opens; stopping ends it for both.
    const fromB = await body<ShareLink>(await b.post(`/api/sessions/${session.id}/share`));
    const fromA = await body<ShareLink>(
      await a.request(`/api/sessions/${session.id}/share`, { method: "POST", json: {}, headers: { "X-Host-Key": session.hostKey } }),
    );
    expect(fromA.replayKey).toBe(fromB.replayKey);
    const viewer = await fetch(`${srv.url}/api/sessions/${session.id}`, { headers: { "X-Replay-Key": fromB.replayKey } });
    expect(((await viewer.json()) as SessionDetail).access).toBe("viewer");
    expect((await b.request(`/api/sessions/${session.id}/share`, { method: "DELETE" })).status).toBe(200);
    expect((await fetch(`${srv.url}/api/sessions/${session.id}`, { headers: { "X-Replay-Key": fromB.replayKey } })).status).toBe(403);

    // The lesson: read, edited (a new version), exported and started on B, without its key.
    expect(await body<LessonDetail>(await b.request(`/api/lessons/${lesson.id}`))).toMatchObject({ version: 1 });
    const edit = await b.request(`/api/lessons/${lesson.id}`, { method: "PUT", json: { lesson: revised, source: "v2" } });
    expect(await body<{ version: number }>(edit)).toEqual({ id: lesson.id, version: 2 });
    expect((await myLessons(b)).lessons).toEqual([expect.objectContaining({ id: lesson.id, version: 2, title: revised.title })]);
    expect(await (await b.request(`/api/lessons/${lesson.id}/mermaid?version=1`)).text()).toContain("SYN");
    const fromLesson = await startSession(b, { lesson: { id: lesson.id } });
    expect((await mySessions(b)).sessions.map((s) => s.id)).toContain(fromLesson.id);
  });

  it("opens a second console on another browser: both drive the class, and each key is revoked on its own", async () => {
    const srv = await server();
    await teacher(srv, "Ana Admin");
    const a = await teacher(srv, "Ms Rivera");
    const session = await startSession(a);
    const first = track(await connectClient(srv.url, { role: "host", code: session.code, hostKey: session.hostKey }));
    const phone = track(await connectClient(srv.url, { role: "student", code: session.code, nickname: "Ana" }));

    const b = await signIn(srv, "ms.rivera@school.example");
    const opened = await body<OpenedConsole>(await b.post(`/api/sessions/${session.id}/consoles`), 201);
    expect(opened).toMatchObject({ code: session.code, hostPath: `/host/${session.code}#key=${opened.hostKey}` });
    expect(opened.hostKey).not.toBe(session.hostKey);
    const second = track(await connectClient(srv.url, { role: "host", code: session.code, hostKey: opened.hostKey }));

    // Both consoles drive the class; the phone follows a step from each, and each console sees the other's.
    expect(await first.emit("step:move", { delta: 1 })).toEqual({ ok: true, data: null });
    await phone.waitFor((c) => c.latest().stepIndex === 1);
    expect(await second.emit("step:move", { delta: 1 })).toEqual({ ok: true, data: null });
    await phone.waitFor((c) => c.latest().stepIndex === 2);
    await first.waitFor((c) => c.latest().stepIndex === 2);

    const listed = await body<ConsoleList>(
      await b.request(`/api/sessions/${session.id}/consoles`, { headers: { "X-Host-Key": opened.hostKey } }),
    );
    expect(listed.consoles).toEqual([
      expect.objectContaining({ openedBy: null, here: false }),
      expect.objectContaining({ id: opened.consoleId, openedBy: "Ms Rivera", here: true }),
    ]);
    // B's key also opens the replay and lists the session in B's own key list, as the first browser's does.
    expect((await fetch(`${srv.url}/api/sessions/${session.id}`, { headers: { "X-Host-Key": opened.hostKey } })).status).toBe(200);

    // Revoking what the old browser held: its console is closed and its key refused; B carries on.
    const old = listed.consoles[0].id;
    const closed = new Promise<void>((resolve) => first.socket.once("disconnect", () => resolve()));
    expect((await b.request(`/api/sessions/${session.id}/consoles/${old}`, { method: "DELETE" })).status).toBe(200);
    await closed;
    expect((await connectError(srv.url, { role: "host", code: session.code, hostKey: session.hostKey })).code).toBe("NOT_HOST");
    expect((await fetch(`${srv.url}/api/sessions/${session.id}`, { headers: { "X-Host-Key": session.hostKey } })).status).toBe(403);
    const again = track(await connectClient(srv.url, { role: "host", code: session.code, hostKey: opened.hostKey }));
    expect(await again.emit("step:move", { delta: 1 })).toEqual({ ok: true, data: null });
    await phone.waitFor((c) => c.latest().stepIndex === 3);
    expect(await errorCode(await b.request(`/api/sessions/${session.id}/consoles/${old}`, { method: "DELETE" }))).toEqual([
      404,
      "NO_SUCH_CONSOLE",
    ]);

    // An ended session opens no console.
    await again.emit("session:end", {});
    expect(await errorCode(await b.post(`/api/sessions/${session.id}/consoles`))).toEqual([409, "SESSION_ENDED"]);
  });

  it("lets an invited co-teacher drive the class and edit the lesson, and no more than that", async () => {
    const srv = await server();
    await teacher(srv, "Ana Admin");
    const owner = await teacher(srv, "Ms Rivera");
    const co = await teacher(srv, "Mr Okoro");
    const session = await startSession(owner);
    const lesson = await saveLesson(owner);
    const phone = track(await connectClient(srv.url, { role: "student", code: session.code, nickname: "Kim" }));

    // Before the invitation the co-teacher sees nothing of it.
    expect((await mySessions(co)).sessions).toEqual([]);
    expect(await errorCode(await co.post(`/api/sessions/${session.id}/consoles`))).toEqual([403, "NO_ACCESS"]);

    const invited = await owner.post(`/api/sessions/${session.id}/coteachers`, { email: "Mr.Okoro@School.example" });
    expect((await body<CoteacherList>(invited, 201)).coteachers).toEqual([
      { id: co.account.id, displayName: "Mr Okoro", email: "mr.okoro@school.example" },
    ]);
    expect(await errorCode(await owner.post(`/api/sessions/${session.id}/coteachers`, { email: "mr.okoro@school.example" }))).toEqual([
      409,
      "ALREADY_INVITED",
    ]);
    expect(await errorCode(await owner.post(`/api/sessions/${session.id}/coteachers`, { email: "nobody@school.example" }))).toEqual([
      404,
      "NO_SUCH_ACCOUNT",
    ]);
    expect((await owner.post(`/api/lessons/${lesson.id}/coteachers`, { email: "mr.okoro@school.example" })).status).toBe(201);

    const theirs = await mySessions(co);
    expect(theirs.sessions).toEqual([
      expect.objectContaining({ id: session.id, relation: "coteacher", owner: "Ms Rivera", coteachers: [] }),
    ]);
    expect((await myLessons(co)).lessons).toEqual([expect.objectContaining({ id: lesson.id, relation: "coteacher", owner: "Ms Rivera" })]);

    // Drive: a console of their own, and the phone follows.
    const opened = await body<OpenedConsole>(await co.post(`/api/sessions/${session.id}/consoles`), 201);
    const console = track(await connectClient(srv.url, { role: "host", code: session.code, hostKey: opened.hostKey }));
    await console.emit("step:go", { stepIndex: 4 });
    await phone.waitFor((c) => c.latest().stepIndex === 4);
    // Edit the lesson, not delete it; invite nobody; revoke only their own console; not end or delete the session.
    expect((await co.request(`/api/lessons/${lesson.id}`, { method: "PUT", json: { lesson: revised, source: "v2" } })).status).toBe(200);
    expect((await co.request(`/api/lessons/${lesson.id}`, { method: "DELETE" })).status).toBe(403);
    expect(await errorCode(await co.post(`/api/lessons/${lesson.id}/key`))).toEqual([403, "NOT_OWNER"]);
    expect(await errorCode(await co.post(`/api/sessions/${session.id}/coteachers`, { email: "ana.admin@school.example" }))).toEqual([
      403,
      "NOT_OWNER",
    ]);
    const consoles = await body<ConsoleList>(await co.request(`/api/sessions/${session.id}/consoles`));
    const first = consoles.consoles.find((c) => c.openedBy === null)!;
    expect(await errorCode(await co.request(`/api/sessions/${session.id}/consoles/${first.id}`, { method: "DELETE" }))).toEqual([
      403,
      "NOT_OWNER",
    ]);
    expect(await errorCode(await co.post(`/api/sessions/${session.id}/end`))).toEqual([403, "NOT_OWNER"]);

    // Removed by the owner: the session leaves their list, and the console they opened is revoked with them.
    const closed = new Promise<void>((resolve) => console.socket.once("disconnect", () => resolve()));
    expect((await owner.request(`/api/sessions/${session.id}/coteachers/${co.account.id}`, { method: "DELETE" })).status).toBe(200);
    await closed;
    expect((await mySessions(co)).sessions).toEqual([]);
    expect((await connectError(srv.url, { role: "host", code: session.code, hostKey: opened.hostKey })).code).toBe("NOT_HOST");
  });
});
