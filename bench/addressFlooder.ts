import WebSocket from "ws";
import { FRAME_LIMITS } from "../lib/constants";
import { PROTOCOL_VERSION } from "../lib/protocol";
import { now } from "./messages";

/**
 * The one-address attacker of bench/addressFlood.ts (issue 28), forked with
 * an IPC channel and pinned by the driver to a core of its own. From one
 * source address it opens many raw WebSockets (the `ws` package socket.io
 * depends on, so it can send what no well-behaved client would), each joining
 * the attacker's room as a student with a token the driver made beforehand,
 * and floods in one of two ways:
 *
 * - `resync`: every socket sends `session:sync` with an empty payload (asking
 *   for everything, whatever it holds) at `perSecond`, each on its own phase,
 *   never waiting for the answers;
 * - `frames`: every socket sends 16 KiB frames nested to the depth limit
 *   (an unknown event, one nested past the limit at its very end, a vote, a
 *   resync, a teacher command, in turn), as fast as its socket drains.
 *
 * A socket the server closes comes straight back with its token. Nothing it
 * receives is parsed beyond the first characters (the answers are counted,
 * their bytes summed): the flooder's own CPU must not be what limits the flood.
 */

export type FloodMode = "resync" | "frames";

export type FlooderCommand =
  { cmd: "start"; mode: FloodMode; url: string; code: string; tokens: string[]; address: string; perSecond: number } | { cmd: "stop" };

export interface AddressFloodStats {
  mode: FloodMode;
  seconds: number;
  joined: number;
  framesSent: number;
  bytesSent: number;
  /** Bytes of everything the server sent back (acks, patches). */
  bytesReceived: number;
  /** `session:patch` messages received, and how many of them were whole. */
  patches: number;
  wholePatches: number;
  /** Acknowledgements by code ("ok" for a success). */
  acks: Record<string, number>;
  handshakeRefusals: Record<string, number>;
  closedByServer: number;
}

export type FlooderEvent =
  { ev: "ready" } | { ev: "flooding"; joined: number; joinMs: number } | { ev: "stopped"; stats: AddressFloodStats };

if (!process.send) {
  console.error("bench/addressFlooder.ts is started by bench/addressFlood.ts (it needs an IPC channel)");
  process.exit(2);
}
const send = (event: FlooderEvent) => process.send!(event);

// ---------------------------------------------------------------------------
// The frames: each exactly FRAME_LIMITS.maxFrameChars long, the largest the guard reads

const FRAME_CHARS = FRAME_LIMITS.maxFrameChars;
const MAX_DEPTH = FRAME_LIMITS.maxDepth;
const ID_DIGITS = 10;
const MAX_IN_FLIGHT = 16;

/** `[name,[units…]]` filled to `chars` with units nested so the whole reaches the depth limit (plus one past it at the end, `deep`). */
function eventArgs(name: string, chars: number, deep: boolean): string {
  let unit = "0";
  for (let i = 0; i < MAX_DEPTH - 2; i++) unit = i % 2 === 0 ? `[${unit}]` : `{"k":${unit}}`;
  const open = `[${JSON.stringify(name)},[`;
  const tail = deep ? `,${"[".repeat(MAX_DEPTH + 1)}0${"]".repeat(MAX_DEPTH + 1)}` : "";
  const room = chars - open.length - 2 - tail.length;
  const count = Math.floor((room + 1) / (unit.length + 1));
  const units = Array.from({ length: count }, () => unit).join(",");
  const rest = room - units.length;
  const pad = rest === 0 ? "" : rest === 1 ? " " : `,1${"0".repeat(rest - 2)}`;
  return `${open}${units}${pad}${tail}]]`;
}

const FRAME_TEMPLATES: string[] = [
  ["flood:unknown", false],
  ["poll:vote", true],
  ["poll:vote", false],
  ["session:sync", false],
  ["step:go", false],
].map(([name, deep]) => {
  const packet = `2${"0".repeat(ID_DIGITS)}${eventArgs(name as string, FRAME_CHARS - 1 - ID_DIGITS, deep as boolean)}`;
  if (packet.length !== FRAME_CHARS) throw new Error(`frame of ${packet.length} characters, wanted ${FRAME_CHARS}`);
  return `4${packet}`;
});

let counter = 0;
/** The next flood frame with a fresh ten-digit acknowledgement id. */
function nextFrame(): string {
  const n = counter++;
  const template = FRAME_TEMPLATES[n % FRAME_TEMPLATES.length];
  return `${template.slice(0, 2)}${String(1_000_000_000 + (n % 1_000_000_000))}${template.slice(2 + ID_DIGITS)}`;
}

// ---------------------------------------------------------------------------
// Counting and the sockets

let running = false;
/** Set once every socket has joined (or the join deadline passed): joins are not slowed by the flood itself. */
let flooding = false;
let startedAt = 0;
let stats: AddressFloodStats = emptyStats("resync");

function emptyStats(mode: FloodMode): AddressFloodStats {
  return {
    mode,
    seconds: 0,
    joined: 0,
    framesSent: 0,
    bytesSent: 0,
    bytesReceived: 0,
    patches: 0,
    wholePatches: 0,
    acks: {},
    handshakeRefusals: {},
    closedByServer: 0,
  };
}
const bump = (map: Record<string, number>, key: string) => (map[key] = (map[key] ?? 0) + 1);
const CODE = /"code":"([A-Z_]+)"/;

class Slot {
  private ws: WebSocket | null = null;
  private timer: NodeJS.Timeout | null = null;
  private inFlight = 0;
  private nextId = 1;
  /** False once stopped: a close that comes after the stop must not reopen it (the next run has its own slots). */
  private alive = true;
  joined = false;

  constructor(
    private readonly token: string,
    private readonly c: Extract<FlooderCommand, { cmd: "start" }>,
  ) {}

  open(): void {
    if (!running || !this.alive) return;
    const ws = new WebSocket(`${this.c.url.replace(/^http/, "ws")}/socket.io/?EIO=4&transport=websocket`, {
      localAddress: this.c.address,
      perMessageDeflate: false,
    });
    this.ws = ws;
    this.inFlight = 0;
    let upgraded = false;
    ws.on("upgrade", () => (upgraded = true));
    ws.on("message", (data: Buffer, isBinary: boolean) => {
      stats.bytesReceived += data.length;
      if (!isBinary) this.onText(ws, data);
    });
    ws.on("error", () => undefined);
    ws.on("close", () => {
      if (this.timer) clearInterval(this.timer);
      this.timer = null;
      if (this.ws === ws) this.ws = null;
      if (!running || !this.alive) return;
      stats.closedByServer += 1;
      if (upgraded) setImmediate(() => this.open());
      else setTimeout(() => this.open(), 50);
    });
  }

  close(): void {
    this.alive = false;
    if (this.timer) clearInterval(this.timer);
    this.ws?.terminate();
  }

  private onText(ws: WebSocket, data: Buffer): void {
    const first = data[0];
    if (first === 48 /* 0: engine.io open */) {
      ws.send(`40${JSON.stringify({ v: PROTOCOL_VERSION, role: "student", code: this.c.code, token: this.token })}`);
    } else if (first === 50 /* 2: ping */) {
      ws.send("3");
    } else if (first === 52 /* 4: socket.io */) {
      const type = data[1] - 48;
      if (type === 0) {
        if (!this.joined) stats.joined += 1;
        this.joined = true;
        if (flooding) this.flood(ws);
      } else if (type === 4) {
        bump(stats.handshakeRefusals, CODE.exec(data.toString("latin1", 0, 200))?.[1] ?? "?");
      } else if (type === 3) {
        const head = data.toString("latin1", 0, Math.min(data.length, 200));
        bump(stats.acks, CODE.exec(head)?.[1] ?? (head.includes('"ok":true') ? "ok" : "?"));
      } else if (type === 2 && data.toString("latin1", 2, 17) === '["session:patch') {
        stats.patches += 1;
        // A whole patch says so early (`"whole":true` follows the clock), well within its first 200 characters.
        if (data.toString("latin1", 0, Math.min(data.length, 200)).includes('"whole":true')) stats.wholePatches += 1;
      }
    }
  }

  /** Starts flooding on the open socket, once every slot has joined. */
  start(): void {
    if (this.ws && this.joined && this.ws.readyState === WebSocket.OPEN) this.flood(this.ws);
  }

  private flood(ws: WebSocket): void {
    if (this.c.mode === "resync") {
      const periodMs = 1000 / this.c.perSecond;
      // Each socket on its own phase, so the flood is steady rather than in waves.
      setTimeout(() => {
        if (this.ws !== ws) return;
        const sync = () => {
          if (!running || ws.readyState !== WebSocket.OPEN) return;
          const frame = `42${this.nextId++}["session:sync",{}]`;
          ws.send(frame);
          stats.framesSent += 1;
          stats.bytesSent += frame.length;
        };
        sync();
        this.timer = setInterval(sync, periodMs);
      }, Math.random() * periodMs);
      return;
    }
    this.pump(ws);
  }

  /** Keeps MAX_IN_FLIGHT frames queued on the socket: as fast as it drains, never waiting for an answer. */
  private pump(ws: WebSocket): void {
    while (running && this.ws === ws && ws.readyState === WebSocket.OPEN && this.inFlight < MAX_IN_FLIGHT) {
      const frame = nextFrame();
      this.inFlight += 1;
      ws.send(frame, (err) => {
        this.inFlight -= 1;
        if (!err) {
          stats.framesSent += 1;
          stats.bytesSent += frame.length;
        }
        this.pump(ws);
      });
    }
  }
}

let slots: Slot[] = [];

async function start(c: Extract<FlooderCommand, { cmd: "start" }>): Promise<void> {
  stats = emptyStats(c.mode);
  running = true;
  flooding = false;
  startedAt = now();
  slots = c.tokens.map((token) => new Slot(token, c));
  // Open in waves of 50: the address's pending-connection cap (500) is not what this measures.
  for (let i = 0; i < slots.length; i += 50) {
    for (const s of slots.slice(i, i + 50)) s.open();
    await new Promise((r) => setTimeout(r, 20));
  }
  const deadline = now() + 20_000;
  while (running && slots.some((s) => !s.joined) && now() < deadline) await new Promise((r) => setTimeout(r, 10));
  const joinMs = now() - startedAt;
  flooding = true;
  startedAt = now();
  for (const s of slots) s.start();
  send({ ev: "flooding", joined: slots.filter((s) => s.joined).length, joinMs });
}

function stop(): void {
  console.error(`flooder: stop after ${((now() - startedAt) / 1000).toFixed(1)} s`);
  running = false;
  for (const s of slots) s.close();
  stats.seconds = (now() - startedAt) / 1000;
  send({ ev: "stopped", stats });
}

process.on("message", (msg: FlooderCommand) => {
  if (msg.cmd === "start") void start(msg);
  else stop();
});
process.on("disconnect", () => process.exit(0));
send({ ev: "ready" });
