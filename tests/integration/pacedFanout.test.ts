import { describe, expect, it } from "vitest";
import type { Patch } from "../../lib/protocol";
import { connectClient, serverPerTest, type TestClient } from "./harness";

/**
 * A large class hears a vote burst's tallies a slice at a time (server/edge/fanout.ts, `pacedTicks`). Here the
 * threshold is lowered so that 80 students are "large": every one of them must still see the live counts, in
 * order, and the closed poll must not be followed by a stale tally.
 */
const t = serverPerTest({ pacedFanoutMin: 16 });

/** A message as heard on the socket: its event name, and the patch when it is one. */
interface Heard {
  event: string;
  patch?: Patch;
}

/** Every message a client receives, in order. */
async function join(auth: Record<string, unknown>): Promise<{ client: TestClient; heard: Heard[] }> {
  const heard: Heard[] = [];
  const client = t.track(
    await connectClient(t.srv.url, auth, {
      listen: (socket) => {
        socket.onAny((event: string) => heard.push({ event }));
        // Its payload: socket.io calls the catch-all listeners first, so the entry just pushed is this message.
        socket.on("session:patch", (patch) => (heard[heard.length - 1].patch = patch));
      },
    }),
  );
  return { client, heard };
}

/** The class's patch that closed the poll: ordered, carrying the session record with the poll closed. */
const closes = (pollId: string) => (h: Heard) =>
  h.patch?.stream === "public" &&
  !h.patch.volatile &&
  h.patch.put?.session?.poll?.id === pollId &&
  h.patch.put.session.poll.status === "closed";
/** A running count for the class. */
const isCount = (h: Heard) => h.patch?.stream === "public" && h.patch.put?.tally !== undefined;

async function largeClass(students: number) {
  const { code, hostKey } = await t.srv.createSession();
  const host = await join({ role: "host", code, hostKey });
  const projector = await join({ role: "projector", code });
  const kids: Awaited<ReturnType<typeof join>>[] = [];
  for (let i = 0; i < students; i += 40) {
    kids.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(40, students - i) }, (_, j) => join({ role: "student", code, nickname: `s${i + j}` })),
      )),
    );
  }
  const { data } = (await host.client.emit("poll:open", { kind: "next-step" })) as { data: { pollId: string } };
  for (const k of [projector, ...kids]) await k.client.waitFor((c) => c.public().poll?.id === data.pollId);
  return { host, projector, kids, pollId: data.pollId, options: kids[0].client.public().poll!.options };
}

describe("tallies to a large class, a slice at a time", () => {
  it("reach every student in order, and the closed poll is the last word", async () => {
    const { host, projector, kids, pollId, options } = await largeClass(80);
    expect((await host.client.emit("results:show", { visible: true })).ok).toBe(true);
    const acks = await Promise.all(kids.map((k, i) => k.client.emit("poll:vote", { pollId, optionId: options[i % 4].id })));
    expect(acks.every((a) => a.ok)).toBe(true);

    // Everyone, in every slice, ends with the full count; nobody's counts ever go backwards.
    const everyone = [projector, ...kids];
    for (const k of everyone) await k.client.waitFor((c) => c.tallies.at(-1)?.total === 80);
    for (const k of everyone) {
      const totals = k.client.tallies.map((x) => x.total);
      expect(totals).toEqual([...totals].sort((a, b) => a - b));
    }
    expect(host.client.tallies.at(-1)).toMatchObject({ total: 80, counts: Object.fromEntries(options.map((o) => [o.id, 20])) });

    expect((await host.client.emit("poll:close", { pollId })).ok).toBe(true);
    for (const k of everyone) await k.client.waitFor((c) => c.public().poll?.status === "closed");
    // Give a stale tally time to arrive: none may follow the closed poll.
    await new Promise((r) => setTimeout(r, 300));
    for (const k of everyone) {
      expect(k.client.public().poll).toMatchObject({ status: "closed", results: { total: 80 } });
      const closedAt = k.heard.findLastIndex(closes(pollId));
      expect(closedAt, "the closed poll reached this socket").toBeGreaterThanOrEqual(0);
      // It took the running count away, and no count came after it.
      expect(k.heard[closedAt].patch!.del).toContain("tally");
      expect(k.heard.slice(closedAt + 1).filter(isCount)).toEqual([]);
      expect(k.client.replica.single("public", "tally")).toBeUndefined();
    }
  });

  it("with results hidden, tells every student how many voted, and never the counts", async () => {
    const { host, kids, pollId, options } = await largeClass(64);
    const acks = await Promise.all(kids.map((k, i) => k.client.emit("poll:vote", { pollId, optionId: options[i % 4].id })));
    expect(acks.every((a) => a.ok)).toBe(true);
    for (const k of kids) await k.client.waitFor((c) => c.public().poll?.voted === 64);
    expect(kids.every((k) => k.client.tallies.length === 0 && k.client.public().poll?.results === null)).toBe(true);
    await host.client.waitFor((c) => c.tallies.at(-1)?.total === 64);
  });
});
