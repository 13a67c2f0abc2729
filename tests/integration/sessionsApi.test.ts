import { describe, expect, it } from "vitest";
import { connectClient, serverPerTest } from "./harness";

const ADMIN = "admin-token-0123456789abcdef";
const t = serverPerTest({ adminToken: ADMIN });
const track = t.track;

async function runClass() {
  const s = await t.srv.createSession("Week 3");
  const host = await connectClient(t.srv.url, { role: "host", code: s.code, hostKey: s.hostKey });
  const ana = await connectClient(t.srv.url, { role: "student", code: s.code, nickname: "Ana" });
  [host, ana].forEach(track);
  await host.emit("step:move", { delta: 1 });
  const { data } = (await host.emit("poll:open", { kind: "next-step" })) as { data: { pollId: string } };
  await ana.waitFor((c) => c.latest().poll?.id === data.pollId);
  await ana.emit("poll:vote", { pollId: data.pollId, optionId: ana.latest().poll!.options[0].id });
  await host.emit("poll:close", { pollId: data.pollId });
  await host.emit("session:end", {});
  return s;
}

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${t.srv.url}${path}`, { headers });

/** The teacher starts sharing the replay; the link's key reads the shared view. */
async function shareKey(s: { id: string; hostKey: string }): Promise<Record<string, string>> {
  const res = await fetch(`${t.srv.url}/api/sessions/${s.id}/share`, {
    method: "POST",
    headers: { "X-Host-Key": s.hostKey, "Content-Type": "application/json" },
  });
  expect(res.status).toBe(200);
  const body = await res.json();
  expect(body.replayPath).toBe(`/replay/${s.id}#share=${body.replayKey}`);
  return { "X-Replay-Key": body.replayKey };
}

describe("saved sessions over HTTP", () => {
  it("lists only the sessions whose host keys the browser holds, or all for the admin", async () => {
    const mine = await runClass();
    const other = await t.srv.createSession("Someone else's");
    const byKey = await (await get("/api/sessions", { "X-Host-Keys": `${mine.hostKey},not-a-key` })).json();
    expect(byKey.scope).toBe("host");
    expect(byKey.sessions.map((s: { id: string }) => s.id)).toEqual([mine.id]);
    expect(byKey.sessions[0]).toMatchObject({ title: "Week 3", status: "ended", pollCount: 1, participantCount: 1, peakParticipants: 1 });
    expect((await (await get("/api/sessions")).json()).sessions).toEqual([]);
    const all = await (await get("/api/sessions", { Authorization: `Bearer ${ADMIN}` })).json();
    expect(all.scope).toBe("admin");
    expect(all.sessions.map((s: { id: string }) => s.id).sort()).toEqual([mine.id, other.id].sort());
    expect((await (await get("/api/sessions", { Authorization: "Bearer wrong" })).json()).scope).toBe("host");
  });

  it("shows a shared replay aggregates only, and the host everything", async () => {
    const s = await runClass();
    // The session id alone (every student has it) reads nothing.
    const bare = await get(`/api/sessions/${s.id}/events`);
    expect(bare.status).toBe(403);
    expect(await bare.json()).toMatchObject({ error: { code: "NO_ACCESS" } });
    const shared = await (await get(`/api/sessions/${s.id}/events`, await shareKey(s))).json();
    expect(shared.access).toBe("viewer");
    expect(JSON.stringify(shared.events)).not.toContain("Ana");
    expect(JSON.stringify(shared.events)).toContain("Student 1");
    // Aggregates only: no vote can be traced to a (pseudonymous) student.
    expect(shared.events.some((e: { type: string }) => e.type === "poll:voted")).toBe(false);
    // The poll was closed but never revealed: its answer, notes and counts stay with the teacher.
    const opened = shared.events.find((e: { type: string }) => e.type === "poll:opened");
    expect(opened.poll.correctOptionId).toBeNull();
    expect(opened.poll.options.every((o: { note?: string }) => o.note === undefined)).toBe(true);
    expect(shared.events.find((e: { type: string }) => e.type === "poll:closed")).toMatchObject({ total: 0, counts: {}, withheld: true });
    const host = await (await get(`/api/sessions/${s.id}/events`, { "X-Host-Key": s.hostKey })).json();
    expect(host.access).toBe("host");
    expect(JSON.stringify(host.events)).toContain("Ana");
    expect(JSON.stringify(host.events)).not.toContain(s.hostKey);
    expect(host.events.find((e: { type: string }) => e.type === "poll:closed")).toMatchObject({ total: 1 });
  });

  it("stops a shared link when the teacher stops sharing; sharing again makes a new one", async () => {
    const s = await runClass();
    const first = await shareKey(s);
    expect(await shareKey(s)).toEqual(first);
    const listed = await (await get("/api/sessions", { "X-Host-Keys": s.hostKey })).json();
    expect(listed.sessions[0].shared).toBe(true);
    const stop = await fetch(`${t.srv.url}/api/sessions/${s.id}/share`, { method: "DELETE", headers: { "X-Host-Key": s.hostKey } });
    expect(stop.status).toBe(200);
    expect((await get(`/api/sessions/${s.id}/events`, first)).status).toBe(403);
    const second = await shareKey(s);
    expect(second).not.toEqual(first);
    expect((await get(`/api/sessions/${s.id}/events`, second)).status).toBe(200);
    // Only the teacher can share.
    const forged = await fetch(`${t.srv.url}/api/sessions/${s.id}/share`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
    });
    expect(forged.status).toBe(403);
  });

  it("exports JSON and CSV, and keeps the per-student sheet for the teacher", async () => {
    const s = await runClass();
    const viewer = await shareKey(s);
    expect((await get(`/api/sessions/${s.id}/export?format=json`)).status).toBe(403);
    const json = await get(`/api/sessions/${s.id}/export?format=json`, viewer);
    expect(json.headers.get("content-disposition")).toMatch(/attachment; filename="session-.*\.json"/);
    const body = await json.json();
    expect(body).toMatchObject({ format: "classroom-session-log", version: 1, session: { id: s.id } });
    expect(body.events.at(-1).type).toBe("session:ended");
    const csv = await (await get(`/api/sessions/${s.id}/export?format=csv`, viewer)).text();
    expect(csv.split("\r\n")[0]).toBe("poll,question,round,option,votes,percent,correct");
    expect(csv.split("\r\n").filter(Boolean)).toHaveLength(5);
    // Not revealed: the shared sheet says so instead of counts.
    expect(csv.split("\r\n")[1]).toMatch(/,not revealed,not revealed,not revealed$/);
    const denied = await get(`/api/sessions/${s.id}/export?format=csv&sheet=students`, viewer);
    expect(denied.status).toBe(403);
    expect(await denied.json()).toMatchObject({ error: { code: "NOT_HOST" } });
    const sheet = await (await get(`/api/sessions/${s.id}/export?format=csv&sheet=students`, { "X-Host-Key": s.hostKey })).text();
    expect(sheet).toContain("Ana");
    expect((await get(`/api/sessions/${s.id}/export?format=xml`, viewer)).status).toBe(400);
  });

  it("keeps a poll's counts when the session ends while it is open; a shared link says they were not revealed", async () => {
    const s = await t.srv.createSession("Ends mid-poll");
    const host = await connectClient(t.srv.url, { role: "host", code: s.code, hostKey: s.hostKey });
    const kids = await Promise.all(["A", "B"].map((nickname) => connectClient(t.srv.url, { role: "student", code: s.code, nickname })));
    [host, ...kids].forEach(track);
    const { data } = (await host.emit("poll:open", { kind: "custom", question: "Ready?", options: ["yes", "no"] })) as {
      data: { pollId: string };
    };
    await kids[1].waitFor((c) => c.latest().poll?.id === data.pollId);
    for (const k of kids) await k.emit("poll:vote", { pollId: data.pollId, optionId: "o1" });
    await host.emit("session:end", {});
    const csv = await (await get(`/api/sessions/${s.id}/export?format=csv`, { "X-Host-Key": s.hostKey })).text();
    expect(csv).toContain("1,Ready?,1,yes,2,100,n/a");
    // A shared link: the round was never revealed, so it says so rather than showing counts.
    const shared = await (await get(`/api/sessions/${s.id}/export?format=csv`, await shareKey(s))).text();
    expect(shared).toContain("1,Ready?,1,yes,not revealed,not revealed,not revealed");
  });

  it("answers unknown ids and methods with clear errors", async () => {
    expect((await get("/api/sessions/not-a-uuid")).status).toBe(404);
    expect((await get("/api/sessions/00000000-0000-4000-8000-000000000000/events")).status).toBe(404);
    const s = await t.srv.createSession();
    const del = await fetch(`${t.srv.url}/api/sessions/${s.id}`, { method: "DELETE" });
    expect(del.status).toBe(405);
    expect((await get(`/api/sessions/${s.id}`)).status).toBe(403);
    expect((await get(`/api/sessions/${s.id}`, { "X-Host-Key": s.hostKey })).status).toBe(200);
    expect((await get("/api/nope")).status).toBe(404);
  });
});
