import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { READINESS_CACHE_MS, READINESS_TIMEOUT_MS } from "../../lib/constants";
import { connectClient, serverPerTest } from "./harness";

const t = serverPerTest();

async function ready(
  url: string,
): Promise<{ status: number; body: { ready: boolean; store: { kind: string; writable: boolean; problem?: string } } }> {
  const res = await fetch(`${url}/api/ready`);
  return {
    status: res.status,
    body: (await res.json()) as { ready: boolean; store: { kind: string; writable: boolean; problem?: string } },
  };
}

/** Asks until the answer has this status: a change shows once the cached answer runs out (and a hung probe times out). */
async function readyBecomes(url: string, status: number) {
  const deadline = Date.now() + READINESS_CACHE_MS + READINESS_TIMEOUT_MS + 1_000;
  let answer = await ready(url);
  while (answer.status !== status && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    answer = await ready(url);
  }
  return answer;
}

describe("readiness (SQLite)", () => {
  it("answers 503 while the database refuses writes, and 200 again once it takes them; /api/health stays up", async () => {
    expect(await ready(t.srv.url)).toEqual({
      status: 200,
      body: expect.objectContaining({ ready: true, store: expect.objectContaining({ kind: "sqlite", writable: true }) }),
    });
    const session = await t.srv.createSession();
    const host = t.track(await connectClient(t.srv.url, { role: "host", code: session.code, hostKey: session.hostKey }));

    // The disk "fills up": from another connection, every write to the log and to the probe is refused the way
    // SQLite refuses a write to a full disk.
    const outside = new Database(path.join(t.srv.dataDir, "sessions.sqlite"));
    const full = ["events", "ops_probe", "sessions"].flatMap((table) =>
      ["INSERT", "UPDATE"].map((op) => ({ name: `full_${table}_${op.toLowerCase()}`, table, op })),
    );
    for (const { name, table, op } of full) {
      outside.exec(`CREATE TRIGGER ${name} BEFORE ${op} ON ${table} BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`);
    }
    try {
      const refused = await readyBecomes(t.srv.url, 503);
      expect(refused.status).toBe(503);
      expect(refused.body).toMatchObject({
        ready: false,
        store: { kind: "sqlite", writable: false, problem: "the store refused a write" },
      });
      expect(JSON.stringify(refused.body)).not.toContain(t.srv.dataDir);
      const health = await fetch(`${t.srv.url}/api/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ ok: true });
      // What readiness says is what a class meets: the teacher's next step cannot be saved.
      expect(await host.emit("step:go", { stepIndex: 1 })).toMatchObject({ ok: false, error: { code: "INTERNAL" } });
    } finally {
      for (const { name } of full) outside.exec(`DROP TRIGGER ${name}`);
      outside.close();
    }
    expect((await readyBecomes(t.srv.url, 200)).status).toBe(200);
    const again = t.track(await connectClient(t.srv.url, { role: "host", code: session.code, hostKey: session.hostKey }));
    expect((await again.emit("step:go", { stepIndex: 1 })).ok).toBe(true);
  });

  it("answers GET and HEAD only, and so does /api/health", async () => {
    expect((await fetch(`${t.srv.url}/api/ready`, { method: "HEAD" })).status).toBe(200);
    expect((await fetch(`${t.srv.url}/api/ready`, { method: "DELETE" })).status).toBe(405);
    expect((await fetch(`${t.srv.url}/api/health`, { method: "HEAD" })).status).toBe(200);
    for (const method of ["POST", "PUT", "DELETE"]) {
      const res = await fetch(`${t.srv.url}/api/health`, { method, headers: { Origin: t.srv.url } });
      expect({ method, status: res.status, body: await res.json() }).toEqual({
        method,
        status: 405,
        body: { error: { code: "METHOD_NOT_ALLOWED", message: "Use GET." } },
      });
    }
  });

  it("names the methods a path answers in the Allow header of every 405", async () => {
    const s = await t.srv.createSession();
    const cases: [string, string, string][] = [
      ["/api/ready", "POST", "GET, HEAD"],
      ["/api/health", "PATCH", "GET, HEAD"],
      ["/api/health?x=1", "OPTIONS", "GET, HEAD"],
      ["/api/sessions", "PUT", "GET, POST"],
      [`/api/sessions/${s.id}`, "DELETE", "GET"],
      [`/api/sessions/${s.id}/events`, "POST", "GET"],
      [`/api/sessions/${s.id}/share`, "GET", "POST, DELETE"],
      ["/api/lessons", "DELETE", "GET, POST"],
      ["/api/lessons/some-id", "POST", "GET, PUT, DELETE"],
      ["/api/lessons/some-id/mermaid", "PUT", "GET"],
      ["/api/join-info?code=ABCDEF", "POST", "GET, HEAD"],
    ];
    for (const [where, method, allow] of cases) {
      const res = await fetch(`${t.srv.url}${where}`, { method, headers: { Origin: t.srv.url, "Content-Type": "application/json" } });
      expect({ where, method, status: res.status, allow: res.headers.get("allow") }).toEqual({ where, method, status: 405, allow });
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("METHOD_NOT_ALLOWED");
    }
  });
});
