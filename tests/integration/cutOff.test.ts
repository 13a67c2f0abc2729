import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../support/loopback";
import { waitUntil } from "./harness";
import { spawnServer, type ServerProcess } from "./process";

/**
 * A phone that loses its signal halfway through saving a lesson or starting a
 * session: the request is cut off mid-body. Nobody waits for an answer, the
 * server carries on, and its log says nothing an operator's alert would page
 * for (an outside review found an error-level stack trace per cut-off upload).
 */
let server: ServerProcess;

beforeAll(async () => {
  // At info level the server logs each session it creates: the test's marker in the log (below).
  server = await spawnServer({
    dataDir: fs.mkdtempSync(path.join(os.tmpdir(), "classroom-cutoff-")),
    port: await freePort(),
    env: { LOG_LEVEL: "info" },
  });
}, 30_000);

afterAll(() => {
  server?.proc.kill("SIGKILL");
});

/** Sends the headers and part of a body that claims to be longer, then closes the connection. */
function cutOff(where: string): Promise<void> {
  const { port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), "127.0.0.1", () => {
      socket.write(
        `POST ${where} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n{"title":"half`,
      );
      setTimeout(() => socket.destroy(), 200);
    });
    socket.on("close", () => resolve());
    socket.on("error", reject);
  });
}

describe("a request cut off mid-body", () => {
  it("is dropped quietly, and the server keeps answering", async () => {
    for (const where of ["/api/lessons", "/api/sessions", "/api/sessions/00000000-0000-4000-8000-000000000000/share"]) {
      await cutOff(where);
    }
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
    const created = await fetch(`${server.url}/api/sessions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(created.status).toBe(201);
    // The log in order: once it says the session was created, anything the cut-off requests (closed before that
    // request was made) made the server log is in it too.
    const { id } = (await created.json()) as { id: string };
    await waitUntil(() => server.output().includes(id));
    const errors = server
      .output()
      .split("\n")
      .filter((line) => line.includes('"level":"error"'));
    expect(errors).toEqual([]);
  });
});
