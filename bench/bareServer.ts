import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { Server } from "socket.io";
import { tallyIntervalMs } from "../lib/constants";
import { getScenario } from "../lib/lesson/scenarios";
import { generateNextStepPoll } from "../lib/polls/nextStep";
import { initialState } from "../lib/session/reducer";
import type { Poll } from "../lib/session/types";
import { toPublicSnapshot } from "../lib/session/views";

/**
 * The baseline: a bare socket.io 4.8 server doing the least the product does.
 * One socket.io room per class, `io.to(room).emit`, a vote Map and a coalesced
 * tally, nothing else (no validation, no storage, no rate limits, no per-voter
 * echo). A handshake's `auth.room` names the class (the school scenario's 200
 * rooms); without it every socket is in one class. Run as a child process:
 *
 *   node --expose-gc --import tsx bench/bareServer.ts --port=4000
 *
 * It prints `{"listening":port}` on stdout when ready. Started with
 * --expose-gc, SIGUSR2 runs a full garbage collection (the driver does this
 * before it reads the RSS, as it does for the product); GET /metrics gives
 * the event-loop delay and heap figures the product's /metrics gives.
 *
 * What it sends is the product's, byte for byte in shape and within a few
 * bytes in size: the snapshots are built by the product's own view
 * (`toPublicSnapshot`, lib/session/views.ts) from a session state this file
 * keeps by hand (the same code, title, mode, step, participant count and
 * revision counter as the product's: one revision per join, step, vote and
 * close), the poll is the product's generated next-step poll for the current
 * step, the tally has the product's fields ({pollId, round, counts, total,
 * rev}), and tallies are coalesced with the product's interval
 * (`tallyIntervalMs`: 250 ms, longer past 2,500 sockets) and leading-edge rule.
 */

/** The class of a handshake that names none (the class cells); the school (`--school`) names its rooms by 6-character codes. */
const DEFAULT_CODE = "BENCH1"; // the product's codes are 6 characters

const portArg = process.argv.find((a) => a.startsWith("--port="));
const port = portArg ? Number(portArg.slice("--port=".length)) : 0;

// As the product (server/index.ts): a full GC on SIGUSR2 when started with --expose-gc.
const gc = (globalThis as { gc?: () => void }).gc;
if (gc) process.on("SIGUSR2", () => gc());

/**
 * GET /metrics: the few of the product's Prometheus names the benchmark reads (prom-client's defaults in
 * server/ops/metrics.ts, same sampling, reset at each scrape), so one reader serves both servers.
 */
const loopDelay = monitorEventLoopDelay({ resolution: 10 });
loopDelay.enable();
function metricsText(): string {
  const { heapUsed, heapTotal, external } = process.memoryUsage();
  const lines = [
    `nodejs_eventloop_lag_p50_seconds ${loopDelay.percentile(50) / 1e9}`,
    `nodejs_eventloop_lag_p99_seconds ${loopDelay.percentile(99) / 1e9}`,
    `nodejs_eventloop_lag_max_seconds ${loopDelay.max / 1e9}`,
    `nodejs_heap_size_used_bytes ${heapUsed}`,
    `nodejs_heap_size_total_bytes ${heapTotal}`,
    `nodejs_external_memory_bytes ${external}`,
    `classroom_live_sessions ${rooms.size}`,
  ];
  loopDelay.reset();
  return lines.join("\n") + "\n";
}

/** One class: the session as the product's public view needs it, its votes and its tally throttle. */
class BareRoom {
  /** Only what the benchmark changes is ever updated. */
  readonly state = initialState();
  connected = 0;
  /** Votes by socket id (the least a server can keep). */
  private votes = new Map<string, string>();
  private poll: Poll | null = null;
  private tallyTimer: NodeJS.Timeout | null = null;
  private tallyPending = false;

  constructor(readonly code: string) {
    this.state.id = randomUUID();
    this.state.code = code;
    this.state.title = "Benchmark"; // the driver's POST /api/sessions title
    this.state.seq = 1; // the product's session:created; each join, step, vote and close adds one, as below
  }

  private emit(event: string, payload: unknown): void {
    io.to(this.code).emit(event, payload);
  }

  snapshot() {
    return toPublicSnapshot(this.state, this.connected);
  }

  private counts(): { counts: Record<string, number>; total: number } {
    const c: Record<string, number> = Object.fromEntries(this.poll!.options.map((o) => [o.id, 0]));
    for (const v of this.votes.values()) c[v] = (c[v] ?? 0) + 1;
    return { counts: c, total: this.votes.size };
  }

  joined(): void {
    this.connected += 1;
    this.state.seq += 1; // the product logs a participant:joined
  }

  step(stepIndex: number): void {
    this.state.seq += 1;
    this.state.stepIndex = stepIndex;
    this.emit("session:snapshot", this.snapshot());
  }

  /** The product's poll:open + results:show (live results visible to the class), in one command. */
  open(): { pollId: string; options: string[] } | null {
    const state = this.state;
    const generated = generateNextStepPoll(getScenario(state.mode, state.variant), state.stepIndex);
    if (!generated) return null;
    const options = generated.options.map((o, i) => ({ id: `o${i + 1}`, text: o.text, note: o.note }));
    const poll: Poll = {
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
    this.poll = poll;
    this.votes = new Map();
    state.polls = { [poll.id]: poll };
    state.pollOrder = [poll.id];
    state.activePollId = poll.id;
    state.resultsVisible = true;
    state.seq += 2;
    this.emit("session:snapshot", this.snapshot());
    return { pollId: poll.id, options: options.map((o) => o.id) };
  }

  close(): boolean {
    const poll = this.poll;
    if (!poll || poll.status !== "open") return false;
    this.cancelTally();
    // As the product's poll:closed: the round's counts go into the history, the public view shows them.
    poll.status = "closed";
    poll.history = [{ round: poll.round, ...this.counts() }];
    this.state.seq += 1;
    this.emit("session:snapshot", this.snapshot());
    return true;
  }

  vote(socketId: string, pollId: string, optionId: string): boolean {
    if (!this.poll || this.poll.status !== "open" || pollId !== this.poll.id) return false;
    this.votes.set(socketId, optionId);
    this.state.seq += 1; // the product logs a poll:voted
    this.requestTally();
    return true;
  }

  // --- Tallies: the product's leading-edge throttle (server/rooms/throttle.ts), at its interval.

  private sendTally(): void {
    const poll = this.poll;
    if (!poll || poll.status !== "open") return;
    this.emit("poll:tally", { pollId: poll.id, round: poll.round, ...this.counts(), rev: this.state.seq });
  }

  /** The first request runs at once; later ones within the interval fold into one run at its end. */
  private requestTally(): void {
    this.tallyPending = true;
    if (this.tallyTimer) return;
    this.tallyPending = false;
    this.sendTally();
    this.tallyTimer = setTimeout(
      () => {
        this.tallyTimer = null;
        if (this.tallyPending) this.requestTally();
      },
      tallyIntervalMs(this.connected + 1),
    );
  }

  private cancelTally(): void {
    if (this.tallyTimer) clearTimeout(this.tallyTimer);
    this.tallyTimer = null;
    this.tallyPending = false;
  }
}

const rooms = new Map<string, BareRoom>();
function roomFor(code: string): BareRoom {
  let room = rooms.get(code);
  if (!room) rooms.set(code, (room = new BareRoom(code)));
  return room;
}

const httpServer = createServer((req, res) => {
  if (req.url === "/metrics") {
    res.writeHead(200, { "content-type": "text/plain; version=0.0.4" });
    return void res.end(metricsText());
  }
  res.writeHead(200, { "content-type": "application/json" });
  res.end('{"ok":true}');
});
const io = new Server(httpServer, { transports: ["websocket"], serveClient: false });

io.on("connection", (socket) => {
  const auth = (socket.handshake.auth ?? {}) as { role?: string; room?: string };
  const room = roomFor(typeof auth.room === "string" && auth.room ? auth.room : DEFAULT_CODE);
  if (auth.role === "host") {
    socket.on("step", (p: { stepIndex: number }, ack?: (r: unknown) => void) => {
      room.step(p.stepIndex);
      ack?.({ ok: true });
    });
    socket.on("open", (_p: unknown, ack?: (r: unknown) => void) => {
      const opened = room.open();
      ack?.(opened ? { ok: true, data: opened } : { ok: false });
    });
    socket.on("close", (_p: unknown, ack?: (r: unknown) => void) => ack?.({ ok: room.close() }));
    return;
  }
  void socket.join(room.code);
  room.joined();
  socket.emit("session:snapshot", room.snapshot());
  socket.on("disconnect", () => {
    room.connected -= 1;
  });
  socket.on("poll:vote", (p: { pollId: string; optionId: string }, ack?: (r: unknown) => void) => {
    ack?.({ ok: room.vote(socket.id, p.pollId, p.optionId) });
  });
});

httpServer.listen(port, "127.0.0.1", () => {
  process.stdout.write(JSON.stringify({ listening: (httpServer.address() as AddressInfo).port }) + "\n");
});
process.on("SIGTERM", () => process.exit(0));
process.on("SIGINT", () => process.exit(0));
