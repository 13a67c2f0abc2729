import net from "node:net";
import { describe, expect, it } from "vitest";
import { httpRequest, openRaw, serverPerTest } from "./harness";
import { ADMIN, attackedServer, errorCode } from "./outsider/attacker";

// Other websites cannot act through a visitor's browser; with PUBLIC_URL, DNS rebinding gets 421; behind TRUST_PROXY the
// forwarded scheme counts.

const { t, raws, cleanUpAfterEach, join, api } = attackedServer();

// ---------------------------------------------------------------------------
// 5. Cross-site requests and DNS rebinding

describe("other websites cannot act through a visitor's browser", () => {
  const post = (headers: Record<string, string>, body = JSON.stringify({ title: "Planted" })) =>
    httpRequest(t.srv.url, "/api/sessions", { method: "POST", headers, body });
  const sessionCount = async () =>
    (JSON.parse((await api("/api/sessions", { Authorization: `Bearer ${ADMIN}` })).body) as { sessions: unknown[] }).sessions.length;

  it("POST /api/sessions needs exactly application/json and a same-origin Origin", async () => {
    const origin = t.srv.url;
    const refused: [Record<string, string>, number, string][] = [
      // What a cross-site <form> or fetch(no-cors) can send without a preflight.
      [{ "Content-Type": "text/plain; charset=utf-8; application/json" }, 415, "BAD_REQUEST"],
      [{ "Content-Type": "text/plain" }, 415, "BAD_REQUEST"],
      [{ "Content-Type": "application/x-www-form-urlencoded" }, 415, "BAD_REQUEST"],
      [{ "Content-Type": "multipart/form-data; boundary=x" }, 415, "BAD_REQUEST"],
      [{ "Content-Type": "application/json, text/plain" }, 415, "BAD_REQUEST"],
      // JSON, but from another site.
      [{ "Content-Type": "application/json", Origin: "https://evil.example" }, 403, "CROSS_ORIGIN"],
      [{ "Content-Type": "application/json", Origin: "null" }, 403, "CROSS_ORIGIN"],
      [{ "Content-Type": "text/plain", Origin: "https://evil.example" }, 403, "CROSS_ORIGIN"],
      [{ "Content-Type": "application/json", "Sec-Fetch-Site": "cross-site" }, 403, "CROSS_ORIGIN"],
      // Our host, another scheme: not our page.
      [{ "Content-Type": "application/json", Origin: origin.replace("http:", "https:") }, 403, "CROSS_ORIGIN"],
    ];
    for (const [headers, status, code] of refused) {
      const res = await post(headers);
      expect(res.status, JSON.stringify(headers)).toBe(status);
      expect(errorCode(res.body)).toBe(code);
    }
    expect(await sessionCount()).toBe(0);

    // Our own page: accepted, with or without a charset.
    expect((await post({ "Content-Type": "application/json", Origin: origin })).status).toBe(201);
    expect(
      (await post({ "Content-Type": "application/json; charset=utf-8", Origin: origin, "Sec-Fetch-Site": "same-origin" })).status,
    ).toBe(201);
    expect(await sessionCount()).toBe(2);
  });

  it("the teacher's share link cannot be made or revoked from another site", async () => {
    const s = await t.srv.createSession();
    for (const method of ["POST", "DELETE"]) {
      const res = await httpRequest(t.srv.url, `/api/sessions/${s.id}/share`, {
        method,
        headers: { "X-Host-Key": s.hostKey, "Content-Type": "application/json", Origin: "https://evil.example" },
      });
      expect(res.status, method).toBe(403);
      expect(errorCode(res.body)).toBe("CROSS_ORIGIN");
    }
  });

  it("a WebSocket from another origin, or from our host over another scheme, is refused; our own page's is accepted", async () => {
    const s = await t.srv.createSession();
    const { port } = new URL(t.srv.url);
    const foreign: Record<string, string>[] = [
      { Origin: `https://127.0.0.1:${port}` },
      { Origin: "http://evil.example" },
      { Origin: `http://127.0.0.1:${port}.evil.example` },
      { Origin: "null" },
      { Origin: `http://127.0.0.1:${port}`, "Sec-Fetch-Site": "cross-site" },
    ];
    for (const headers of foreign) {
      const refused = await openRaw(t.srv.url, { headers }).then(
        (r) => (raws.push(r), 0),
        (err: { status: number }) => err.status,
      );
      expect(refused, JSON.stringify(headers)).toBeGreaterThanOrEqual(400);
    }
    const ours = await join({ role: "student", code: s.code }, { headers: { Origin: `http://127.0.0.1:${port}` } });
    expect(ours.ok).toBe(true);
  });

  it("X-Forwarded-Proto is ignored without TRUST_PROXY", async () => {
    const s = await t.srv.createSession();
    const info = await api(`/api/join-info?code=${s.code}`, { Host: "teacher.example:8080", "X-Forwarded-Proto": "https" });
    expect(info.status).toBe(200);
    expect((JSON.parse(info.body) as { joinUrl: string }).joinUrl).toBe(`http://teacher.example:8080/join/${s.code}`);
    // Nor does it make an https Origin look like ours.
    const res = await post({
      "Content-Type": "application/json",
      Origin: t.srv.url.replace("http:", "https:"),
      "X-Forwarded-Proto": "https",
    });
    expect(res.status).toBe(403);
  });

  it("a hostile Host header never makes the server fail", async () => {
    const s = await t.srv.createSession();
    const hostile = [
      "a b",
      "[zz",
      "[zz]:80",
      "evil.example:99999",
      "",
      "x".repeat(300),
      "a..b",
      "127.0.0.1:80:80",
      "@evil",
      "evil.example/path",
      "evil.example?x",
    ];
    for (const host of hostile) {
      for (const p of [`/api/join-info?code=${s.code}`, "/api/health", "/join/ABCDEF", "/socket.io/?EIO=4&transport=polling"]) {
        const res = await api(p, { Host: host });
        expect(res.status, `${p} Host: ${JSON.stringify(host)}`).toBeLessThan(500);
        expect(res.status).toBeGreaterThanOrEqual(200);
      }
    }
    // HTTP/1.0 with no Host at all.
    const noHost = await rawHttp(t.srv.url, `GET /api/join-info?code=${s.code} HTTP/1.0\r\n\r\n`);
    expect(noHost).toMatch(/^HTTP\/1\.[01] [1-4]\d\d /);
  });
});

describe("with PUBLIC_URL set, only its host and the server's own addresses are answered (DNS rebinding)", () => {
  const pub = serverPerTest({ publicUrl: "http://class.example.edu" });
  cleanUpAfterEach();

  it("answers 421 to another Host on pages, the API and /socket.io/, and serves its own", async () => {
    const s = await pub.srv.createSession();
    const { port } = new URL(pub.srv.url);
    const evil = { Host: "evil.example", Origin: "http://evil.example" };
    for (const p of [
      "/",
      "/join/" + s.code,
      "/api/health",
      `/api/join-info?code=${s.code}`,
      "/socket.io/?EIO=4&transport=websocket",
      "/socket.io/?EIO=4&transport=polling",
    ]) {
      const res = await httpRequest(pub.srv.url, p, { headers: evil });
      expect(res.status, p).toBe(421);
    }
    // A rebinding page's POST carries its own Origin, which matches its Host: the Host is what gives it away.
    const planted = await httpRequest(pub.srv.url, "/api/sessions", {
      method: "POST",
      headers: { ...evil, "Content-Type": "application/json" },
      body: "{}",
    });
    expect(planted.status).toBe(421);
    // And its WebSocket is refused at the handshake.
    const ws = await openRaw(pub.srv.url, { headers: evil }).then(
      (r) => (raws.push(r), 0),
      (err: { status: number }) => err.status,
    );
    expect(ws).toBeGreaterThanOrEqual(400);

    // The public name and the server's own address work.
    for (const host of ["class.example.edu", `127.0.0.1:${port}`, `localhost:${port}`]) {
      const res = await httpRequest(pub.srv.url, "/api/health", { headers: { Host: host } });
      expect(res.status, host).toBe(200);
    }
    const info = await httpRequest(pub.srv.url, `/api/join-info?code=${s.code}`, { headers: { Host: `127.0.0.1:${port}` } });
    expect(JSON.parse(info.body)).toMatchObject({ joinUrl: `http://class.example.edu/join/${s.code}` });
    const fromPublic = await join(
      { role: "student", code: s.code },
      { headers: { Host: "class.example.edu", Origin: "http://class.example.edu" } },
      pub.srv.url,
    );
    expect(fromPublic.ok).toBe(true);
  });
});

describe("behind a trusted proxy (TRUST_PROXY)", () => {
  const proxied = serverPerTest({ trustProxy: true });
  cleanUpAfterEach();

  it("takes the scheme from X-Forwarded-Proto (so the header above was ignored for a reason)", async () => {
    const s = await proxied.srv.createSession();
    const info = await httpRequest(proxied.srv.url, `/api/join-info?code=${s.code}`, {
      headers: { Host: "teacher.example:8080", "X-Forwarded-Proto": "https" },
    });
    expect((JSON.parse(info.body) as { joinUrl: string }).joinUrl).toBe(`https://teacher.example:8080/join/${s.code}`);
    const res = await httpRequest(proxied.srv.url, "/api/sessions", {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: proxied.srv.url.replace("http:", "https:"), "X-Forwarded-Proto": "https" },
      body: "{}",
    });
    expect(res.status).toBe(201);
  });
});

/** Sends raw bytes on a new TCP connection and returns everything the server sent until it closed. */
function rawHttp(url: string, request: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: hostname, port: Number(port) }, () => socket.write(request));
    let out = "";
    socket.on("data", (d) => (out += d.toString("latin1")));
    socket.on("error", reject);
    socket.on("close", () => resolve(out));
  });
}
