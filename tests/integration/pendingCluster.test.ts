import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROTOCOL_VERSION } from "../../lib/protocol";
import { openRaw, waitUntil, type RawSocket } from "./harness";
import { freePort, startRedis, type RedisServer } from "../support/loopback";
import { spawnServer, type ServerProcess } from "./process";

/**
 * A student whose join is being looked up is not "pending" (docs/security.md,
 * Connections): behind a trusted proxy, a script churning silent WebSockets
 * from the student's own forwarded address closes the oldest silent ones,
 * never the student. On Redis a join waits for its write, so freezing Redis
 * holds the student's join open long enough to see it from outside.
 */
let redis: RedisServer;
let node: ServerProcess;
const raws: RawSocket[] = [];

beforeAll(async () => {
  redis = await startRedis();
  node = await spawnServer({
    dataDir: fs.mkdtempSync(path.join(os.tmpdir(), "classroom-pending-")),
    port: await freePort(),
    env: { REDIS_URL: redis.url, TRUST_PROXY: "1", MAX_PENDING_PER_ADDRESS: "3" },
  });
}, 60_000);

afterAll(async () => {
  for (const r of raws) r.close();
  redis?.proc.kill("SIGCONT");
  node?.proc.kill("SIGKILL");
  await redis?.stop();
});

describe("a join being looked up, behind a trusted proxy", () => {
  it("is not closed by a flood of silent WebSockets from the same forwarded address", async () => {
    const created = (await (
      await fetch(`${node.url}/api/sessions`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })
    ).json()) as { code: string };
    const via = { headers: { "X-Forwarded-For": "203.0.113.7" } };
    const open = async () => {
      const raw = await openRaw(node.url, via);
      raws.push(raw);
      return raw;
    };

    const student = await open();
    redis.proc.kill("SIGSTOP");
    try {
      // The student speaks; its join now waits for Redis to take the write.
      student.send(`40${JSON.stringify({ v: PROTOCOL_VERSION, role: "student", code: created.code, nickname: "Ada" })}`);
      // A request made after it has been answered: the server has read the CONNECT (it reads what arrived first no
      // later than what arrived after), so the join is being looked up. /api/health does not touch Redis.
      expect((await fetch(`${node.url}/api/health`)).status).toBe(200);
      // Three silent WebSockets fill the address's pending allowance; three more close the oldest of them.
      const silent: RawSocket[] = [];
      for (let i = 0; i < 6; i++) silent.push(await open());
      await waitUntil(() => silent.filter((r) => r.isClosed()).length === 3, 3_000);
      expect(silent.slice(0, 3).every((r) => r.isClosed())).toBe(true);
      expect(student.isClosed()).toBe(false);
    } finally {
      redis.proc.kill("SIGCONT");
    }
    // Redis is back: the student's join finishes, and it is in the class.
    await student.waitForFrame((f) => f.startsWith('42["session:welcome"'), 8_000);
    expect(student.isClosed()).toBe(false);
  }, 30_000);
});
