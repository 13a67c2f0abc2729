import WebSocket from "ws";
import { FRAME_LIMITS } from "../lib/constants";
import { PROTOCOL_VERSION } from "../lib/protocol";
import { now, emptyFloodStats, FLOOD_KINDS, type FloodCommand, type FloodEvent, type FloodKind, type FloodStats } from "./messages";

/**
 * The noisy neighbour's client: forked by bench/noisy.ts (--noisy) with an IPC
 * channel, in its own process so that the driver's event loop is not what
 * limits the flood. From one source address it opens raw WebSockets (the
 * `ws` package that socket.io itself uses; no socket.io-client, so it can send
 * frames no well-behaved client would) and, on command, floods:
 *
 * - student sockets: join room B as students, then send the worst EVENT frames
 *   the frame guard lets through to its checks, each asking for an
 *   acknowledgement, as fast as the socket drains (never waiting for the
 *   acks). When the server closes one it reconnects at once, with the token
 *   it got on its first join (a student with a token is let back in even when
 *   the address is over its failed-join allowance).
 * - fresh connections: open a WebSocket, send a 16 KiB CONNECT frame (one
 *   deeply nested, one parseable with a wrong code, in turn), and open another
 *   as soon as the server closes it.
 *
 * Every EVENT frame is exactly FRAME_LIMITS.maxFrameChars long (the largest
 * the guard does not refuse by length), and the kinds take turns:
 *
 *   unknown   ["flood:unknown" | "__proto__" | "constructor", <tree>]  parsed, then UNKNOWN_EVENT
 *   reserved  ["connect" | "disconnect" | "newListener" | …, <tree>]    parsed, refused by socket.io-parser
 *   deep      ["poll:vote", [<tree>, …, [[[[[[[[[0]]]]]]]]]]]          nesting over the limit at the very end: scanned whole, refused unread
 *   vote      ["poll:vote", <tree>]                                    parsed, vote budget, schema
 *   sync      ["session:sync", <tree>]                                 parsed, command budget, the whole patches back
 *   notHost   ["step:go", <tree>]                                      parsed, command budget, NOT_HOST
 *
 * <tree> fills the frame with small objects and arrays nested exactly to the
 * depth limit, the most allocations per byte JSON.parse can be made to do.
 */

if (!process.send) {
  console.error("bench/flood.ts is started by bench/noisy.ts (it needs an IPC channel)");
  process.exit(2);
}

function send(event: FloodEvent): void {
  process.send!(event);
}

// ---------------------------------------------------------------------------
// Frames

/** The socket.io packet length the guard measures (the engine.io "4" prefix is not part of it). */
const FRAME_CHARS = FRAME_LIMITS.maxFrameChars;
const MAX_DEPTH = FRAME_LIMITS.maxDepth;
/** Acknowledgement ids are always 10 digits, so every frame has the same length; the 2nd digit is the kind. */
const ID_DIGITS = 10;
const ID_BASE = 1_000_000_000;
const ID_KIND_UNIT = 100_000_000;
/** Frames handed to a socket and not yet written to the kernel, per socket. */
const MAX_IN_FLIGHT = 16;

/** How deep JSON text nests (arrays and objects, outside strings). */
function depthOf(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i += 1;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "[" || c === "{") max = Math.max(max, ++depth);
    else if (c === "]" || c === "}") depth -= 1;
  }
  return max;
}

/**
 * `<open><units…><tail><close>` of exactly `chars` characters, where a unit
 * nests `unitDepth` containers: [{"k":[{"k":[0]}]}] and so on.
 */
function filled(open: string, close: string, chars: number, unitDepth: number, tail = ""): string {
  let unit = "0";
  for (let i = 0; i < unitDepth; i++) unit = i % 2 === 0 ? `[${unit}]` : `{"k":${unit}}`;
  const room = chars - open.length - close.length - tail.length;
  const count = Math.floor((room + 1) / (unit.length + 1));
  if (count < 1) throw new Error("frame too small for one unit");
  const units = Array.from({ length: count }, () => unit).join(",");
  const rest = room - units.length;
  // Pad to the exact length: a long number literal, or one space.
  const pad = rest === 0 ? "" : rest === 1 ? " " : `,1${"0".repeat(rest - 2)}`;
  const text = open + units + pad + tail + close;
  if (text.length !== chars) throw new Error(`built ${text.length} characters, wanted ${chars}`);
  return text;
}

/** A deep tail: nesting one past the limit, at the very end of the frame, so the guard scans all of it first. */
const deepTail = `,${"[".repeat(MAX_DEPTH + 1)}0${"]".repeat(MAX_DEPTH + 1)}`;

/** The JSON arguments of an EVENT frame: [name, payload], `chars` long. */
function eventArgs(name: string, chars: number, deep: boolean): string {
  // The args array is depth 1 and the payload array depth 2; the units nest the rest, up to the limit.
  return filled(`[${JSON.stringify(name)},[`, "]]", chars, MAX_DEPTH - 2, deep ? deepTail : "");
}

interface Template {
  kind: FloodKind;
  kindIndex: number;
  /** "42" + ten digits of id + args, latin1; the id is written in per frame */
  bytes: Buffer;
}

const EVENT_NAMES: Record<FloodKind, string[]> = {
  unknown: ["flood:unknown", "__proto__", "constructor"],
  reserved: ["connect", "connect_error", "disconnect", "disconnecting", "newListener", "removeListener", "error"],
  deep: ["poll:vote"],
  vote: ["poll:vote"],
  sync: ["session:sync"],
  notHost: ["step:go"],
};

const TEMPLATES: Template[][] = FLOOD_KINDS.map((kind, kindIndex) =>
  EVENT_NAMES[kind].map((name) => {
    const args = eventArgs(name, FRAME_CHARS - 1 - ID_DIGITS, kind === "deep");
    const packet = `2${"0".repeat(ID_DIGITS)}${args}`;
    // Sanity: what the server's guard will see.
    JSON.parse(args);
    if (packet.length !== FRAME_CHARS) throw new Error(`${kind}: ${packet.length} characters`);
    const depth = depthOf(args);
    if (kind === "deep" ? depth <= MAX_DEPTH : depth !== MAX_DEPTH) throw new Error(`${kind}: depth ${depth}`);
    return { kind, kindIndex, bytes: Buffer.from(`4${packet}`, "latin1") };
  }),
);

let frameCounter = 0;

/** The next frame: the kinds in turn, each kind's names in turn, a fresh 10-digit ack id. */
function nextFrame(): { kind: FloodKind; bytes: Buffer } {
  const n = frameCounter++;
  const kindIndex = n % TEMPLATES.length;
  const variants = TEMPLATES[kindIndex];
  const tpl = variants[Math.floor(n / TEMPLATES.length) % variants.length];
  const id = ID_BASE + kindIndex * ID_KIND_UNIT + (n % ID_KIND_UNIT);
  const bytes = Buffer.allocUnsafe(tpl.bytes.length);
  tpl.bytes.copy(bytes);
  bytes.write(String(id), 2, "latin1");
  return { kind: tpl.kind, bytes };
}

/**
 * The CONNECT frames of the fresh connections, each exactly FRAME_CHARS long
 * ("0" + auth): one nested past the limit at its end (refused unread, after a
 * full scan), one parseable at the depth limit with a code that cannot exist
 * (parsed, validated, refused as a failed join). Neither creates a participant.
 */
function connectFrames(): string[] {
  const open = `{"v":${PROTOCOL_VERSION},"role":"student","code":"0O0O0O","x":[`;
  // The auth object is depth 1 and "x" depth 2.
  const deep = filled(open, "]}", FRAME_CHARS - 1, MAX_DEPTH - 2, deepTail);
  const wrongCode = filled(open, "]}", FRAME_CHARS - 1, MAX_DEPTH - 2);
  if (depthOf(deep) <= MAX_DEPTH || depthOf(wrongCode) !== MAX_DEPTH) throw new Error("connect frames: wrong depth");
  return [`40${deep}`, `40${wrongCode}`];
}
const CONNECT_FRAMES = connectFrames();

// ---------------------------------------------------------------------------
// Counting

let running = false;
let startedAt = 0;
let stats: FloodStats = emptyFloodStats();

function count(map: Record<string, number>, key: string, by = 1): void {
  map[key] = (map[key] ?? 0) + by;
}

const CODE = /"code":"([A-Z_]+)"/;

// ---------------------------------------------------------------------------
// Connections

type Start = Extract<FloodCommand, { cmd: "start" }>;

class Slot {
  private ws: WebSocket | null = null;
  private inFlight = 0;
  private connects = 0;
  /** the student's token from its first session:welcome (kept across runs) */
  private token: string | null = null;
  joinedThisRun = false;

  constructor(
    readonly index: number,
    readonly fresh: boolean,
  ) {}

  open(c: Start): void {
    if (!running) return;
    const ws = new WebSocket(`${c.url.replace(/^http/, "ws")}/socket.io/?EIO=4&transport=websocket`, {
      localAddress: c.address,
      perMessageDeflate: false,
      handshakeTimeout: 10_000,
    });
    this.ws = ws;
    this.inFlight = 0;
    this.connects += 1;
    if (this.fresh) stats.opened.fresh += 1;
    else stats.opened.student += 1;
    let upgraded = false;
    ws.on("upgrade", () => {
      upgraded = true;
    });
    ws.on("message", (data: WebSocket.RawData, isBinary: boolean) => {
      if (!isBinary)
        this.onText(
          ws,
          c,
          Buffer.isBuffer(data) ? data.toString("utf8") : Buffer.concat(Array.isArray(data) ? data : [Buffer.from(data)]).toString("utf8"),
        );
    });
    ws.on("error", (err: Error & { code?: string }) => count(stats.socketErrors, err.code ?? err.message.slice(0, 60)));
    ws.on("close", () => {
      if (this.ws === ws) this.ws = null;
      if (!running) return;
      stats.closedByServer += 1;
      // Straight back in; a connection that never opened (refused, server gone) waits a little first.
      if (upgraded) setImmediate(() => this.open(c));
      else setTimeout(() => this.open(c), 50);
    });
  }

  /** Closes the connection at once (the stop command); resolves when it is closed. */
  terminate(): Promise<void> {
    const ws = this.ws;
    if (!ws || ws.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, 2_000);
      ws.once("close", () => {
        clearTimeout(timer);
        resolve();
      });
      ws.terminate();
    });
  }

  private onText(ws: WebSocket, c: Start, text: string): void {
    switch (text.charCodeAt(0)) {
      case 48: // engine.io open: join (or, fresh, the oversized CONNECT)
        if (this.fresh) ws.send(CONNECT_FRAMES[this.connects % CONNECT_FRAMES.length]);
        else {
          const auth = this.token
            ? { v: PROTOCOL_VERSION, role: "student", code: c.code, token: this.token }
            : { v: PROTOCOL_VERSION, role: "student", code: c.code, nickname: `flood ${this.index}` };
          ws.send(`40${JSON.stringify(auth)}`);
        }
        return;
      case 50: // ping
        ws.send("3");
        return;
      case 52: // a socket.io packet
        return this.onPacket(ws, text);
    }
  }

  private onPacket(ws: WebSocket, text: string): void {
    const type = text.charCodeAt(1) - 48;
    if (type === 0) {
      // CONNECT accepted: flood.
      stats.joined += 1;
      this.joinedThisRun = true;
      this.pump(ws);
    } else if (type === 4) {
      count(stats.handshakeRefusals, CODE.exec(text)?.[1] ?? "?");
    } else if (type === 3) {
      let i = 2;
      while (i < text.length && text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57) i += 1;
      const id = Number(text.slice(2, i));
      const kind = FLOOD_KINDS[Math.floor((id - ID_BASE) / ID_KIND_UNIT)] ?? "?";
      const code = CODE.exec(text)?.[1] ?? (text.includes('"ok":true') ? "ok" : "?");
      stats.replies += 1;
      count(stats.repliesByCode, code);
      count((stats.repliesByKind[kind] ??= {}), code);
    } else {
      stats.otherMessages += 1;
      if (type === 2 && text.startsWith('42["session:welcome"')) {
        const token = (JSON.parse(text.slice(2)) as [string, { token?: string }])[1]?.token;
        if (token) this.token = token;
      }
    }
  }

  /** Keeps MAX_IN_FLIGHT frames queued on the socket: as fast as it drains, never waiting for an ack. */
  private pump(ws: WebSocket): void {
    while (running && this.ws === ws && ws.readyState === WebSocket.OPEN && this.inFlight < MAX_IN_FLIGHT) {
      const frame = nextFrame();
      this.inFlight += 1;
      // Text frames: the guard closes a connection that sends binary.
      ws.send(frame.bytes, { binary: false }, (err) => {
        this.inFlight -= 1;
        if (!err) {
          stats.framesSent += 1;
          stats.bytesSent += frame.bytes.length;
          count(stats.framesByKind, frame.kind);
        }
        this.pump(ws);
      });
    }
  }
}

const students: Slot[] = [];
const fresh: Slot[] = [];

async function start(c: Start): Promise<void> {
  stats = emptyFloodStats();
  startedAt = now();
  running = true;
  while (students.length < c.sockets) students.push(new Slot(students.length, false));
  while (fresh.length < c.fresh) fresh.push(new Slot(fresh.length, true));
  const mine = students.slice(0, c.sockets);
  for (const s of mine) {
    s.joinedThisRun = false;
    s.open(c);
  }
  // The student sockets join first: the fresh connections' refused handshakes soon put the address over its
  // failed-join allowance, after which only students with a token get in.
  const deadline = now() + c.joinTimeoutMs;
  while (running && mine.some((s) => !s.joinedThisRun) && now() < deadline) await new Promise((r) => setTimeout(r, 10));
  send({ ev: "flooding", studentsJoined: mine.filter((s) => s.joinedThisRun).length, joinMs: now() - startedAt });
  for (const s of fresh.slice(0, c.fresh)) s.open(c);
}

async function stopAll(): Promise<void> {
  running = false;
  await Promise.all([...students, ...fresh].map((s) => s.terminate()));
  stats.durationMs = now() - startedAt;
  send({ ev: "stopped", stats });
}

process.on("message", (msg: FloodCommand) => {
  const fail = (err: unknown) => send({ ev: "error", message: (err as Error).stack ?? String(err) });
  try {
    switch (msg.cmd) {
      case "start":
        start(msg).catch(fail);
        break;
      case "stop":
        stopAll().catch(fail);
        break;
      case "close":
        running = false;
        void Promise.all([...students, ...fresh].map((s) => s.terminate())).finally(() => {
          send({ ev: "closed" });
          setTimeout(() => process.exit(0), 50);
        });
        break;
    }
  } catch (err) {
    fail(err);
  }
});

// The driver going away takes the flooder with it.
process.on("disconnect", () => process.exit(0));
send({ ev: "ready", frameChars: FRAME_CHARS, kinds: [...FLOOD_KINDS] });
