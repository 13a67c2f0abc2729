import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectClient, connectError, startServer, type TestClient } from "./harness";
import { freePort } from "../support/loopback";
import { hasMetric, metricValue } from "../support/metricsText";
import { spawnServer, type ServerProcess } from "./process";

const TOKEN = "metrics-token-for-the-tests-0123";

let node: ServerProcess;
const clients: TestClient[] = [];
const track = (c: TestClient) => (clients.push(c), c);

beforeAll(async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "classroom-metrics-"));
  node = await spawnServer({ dataDir, port: await freePort(), env: { METRICS_TOKEN: TOKEN } });
}, 30_000);

afterAll(() => {
  for (const c of clients) c.close();
  node?.proc.kill("SIGKILL");
});

async function scrape(): Promise<string> {
  const res = await fetch(`${node.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  return res.text();
}

describe("/metrics", () => {
  it("is off without METRICS_TOKEN, and with it answers only the token", async () => {
    const plain = await startServer();
    try {
      expect((await fetch(`${plain.url}/metrics`)).status).toBe(404);
      expect((await fetch(`${plain.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(404);
    } finally {
      await plain.close();
    }

    const none = await fetch(`${node.url}/metrics`);
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(await none.text()).not.toMatch(/classroom_/);
    expect((await fetch(`${node.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}x` } })).status).toBe(401);
    expect((await fetch(`${node.url}/metrics`, { headers: { authorization: TOKEN } })).status).toBe(401);
    expect((await fetch(`${node.url}/metrics`, { method: "POST", headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(405);

    const res = await fetch(`${node.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    // The process's own figures: event-loop delay, heap and RSS.
    for (const name of ["nodejs_eventloop_lag_seconds", "nodejs_eventloop_lag_p99_seconds", "nodejs_heap_size_used_bytes"]) {
      expect(hasMetric(text, name), name).toBe(true);
    }
    expect(metricValue(text, "process_resident_memory_bytes")).toBeGreaterThan(20 * 1024 * 1024);
  });

  it("moves as a class does: sockets by role, live sessions, events, votes, writes, broadcasts, refusals", async () => {
    const before = await scrape();
    const created = (await (
      await fetch(`${node.url}/api/sessions`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })
    ).json()) as { code: string; hostKey: string };
    const { code, hostKey } = created;

    const host = track(await connectClient(node.url, { role: "host", code, hostKey }));
    track(await connectClient(node.url, { role: "projector", code }));
    const students = [];
    for (const nickname of ["Ana", "Bo", "Cy"]) students.push(track(await connectClient(node.url, { role: "student", code, nickname })));

    const joined = await scrape();
    expect(metricValue(joined, "classroom_sockets_connected", { role: "host" })).toBe(1);
    expect(metricValue(joined, "classroom_sockets_connected", { role: "projector" })).toBe(1);
    expect(metricValue(joined, "classroom_sockets_connected", { role: "student" })).toBe(3);
    expect(metricValue(joined, "classroom_live_sessions")).toBe(metricValue(before, "classroom_live_sessions") + 1);
    const delta = (after: string, earlier: string, name: string, labels: Record<string, string> = {}) =>
      metricValue(after, name, labels) - metricValue(earlier, name, labels);
    expect(delta(joined, before, "classroom_events_appended_total", { type: "session:created" })).toBe(1);
    expect(delta(joined, before, "classroom_events_appended_total", { type: "participant:joined" })).toBe(3);

    // A step and a poll with three votes.
    expect((await host.emit("step:go", { stepIndex: 4 })).ok).toBe(true);
    const open = await host.emit("poll:open", { kind: "next-step" });
    if (!open.ok) throw new Error(open.error.message);
    const pollId = (open.data as { pollId: string }).pollId;
    await Promise.all(students.map((s) => s.waitFor((c) => c.public().poll?.id === pollId)));
    const options = students[0].public().poll!.options;
    for (const [i, s] of students.entries()) expect((await s.emit("poll:vote", { pollId, optionId: options[i].id })).ok).toBe(true);

    const voted = await scrape();
    expect(delta(voted, joined, "classroom_votes_total")).toBe(3);
    expect(delta(voted, joined, "classroom_events_appended_total", { type: "poll:voted" })).toBe(3);
    expect(delta(voted, joined, "classroom_events_appended_total", { type: "step:changed" })).toBe(1);
    expect(delta(voted, joined, "classroom_store_write_seconds_count", { store: "sqlite" })).toBeGreaterThanOrEqual(3);
    expect(delta(voted, joined, "classroom_store_write_seconds_sum", { store: "sqlite" })).toBeGreaterThan(0);
    expect(delta(voted, joined, "classroom_store_batch_size_sum", { store: "sqlite" })).toBeGreaterThanOrEqual(5);
    expect(delta(voted, joined, "classroom_broadcast_seconds_count", { message: "toClass" })).toBeGreaterThanOrEqual(2);
    expect(delta(voted, joined, "classroom_broadcast_seconds_count", { message: "tally" })).toBeGreaterThanOrEqual(1);
    // One tab each: the vote's ack is its receipt, and there is no other tab to tell.
    expect(delta(voted, joined, "classroom_broadcast_seconds_count", { message: "toParticipant" })).toBe(0);
    expect(delta(voted, joined, "classroom_commands_total", { command: "poll:vote", outcome: "ok" })).toBe(3);

    // Refusals: a student trying a teacher's command, and a burst of votes past the vote rate.
    expect(await students[0].emit("step:go", { stepIndex: 5 })).toMatchObject({ ok: false, error: { code: "NOT_HOST" } });
    const eager = track(await connectClient(node.url, { role: "student", code, nickname: "Dee" }));
    await eager.waitFor((c) => c.public().poll?.id === pollId);
    const burst = await Promise.all(
      Array.from({ length: 16 }, (_, i) => eager.emit("poll:vote", { pollId, optionId: options[i % options.length].id })),
    );
    const rateLimited = burst.filter((a) => !a.ok && a.error.code === "RATE_LIMITED").length;
    expect(rateLimited).toBeGreaterThanOrEqual(3);
    expect(await connectError(node.url, { role: "student", code: "ZZZZZZ" })).toMatchObject({ code: "NO_SUCH_SESSION" });

    const refused = await scrape();
    expect(delta(refused, voted, "classroom_commands_refused_total", { command: "step:go", code: "NOT_HOST" })).toBe(1);
    expect(delta(refused, voted, "classroom_commands_refused_total", { command: "poll:vote", code: "RATE_LIMITED" })).toBe(rateLimited);
    expect(delta(refused, voted, "classroom_rate_limited_total", { scope: "vote" })).toBe(rateLimited);
    expect(delta(refused, voted, "classroom_joins_refused_total", { code: "NO_SUCH_SESSION" })).toBe(1);

    // The students leave and the teacher ends the class.
    for (const s of [...students, eager]) s.close();
    const start = Date.now();
    let left = await scrape();
    while (metricValue(left, "classroom_sockets_connected", { role: "student" }) > 0 && Date.now() - start < 5000) {
      await new Promise((r) => setTimeout(r, 50));
      left = await scrape();
    }
    expect(metricValue(left, "classroom_sockets_connected", { role: "student" })).toBe(0);
    expect((await host.emit("session:end", {})).ok).toBe(true);
    const ended = await scrape();
    expect(metricValue(ended, "classroom_live_sessions")).toBe(metricValue(before, "classroom_live_sessions"));
    expect(delta(ended, left, "classroom_events_appended_total", { type: "session:ended" })).toBe(1);
  });
});
