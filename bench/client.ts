import { io, type ManagerOptions, type Socket, type SocketOptions } from "socket.io-client";

/**
 * A socket.io client as the bench's simulated students and teachers open one:
 * WebSocket only, no reconnection (a drop is counted, not hidden), a
 * connection of its own, from a given loopback source address (the server
 * limits connections per address).
 */
export function connectSocket(url: string, auth: Record<string, unknown>, localAddress: string, timeoutMs: number): Socket {
  return io(url, {
    transports: ["websocket"],
    reconnection: false,
    forceNew: true,
    timeout: timeoutMs,
    auth,
    // engine.io-client passes this through to ws (and so to net.connect) in Node.
    localAddress,
  } as Partial<ManagerOptions & SocketOptions>);
}
