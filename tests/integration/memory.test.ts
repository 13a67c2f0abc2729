import v8 from "node:v8";
import vm from "node:vm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SCHOOL_ON_ONE_ADDRESS, connectClient, startServer, waitUntil, type TestServer } from "./harness";

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;

async function settledHeap(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((r) => setTimeout(r, 20));
  }
  return process.memoryUsage().heapUsed;
}

let srv: TestServer;
beforeEach(async () => {
  // Thousands of joins from 127.0.0.1 in a minute: a whole school, not one address's flood.
  srv = await startServer({ addressBudgets: SCHOOL_ON_ONE_ADDRESS });
});
afterEach(async () => {
  await srv.close();
});

describe("memory stays bounded", () => {
  it("releases rooms, sockets and timers of ended sessions after thousands of joins and leaves", async () => {
    const cycle = async (round: number) => {
      // In-process: the HTTP limiter on session creation (per address) is not what this measures.
      const { code, hostKey } = await srv.server.rooms.create(`round ${round}`);
      const host = await connectClient(srv.url, { role: "host", code, hostKey });
      const tokens: (string | undefined)[] = Array.from({ length: 10 }, () => undefined);
      // Each student joins, leaves and comes back several times with the same identity.
      for (let rep = 0; rep < 5; rep++) {
        const students = await Promise.all(
          tokens.map((token, i) => connectClient(srv.url, { role: "student", code, token, nickname: `s${i}` })),
        );
        students.forEach((s, i) => (tokens[i] = s.welcome!.token));
        const { data } = (await host.emit("poll:open", { kind: "custom", question: "q", options: ["a", "b"], durationS: 15 })) as {
          data: { pollId: string };
        };
        await Promise.all(students.map((s) => s.emit("poll:vote", { pollId: data.pollId, optionId: "o1" })));
        await host.emit("poll:close", { pollId: data.pollId });
        for (const s of students) s.close();
      }
      await host.emit("session:end", {});
      host.close();
    };

    // Warm up (JIT, pools, first SQLite pages) before measuring.
    for (let i = 0; i < 5; i++) await cycle(i);
    const before = await settledHeap();
    for (let i = 0; i < 40; i++) await cycle(100 + i); // 40 sessions x 50 joins = 2,000 joins and leaves
    // Every room, socket and socket.io room released (however long the disconnects take on a busy machine) …
    await waitUntil(
      () => srv.server.rooms.liveCount === 0 && srv.server.io.of("/").sockets.size === 0 && srv.server.io.of("/").adapter.rooms.size === 0,
      30_000,
    );
    const after = await settledHeap();

    // Near where it started: well under what 2,000 leaked sockets or 40 leaked rooms would hold.
    expect(after - before).toBeLessThan(8 * 1024 * 1024);
  }, 120_000);
});
