import { describe, expect, it } from "vitest";
import type { AccountLessonList, AccountSessionList, RotatedLessonKey } from "../../lib/account/ownership";

import type { SessionDetail } from "../../lib/protocol/rest";
import { CookieClient } from "../support/cookieClient";
import { connectClient } from "./harness";
import { revised } from "./storeContractStores";
import {
  track,
  ADMIN_TOKEN,
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

describe("what an account may not do, and what the administrator and deletion do", () => {
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
