/** What is needed of a TCP socket: Node's Writable cork/uncork. */
interface Corkable {
  cork(): void;
  uncork(): void;
}

/** engine.io's server events this needs (io.engine): a connection's queue handed to its transport, and the hand-over done. */
export interface FlushEvents {
  on(event: "flush", listener: (conn: object, packets: unknown) => void): unknown;
  on(event: "drain", listener: () => void): unknown;
  off(event: "flush", listener: (conn: object, packets: unknown) => void): unknown;
  off(event: "drain", listener: () => void): unknown;
}

/** The TCP socket under an engine.io connection's WebSocket (engine.io's transport → ws → net.Socket), if it has one. */
function tcpOf(conn: object): Corkable | null {
  const transport: unknown = Reflect.get(conn, "transport");
  const ws: unknown = typeof transport === "object" && transport !== null ? Reflect.get(transport, "socket") : undefined;
  const tcp: unknown = typeof ws === "object" && ws !== null ? Reflect.get(ws, "_socket") : undefined;
  return isCorkable(tcp) ? tcp : null;
}

function isCorkable(value: unknown): value is Corkable {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof Reflect.get(value, "cork") === "function" &&
    typeof Reflect.get(value, "uncork") === "function"
  );
}

/**
 * Packets that queued for one connection leave in one system call. engine.io
 * hands a connection's queue to its WebSocket a frame at a time, and ws writes
 * each frame on its own, so a joining student's welcome and first patches
 * (queued behind socket.io's CONNECT) cost three writes where bare socket.io's
 * one patch costs one, and on loopback a write is most of a frame's cost: the
 * kernel delivers it to the reader then and there. The TCP socket is corked
 * for the hand-over (engine.io announces it with "flush" and ends it with
 * "drain", in one synchronous call) and uncorked at once after, so the frames
 * go out together, in the same order, and nothing waits for a timer. A single
 * packet (every broadcast) is left alone.
 */
export function flushTogether(engine: FlushEvents): () => void {
  let corked: Corkable | null = null;
  const release = () => {
    const tcp = corked;
    corked = null;
    tcp?.uncork();
  };
  const onFlush = (conn: object, packets: unknown) => {
    // A hand-over that threw before its "drain" leaves nothing corked past the next one.
    release();
    if (!Array.isArray(packets) || packets.length < 2) return;
    const tcp = tcpOf(conn);
    if (!tcp) return;
    tcp.cork();
    corked = tcp;
    // …nor past this turn, whatever happens to the hand-over.
    process.nextTick(releaseIf, tcp);
  };
  const releaseIf = (tcp: Corkable) => {
    if (corked === tcp) release();
  };
  engine.on("flush", onFlush);
  engine.on("drain", release);
  return () => {
    engine.off("flush", onFlush);
    engine.off("drain", release);
    release();
  };
}
