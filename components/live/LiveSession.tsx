"use client";

import { createContext, useContext, useEffect, useState, type ReactNode } from "react";
import { io, type Socket } from "socket.io-client";
import { useStore } from "zustand";
import {
  ERROR_CODES,
  PROTOCOL_VERSION,
  protocolError,
  type Ack,
  type AckData,
  type ClientToServerEvents,
  type ErrorCode,
  type ProtocolError,
  type Role,
  type ServerToClientEvents,
} from "@/lib/protocol/wire";
import { COMMAND_ACK_TIMEOUT_MS, RECONNECT_DELAY_MAX_MS, RECONNECT_DELAY_MS, REFUSAL_RETRY_MS } from "@/lib/constants";
import { createLiveStore, type LiveState, type LiveStore } from "./store";
import { asMyVote } from "@/lib/protocol/replica";
import { hostKeyKey, studentTokenKey } from "./storageKeys";
import type { HostSnapshot, PublicSnapshot } from "@/lib/session/views";

type ClientSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

/** Send a command and wait for its acknowledgement; a timeout or disconnect becomes an error ack. */
export type Send = <E extends keyof ClientToServerEvents>(
  event: E,
  payload: Parameters<ClientToServerEvents[E]>[0],
) => Promise<Ack<AckData<E>>>;

interface LiveContextValue {
  store: LiveStore;
  send: Send;
  role: Role;
  code: string;
}

const LiveContext = createContext<LiveContextValue | null>(null);

/** Refusals that a reconnect cannot fix. */
const FATAL: ReadonlySet<string> = new Set<ErrorCode>([
  "CLIENT_TOO_OLD",
  "NO_SUCH_SESSION",
  "SESSION_ENDED",
  "NOT_HOST",
  "ROOM_LOCKED",
  "REMOVED",
  "ROOM_FULL",
  "LOG_FULL",
  "BAD_REQUEST",
]);

export { hostKeyKey, studentTokenKey };

function readStorage(key: string): string | undefined {
  try {
    return localStorage.getItem(key) ?? undefined;
  } catch {
    return undefined;
  }
}

function writeStorage(key: string, value: string): void {
  try {
    localStorage.setItem(key, value);
  } catch {
    // Private mode: identity lasts as long as the tab.
  }
}

export interface LiveSessionProps {
  role: Role;
  code: string;
  hostKey?: string;
  nickname?: string;
  children: ReactNode;
}

/**
 * One socket and one store per live session view. Socket handlers write to
 * the store outside React; components subscribe with `useLive(selector)`.
 */
export function LiveSessionProvider({ role, code, hostKey, nickname, children }: LiveSessionProps) {
  const [store] = useState(() => createLiveStore());
  const [socketHolder] = useState<{ socket: ClientSocket | null }>(() => ({ socket: null }));

  useEffect(() => {
    const { actions } = store.getState();
    const socket: ClientSocket = io({
      transports: ["websocket"],
      // A function, so a reconnect sends the token the server issued on the first join.
      auth: (cb) =>
        cb({
          v: PROTOCOL_VERSION,
          role,
          code,
          hostKey,
          token: role === "student" ? readStorage(studentTokenKey(code)) : undefined,
          // Only on the first join: a reconnect must not undo a rename by the teacher.
          nickname: role === "student" && !readStorage(studentTokenKey(code)) ? nickname : undefined,
        }),
      reconnectionDelay: RECONNECT_DELAY_MS,
      reconnectionDelayMax: RECONNECT_DELAY_MAX_MS,
    });
    // The holder is this provider's own mutable box (read by `send`), not React state.
    // eslint-disable-next-line react-hooks/immutability
    socketHolder.socket = socket;
    // A retry after a passing refusal; cleared on unmount so no ghost connection is opened.
    let retry: ReturnType<typeof setTimeout> | null = null;

    socket.on("connect", () => actions.setConnection("connected"));
    socket.on("disconnect", (reason) => {
      if (reason === "io server disconnect") {
        // The server closed us on purpose (removed, session ended); the kick message says why.
        if (!store.getState().fatal) actions.setConnection("reconnecting");
        if (!store.getState().fatal) socket.connect();
        return;
      }
      actions.setConnection("reconnecting");
    });
    socket.on("connect_error", (err: Error & { data?: ProtocolError }) => {
      const data = err.data;
      if (data && FATAL.has(data.code)) {
        actions.setFatal(data);
        socket.disconnect();
        return;
      }
      // Network trouble or a server restart: socket.io keeps retrying; if the
      // middleware refused us for a passing reason, retry by hand.
      actions.setConnection("reconnecting");
      if (data) {
        // Say why (a busy room, a network the server is wary of), not "can't reach the server": it answered.
        actions.error(data);
        retry = setTimeout(() => socket.connect(), REFUSAL_RETRY_MS);
      }
    });
    socket.on("session:welcome", (welcome) => {
      if (welcome.token) writeStorage(studentTokenKey(code), welcome.token);
      actions.welcome(welcome);
    });
    socket.on("session:kicked", (error) => actions.setFatal(error));
    socket.on("server:restarting", () => actions.setConnection("reconnecting"));
    // A gap (a patch lost across a reconnect, a room reloaded elsewhere): ask once for what changed since what this
    // tab holds. A busy network or class is told when to ask again (RESYNC_LIMITED); the follower waits that long.
    const follower = actions.follow((request, answered) =>
      socket.emit("session:sync", request, (ack: Ack<null>) =>
        answered(ack.ok ? { ok: true } : { ok: false, retryAfterMs: ack.error.retryAfterMs }),
      ),
    );
    socket.on("session:patch", (patch) => follower(patch));

    return () => {
      if (retry) clearTimeout(retry);
      socket.removeAllListeners();
      socket.disconnect();
      socketHolder.socket = null;
    };
  }, [store, socketHolder, role, code, hostKey, nickname]);

  const [send] = useState<Send>(() => {
    const sendCommand: Send = <E extends keyof ClientToServerEvents>(event: E, payload: Parameters<ClientToServerEvents[E]>[0]) =>
      new Promise<Ack<AckData<E>>>((resolve) => {
        const socket = socketHolder.socket;
        if (!socket || !socket.connected) {
          // Nothing was sent, so nothing was applied.
          resolve({ ok: false, error: protocolError("UNAVAILABLE", "Not connected. Wait for the connection to come back.") });
          return;
        }
        // socket.io's typed emit cannot follow a generic event name; the event map still types what comes back.
        // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion
        const emit = socket.emit.bind(socket) as (e: string, p: unknown, cb: (r: Ack<AckData<E>>) => void) => void;
        let late = false;
        // No answer in time: the command may still have been applied (it may be waiting on a server that froze),
        // so say so. What was applied reaches this tab as snapshots, and as the answer below if it comes later.
        const timer = setTimeout(() => {
          late = true;
          const result: Ack<AckData<E>> = {
            ok: false,
            error: protocolError("UNCONFIRMED", "The server did not answer in time. Your screen shows whether it was applied."),
          };
          store.getState().actions.error(result.error);
          resolve(result);
        }, COMMAND_ACK_TIMEOUT_MS);
        emit(event, payload, (response) => {
          if (late) {
            // Too late for whoever waited, not for the screen: a vote that counted is this student's vote (the
            // server does not echo a vote to the tab that sent it; its answer is the receipt).
            if (event === "poll:vote" && response.ok) store.getState().actions.myVote(asMyVote(response.data));
            return;
          }
          clearTimeout(timer);
          store.getState().actions.error(response.ok ? null : response.error);
          resolve(response);
        });
      });
    return sendCommand;
  });

  return <LiveContext.Provider value={{ store, send, role, code }}>{children}</LiveContext.Provider>;
}

function useLiveContext(): LiveContextValue {
  const ctx = useContext(LiveContext);
  if (!ctx) throw new Error("useLive must be used inside <LiveSessionProvider>");
  return ctx;
}

export function useLive<T>(selector: (state: LiveState) => T): T {
  return useStore(useLiveContext().store, selector);
}

/** The teacher's snapshot (the console renders once one has arrived: the session gate waits for it). */
export function useHostSnapshot(): HostSnapshot {
  const snapshot = useLive((s) => s.snapshot);
  if (snapshot?.audience !== "host") throw new Error("The console was given the class's view instead of the teacher's.");
  return snapshot;
}

/** The class's snapshot, for students and projectors. */
export function usePublicSnapshot(): PublicSnapshot {
  const snapshot = useLive((s) => s.snapshot);
  if (snapshot?.audience !== "public") throw new Error("This view was given a snapshot for another audience.");
  return snapshot;
}

export function useLiveActions() {
  return useLiveContext().store.getState().actions;
}

export function useSend(): Send {
  return useLiveContext().send;
}

export function useLiveMeta(): { role: Role; code: string } {
  const { role, code } = useLiveContext();
  return { role, code };
}

export function errorText(error: ProtocolError): string {
  return error.message || ERROR_CODES[error.code] || "Something went wrong.";
}
