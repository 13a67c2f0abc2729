import { randomBytes, randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { Server } from "socket.io";
import { tallyIntervalMs } from "../lib/constants";
import { getScenario } from "../lib/lesson/scenarios";
import { generateNextStepPoll } from "../lib/polls/nextStep";
import type { PatchOf, PublicTally } from "../lib/session/projection";
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
 * bytes in size: the product's one message kind, `session:patch`, on the
 * class's stream ("public", lib/session/projection.ts), numbered on a clock of
 * the room's own (`to` one more than the last patch, `from` the last ordered
 * patch; volatile counts do not move `from`) under a random room instance as
 * the product's RoomSync (server/rooms/roomSync.ts) names it:
 *
 * - join: the whole patch, `put: {session, presence}` (the product also sends
 *   the student's own stream whole, `me`; the baseline does not);
 * - step: `put: {session}, del: ["tally"]`;
 * - open (the product's poll:open + results:show): `put: {session, tally}`;
 * - close: `put: {session}, del: ["tally"]`;
 * - a running count: a volatile `put: {tally}`.
 *
 * The session record is built by the product's own view (`toPublicSnapshot`,
 * lib/session/views.ts) from a session state this file keeps by hand (the
 * same code, title, mode, step, participant count and revision counter as the
 * product's: one revision per join, step, vote and close), the poll is the
 * product's generated next-step poll for the current step, the tally is the
 * product's PublicTally with live results shown ({pollId, round, total, rev,
 * counts}), and tallies are coalesced with the product's interval
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
  /** The room instance and its clock, as the product's RoomSync numbers the class's patches. */
  private readonly instance = randomBytes(9).toString("base64url");
  private clock = 0;
  /** The `to` of the class's last ordered patch: the next one is made from it. */
  private last = 0;

  constructor(readonly code: string) {
    this.state.id = randomUUID();
    this.state.code = code;
    this.state.title = "Benchmark"; // the driver's POST /api/sessions title
    this.state.seq = 1; // the product's session:created; each join, step, vote and close adds one, as below
  }

  /** The next patch of the class's stream, numbered as the product's RoomSync does (volatile ones do not move `from`). */
  private patch(change: Pick<PatchOf<"public">, "put" | "del">, volatile = false): PatchOf<"public"> {
    const to = ++this.clock;
    const patch: PatchOf<"public"> = { stream: "public", instance: this.instance, from: this.last, to };
    if (volatile) patch.volatile = true;
    else this.last = to;
    if (change.put) patch.put = change.put;
    if (change.del) patch.del = change.del;
    return patch;
  }

  private emit(change: Pick<PatchOf<"public">, "put" | "del">, volatile = false): void {
    io.to(this.code).emit("session:patch", this.patch(change, volatile));
  }

  snapshot() {
    return toPublicSnapshot(this.state, this.connected);
  }

  /** A joining student's copy: the class's records whole, at the stream's clock (as RoomSync.whole). */
  whole(): PatchOf<"public"> {
    const put: NonNullable<PatchOf<"public">["put"]> = { session: this.snapshot(), presence: { participantCount: this.connected } };
    const tally = this.tally();
    if (tally) put.tally = tally;
    return { stream: "public", instance: this.instance, from: this.last, to: this.last, whole: true, put };
  }

  /** The open poll's running count as the class sees it with live results shown (the product's publicTally). */
  private tally(): PublicTally | null {
    const poll = this.poll;
    if (!poll || poll.status !== "open") return null;
    const { counts, total } = this.counts();
    return { pollId: poll.id, round: poll.round, total, rev: this.state.seq, counts };
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
    this.emit(this.withTally());
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
    this.emit(this.withTally());
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
    this.emit(this.withTally());
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

  /** The session record with the running count it goes with (the product's publish): a step, the poll opened or closed. */
  private withTally(): Pick<PatchOf<"public">, "put" | "del"> {
    const tally = this.tally();
    return tally ? { put: { session: this.snapshot(), tally } } : { put: { session: this.snapshot() }, del: ["tally"] };
  }

  private sendTally(): void {
    const tally = this.tally();
    if (tally) this.emit({ put: { tally } }, true);
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
  socket.emit("session:patch", room.whole());
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
