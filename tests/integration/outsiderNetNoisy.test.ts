import { describe, expect, it } from "vitest";
import { PROTOCOL_VERSION } from "../../lib/protocol";
import { connectClient, httpRequest, serverPerTest, waitUntil, type TestClient } from "./harness";
import { sleep } from "./outsider/attacker";
import { cleanUpAfterEach, join } from "./outsider/edge";
import { startFlood } from "./outsider/flood";

// ---------------------------------------------------------------------------
// The noisy neighbour: one address floods with the worst frames it can send

describe("a noisy neighbour", () => {
  const t = serverPerTest();
  cleanUpAfterEach();

  it("another room's students keep getting step changes, and new students and pages still get through", async () => {
    const quiet = await t.srv.createSession("Quiet room");
    const noisy = await t.srv.createSession("Noisy room");
    const host = await connectClient(t.srv.url, { role: "host", code: quiet.code, hostKey: quiet.hostKey });
    const kids = await Promise.all(
      [1, 2, 3, 4, 5].map((i) => connectClient(t.srv.url, { role: "student", code: quiet.code, nickname: `Q${i}` })),
    );
    const clients: TestClient[] = [host, ...kids];

    // The attacker: ten WebSockets from 127.0.0.2, each sending the worst frames it can until the server closes it,
    // then back with the same identity. It runs on its own thread, like a laptop of its own: only the server's
    // work shows in the quiet room's timings.
    const stepDelay = async (step: number) => {
      const sent = Date.now();
      expect(await host.emit("step:go", { stepIndex: step })).toEqual({ ok: true, data: null });
      await waitUntil(() => kids.every((k) => k.latest().stepIndex === step), 10_000);
      return Date.now() - sent;
    };
    const quietDelays: number[] = [];
    for (let step = 1; step <= 3; step++) quietDelays.push(await stepDelay(step));

    const first = await join(t.srv.url, { role: "student", code: noisy.code, nickname: "Noise" }, { localAddress: "127.0.0.2" });
    first.raw.close();
    const flood = startFlood({
      url: t.srv.url,
      localAddress: "127.0.0.2",
      connections: 10,
      auth: { v: PROTOCOL_VERSION, role: "student", code: noisy.code, token: first.welcome!.token },
    });
    // The flood is on once the server has refused some of it.
    await flood.refusing;
    // Step changes in the quiet room while the flood goes on: each reaches every student within 2 s (a teacher's
    // pace, 150 ms apart, so the steps sample the whole flood rather than one moment of it).
    const delays: number[] = [];
    for (let step = 4; step <= 9; step++) {
      delays.push(await stepDelay(step));
      await sleep(150);
    }
    // A new student joins the quiet room, and a page request from another machine is served.
    const late = await connectClient(t.srv.url, { role: "student", code: quiet.code, nickname: "Late" });
    clients.push(late);
    const page = await httpRequest(t.srv.url, "/api/health", { localAddress: "127.0.0.4" });
    expect(page.status).toBe(200);
    expect(await host.emit("step:go", { stepIndex: 10 })).toEqual({ ok: true, data: null });
    await late.waitFor((c) => c.latest().stepIndex === 10, 2_000);

    const stats = await flood.stop();
    for (const c of clients) c.close();
    // The flood was real, and the server met it with its frame budget: frames refused unread as too large, and
    // frames over the connection's or the address's budget refused before parsing.
    expect(stats.sentBytes, JSON.stringify(stats)).toBeGreaterThan(5 * 1024 * 1024);
    expect(stats.refused.PAYLOAD_TOO_LARGE ?? 0, JSON.stringify(stats)).toBeGreaterThan(10);
    expect(stats.refused.RATE_LIMITED ?? 0, JSON.stringify(stats)).toBeGreaterThan(5);
    const figures = `step fan-out: quiet ${quietDelays.join(", ")} ms; under the flood ${delays.join(", ")} ms; ${JSON.stringify(stats)}`;
    expect(Math.max(...delays), figures).toBeLessThanOrEqual(2_000);
  });
});

describe("an address over its frame budget", () => {
  const t = serverPerTest();
  cleanUpAfterEach();

  it("is not read at the rate it sends: its flood backs up on its own side, not in the server", async () => {
    const s = await t.srv.createSession();
    const first = await join(t.srv.url, { role: "student", code: s.code, nickname: "Noise" }, { localAddress: "127.0.0.2" });
    first.raw.close();
    const flood = startFlood({
      url: t.srv.url,
      localAddress: "127.0.0.2",
      connections: 2,
      auth: { v: PROTOCOL_VERSION, role: "student", code: s.code, token: first.welcome!.token },
    });
    // How much it gets into the server in three seconds of flooding is what is measured.
    await sleep(3_000);
    const stats = await flood.stop();
    // The server answered it with its budget…
    expect(stats.refused.RATE_LIMITED ?? 0, JSON.stringify(stats)).toBeGreaterThan(0);
    // …and stopped reading: in 3 s two connections got about 12 MB into the server and the kernel's buffers
    // (read at the rate it was sent, it was over 300 MB).
    expect(stats.sentBytes, JSON.stringify(stats)).toBeLessThan(60 * 1024 * 1024);
  });
});
