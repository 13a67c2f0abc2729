import fs from "node:fs";
import { PROTOCOL_VERSION } from "../../lib/protocol";
import os from "node:os";
import path from "node:path";
import { afterAll, it, expect } from "vitest";
import { openRaw, rawJoin, type RawSocket } from "./harness";
import { freePort, startRedis, type RedisServer } from "../support/loopback";
import { spawnServer, type ServerProcess } from "./process";

let redis: RedisServer;
let node: ServerProcess;
afterAll(async () => {
  node?.proc.kill("SIGKILL");
  await redis?.stop();
});

const ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";
const wrong = (live: string) => {
  for (;;) {
    const c = Array.from({ length: 6 }, () => ALPHABET[Math.floor(Math.random() * 31)]).join("");
    if (c !== live) return c;
  }
};

/**
 * In scale-out mode a handshake's lookup waits on Redis. A burst of CONNECTs sent together, over the
 * allowance, with one token refilled, must still be one guess, not one per CONNECT (a lookup holds a
 * token until it is answered): the live code among them must not simply join.
 */
it("over the allowance, a burst of 150 guesses on one refilled token gets at most the refill's answers (Redis mode)", async () => {
  redis = await startRedis();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "race-"));
  node = await spawnServer({ dataDir, port: await freePort(), env: { REDIS_URL: redis.url } });
  const res = await fetch(`${node.url}/api/sessions`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
  const { code } = (await res.json()) as { code: string };
  for (let i = 0; i < 62; i++) {
    const j = await rawJoin(node.url, { role: "student", code: wrong(code) });
    j.raw.close();
  }
  const results: Record<string, number> = {};
  let liveJoined = 0;
  for (let round = 0; round < 3; round++) {
    const roundStart = Date.now();
    await new Promise((r) => setTimeout(r, 1500));
    // Over the allowance, one token refilled: 150 WebSockets open first, then all CONNECTs at once, the live code among them.
    const raws: RawSocket[] = await Promise.all(Array.from({ length: 150 }, () => openRaw(node.url)));
    const codes = raws.map((_, i) => (i === 100 ? code : wrong(code)));
    raws.forEach((r, i) => r.send(`40${JSON.stringify({ v: PROTOCOL_VERSION, role: "student", code: codes[i] })}`));
    const replies = await Promise.all(raws.map((r) => r.waitForFrame((f) => f.startsWith("40") || f.startsWith("44"), 10000)));
    let informative = 0;
    replies.forEach((f, i) => {
      const outcome = f.startsWith("40") ? "JOINED" : (JSON.parse(f.slice(2)) as { data?: { code?: string } }).data?.code;
      if (outcome !== "RATE_LIMITED") informative += 1;
      if (codes[i] === code && outcome === "JOINED") liveJoined += 1;
      const k = `${codes[i] === code ? "live" : "dead"} ${outcome}`;
      results[k] = (results[k] ?? 0) + 1;
    });
    raws.forEach((r) => r.close());
    // One token a second refills while the round waits and while the burst is answered: only that many
    // answers (plus a fraction left from before) may say anything but RATE_LIMITED, not one per CONNECT.
    const refilled = Math.floor((Date.now() - roundStart) / 1000) + 1;
    expect(informative, JSON.stringify(results)).toBeLessThanOrEqual(refilled);
  }
  // The live code sat at position 100 of 150: it was never among the one or two lookups.
  expect(liveJoined, JSON.stringify(results)).toBe(0);
}, 120000);
