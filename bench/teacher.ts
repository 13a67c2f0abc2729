import { io, type ManagerOptions, type Socket, type SocketOptions } from "socket.io-client";
import { PROTOCOL_VERSION, type Patch } from "../lib/protocol";
import { Replica, snapshotOf } from "../lib/protocol/replica";
import type { RunningServer } from "./servers";
import { withTimeout } from "./wait";

/**
 * The teacher: one socket in the driver's own process, so the driver times its
 * commands from where they are sent. On the product it keeps the teacher's
 * records (the host stream of `session:patch`) in a Replica, as the console
 * does, and asks for them whole (`session:sync`) on a gap; the bare server
 * sends its teacher nothing.
 */

export type Snap = { stepIndex?: number; poll?: { id: string; options?: { id: string }[] } | null };

export interface Teacher {
  socket: Socket;
  /** the product: a room code; the bare server: "" */
  code: string;
  /** the session record of the teacher's records (the product only) */
  latestSnapshot: Snap | null;
  /** sends a command and resolves with its ack (bounded) */
  command(event: string, payload: unknown): Promise<{ ok?: boolean; data?: unknown; error?: { code: string } }>;
}

export async function connectTeacher(server: RunningServer): Promise<Teacher> {
  let code = "";
  let auth: Record<string, unknown> = { role: "host" };
  if (server.kind !== "bare") {
    const res = await fetch(`${server.url}/api/sessions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ title: "Benchmark" }),
    });
    if (res.status !== 201) throw new Error(`POST /api/sessions: ${res.status} ${await res.text()}`);
    const session = (await res.json()) as { code: string; hostKey: string };
    code = session.code;
    auth = { v: PROTOCOL_VERSION, role: "host", code, hostKey: session.hostKey };
  }
  const socket = io(server.url, {
    transports: ["websocket"],
    reconnection: false,
    forceNew: true,
    auth,
    localAddress: "127.0.0.1",
  } as Partial<ManagerOptions & SocketOptions>);
  const teacher: Teacher = {
    socket,
    code,
    latestSnapshot: null,
    // Never rejects (a late ack must not become an unhandled rejection while the driver waits elsewhere).
    command: (event, payload) =>
      socket
        .timeout(30_000)
        .emitWithAck(event, payload)
        .catch((err: Error) => ({ ok: false, error: { code: `no ack: ${err.message}` } })),
  };
  const replica = new Replica();
  socket.on("session:patch", (patch: Patch) => {
    if (replica.apply(patch) === "gap") socket.emit("session:sync", {}, () => undefined);
    else teacher.latestSnapshot = snapshotOf(replica);
  });
  await withTimeout(
    new Promise<void>((resolve, reject) => {
      socket.once("connect", () => resolve());
      socket.once("connect_error", (err) => reject(err));
    }),
    10_000,
    "teacher connect",
  );
  return teacher;
}
