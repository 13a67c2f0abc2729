import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Server } from "socket.io";
import { TALLY_BROADCAST_INTERVAL_MS } from "../lib/constants";
import { getScenario } from "../lib/lesson/scenarios";
import { generateNextStepPoll } from "../lib/polls/nextStep";
import { initialState } from "../lib/session/reducer";
import type { Poll } from "../lib/session/types";
import { toPublicSnapshot } from "../lib/session/views";

/**
 * The baseline: a bare socket.io 4.8 server doing the least the product does.
 * One room, `io.to(room).emit`, a vote Map and a coalesced tally, nothing else
 * (no validation, no storage, no rate limits, no per-voter echo). Run as a
 * child process:
 *
 *   node --expose-gc --import tsx bench/bareServer.ts --port=4000
 *
 * It prints `{"listening":port}` on stdout when ready. Started with
 * --expose-gc, SIGUSR2 runs a full garbage collection (the driver does this
 * before it reads the RSS, as it does for the product).
 *
 * What it sends is the product's, byte for byte in shape and within a few
 * bytes in size: the snapshots are built by the product's own view
 * (`toPublicSnapshot`, lib/session/views.ts) from a session state this file
 * keeps by hand (the same code, title, mode, step, participant count and
 * revision counter as the product's: one revision per join, step, vote and
 * close), the poll is the product's generated next-step poll for the current
 * step, the tally has the product's fields ({pollId, round, counts, total,
 * rev}), and tallies are coalesced with the product's interval
 * (TALLY_BROADCAST_INTERVAL_MS) and leading-edge rule.
 */

const ROOM = "class";

const portArg = process.argv.find((a) => a.startsWith("--port="));
const port = portArg ? Number(portArg.slice("--port=".length)) : 0;

const gc = (globalThis as { gc?: () => void }).gc;
if (gc) process.on("SIGUSR2", () => gc());

/** The session as the product's public view needs it; only what the benchmark changes is ever updated. */
const state = initialState();
state.id = randomUUID();
state.code = "BENCH1"; // the product's codes are 6 characters
state.title = "Benchmark"; // the driver's POST /api/sessions title
state.seq = 1; // the product's session:created; each join, step, vote and close adds one, as below
let connected = 0;

/** Votes by socket id (the least a server can keep). */
let votes = new Map<string, string>();
let poll: Poll | null = null;

const snapshot = () => toPublicSnapshot(state, connected);

function counts(): { counts: Record<string, number>; total: number } {
  const c: Record<string, number> = Object.fromEntries(poll!.options.map((o) => [o.id, 0]));
  for (const v of votes.values()) c[v] = (c[v] ?? 0) + 1;
  return { counts: c, total: votes.size };
}

// --- Tallies: the product's leading-edge throttle (server/rooms/throttle.ts), at its interval.
let tallyTimer: NodeJS.Timeout | null = null;
let tallyPending = false;

function sendTally(): void {
  if (!poll || poll.status !== "open") return;
  io.to(ROOM).emit("poll:tally", { pollId: poll.id, round: poll.round, ...counts(), rev: state.seq });
}

/** The first request runs at once; later ones within the interval fold into one run at its end. */
function requestTally(): void {
  tallyPending = true;
  if (tallyTimer) return;
  tallyPending = false;
  sendTally();
  tallyTimer = setTimeout(() => {
    tallyTimer = null;
    if (tallyPending) requestTally();
  }, TALLY_BROADCAST_INTERVAL_MS);
}

function cancelTally(): void {
  if (tallyTimer) clearTimeout(tallyTimer);
  tallyTimer = null;
  tallyPending = false;
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
      state.seq += 1;
      state.stepIndex = p.stepIndex;
      io.to(ROOM).emit("session:snapshot", snapshot());
      ack?.({ ok: true });
    });
    // The product's poll:open + results:show (live results visible to the class), in one command.
    socket.on("open", (_p: unknown, ack?: (r: unknown) => void) => {
      const generated = generateNextStepPoll(getScenario(state.mode, state.variant), state.stepIndex);
      if (!generated) return ack?.({ ok: false });
      const options = generated.options.map((o, i) => ({ id: `o${i + 1}`, text: o.text, note: o.note }));
      poll = {
        id: randomUUID(),
        kind: "next-step",
        question: generated.question,
        options,
        correctOptionId: options[generated.options.findIndex((o) => o.correct)]?.id ?? null,
        mode: state.mode,
        variant: state.variant,
        stepIndex: state.stepIndex,
        status: "open",
        round: 1,
        votes: {},
        voteWrites: {},
        history: [],
        openedAt: Date.now(),
        closesAt: null,
        revealedAt: null,
      };
      votes = new Map();
      state.polls = { [poll.id]: poll };
      state.pollOrder = [poll.id];
      state.activePollId = poll.id;
      state.resultsVisible = true;
      state.seq += 2;
      io.to(ROOM).emit("session:snapshot", snapshot());
      ack?.({ ok: true, data: { pollId: poll.id, options: options.map((o) => o.id) } });
    });
    socket.on("close", (_p: unknown, ack?: (r: unknown) => void) => {
      if (!poll || poll.status !== "open") return ack?.({ ok: false });
      cancelTally();
      // As the product's poll:closed: the round's counts go into the history, the public view shows them.
      poll.status = "closed";
      poll.history = [{ round: poll.round, ...counts() }];
      state.seq += 1;
      io.to(ROOM).emit("session:snapshot", snapshot());
      ack?.({ ok: true });
    });
    return;
  }
  void socket.join(ROOM);
  connected += 1;
  state.seq += 1; // the product logs a participant:joined
  socket.emit("session:snapshot", snapshot());
  socket.on("disconnect", () => {
    connected -= 1;
  });
  socket.on("poll:vote", (p: { pollId: string; optionId: string }, ack?: (r: unknown) => void) => {
    if (!poll || poll.status !== "open" || p.pollId !== poll.id) return ack?.({ ok: false });
    votes.set(socket.id, p.optionId);
    state.seq += 1; // the product logs a poll:voted
    requestTally();
    ack?.({ ok: true });
  });
});

httpServer.listen(port, "127.0.0.1", () => {
  process.stdout.write(JSON.stringify({ listening: (httpServer.address() as AddressInfo).port }) + "\n");
});
process.on("SIGTERM", () => process.exit(0));
process.on("SIGINT", () => process.exit(0));
