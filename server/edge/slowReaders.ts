import { SLOW_READER_MAX_BUFFERED_BYTES, SLOW_READER_SWEEP_MS } from "../../lib/constants";
import { isRecord } from "../../lib/guards";
import { log } from "../logger";
import type { IoServer } from "./fanout";

/** Bytes waiting to be sent on an engine.io connection: its own queue and its WebSocket's. */
export function bufferedBytes(conn: object): number {
  // engine.io queues packets while its transport waits for the previous write to reach the kernel
  // (`writeBuffer`, private), and ws holds what the TCP socket has not taken (`bufferedAmount`).
  const transport: unknown = Reflect.get(conn, "transport");
  const queue: unknown = Reflect.get(conn, "writeBuffer");
  if (writesDone(transport, queue)) return 0;
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

/**
 * The usual case, checked first: the transport has taken everything engine.io gave it (it is writable again once
 * ws has handed the last write to the kernel) and nothing waits behind it.
 */
function writesDone(transport: unknown, queue: unknown): boolean {
  return isRecord(transport) && transport.writable === true && Array.isArray(queue) && queue.length === 0;
}

/** Sweeps per SLOW_READER_SWEEP_MS: a connection over the limit is closed within about that long once it stalls. */
const SLOW_READER_SWEEP_PARTS = 8;

/** What the sweep needs of an engine.io connection. */
interface EngineConn {
  readyState?: string;
  close(): void;
}

/**
 * Closes sockets that do not read what they are sent (a phone that went away
 * without a FIN is caught by the heartbeat; a script that simply stops reading
 * is caught here): their queued messages would otherwise grow without bound.
 * The client reconnects and resyncs with one fresh snapshot.
 *
 * Only connections that were written to are looked at. engine.io announces
 * every write it hands to its transport (the server's "flush" event); such a
 * connection is watched until a sweep finds its writes done, which a reader
 * that keeps up has within milliseconds. A connection whose reader stopped
 * never gets there (its write waits for the kernel, and everything sent after
 * it queues behind), so it stays watched until it is over the limit and
 * closed. Visiting every socket each second instead cost a school of 6,000
 * idle students 6,000 checks a second for nothing; now an idle class costs
 * one check per ping.
 *
 * A connection is measured (its queue walked) only once it has been writing
 * for a whole sweep interval, and then once per SLOW_READER_SWEEP_MS: right
 * after a step to 10,000 students most sockets still have that write in
 * flight, and measuring them all at once held the loop for about 25 ms.
 */
export function startSlowReaderSweep(io: IoServer): () => void {
  /** Connections written to since a sweep last found their writes done, with the sweeps that found them busy since. */
  const watched = new Map<EngineConn, number>();
  const onFlush = (conn: EngineConn) => {
    if (!watched.has(conn)) watched.set(conn, 0);
  };
  io.engine.on("flush", onFlush);
  const timer = setInterval(() => {
    let closed = 0;
    for (const [conn, busySweeps] of watched) {
      if (conn.readyState === "closed" || writesDone(Reflect.get(conn, "transport"), Reflect.get(conn, "writeBuffer"))) {
        watched.delete(conn);
        continue;
      }
      watched.set(conn, busySweeps + 1);
      if (busySweeps % SLOW_READER_SWEEP_PARTS !== 1) continue;
      if (bufferedBytes(conn) > SLOW_READER_MAX_BUFFERED_BYTES) {
        watched.delete(conn);
        conn.close();
        closed += 1;
      }
    }
    if (closed > 0) log.warn("closed sockets that stopped reading", { count: closed });
  }, SLOW_READER_SWEEP_MS / SLOW_READER_SWEEP_PARTS);
  timer.unref();
  return () => {
    clearInterval(timer);
    io.engine.off("flush", onFlush);
    watched.clear();
  };
}
