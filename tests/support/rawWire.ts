import http, { type IncomingHttpHeaders } from "node:http";
import net from "node:net";
import WebSocket from "ws";
import { PROTOCOL_VERSION, type Ack, type AnySnapshot, type Patch, type StreamName, type Welcome } from "../../lib/protocol";
import { Replica } from "../../lib/protocol/replica";

// Outsider's tools: the wire as a script sees it (raw WebSocket frames, raw
// HTTP with any headers, bare TCP), from any loopback source address (all of
// 127.0.0.0/8 is local on Linux, so 127.0.0.2 is "another address").

/** A socket.io connection spoken by hand: engine.io frames as text (`0{…}`, `40{…}`, `42[…]`, `43<id>[…]`). */
export interface RawSocket {
  ws: WebSocket;
  /** Every text frame received, in order (pings excluded). */
  frames: string[];
  /** Binary frames received. */
  binaryFrames: number;
  isClosed(): boolean;
  /** Resolves when the connection is closed (by either side). */
  closed: Promise<void>;
  send(frame: string | Buffer): void;
  /** The first frame from `from` on that matches. */
  waitForFrame(predicate: (frame: string) => boolean, timeoutMs?: number, from?: number): Promise<string>;
  /** Sends `42<id>[event, payload]` and resolves with the acknowledgement's body. */
  emit(event: string, payload?: unknown, timeoutMs?: number): Promise<Ack<unknown>>;
  /** The acknowledgement `43<id>[…]` of a frame sent by hand with that id. */
  ack(id: number, timeoutMs?: number): Promise<Ack<unknown>>;
  /** The `42[event, payload]` frames received, decoded. */
  events(): { event: string; payload: unknown; index: number }[];
  /** The `42["session:patch", patch]` frames received, decoded, with their place in `frames`. */
  patches(): { patch: Patch; index: number }[];
  /** The first `session:patch` from frame `from` on that matches. */
  waitForPatch(predicate: (patch: Patch) => boolean, timeoutMs?: number, from?: number): Promise<Patch>;
  /** The records the patches received so far add up to, by the one rule every client follows (no resync). */
  records(): Replica;
  close(): void;
}

/** The frame's patch, when it is a `session:patch` frame. */
export function patchOfFrame(frame: string): Patch | null {
  if (!frame.startsWith('42["session:patch"')) return null;
  return (JSON.parse(frame.slice(2)) as [string, Patch])[1];
}

/** The session record a patch puts (the class's or the teacher's), if any. */
export function sessionIn(patch: Patch): AnySnapshot | undefined {
  return (patch.put as { session?: AnySnapshot } | undefined)?.session;
}

/** The streams a socket of this role follows (each arrives whole on join). */
export function streamsOf(role: Welcome["role"]): StreamName[] {
  return role === "host" ? ["host"] : role === "student" ? ["public", "me"] : ["public"];
}

export interface RawOptions {
  localAddress?: string;
  headers?: Record<string, string>;
}

/** Opens a WebSocket to /socket.io/ and waits for engine.io's open packet; rejects with the HTTP status if refused. */
export function openRaw(url: string, options: RawOptions = {}): Promise<RawSocket> {
  const ws = new WebSocket(`${url.replace(/^http/, "ws")}/socket.io/?EIO=4&transport=websocket`, {
    localAddress: options.localAddress,
    headers: options.headers,
  });
  let nextId = 1000;
  let isClosed = false;
  const frames: string[] = [];
  const closed = new Promise<void>((resolve) => ws.once("close", () => ((isClosed = true), resolve())));
  ws.on("error", () => undefined);
  const raw: RawSocket = {
    ws,
    frames,
    binaryFrames: 0,
    isClosed: () => isClosed,
    closed,
    send(frame) {
      if (ws.readyState === WebSocket.OPEN) ws.send(frame);
    },
    waitForFrame(predicate, timeoutMs = 5000, from = 0) {
      return new Promise((resolve, reject) => {
        const start = Date.now();
        const look = () => {
          for (let i = from; i < frames.length; i++) if (predicate(frames[i])) return resolve(frames[i]);
          from = Math.max(from, frames.length);
          if (Date.now() - start > timeoutMs) return reject(new Error(`no matching frame within ${timeoutMs} ms (closed: ${isClosed})`));
          if (isClosed) return reject(new Error("connection closed before a matching frame"));
          setTimeout(look, 5);
        };
        look();
      });
    },
    emit(event, payload, timeoutMs) {
      const id = nextId++;
      raw.send(`42${id}${JSON.stringify(payload === undefined ? [event] : [event, payload])}`);
      return raw.ack(id, timeoutMs);
    },
    async ack(id, timeoutMs = 5000) {
      const frame = await raw.waitForFrame((f) => f.startsWith(`43${id}[`), timeoutMs);
      return (JSON.parse(frame.slice(`43${id}`.length)) as [Ack<unknown>])[0];
    },
    events() {
      return frames.flatMap((f, index) => {
        if (!f.startsWith("42[")) return [];
        const [event, payload] = JSON.parse(f.slice(2)) as [string, unknown];
        return [{ event, payload, index }];
      });
    },
    patches() {
      return frames.flatMap((f, index) => {
        const patch = patchOfFrame(f);
        return patch ? [{ patch, index }] : [];
      });
    },
    async waitForPatch(predicate, timeoutMs, from) {
      const frame = await raw.waitForFrame(
        (f) => {
          const patch = patchOfFrame(f);
          return patch !== null && predicate(patch);
        },
        timeoutMs,
        from,
      );
      return patchOfFrame(frame)!;
    },
    records() {
      const replica = new Replica();
      for (const { patch } of raw.patches()) replica.apply(patch);
      return replica;
    },
    close() {
      if (!isClosed) ws.terminate();
    },
  };
  ws.on("message", (data, isBinary) => {
    if (isBinary) {
      raw.binaryFrames += 1;
      return;
    }
    const text = Buffer.isBuffer(data)
      ? data.toString("utf8")
      : Buffer.concat(Array.isArray(data) ? data : [Buffer.from(data)]).toString("utf8");
    // engine.io heartbeat: answer pings, keep them out of the record.
    if (text === "2") return void ws.send("3");
    frames.push(text);
  });
  return new Promise((resolve, reject) => {
    ws.once("unexpected-response", (_req, res) => {
      ws.terminate();
      reject(Object.assign(new Error(`refused with HTTP ${res.statusCode}`), { status: res.statusCode }));
    });
    ws.once("close", () => reject(Object.assign(new Error("closed before opening"), { status: 0 })));
    ws.once("error", (err) => reject(Object.assign(err, { status: 0 })));
    raw.waitForFrame((f) => f.startsWith("0{"), 5000).then(() => resolve(raw), reject);
  });
}

/** The answer to a CONNECT: `40{"sid":…}` (joined) or `44{…}` (refused, with `data: { code, message }`). */
export interface RawJoin {
  raw: RawSocket;
  /** The CONNECT reply frame exactly as sent. */
  reply: string;
  ok: boolean;
  /** The refusal's code, or null when joined. */
  code: string | null;
  welcome: Welcome | null;
}

/** Opens a WebSocket and sends one CONNECT with this auth (`v` is added unless given), by hand. */
export async function rawJoin(url: string, auth: Record<string, unknown>, options: RawOptions = {}): Promise<RawJoin> {
  const raw = await openRaw(url, options);
  raw.send(`40${JSON.stringify({ v: PROTOCOL_VERSION, ...auth })}`);
  const reply = await raw.waitForFrame((f) => f.startsWith("40") || f.startsWith("44"));
  if (reply.startsWith("44")) {
    const body = JSON.parse(reply.slice(2)) as { message: string; data?: { code: string } };
    return { raw, reply, ok: false, code: body.data?.code ?? body.message, welcome: null };
  }
  const welcomeFrame = await raw.waitForFrame((f) => f.startsWith('42["session:welcome"'));
  const welcome = (JSON.parse(welcomeFrame.slice(2)) as [string, Welcome])[1];
  // Joined once every stream the role follows has arrived whole.
  for (const stream of streamsOf(welcome.role)) await raw.waitForPatch((p) => p.whole === true && p.stream === stream);
  return { raw, reply, ok: true, code: null, welcome };
}

/** A refused join's code; the WebSocket is closed afterwards. */
export async function rawJoinCode(url: string, auth: Record<string, unknown>, options: RawOptions = {}): Promise<string | null> {
  const joined = await rawJoin(url, auth, options);
  joined.raw.close();
  return joined.code;
}

export interface RawHttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * One HTTP request on its own connection (no keep-alive pool, so nothing is
 * held afterwards), with any headers an attacker likes (Host included).
 */
export function httpRequest(
  url: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; localAddress?: string } = {},
): Promise<RawHttpResponse> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: hostname,
        port,
        path,
        method: options.method ?? "GET",
        headers: options.headers,
        localAddress: options.localAddress,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}

/** A bare TCP connection that says nothing (unless told to), and whether the server has closed it. */
export interface TcpHolder {
  socket: net.Socket;
  connected: Promise<void>;
  closed: Promise<void>;
  isClosed(): boolean;
  destroy(): void;
}

export function holdTcp(url: string, localAddress?: string): TcpHolder {
  const { hostname, port } = new URL(url);
  const socket = net.connect({ host: hostname, port: Number(port), localAddress });
  let isClosed = false;
  socket.on("error", () => undefined);
  socket.on("data", () => undefined);
  const closed = new Promise<void>((resolve) => socket.once("close", () => ((isClosed = true), resolve())));
  const connected = new Promise<void>((resolve, reject) => {
    socket.once("connect", () => resolve());
    socket.once("close", () => reject(new Error("closed before connecting")));
  });
  connected.catch(() => undefined);
  return { socket, connected, closed, isClosed: () => isClosed, destroy: () => socket.destroy() };
}
