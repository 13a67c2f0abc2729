import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import type {
  AccountLessonList,
  AccountSessionList,
  ClaimResult,
  ConsoleList,
  CoteacherList,
  OpenedConsole,
  RotatedLessonKey,
} from "../../lib/account/ownership";
import type { AccountView } from "../../lib/account/rest";
import type { CreatedLesson, CreatedSessionBody, LessonDetail, SessionDetail, ShareLink } from "../../lib/protocol/rest";
import { CookieClient } from "../support/cookieClient";
import { connectClient, connectError, startServer, type TestClient, type TestServer } from "./harness";
import { handshake, revised } from "./storeContractStores";

/**
 * What follows a teacher's account (issue 29), through the running server as
 * browsers meet it: keys claimed at sign-in, the signed-in lists on another
 * browser, a second console that drives the same class beside the first and
 * is revoked on its own, co-teachers, a stranger who gets nothing, the
 * administrator's account, and deleting an account. Students never sign in.
 */

const servers: TestServer[] = [];
const clients: TestClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  for (const s of servers.splice(0)) await s.close();
});
const track = (c: TestClient) => (clients.push(c), c);
const ADMIN_TOKEN = "script-admin-token-0123456789";

async function server(): Promise<TestServer> {
  const s = await startServer({ adminToken: ADMIN_TOKEN });
  servers.push(s);
  return s;
}

const PASSWORD = "correct horse battery staple";

/** A browser with an account: signed up on this server (the first one is the administrator). */
async function teacher(srv: TestServer, name: string): Promise<CookieClient & { account: AccountView }> {
  const browser = new CookieClient(srv.url);
  const email = `${name.toLowerCase().replace(/\W+/g, ".")}@school.example`;
  const res = await browser.post("/api/account/sign-up", { email, displayName: name, password: PASSWORD });
  expect(res.status).toBe(201);
  return Object.assign(browser, { account: (await res.json()) as AccountView });
}

/** The same person on a fresh browser: no keys, no cookie, then signed in. */
async function signIn(srv: TestServer, email: string): Promise<CookieClient> {
  const browser = new CookieClient(srv.url);
  expect((await browser.post("/api/account/sign-in", { email, password: PASSWORD })).status).toBe(200);
  return browser;
}

async function body<T>(res: Response, status = 200): Promise<T> {
  if (res.status !== status) throw new Error(`${res.url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

async function errorCode(res: Response): Promise<[number, string]> {
  const b = (await res.json()) as { error: { code: string } };
  return [res.status, b.error.code];
}

async function startSession(browser: CookieClient, extra: Record<string, unknown> = {}): Promise<CreatedSessionBody> {
  return body<CreatedSessionBody>(await browser.post("/api/sessions", { title: "Storage 101", ...extra }), 201);
}

async function saveLesson(browser: CookieClient): Promise<CreatedLesson> {
  return body<CreatedLesson>(await browser.post("/api/lessons", { lesson: handshake, source: "sequenceDiagram\n  C->>S: SYN\n" }), 201);
}

const mySessions = (b: CookieClient, headers: Record<string, string> = {}) =>
  b.request("/api/account/sessions", { headers }).then((r) => body<AccountSessionList>(r));
const myLessons = (b: CookieClient, headers: Record<string, string> = {}) =>
  b.request("/api/account/lessons", { headers }).then((r) => body<AccountLessonList>(r));

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

  it("shows a stranger's account nothing of another teacher's session, lesson, exports or consoles", async () => {
    const srv = await server();
    await teacher(srv, "Ana Admin");
    const owner = await teacher(srv, "Ms Rivera");
    const stranger = await teacher(srv, "Mx Stranger");
    const session = await startSession(owner);
    const lesson = await saveLesson(owner);
    const sid = session.id;

    expect((await mySessions(stranger)).sessions).toEqual([]);
    expect((await myLessons(stranger)).lessons).toEqual([]);
    expect(await errorCode(await stranger.request(`/api/account/sessions?scope=all`))).toEqual([403, "NOT_ADMIN"]);
    for (const p of [`/api/sessions/${sid}`, `/api/sessions/${sid}/events`, `/api/sessions/${sid}/export?format=json`]) {
      expect((await stranger.request(p)).status, p).toBe(403);
    }
    expect((await stranger.request(`/api/lessons/${lesson.id}`)).status).toBe(403);
    expect((await stranger.request(`/api/lessons/${lesson.id}/mermaid`)).status).toBe(403);
    expect((await stranger.request(`/api/lessons/${lesson.id}`, { method: "PUT", json: { lesson: revised, source: "x" } })).status).toBe(
      403,
    );
    expect((await stranger.post(`/api/sessions`, { lesson: { id: lesson.id } })).status).toBe(403);
    expect(await errorCode(await stranger.post(`/api/sessions/${sid}/consoles`))).toEqual([403, "NO_ACCESS"]);
    expect(await errorCode(await stranger.request(`/api/sessions/${sid}/consoles`))).toEqual([403, "NO_ACCESS"]);
    expect(await errorCode(await stranger.post(`/api/sessions/${sid}/share`))).toEqual([403, "NOT_HOST"]);
    expect(await errorCode(await stranger.post(`/api/sessions/${sid}/coteachers`, { email: "mx.stranger@school.example" }))).toEqual([
      403,
      "NO_ACCESS",
    ]);
    expect(await errorCode(await stranger.post(`/api/sessions/${sid}/end`))).toEqual([403, "NO_ACCESS"]);
    expect(await errorCode(await stranger.request(`/api/account/sessions/${sid}`, { method: "DELETE" }))).toEqual([403, "NO_ACCESS"]);
    expect(await errorCode(await stranger.post(`/api/lessons/${lesson.id}/key`))).toEqual([403, "NO_ACCESS"]);
    // Unknown ids are unknown, whoever asks.
    const ghost = "00000000-0000-4000-8000-000000000000";
    expect(await errorCode(await stranger.post(`/api/sessions/${ghost}/consoles`))).toEqual([404, "NO_SUCH_SESSION"]);
    expect(await errorCode(await stranger.post(`/api/sessions/not-an-id/consoles`))).toEqual([404, "NO_SUCH_SESSION"]);
    // Another site cannot open a console with the owner's cookie.
    const crossSite = await owner.request(`/api/sessions/${sid}/consoles`, { method: "POST", json: {}, origin: "https://evil.example" });
    expect(crossSite.status).toBe(403);
    // Nothing changed for the owner.
    expect((await mySessions(owner)).sessions.map((s) => s.id)).toEqual([sid]);
  });

  it("rotates a lesson's key: the browser that held the old one no longer opens it, the account still does", async () => {
    const srv = await server();
    await teacher(srv, "Ana Admin");
    const owner = await teacher(srv, "Ms Rivera");
    const lesson = await saveLesson(owner);
    const oldBrowser = new CookieClient(srv.url);
    expect((await oldBrowser.request(`/api/lessons/${lesson.id}`, { headers: { "X-Lesson-Key": lesson.lessonKey } })).status).toBe(200);
    const { lessonKey } = await body<RotatedLessonKey>(await owner.post(`/api/lessons/${lesson.id}/key`));
    expect(lessonKey).not.toBe(lesson.lessonKey);
    expect((await oldBrowser.request(`/api/lessons/${lesson.id}`, { headers: { "X-Lesson-Key": lesson.lessonKey } })).status).toBe(403);
    expect((await oldBrowser.request(`/api/lessons/${lesson.id}`, { headers: { "X-Lesson-Key": lessonKey } })).status).toBe(200);
    expect((await owner.request(`/api/lessons/${lesson.id}`)).status).toBe(200);
    expect((await myLessons(owner, { "X-Lesson-Keys": lessonKey })).lessons[0].keyHere).toBe(true);
  });

  it("gives the administrator's account every session and lesson to list, end and delete, and the token still serves scripts", async () => {
    const srv = await server();
    const admin = await teacher(srv, "Ana Admin");
    expect(admin.account.admin).toBe(true);
    const owner = await teacher(srv, "Ms Rivera");
    const session = await startSession(owner);
    const lesson = await saveLesson(owner);
    const browserOnly = await startSession(new CookieClient(srv.url));
    const phone = track(await connectClient(srv.url, { role: "student", code: session.code, nickname: "Lee" }));

    const all = await body<AccountSessionList>(await admin.request("/api/account/sessions?scope=all"));
    expect(all.scope).toBe("all");
    expect(all.sessions.map((s) => [s.id, s.relation, s.owner]).sort()).toEqual(
      [
        [session.id, "admin", "Ms Rivera"],
        [browserOnly.id, "admin", null],
      ].sort(),
    );
    expect((await mySessions(admin)).sessions).toEqual([]);
    const lessons = await body<AccountLessonList>(await admin.request("/api/account/lessons?scope=all"));
    expect(lessons.lessons.map((l) => [l.id, l.relation, l.owner])).toEqual([[lesson.id, "admin", "Ms Rivera"]]);
    expect(await body<SessionDetail>(await admin.request(`/api/sessions/${session.id}`))).toMatchObject({ access: "admin" });
    // Managing is not teaching: no console for the administrator.
    expect(await errorCode(await admin.post(`/api/sessions/${session.id}/consoles`))).toEqual([403, "NO_ACCESS"]);

    // Deleting a live session is refused; ending it ends the class on every screen; then it can be deleted.
    expect(await errorCode(await admin.request(`/api/account/sessions/${session.id}`, { method: "DELETE" }))).toEqual([
      409,
      "SESSION_LIVE",
    ]);
    expect(await body<{ ended: true }>(await admin.post(`/api/sessions/${session.id}/end`))).toEqual({ ended: true });
    await phone.waitFor((c) => c.latest().status === "ended");
    expect(await body<{ ended: true }>(await admin.post(`/api/sessions/${session.id}/end`))).toEqual({ ended: true });
    expect(await body<{ deleted: true }>(await admin.request(`/api/account/sessions/${session.id}`, { method: "DELETE" }))).toEqual({
      deleted: true,
    });
    expect((await owner.request(`/api/sessions/${session.id}`)).status).toBe(404);
    expect((await mySessions(owner)).sessions).toEqual([]);
    expect((await admin.request(`/api/lessons/${lesson.id}`, { method: "DELETE" })).status).toBe(200);
    expect((await myLessons(owner)).lessons).toEqual([]);

    // ADMIN_TOKEN stays for scripts: it lists every session without an account.
    const scripted = await fetch(`${srv.url}/api/sessions`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(((await scripted.json()) as { scope: string; sessions: unknown[] }).scope).toBe("admin");
  });

  it("deletes an account's lessons and ended sessions, and hands what it shared with a co-teacher to them", async () => {
    const srv = await server();
    await teacher(srv, "Ana Admin");
    const leaving = await teacher(srv, "Mr Leaving");
    const heir = await teacher(srv, "Ms Heir");
    const endedAlone = await startSession(leaving);
    const endedHost = track(await connectClient(srv.url, { role: "host", code: endedAlone.code, hostKey: endedAlone.hostKey }));
    await endedHost.emit("session:end", {});
    const shared = await startSession(leaving);
    await leaving.post(`/api/sessions/${shared.id}/coteachers`, { email: "ms.heir@school.example" });
    const liveAlone = await startSession(leaving);
    const lessonAlone = await saveLesson(leaving);
    const lessonShared = await saveLesson(leaving);
    await leaving.post(`/api/lessons/${lessonShared.id}/coteachers`, { email: "ms.heir@school.example" });

    const res = await leaving.post("/api/account/delete", { confirmEmail: "mr.leaving@school.example" });
    expect(res.status).toBe(200);

    // Gone: the lesson and the ended session it had alone, as retention would delete them.
    const admin = await signIn(srv, "ana.admin@school.example");
    expect((await admin.request(`/api/sessions/${endedAlone.id}`)).status).toBe(404);
    expect((await admin.request(`/api/lessons/${lessonAlone.id}`)).status).toBe(404);
    // Handed over: the co-teacher owns the shared session and lesson now.
    expect((await mySessions(heir)).sessions.map((s) => [s.id, s.relation])).toEqual([[shared.id, "owner"]]);
    expect((await myLessons(heir)).lessons.map((l) => [l.id, l.relation])).toEqual([[lessonShared.id, "owner"]]);
    // A class still running is not cut off: its console keeps its key, and the session belongs to nobody.
    const host = track(await connectClient(srv.url, { role: "host", code: liveAlone.code, hostKey: liveAlone.hostKey }));
    expect(await host.emit("step:move", { delta: 1 })).toEqual({ ok: true, data: null });
    const everything = await body<AccountSessionList>(await admin.request("/api/account/sessions?scope=all"));
    expect(everything.sessions.find((s) => s.id === liveAlone.id)).toMatchObject({ owner: null, status: "live" });
  });

  it("leaves students as they were: joining by code needs no account and sets no cookie", async () => {
    const srv = await server();
    const owner = await teacher(srv, "Ms Rivera");
    const session = await startSession(owner);
    const info = await fetch(`${srv.url}/api/join-info?code=${session.code}`);
    expect(info.status).toBe(200);
    expect(info.headers.getSetCookie()).toEqual([]);
    const student = track(await connectClient(srv.url, { role: "student", code: session.code.toLowerCase(), nickname: "Noor" }));
    expect(student.welcome).toMatchObject({ nickname: "Noor" });
    expect(student.welcome!.token).toBeTruthy();
  });
});
