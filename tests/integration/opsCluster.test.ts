import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { READINESS_CACHE_MS, READINESS_TIMEOUT_MS } from "../../lib/constants";
import { connectClient, type TestClient } from "./harness";
import { freePort, startRedis, type RedisServer } from "../support/loopback";
import { metricValue } from "../support/metricsText";
import { spawnServer, type ServerProcess } from "./process";

const TOKEN = "metrics-token-for-the-tests-0123";

let redis: RedisServer;
const nodes: ServerProcess[] = [];
const clients: TestClient[] = [];
const track = (c: TestClient) => (clients.push(c), c);

beforeAll(async () => {
  redis = await startRedis();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "classroom-ops-cluster-"));
  for (let i = 0; i < 2; i++) {
    nodes.push(
      await spawnServer({
        dataDir: path.join(dataDir, `n${i}`),
        port: await freePort(),
        env: { REDIS_URL: redis.url, METRICS_TOKEN: TOKEN },
      }),
    );
  }
}, 60_000);

afterAll(async () => {
  for (const c of clients) c.close();
  for (const n of nodes) n.proc.kill("SIGKILL");
  await redis?.stop();
});

async function scrape(url: string): Promise<string> {
  const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  return res.text();
}

async function readiness(url: string): Promise<{ status: number; body: { ready: boolean; store: { kind: string; writable: boolean } } }> {
  const res = await fetch(`${url}/api/ready`);
  return { status: res.status, body: (await res.json()) as { ready: boolean; store: { kind: string; writable: boolean } } };
}

/** Polls until the answer has this status (the answer is cached for READINESS_CACHE_MS, a hung write waits READINESS_TIMEOUT_MS). */
async function readinessBecomes(url: string, status: number) {
  let last = await readiness(url);
  const deadline = Date.now() + READINESS_CACHE_MS + READINESS_TIMEOUT_MS + 3_000;
  while (last.status !== status && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    last = await readiness(url);
  }
  return last;
}

describe("operations in scale-out mode", () => {
  it("reports Redis round trips, forwarded calls and the takeover of a dead node's session", async () => {
    const [a, b] = nodes;
    const created = (await (
      await fetch(`${a.url}/api/sessions`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })
    ).json()) as { code: string; hostKey: string };
    // The teacher on node A first, so A owns the session; a student on B is forwarded to it.
    const host = track(await connectClient(a.url, { role: "host", code: created.code, hostKey: created.hostKey }));
    const student = track(await connectClient(b.url, { role: "student", code: created.code, nickname: "Ana" }));
    const open = await host.emit("poll:open", { kind: "custom", question: "Ready?", options: ["yes", "no"] });
    if (!open.ok) throw new Error(open.error.message);
    const pollId = (open.data as { pollId: string }).pollId;
    await student.waitFor((c) => c.public().poll?.id === pollId);
    expect((await student.emit("poll:vote", { pollId, optionId: student.public().poll!.options[0].id })).ok).toBe(true);

    // The vote was taken on B, into Redis, and written into the log by the owner, A, which folds it in.
    let onA = await scrape(a.url);
    for (const until = Date.now() + 10_000; metricValue(onA, "classroom_votes_total") !== 1 && Date.now() < until;)
      onA = await scrape(a.url);
    const onB = await scrape(b.url);
    expect(metricValue(onB, "classroom_redis_roundtrip_seconds_count")).toBeGreaterThanOrEqual(1);
    // The join was forwarded to A; a vote makes no round trip to the owner.
    expect(metricValue(onB, "classroom_cluster_forward_seconds_count")).toBeGreaterThanOrEqual(1);
    expect(metricValue(onB, "classroom_sockets_connected", { role: "student" })).toBe(1);
    expect(metricValue(onA, "classroom_votes_total")).toBe(1);
    expect(metricValue(onB, "classroom_votes_total")).toBe(0);
    expect(metricValue(onB, "classroom_cluster_ownership_claims_total", { from: "gone_node" })).toBe(0);

    expect(await readiness(b.url)).toMatchObject({ status: 200, body: { ready: true, store: { kind: "redis", writable: true } } });

    // A dies; the teacher comes back through B, which takes the session over.
    a.proc.kill("SIGKILL");
    await a.exited;
    const again = track(await connectClient(b.url, { role: "host", code: created.code, hostKey: created.hostKey }));
    expect(again.host().poll?.results.total).toBe(1);
    expect(metricValue(await scrape(b.url), "classroom_cluster_ownership_claims_total", { from: "gone_node" })).toBe(1);
  }, 30_000);

  it("is not ready while Redis refuses writes or is gone, and /api/health stays up", async () => {
    const b = nodes[1];
    const admin = createClient({ url: redis.url });
    await admin.connect();
    try {
      // A read-only replica (of a master that is not there) answers, but refuses every write.
      await admin.sendCommand(["REPLICAOF", "127.0.0.1", String(await freePort())]);
      const readOnly = await readinessBecomes(b.url, 503);
      expect(readOnly).toMatchObject({ status: 503, body: { ready: false, store: { kind: "redis", writable: false } } });
      expect((await fetch(`${b.url}/api/health`)).status).toBe(200);
      await admin.sendCommand(["REPLICAOF", "NO", "ONE"]);
      expect((await readinessBecomes(b.url, 200)).status).toBe(200);
    } finally {
      await admin.quit().catch(() => undefined);
    }

    await redis.stop();
    const gone = await readinessBecomes(b.url, 503);
    expect(gone).toMatchObject({ status: 503, body: { ready: false, store: { writable: false } } });
    expect((await fetch(`${b.url}/api/health`)).status).toBe(200);
  }, 30_000);
});
