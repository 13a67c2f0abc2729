import { describe, expect, it } from "vitest";

import { connectClient, serverPerTest } from "./harness";

const t = serverPerTest();
const track = t.track;

describe("pausing the class", () => {
  it("refuses votes, questions and upvotes with CLASS_PAUSED until the teacher resumes, and only the teacher can pause", async () => {
    const { code, hostKey } = await t.srv.createSession();
    const host = track(await connectClient(t.srv.url, { role: "host", code, hostKey }));
    const projector = track(await connectClient(t.srv.url, { role: "projector", code }));
    const ana = track(await connectClient(t.srv.url, { role: "student", code, nickname: "Ana" }));
    const bo = track(await connectClient(t.srv.url, { role: "student", code, nickname: "Bo" }));

    const open = (await host.emit("poll:open", { kind: "custom", question: "Which binds first?", options: ["PVC", "PV"] })) as {
      ok: true;
      data: { pollId: string };
    };
    const { pollId } = open.data;
    await bo.waitFor((c) => c.public().poll?.id === pollId);
    expect((await ana.emit("poll:vote", { pollId, optionId: "o1" })).ok).toBe(true);
    const asked = (await ana.emit("question:ask", { text: "Why?", target: { kind: "step", stepIndex: 0 } })) as {
      ok: true;
      data: { questionId: string };
    };

    // A student cannot pause the class, whatever their page shows.
    expect(await bo.emit("class:pause", { paused: true })).toMatchObject({ ok: false, error: { code: "NOT_HOST" } });
    expect(await host.emit("class:pause", { paused: "yes" } as never)).toMatchObject({ ok: false, error: { code: "BAD_REQUEST" } });

    expect((await host.emit("class:pause", { paused: true })).ok).toBe(true);
    for (const c of [projector, ana, bo]) await c.waitFor((x) => x.public().paused);
    await host.waitFor((c) => c.host().paused);

    for (const [who, event, payload] of [
      [bo, "poll:vote", { pollId, optionId: "o2" }],
      [ana, "poll:vote", { pollId, optionId: "o2" }],
      [bo, "question:ask", { text: "And then?", target: { kind: "step", stepIndex: 0 } }],
      [bo, "question:upvote", { questionId: asked.data.questionId, upvoted: true }],
    ] as const) {
      const refused = await who.emit(event, payload);
      expect(refused).toMatchObject({ ok: false, error: { code: "CLASS_PAUSED" } });
      expect(refused.ok ? "" : refused.error.message).toMatch(/paused the class/);
    }

    // The teacher still drives, and the votes cast before the pause stand.
    expect((await host.emit("step:move", { delta: 1 })).ok).toBe(true);
    await bo.waitFor((c) => c.public().stepIndex === 1 && c.public().paused);
    await host.waitFor((c) => c.host().poll?.results.total === 1);

    // A student who reconnects while paused sees the pause in their first snapshot.
    const late = track(await connectClient(t.srv.url, { role: "student", code, nickname: "Cy" }));
    expect(late.public().paused).toBe(true);

    expect((await host.emit("class:pause", { paused: false })).ok).toBe(true);
    for (const c of [projector, ana, bo, late]) await c.waitFor((x) => !x.public().paused);
    expect((await bo.emit("poll:vote", { pollId, optionId: "o2" })).ok).toBe(true);
    expect((await late.emit("question:upvote", { questionId: asked.data.questionId, upvoted: true })).ok).toBe(true);
    await host.waitFor((c) => c.tallies.at(-1)?.total === 2);
  });
});
