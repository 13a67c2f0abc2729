import { Decoder, Encoder, PacketType, type Packet } from "socket.io-parser";
import { FRAME_LIMITS } from "../../lib/constants";
import { ADDRESS_BUDGETS, type ErrorCode } from "../../lib/protocol";
import { KeyedLimiter, TokenBucket } from "./rateLimit";
import { errorMessage } from "../../lib/errors";
import { countAbusiveClose, countRateLimited } from "../ops/metrics";

/**
 * The first thing every inbound socket.io frame meets, before anything is
 * parsed: socket.io hands each WebSocket message to its connection's parser,
 * and this parser spends the sender's budget first (per connection, and per
 * address in frames and in bytes), then refuses what is too large or too
 * deeply nested by looking at the raw text, and only then lets JSON.parse run.
 * A 60 KB frame of nested brackets used to cost ~9 ms of event loop and
 * overflow the stack in a size check, before any rate limit ran.
 *
 * A refused frame that asked for an acknowledgement gets one with the error
 * code (the frame is replaced by a `[REFUSED_FRAME, code]` event that the
 * socket edge answers); a connection that keeps sending after refusals, sends
 * a second CONNECT, or sends binary is closed.
 */

/** Marks a frame the parser refused; a Symbol, so no client can send it. */
export const REFUSED_FRAME = Symbol("refused frame");

export interface FrameGuardOptions {
  /** The client address of an engine.io connection (the same key as every other per-address limit). */
  addressOf: (conn: EngineConnection) => string;
  /** A connection's (first) CONNECT frame has arrived: the client has spoken (see ConnectionGuard.connecting). */
  onConnect?: (conn: EngineConnection) => void;
}

/** What the guard needs of an engine.io connection. */
export interface EngineConnection {
  request: { socket: { remoteAddress?: string }; headers: Record<string, string | string[] | undefined> };
  /** engine.io's WebSocket transport keeps the `ws` socket, which can stop reading from the network. */
  transport?: { socket?: { pause?(): void; resume?(): void; isPaused?: boolean; terminate?(): void } };
}

/** Packet types as the digit that starts a frame. */
const CONNECT: number = PacketType.CONNECT;
const DISCONNECT: number = PacketType.DISCONNECT;
const EVENT: number = PacketType.EVENT;

/**
 * A socket.io `parser` option whose Decoder guards every frame. socket.io
 * builds one Decoder per connection inside its engine "connection" handler;
 * `watch(engine)` remembers that connection just before, so the Decoder knows
 * whose budget to spend (the handler runs synchronously, so this is exact).
 */
export function createFrameGuard({ addressOf, onConnect }: FrameGuardOptions) {
  const addressFrames = new KeyedLimiter(FRAME_LIMITS.perAddressFrames);
  const addressBytes = new KeyedLimiter(FRAME_LIMITS.perAddressBytes);
  const abuse = new KeyedLimiter(FRAME_LIMITS.abusiveClosesPerAddress);
  /** Per address: the earliest moment its next paused connection may be read again. */
  const nextResume = new Map<string, number>();
  let connecting: EngineConnection | null = null;
  const stats = { frames: 0, refused: 0, closed: 0, paused: 0 };

  /**
   * When a connection paused now may be read again: after the pause and a
   * random part of `resumeJitterMs`, and at least `resumeSpacingMs` after the
   * address's previous one. 300 connections from one address paused for
   * exactly the same second all resumed together and were read in one go,
   * freezing every room for 1.5–2 s at a time (issue 28); spread out, each
   * is one small read.
   */
  function resumeAt(address: string): number {
    const earliest = Date.now() + FRAME_LIMITS.pauseMs + Math.random() * ADDRESS_BUDGETS.resumeJitterMs;
    const at = Math.max(earliest, nextResume.get(address) ?? 0);
    nextResume.set(address, at + ADDRESS_BUDGETS.resumeSpacingMs);
    return at;
  }

  class GuardedDecoder extends Decoder {
    private readonly address: string;
    private readonly conn: EngineConnection | null;
    private readonly budget = new TokenBucket(FRAME_LIMITS.perConnection);
    private connects = 0;
    private refusedInARow = 0;
    private pausesInARow = 0;

    constructor() {
      super();
      this.conn = connecting;
      this.address = connecting ? addressOf(connecting) : "unknown";
      connecting = null;
    }

    override add(frame: unknown): void {
      stats.frames += 1;
      // Binary events and attachments: this protocol has none, and reassembling them costs memory.
      if (typeof frame !== "string") return this.close("binary frames are not accepted");
      const type = frame.charCodeAt(0) - 48;
      if (type === CONNECT) {
        // One session per WebSocket: a guesser cannot try codes over one connection.
        if (++this.connects > 1) return this.close("one CONNECT per connection");
        if (this.conn) onConnect?.(this.conn);
        if (frame.length > FRAME_LIMITS.maxFrameChars || nestingExceeds(frame, FRAME_LIMITS.maxDepth)) {
          // Answered as a refused handshake (the socket edge reads the marker), not parsed.
          const refused: Packet = {
            type: PacketType.CONNECT,
            nsp: frameHeader(frame)?.nsp ?? "/",
            data: { [REFUSED_FRAME]: "PAYLOAD_TOO_LARGE" },
          };
          this.emitReserved("decoded", refused);
          return;
        }
        return this.parseConnect(frame);
      }
      if (type === DISCONNECT && frame.length <= 64) return this.parse(frame);
      if (type !== EVENT) return this.close(`packet type ${type} is not accepted from clients`);

      // Spend the budgets before any work that grows with the frame.
      const withinBudget =
        this.budget.take() && addressFrames.take(this.address) && addressBytes.take(this.address, Math.max(1, frame.length));
      if (!withinBudget) {
        countRateLimited("frame");
        this.holdOff();
        return this.refuse(frame, "RATE_LIMITED");
      }
      if (frame.length > FRAME_LIMITS.maxFrameChars || nestingExceeds(frame, FRAME_LIMITS.maxDepth)) {
        return this.refuse(frame, "PAYLOAD_TOO_LARGE");
      }
      this.refusedInARow = 0;
      this.pausesInARow = 0;
      try {
        super.add(frame);
      } catch {
        // Malformed JSON, or a reserved event name ("connect", "error"…): answered, not a silent close.
        this.refuse(frame, "UNKNOWN_EVENT");
      }
    }

    /** Stop reading this connection for a while: what it keeps sending waits in its own buffers, not ours. */
    private holdOff(): void {
      const ws = this.conn?.transport?.socket;
      if (!ws?.pause || !ws.resume || ws.isPaused) return;
      // Still over budget after several pauses: this is a flood, not a burst.
      if (++this.pausesInARow > FRAME_LIMITS.pausesBeforeClose) this.close("kept flooding past its budget");
      ws.pause();
      stats.paused += 1;
      const at = resumeAt(this.address);
      setTimeout(() => {
        // The address's last scheduled resume forgets the address (bounded memory under many addresses).
        if ((nextResume.get(this.address) ?? 0) <= at + ADDRESS_BUDGETS.resumeSpacingMs) nextResume.delete(this.address);
        ws.resume!();
      }, at - Date.now()).unref();
    }

    /** A handshake that is not even an object gets a named refusal too (never a silent close). */
    private parseConnect(frame: string): void {
      try {
        super.add(frame);
      } catch {
        const refused: Packet = { type: PacketType.CONNECT, nsp: frameHeader(frame)?.nsp ?? "/", data: { [REFUSED_FRAME]: "BAD_REQUEST" } };
        this.emitReserved("decoded", refused);
      }
    }

    private parse(frame: string): void {
      try {
        super.add(frame);
      } catch (err) {
        this.close(errorMessage(err));
      }
    }

    /** Answers the frame's acknowledgement (if it asked for one) with the code; never parses its body. */
    private refuse(frame: string, code: ErrorCode): void {
      stats.refused += 1;
      if (++this.refusedInARow > FRAME_LIMITS.refusalsBeforeClose) return this.close("kept sending after refusals");
      const header = frameHeader(frame);
      if (!header || header.id === undefined) return;
      const packet: Packet = { type: PacketType.EVENT, nsp: header.nsp, id: header.id, data: [REFUSED_FRAME, code] };
      // socket.io routes it like any event: to the socket's middleware, which replies with the code.
      this.emitReserved("decoded", packet);
    }

    private close(reason: string): never {
      stats.closed += 1;
      countAbusiveClose();
      // An address whose connections keep being closed for abuse is quarantined for a while (see `blocked`).
      abuse.take(this.address);
      // Cut the connection now. socket.io closes it when its parser throws, but gracefully: the WebSocket then
      // waits up to 30 s for the client's close frame and reads (and unmasks) everything a flooder sends meanwhile.
      // 300 such connections from one address kept the server reading gigabytes and froze every room for seconds.
      this.conn?.transport?.socket?.terminate?.();
      throw new Error(reason);
    }
  }

  return {
    parser: { Encoder: JsonEncoder, Decoder: GuardedDecoder },
    /** Call once with io.engine, before socket.io's own listener runs. */
    watch(engine: { prependListener(event: "connection", fn: (conn: EngineConnection) => void): unknown }): void {
      engine.prependListener("connection", (conn) => {
        connecting = conn;
      });
    },
    stats,
    /**
     * Whether an address had too many connections closed for abuse lately:
     * until it calms down, only joins with a credential get in from it (the
     * socket layer's `quarantined`; a class behind one NAT address shares it).
     */
    blocked: (address: string): boolean => !abuse.peek(address),
  };
}

/**
 * socket.io's Encoder without its search for binary attachments. This
 * protocol sends none (every payload is JSON the server built; the guard
 * refuses binary frames inbound), and the search walked every object of every
 * message before it was encoded: four times a join, the whole projections
 * included, and once per vote's acknowledgement. The text is socket.io's own
 * (`encodeAsString`): type, namespace other than "/", acknowledgement id, JSON.
 */
export class JsonEncoder extends Encoder {
  override encode(packet: Packet): string[] {
    let text = String(packet.type);
    if (packet.nsp && packet.nsp !== "/") text += `${packet.nsp},`;
    if (packet.id !== undefined && packet.id !== null) text += String(packet.id);
    if (packet.data !== undefined && packet.data !== null) text += JSON.stringify(packet.data);
    return [text];
  }
}

/** The namespace and acknowledgement id of an EVENT frame (`2/nsp,17[...]`), read from its first characters only. */
export function frameHeader(frame: string): { nsp: string; id?: number } | null {
  let i = 1;
  let nsp = "/";
  if (frame.charAt(i) === "/") {
    const comma = frame.indexOf(",", i);
    if (comma === -1 || comma > 128) return null;
    nsp = frame.slice(i, comma);
    i = comma + 1;
  }
  let digits = "";
  while (i < frame.length && digits.length < 16) {
    const c = frame.charCodeAt(i);
    if (c < 48 || c > 57) break;
    digits += frame[i];
    i += 1;
  }
  return { nsp, id: digits ? Number(digits) : undefined };
}

/**
 * Whether JSON text nests deeper than `max` arrays/objects, by counting
 * brackets outside strings: one pass, no allocation, no recursion.
 */
export function nestingExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i += 1;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) {
      inString = true;
    } else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > max) return true;
    } else if (c === 93 /* ] */ || c === 125 /* } */) {
      depth -= 1;
    }
  }
  return false;
}
