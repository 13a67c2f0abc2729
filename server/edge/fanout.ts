import type { Server, Socket } from "socket.io";
import type { ClientToServerEvents, InterServerEvents, Role, ServerToClientEvents, SocketData } from "../../lib/protocol";
import type { RoomOutbox } from "../rooms/roomSync";
import type { PresenceFigure } from "../rooms/registry";

/**
 * Where a session's messages go: the socket.io rooms of its audiences (the
 * class, the teacher's sockets, each participant's tabs, the projectors) and
 * the paced fan-out that sends a vote burst's tallies to a large class a
 * slice at a time. The room logic sees only the RoomOutbox this builds.
 */

export type IoServer = Server<ClientToServerEvents, ServerToClientEvents, InterServerEvents, SocketData>;
type IoSocket = Socket<ClientToServerEvents, ServerToClientEvents, InterServerEvents, SocketData>;

const publicRoom = (sessionId: string) => `pub:${sessionId}`;
const hostRoom = (sessionId: string) => `host:${sessionId}`;
const participantRoom = (sessionId: string, participantId: string) => `p:${sessionId}:${participantId}`;
const projectorRoom = (sessionId: string) => `proj:${sessionId}`;
/** Every student and projector socket is also in one of FANOUT_SLICES slices of its session's class. */
const sliceRoom = (sessionId: string, slice: number) => `pub:${sessionId}#${slice}`;

/** A class with at least this many sockets on this node hears its messages a slice at a time. */
export const PACED_FANOUT_MIN = 1_000;
/**
 * Slices of a class; sockets are dealt to them in turn as they connect. At
 * 10,000 sockets a slice takes about 9 ms to send: a vote, or the teacher's
 * close, read while a tick is on its way waits at most that long (with 8
 * slices, 35 ms: the closed poll reached the first student 49 ms after the
 * close, against 3 ms for bare socket.io; with 32, 20 ms).
 */
export const FANOUT_SLICES = 32;
let nextSlice = 0;

/**
 * A vote burst's tallies reach a large class a slice at a time. Sending one
 * message to 10,000 sockets takes about 290 ms on a 2-core machine; done at
 * once, every vote that arrives meanwhile waits, and at 10,000 votes a second
 * the server never caught up (each vote's ack took 0.6 s). So a count (with
 * results hidden, only how many voted) goes to one slice
 * of the class per turn of the event loop, and the votes read in between are
 * answered between slices. A newer tick takes over the slices the older one
 * has not reached (the older one is stale there: the count is a volatile
 * record), and any other patch for the class (a step, the closed poll)
 * replaces a tick still on its way. Everything else, and
 * every message to a class under PACED_FANOUT_MIN, goes in one emit.
 */
function pacedTicks(io: IoServer, sessionId: string, pacedFrom: number) {
  let send: ((room: string) => void) | null = null;
  let slice = 0;
  let left = 0;
  let scheduled = false;
  const pump = () => {
    scheduled = false;
    if (!send) return;
    send(sliceRoom(sessionId, slice));
    slice = (slice + 1) % FANOUT_SLICES;
    if (--left === 0) send = null;
    else {
      scheduled = true;
      setImmediate(pump);
    }
  };
  return {
    tick(next: (room: string) => void): void {
      if ((io.of("/").adapter.rooms.get(publicRoom(sessionId))?.size ?? 0) < pacedFrom) {
        send = null;
        return next(publicRoom(sessionId));
      }
      send = next;
      left = FANOUT_SLICES;
      if (!scheduled) pump();
    },
    /** A newer patch is going to the whole class. */
    cancel(): void {
      send = null;
    },
  };
}

/** The socket.io side of a room's outbox: one emit per audience, encoded once by socket.io. */
export function socketOutbox(io: IoServer, sessionId: string, pacedFrom = PACED_FANOUT_MIN): RoomOutbox {
  const ticks = pacedTicks(io, sessionId, pacedFrom);
  return {
    toClass: (patch) => {
      // A newer count (or a session that carries one) makes what is left of a count on its way stale; a question batch does not.
      if (patch.whole || patch.put?.tally || patch.put?.session || patch.del?.includes("tally")) ticks.cancel();
      io.to(publicRoom(sessionId)).emit("session:patch", patch);
    },
    toProjectors: (patch) => io.to(projectorRoom(sessionId)).emit("session:patch", patch),
    toHosts: (patch) => io.to(hostRoom(sessionId)).emit("session:patch", patch),
    tallySuperseded: () => ticks.cancel(),
    tally: (forHosts, forClass) => {
      io.to(hostRoom(sessionId)).emit("session:patch", forHosts);
      ticks.tick((room) => io.to(room).emit("session:patch", forClass));
    },
    toParticipant: (participantId, patch, except) => {
      const room = io.to(participantRoom(sessionId, participantId));
      (except ? room.except(except) : room).emit("session:patch", patch);
    },
    kickProjectors: (error) => {
      io.to(projectorRoom(sessionId)).emit("session:kicked", error);
      io.in(projectorRoom(sessionId)).disconnectSockets();
    },
    kick: (participantId, error) => {
      const room = participantRoom(sessionId, participantId);
      io.to(room).emit("session:kicked", error);
      // A disconnect packet follows the kick message on the same connection, so it arrives first.
      io.in(room).disconnectSockets();
    },
  };
}

/** Puts a joined socket in its audience's rooms: the teacher's, or the class (and one slice of it) and its own. */
export function joinAudience(socket: IoSocket, sessionId: string, role: Role, participantId: string | null): void {
  if (role === "host") {
    void socket.join(hostRoom(sessionId));
    return;
  }
  // One join, one set of rooms handed to the adapter.
  void socket.join([
    publicRoom(sessionId),
    sliceRoom(sessionId, nextSlice++ % FANOUT_SLICES),
    participantId ? participantRoom(sessionId, participantId) : projectorRoom(sessionId),
  ]);
}

/**
 * Students (by participant id, one entry per socket) and watchers (teacher,
 * projector) connected to a session through this process. In a cluster each
 * node reports its own and the owner adds them up (server/scaleout/presenceBoard.ts):
 * asking every node at once would wait on the slowest, or on a frozen one.
 */
export function localPresence(io: IoServer, sessionId: string): PresenceFigure {
  const nsp = io.of("/");
  const participants: string[] = [];
  const lookingBack: string[] = [];
  let projectors = 0;
  for (const id of nsp.adapter.rooms.get(publicRoom(sessionId)) ?? []) {
    const data = nsp.sockets.get(id)?.data;
    const participantId = data?.participantId;
    if (participantId) {
      participants.push(participantId);
      if (data.lookingBack) lookingBack.push(participantId);
    } else if (participantId === null) projectors += 1;
  }
  const hosts = nsp.adapter.rooms.get(hostRoom(sessionId))?.size ?? 0;
  return { participants, lookingBack, watchers: hosts + projectors, projectors };
}

/** Closes every socket of a session (all nodes, with an adapter) so clients reconnect to its durable state. */
export function disconnectSession(io: Pick<IoServer, "in">, sessionId: string): void {
  io.in([publicRoom(sessionId), hostRoom(sessionId)]).disconnectSockets();
}
