import type { Socket as NetSocket } from "node:net";
import { describe, expect, it } from "vitest";
import { SLOW_READER_MAX_BUFFERED_BYTES } from "../../lib/constants";
import { connectClient, serverPerTest, waitUntil, type TestClient } from "./harness";

/**
 * A client that stops reading (a script, or a tab frozen mid-frame) must not make the server hold its messages
 * without bound: once more than SLOW_READER_MAX_BUFFERED_BYTES wait for it, the sweep closes its socket
 * (server/edge/slowReaders.ts, `startSlowReaderSweep`), the rest of the class carries on, and the student comes back
 * as themselves with one fresh snapshot.
 */
const t = serverPerTest();

/** The client's TCP socket under socket.io-client and ws, to stop reading from it as a stuck client would. */
function tcpOf(client: TestClient): NetSocket {
  const transport: unknown = Reflect.get(client.socket.io.engine, "transport");
  const ws: unknown = transport && Reflect.get(transport, "ws");
  const tcp: unknown = ws && Reflect.get(ws, "_socket");
  if (!tcp || typeof (tcp as NetSocket).pause !== "function") throw new Error("no TCP socket under the client");
  return tcp as NetSocket;
}

describe("a student who stops reading", () => {
  it("is disconnected once a megabyte waits for them, the class carries on, and they come back as themselves", async () => {
    const { code, hostKey } = await t.srv.createSession();
    const host = t.track(await connectClient(t.srv.url, { role: "host", code, hostKey }));
    const reader = t.track(await connectClient(t.srv.url, { role: "student", code, nickname: "Reads" }));
    const stuck = t.track(await connectClient(t.srv.url, { role: "student", code, nickname: "Stuck" }));
    const token = stuck.welcome!.token;
    const participantId = stuck.welcome!.participantId;
    const serverSockets = t.srv.server.io.of("/").sockets;
    const stuckOnServer = serverSockets.get(stuck.socket.id!);
    expect(stuckOnServer).toBeDefined();

    let disconnectReason = "";
    stuck.socket.on("disconnect", (reason) => (disconnectReason = reason));
    tcpOf(stuck).pause();

    // Lesson traffic is a few KB a step; what a stuck client meets over hours arrives here at once: 24 MiB of
    // valid messages of an event the client ignores, more than the kernel's buffers on both ends can take.
    const filler = "x".repeat(256 * 1024);
    for (let i = 0; i < 96; i++) stuckOnServer!.conn.write(`2${JSON.stringify(["filler", filler])}`);
    expect(SLOW_READER_MAX_BUFFERED_BYTES).toBeLessThan(24 * 1024 * 1024);

    // Every socket is checked about once a second.
    await waitUntil(() => !serverSockets.has(stuck.socket.id!), 5_000);
    // The student who reads is untouched and still follows the teacher.
    expect(serverSockets.has(reader.socket.id!)).toBe(true);
    expect((await host.emit("step:go", { stepIndex: 4 })).ok).toBe(true);
    await reader.waitFor((c) => c.public().stepIndex === 4);

    // The stuck tab reads again: it finds its connection closed…
    tcpOf(stuck).resume();
    await waitUntil(() => disconnectReason !== "", 10_000);
    expect(disconnectReason).toBe("transport close");
    // …and, reconnecting with its token, is the same student, with one fresh snapshot at the class's step.
    const back = t.track(await connectClient(t.srv.url, { role: "student", code, token }));
    expect(back.welcome!.participantId).toBe(participantId);
    expect(back.public().stepIndex).toBe(4);
    // The console's roster follows with the next presence update (throttled), still both students.
    await host.waitFor((c) => c.students().length === 2);
    expect(host.students().map((s) => s.nickname)).toEqual(["Reads", "Stuck"]);
  });
});
