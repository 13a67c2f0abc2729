import { SLOW_READER_MAX_BUFFERED_BYTES, SLOW_READER_SWEEP_MS } from "../../lib/constants";
import { isRecord } from "../../lib/guards";
import { log } from "../logger";
import type { IoServer } from "./fanout";

type IoSocket = ReturnType<IoServer["of"]>["sockets"] extends Map<string, infer S> ? S : never;

/** Bytes waiting to be sent on an engine.io connection: its own queue and its WebSocket's. */
export function bufferedBytes(conn: object): number {
  // engine.io queues packets while its transport waits for the previous write to reach the kernel
  // (`writeBuffer`, private), and ws holds what the TCP socket has not taken (`bufferedAmount`).
  const transport: unknown = Reflect.get(conn, "transport");
  const queue: unknown = Reflect.get(conn, "writeBuffer");
  // The usual case, checked first (the sweep visits every socket each second): the transport has taken
  // everything engine.io gave it (it is writable again once ws has handed the last write to the kernel).
  if (isRecord(transport) && transport.writable === true && Array.isArray(queue) && queue.length === 0) return 0;
  const ws = isRecord(transport) ? transport.socket : undefined;
  const inWs = isRecord(ws) && typeof ws.bufferedAmount === "number" ? ws.bufferedAmount : 0;
  let queued = 0;
  if (Array.isArray(queue)) {
    for (const packet of queue) {
      const data: unknown = isRecord(packet) ? packet.data : undefined;
      queued += typeof data === "string" ? data.length : 64;
    }
  }
  return inWs + queued;
}

/** The sweep below checks this share of the sockets at a time (so at 10,000 sockets it never stops the loop for 25 ms). */
const SLOW_READER_SWEEP_PARTS = 8;

/**
 * Closes sockets that do not read what they are sent (a phone that went away
 * without a FIN is caught by the heartbeat; a script that simply stops reading
 * is caught here): their queued messages would otherwise grow without bound.
 * The client reconnects and resyncs with one fresh snapshot.
 *
 * Every socket is checked about once per SLOW_READER_SWEEP_MS, an eighth of
 * them at a time: checked all at once, a class of 10,000 just sent a snapshot
 * (every socket with a write in flight) held the loop for about 25 ms each
 * second, and a teacher's command arriving then waited for it.
 */
export function startSlowReaderSweep(io: IoServer): () => void {
  let pass: Iterator<IoSocket> | null = null;
  const timer = setInterval(() => {
    const sockets = io.of("/").sockets;
    // A Map's iterator carries on across sockets added and removed since it started.
    pass ??= sockets.values();
    let closed = 0;
    for (let budget = Math.ceil(sockets.size / SLOW_READER_SWEEP_PARTS); budget > 0; budget--) {
      const next = pass.next();
      if (next.done) {
        pass = null;
        break;
      }
      if (bufferedBytes(next.value.conn) > SLOW_READER_MAX_BUFFERED_BYTES) {
        next.value.conn.close();
        closed += 1;
      }
    }
    if (closed > 0) log.warn("closed sockets that stopped reading", { count: closed });
  }, SLOW_READER_SWEEP_MS / SLOW_READER_SWEEP_PARTS);
  timer.unref();
  return () => clearInterval(timer);
}
