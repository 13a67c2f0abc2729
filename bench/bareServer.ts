import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Server } from "socket.io";

/**
 * The baseline: a bare socket.io 4.8 server doing the least the product does.
 * One room, `io.to(room).emit`, a vote Map and a coalesced tally, nothing else
 * (no validation, no storage, no rate limits). Run as a child process:
 *
 *   node --import tsx bench/bareServer.ts --port=4000
 *
 * It prints `{"listening":port}` on stdout when ready.
 */

const ROOM = "class";
const TALLY_INTERVAL_MS = 100; // 10 tallies a second at most

const portArg = process.argv.find((a) => a.startsWith("--port="));
const port = portArg ? Number(portArg.slice("--port=".length)) : 0;

/** About the size and shape of the product's public snapshot. */
const snapshot = {
  rev: 1,
  code: "BENCH1",
  title: "Benchmark",
  status: "live",
  mode: "WaitForFirstConsumer",
  variant: "standard",
  stepIndex: 0,
  modeSwitch: null as null,
  locked: false,
  projectorPanel: "none",
  participantCount: 0,
  poll: null as null | { id: string; status: "open" | "closed"; results: { counts: Record<string, number>; total: number } | null },
};

const OPTIONS = ["o1", "o2", "o3", "o4"];
let poll: { id: string; open: boolean; votes: Map<string, string> } | null = null;
let tallyTimer: NodeJS.Timeout | null = null;
let tallyDirty = false;

function counts(): { counts: Record<string, number>; total: number } {
  const c: Record<string, number> = Object.fromEntries(OPTIONS.map((o) => [o, 0]));
  for (const v of poll!.votes.values()) c[v] = (c[v] ?? 0) + 1;
  return { counts: c, total: poll!.votes.size };
}

function flushTally(): void {
  tallyDirty = false;
  if (!poll || !poll.open) return;
  io.to(ROOM).emit("poll:tally", { pollId: poll.id, ...counts() });
}

/** Leading edge, then at most one tally per interval while votes keep coming. */
function scheduleTally(): void {
  tallyDirty = true;
  if (tallyTimer) return;
  flushTally();
  tallyTimer = setTimeout(function tick() {
    tallyTimer = null;
    if (tallyDirty) scheduleTally();
  }, TALLY_INTERVAL_MS);
}

const httpServer = createServer((_req, res) => {
  res.writeHead(200, { "content-type": "application/json" });
  res.end('{"ok":true}');
});
const io = new Server(httpServer, { transports: ["websocket"], serveClient: false });

io.on("connection", (socket) => {
  const role = (socket.handshake.auth as { role?: string } | undefined)?.role;
  if (role === "host") {
    socket.on("step", (p: { stepIndex: number }, ack?: (r: unknown) => void) => {
      snapshot.rev += 1;
      snapshot.stepIndex = p.stepIndex;
      io.to(ROOM).emit("session:snapshot", snapshot);
      ack?.({ ok: true });
    });
    socket.on("open", (_p: unknown, ack?: (r: unknown) => void) => {
      poll = { id: `poll-${snapshot.rev}`, open: true, votes: new Map() };
      ack?.({ ok: true, data: { pollId: poll.id, options: OPTIONS } });
    });
    socket.on("close", (_p: unknown, ack?: (r: unknown) => void) => {
      if (!poll) return ack?.({ ok: false });
      poll.open = false;
      if (tallyTimer) clearTimeout(tallyTimer);
      tallyTimer = null;
      tallyDirty = false;
      snapshot.rev += 1;
      io.to(ROOM).emit("session:snapshot", { ...snapshot, poll: { id: poll.id, status: "closed", results: counts() } });
      ack?.({ ok: true });
    });
    return;
  }
  socket.join(ROOM);
  socket.emit("session:snapshot", snapshot);
  socket.on("poll:vote", (p: { pollId: string; optionId: string }, ack?: (r: unknown) => void) => {
    if (!poll || !poll.open || p.pollId !== poll.id) return ack?.({ ok: false });
    poll.votes.set(socket.id, p.optionId);
    scheduleTally();
    ack?.({ ok: true });
  });
});

httpServer.listen(port, "127.0.0.1", () => {
  process.stdout.write(JSON.stringify({ listening: (httpServer.address() as AddressInfo).port }) + "\n");
});
process.on("SIGTERM", () => process.exit(0));
process.on("SIGINT", () => process.exit(0));
