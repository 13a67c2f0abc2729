import mermaid from "mermaid";
import { beforeAll, describe, expect, it } from "vitest";
import { parseMermaidLesson, toMermaid } from "../../lib/lesson/mermaid";
import { LESSON_LIMITS } from "../../lib/lesson/model";
import type { CustomLesson } from "../../lib/lesson/model";
import { replay, type SessionEvent } from "../../lib/session";
import { connectClient, serverPerTest } from "./harness";

const ADMIN = "admin-token-0123456789abcdef";
const t = serverPerTest({ adminToken: ADMIN });
const track = t.track;

const OAUTH = `---
title: OAuth authorization code
---
sequenceDiagram
  participant U as User
  participant A as App
  participant S as Auth server
  U->>A: Click "Sign in"
  A->>U: Redirect to the auth server
  U->>S: Log in and consent
  %% say: Point at the consent screen.
  S-->>U: Redirect back with a code
  U->>A: Follow the redirect with the code
  A->>S: Exchange the code and secret
  %% wrong: The app never sees the password: it trades the code, not credentials.
  S-->>A: Access token
  A->>A: Start a session
  A-->>U: Signed in
`;

let lesson: CustomLesson;
beforeAll(async () => {
  mermaid.initialize({ startOnLoad: false });
  const parsed = await parseMermaidLesson(OAUTH, (text) => mermaid.mermaidAPI.getDiagramFromText(text));
  if (!parsed.ok) throw new Error(parsed.error.message);
  lesson = parsed.lesson;
});

const api = (path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) =>
  fetch(`${t.srv.url}${path}`, {
    method: init.method ?? "GET",
    headers: { ...(init.body !== undefined ? { "Content-Type": "application/json" } : {}), ...init.headers },
    body: init.body === undefined ? undefined : typeof init.body === "string" ? init.body : JSON.stringify(init.body),
  });

async function createLesson(body: unknown = { lesson, source: OAUTH }) {
  const res = await api("/api/lessons", { method: "POST", body });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string; version: number; lessonKey: string };
}

describe("lessons over HTTP", () => {
  it("stores a lesson with versions; only its key or the admin reads, edits and deletes it", async () => {
    const mine = await createLesson();
    const other = await createLesson();
    const key = { "X-Lesson-Key": mine.lessonKey };

    const list = await (await api("/api/lessons", { headers: { "X-Lesson-Keys": `${mine.lessonKey},nope` } })).json();
    expect(list.scope).toBe("owner");
    expect(list.lessons.map((l: { id: string }) => l.id)).toEqual([mine.id]);
    expect(list.lessons[0]).toMatchObject({ title: "OAuth authorization code", stepCount: 9, lifelineCount: 3, version: 1 });
    const all = await (await api("/api/lessons", { headers: { Authorization: `Bearer ${ADMIN}` } })).json();
    expect(all.scope).toBe("admin");
    expect(all.lessons.map((l: { id: string }) => l.id).sort()).toEqual([mine.id, other.id].sort());

    expect((await api(`/api/lessons/${mine.id}`)).status).toBe(403);
    expect((await api(`/api/lessons/${mine.id}`, { headers: { "X-Lesson-Key": other.lessonKey } })).status).toBe(403);
    const got = await (await api(`/api/lessons/${mine.id}`, { headers: key })).json();
    expect(got).toMatchObject({ id: mine.id, version: 1, latestVersion: 1, source: OAUTH });
    expect(got.lesson).toEqual(lesson);

    // The Mermaid export is the text as written, byte for byte.
    const exported = await api(`/api/lessons/${mine.id}/mermaid`, { headers: key });
    expect(exported.headers.get("content-disposition")).toMatch(/oauth-authorization-code-v1\.mmd/);
    expect(await exported.text()).toBe(OAUTH);

    const edited = { ...lesson, title: "OAuth, revised" };
    const put = await api(`/api/lessons/${mine.id}`, { method: "PUT", body: { lesson: edited, source: OAUTH + "%% v2\n" }, headers: key });
    expect(await put.json()).toEqual({ id: mine.id, version: 2 });
    expect((await (await api(`/api/lessons/${mine.id}`, { headers: key })).json()).lesson.title).toBe("OAuth, revised");
    expect((await (await api(`/api/lessons/${mine.id}?version=1`, { headers: key })).json()).lesson.title).toBe(lesson.title);
    expect(
      (
        await api(`/api/lessons/${mine.id}`, {
          method: "PUT",
          body: { lesson, source: OAUTH },
          headers: { "X-Lesson-Key": other.lessonKey },
        })
      ).status,
    ).toBe(403);

    expect((await api(`/api/lessons/${other.id}`, { method: "DELETE", headers: key })).status).toBe(403);
    expect((await api(`/api/lessons/${other.id}`, { method: "DELETE", headers: { Authorization: `Bearer ${ADMIN}` } })).status).toBe(200);
    expect((await api(`/api/lessons/${other.id}`, { headers: { "X-Lesson-Key": other.lessonKey } })).status).toBe(404);
    expect((await api("/api/lessons/not-a-uuid", { headers: key })).status).toBe(404);
  });

  it("refuses lessons the schema does not allow, with the reason", async () => {
    const bad = async (body: unknown) => {
      const res = await api("/api/lessons", { method: "POST", body });
      expect(res.status).toBe(400);
      return ((await res.json()) as { error: { code: string; message: string } }).error;
    };
    const lifelines = Array.from({ length: 13 }, (_, i) => ({ id: `P${i}`, name: `P${i}` }));
    expect((await bad({ lesson: { ...lesson, lifelines }, source: "x" })).message).toMatch(/at most 12 participants/);
    const steps = Array.from({ length: 61 }, () => lesson.steps[0]);
    expect((await bad({ lesson: { ...lesson, steps }, source: "x" })).message).toMatch(/at most 60 messages/);
    const stranger = { ...lesson, steps: [...lesson.steps, { ...lesson.steps[0], to: "Mallory" }] };
    expect((await bad({ lesson: stranger, source: "x" })).message).toMatch(/names "Mallory", which is not a declared participant/);
    // An id is checked, never cut: two long ids cut to the same 40 characters would merge.
    const longId = "PaymentsServiceEuropeWestRegionPrimaryNode";
    const longIds = {
      ...lesson,
      lifelines: [...lesson.lifelines, { id: longId, name: "Payments" }],
      steps: [...lesson.steps, { ...lesson.steps[0], to: longId }],
    };
    expect((await bad({ lesson: longIds, source: "x" })).message).toMatch(/lifelines\.\d+\.id: A participant id is at most 40 characters/);
    const tooLong = { ...lesson, steps: [{ ...lesson.steps[0], narration: "n".repeat(1_260) }, ...lesson.steps.slice(1)] };
    expect((await bad({ lesson: tooLong, source: "x" })).message).toMatch(/steps\.0\.narration: is longer than 300 characters/);
    // An invisible character in an id is dropped from the declaration and from the messages alike.
    const soft = {
      ...lesson,
      lifelines: [...lesson.lifelines, { id: "Pay\u00ADments", name: "Payments" }],
      steps: [...lesson.steps, { ...lesson.steps[0], to: "Pay\u00ADments" }],
    };
    const saved = await createLesson({ lesson: soft, source: "x" });
    const kept = (await (await api(`/api/lessons/${saved.id}`, { headers: { "X-Lesson-Key": saved.lessonKey } })).json()) as {
      lesson: CustomLesson;
    };
    expect(kept.lesson.lifelines.at(-1)!.id).toBe("Payments");
    expect(kept.lesson.steps.at(-1)!.to).toBe("Payments");
    expect((await bad({ lesson: { ...lesson, title: "" }, source: "x" })).code).toBe("BAD_LESSON");
    expect((await bad({ lesson, source: "" })).code).toBe("BAD_LESSON");
    expect((await bad("{ not json")).code).toBe("BAD_REQUEST");
    // Texts are capped and cleaned, not refused: a long caption is cut, bidi overrides dropped.
    const long = { ...lesson, steps: lesson.steps.map((s, i) => (i === 0 ? { ...s, title: "\u202eA".repeat(100) } : s)) };
    const created = await createLesson({ lesson: long, source: OAUTH });
    const back = await (await api(`/api/lessons/${created.id}`, { headers: { "X-Lesson-Key": created.lessonKey } })).json();
    expect(back.lesson.steps[0].title).toBe("A".repeat(100));
    const huge = await api("/api/lessons", { method: "POST", body: { lesson, source: "x".repeat(400 * 1024) } });
    expect(huge.status).toBe(413);
  });

  it("takes the largest lesson the editor accepts, written in a script of three bytes a character", async () => {
    // Every text at its limit, in Japanese: as many steps as the 48,000-character text holds.
    const fill = (n: number) => "語".repeat(n);
    const step = (i: number) => ({
      from: i % 2 ? "A" : "B",
      to: i % 2 ? "B" : "A",
      line: "solid" as const,
      head: "filled" as const,
      title: fill(LESSON_LIMITS.message),
      note: fill(LESSON_LIMITS.note),
      narration: fill(LESSON_LIMITS.narration),
      speakerNotes: fill(LESSON_LIMITS.speakerNotes),
      why: fill(LESSON_LIMITS.why),
      wrongNote: fill(LESSON_LIMITS.wrongNote),
    });
    const draft = (steps: number): CustomLesson => ({
      title: fill(LESSON_LIMITS.title),
      summary: fill(LESSON_LIMITS.summary),
      lifelines: [
        { id: "A", name: fill(LESSON_LIMITS.lifelineName) },
        { id: "B", name: fill(LESSON_LIMITS.lifelineName) },
      ],
      steps: Array.from({ length: steps }, (_, i) => step(i)),
    });
    let steps = 2;
    while (toMermaid(draft(steps + 1)).length <= LESSON_LIMITS.source) steps++;
    const source = toMermaid(draft(steps));
    const parsed = await parseMermaidLesson(source, (text) => mermaid.mermaidAPI.getDiagramFromText(text));
    if (!parsed.ok) throw new Error(parsed.error.message);
    const body = JSON.stringify({ lesson: parsed.lesson, source });
    // Larger than the old 160 KiB cap, which refused it with a 413 the editor could not explain.
    expect(Buffer.byteLength(body)).toBeGreaterThan(160 * 1024);
    const res = await api("/api/lessons", { method: "POST", body });
    expect(res.status).toBe(201);
    const { id, lessonKey } = (await res.json()) as { id: string; lessonKey: string };
    const back = await (await api(`/api/lessons/${id}`, { headers: { "X-Lesson-Key": lessonKey } })).json();
    expect(back.lesson.steps).toHaveLength(steps);
    expect(back.source).toBe(source);
  });

  it("runs a session from a lesson version: steps, a poll from the arrow order, late join, replay", async () => {
    const created = await createLesson();
    const key = { "X-Lesson-Key": created.lessonKey };
    // Starting from someone else's lesson needs its key.
    expect((await api("/api/sessions", { method: "POST", body: { lesson: { id: created.id } } })).status).toBe(403);
    const res = await api("/api/sessions", { method: "POST", body: { lesson: { id: created.id } }, headers: key });
    expect(res.status).toBe(201);
    const s = (await res.json()) as { id: string; code: string; hostKey: string; title: string };
    expect(s.title).toBe("OAuth authorization code");
    // An edit after the start does not change the session: it keeps version 1.
    await api(`/api/lessons/${created.id}`, {
      method: "PUT",
      body: { lesson: { ...lesson, title: "Edited later" }, source: OAUTH },
      headers: key,
    });

    const host = track(await connectClient(t.srv.url, { role: "host", code: s.code, hostKey: s.hostKey }));
    const ana = track(await connectClient(t.srv.url, { role: "student", code: s.code, nickname: "Ana" }));
    expect(host.welcome?.lesson).toMatchObject({ id: created.id, version: 1, lesson: { title: "OAuth authorization code" } });
    expect(host.welcome?.lesson?.lesson.steps[2].speakerNotes).toBe("Point at the consent screen.");
    // Students get the lesson without the teacher's speaker notes.
    expect(ana.welcome?.lesson?.lesson.steps).toHaveLength(9);
    expect(ana.welcome?.lesson?.lesson.steps[2].speakerNotes).toBeUndefined();
    // A shared replay has the lesson as the class had it: no speaker notes (found by the outside review).
    const shared = (await (
      await api(`/api/sessions/${s.id}/share`, { method: "POST", body: {}, headers: { "X-Host-Key": s.hostKey, Origin: t.srv.url } })
    ).json()) as { replayKey?: string };
    const replayKey = shared.replayKey;
    expect(replayKey).toBeTruthy();
    const sharedLog = await (await api(`/api/sessions/${s.id}/events`, { headers: { "X-Replay-Key": replayKey! } })).text();
    expect(sharedLog).toContain("OAuth authorization code");
    expect(sharedLog).not.toContain("Point at the consent screen.");
    const ownLog = await (await api(`/api/sessions/${s.id}/events`, { headers: { "X-Host-Key": s.hostKey } })).text();
    expect(ownLog).toContain("Point at the consent screen.");

    // Nine steps: the last index is 8, and there are no binding modes to switch to.
    expect(await host.emit("step:go", { stepIndex: 9 })).toMatchObject({ ok: false, error: { code: "STEP_OUT_OF_RANGE" } });
    expect(await host.emit("mode:set", { mode: "Immediate", variant: "standard" })).toMatchObject({
      ok: false,
      error: { code: "BAD_MODE" },
    });
    expect(await host.emit("step:go", { stepIndex: 4 })).toMatchObject({ ok: true });

    const opened = (await host.emit("poll:open", { kind: "next-step" })) as { ok: true; data: { pollId: string } };
    expect(opened.ok).toBe(true);
    const poll = host.host().poll!;
    expect(poll.question).toBe("What happens next, after Follow the redirect with the code?");
    const right = poll.options.find((o) => o.id === poll.correctOptionId)!;
    expect(right.text).toBe("App → Auth server: Exchange the code and secret");
    const wrong = poll.options.filter((o) => o.id !== poll.correctOptionId);
    expect(wrong).toHaveLength(3);
    // Distractors are later messages, never one already shown.
    const shown = lesson.steps.slice(0, 5).map((s) => s.title);
    for (const o of wrong) expect(shown.some((title) => o.text.endsWith(`: ${title}`))).toBe(false);

    await ana.waitFor((c) => c.latest().poll?.id === opened.data.pollId);
    expect(await ana.emit("poll:vote", { pollId: opened.data.pollId, optionId: right.id })).toMatchObject({ ok: true });
    await host.emit("poll:close", { pollId: opened.data.pollId });
    await host.emit("poll:reveal", { pollId: opened.data.pollId });
    await ana.waitFor((c) => c.latest().poll?.revealed === true);
    const revealed = ana.public().poll!;
    expect(revealed.options.find((o) => o.text === "Auth server → App: Access token")?.note).toBe("This comes later, at step 7.");

    // A late joiner (and a reconnect) gets the lesson and the step at once.
    const ben = track(await connectClient(t.srv.url, { role: "student", code: s.code, nickname: "Ben" }));
    expect(ben.welcome?.lesson?.version).toBe(1);
    expect(ben.public().stepIndex).toBe(4);

    await host.emit("session:end", {});
    const events = (await (await api(`/api/sessions/${s.id}/events`, { headers: { "X-Host-Key": s.hostKey } })).json()) as {
      events: SessionEvent[];
    };
    const log = Array.isArray(events) ? (events as SessionEvent[]) : events.events;
    const state = replay(log);
    expect(state.lesson).toMatchObject({ id: created.id, version: 1 });
    expect(state.lesson?.lesson.title).toBe("OAuth authorization code");
    expect(state.pollOrder).toHaveLength(1);
    const csv = await (await api(`/api/sessions/${s.id}/export?format=csv`, { headers: { "X-Host-Key": s.hostKey } })).text();
    expect(csv).toContain("Exchange the code and secret");
  });
});
