"use client";

import Link from "next/link";
import type { ReactNode } from "react";
import { errorText, useLive, useLiveMeta } from "@/components/live/LiveSession";
import type { ProtocolError, Role } from "@/lib/protocol/wire";

/**
 * What a view shows before it has a snapshot, and when the server refused it
 * for good: never a spinner forever, never a half-working screen.
 */
export function SessionGate({ children }: { children: ReactNode }) {
  const fatal = useLive((s) => s.fatal);
  const hasSnapshot = useLive((s) => s.snapshot !== null);
  const connection = useLive((s) => s.connection);
  const refusal = useLive((s) => s.lastError);
  const { code, role } = useLiveMeta();

  if (fatal) return <ErrorScreen error={fatal} code={code} role={role} />;
  if (!hasSnapshot) {
    return (
      <main className="flex min-h-screen items-center justify-center px-5" aria-busy="true">
        <p
          className="text-xl text-slate-300"
          role="status"
          data-testid="connection-status"
          data-state={connection === "connected" ? "connected" : "reconnecting"}
        >
          {connection !== "reconnecting"
            ? `Joining ${code}…`
            : refusal
              ? `${errorText(refusal)} Retrying…`
              : "Can't reach the server. Retrying…"}
        </p>
      </main>
    );
  }
  return <>{children}</>;
}

/** A refusal that reconnecting will not fix, with the way forward. */
export function ErrorScreen({ error, code, role }: { error: ProtocolError; code: string; role?: Role }) {
  const outOfDate = error.code === "CLIENT_TOO_OLD";
  // The headline already says it has ended; saved sessions are the teacher's, and a student's list would be empty.
  const endedForClass = error.code === "SESSION_ENDED" && role !== "host";
  return (
    <main
      className="mx-auto flex min-h-screen max-w-xl flex-col justify-center gap-4 px-5"
      data-testid="session-error"
      data-code={error.code}
    >
      <h1 className="text-3xl font-bold">{outOfDate ? "This page is out of date" : headline(error.code)}</h1>
      <p className="text-lg text-slate-300" role="alert">
        {endedForClass
          ? "Thanks for taking part. Your teacher can share a replay of it."
          : error.code === "SESSION_ENDED"
            ? "It is saved: its replay and exports are on your saved sessions."
            : errorText(error)}
      </p>
      <div className="flex flex-wrap gap-3">
        {outOfDate ? (
          <button
            type="button"
            onClick={() => window.location.reload()}
            className="rounded-lg bg-sky-400 px-4 py-3 font-semibold text-slate-950"
          >
            Reload
          </button>
        ) : error.code === "REMOVED" ? (
          <button
            type="button"
            onClick={() => window.location.reload()}
            className="rounded-lg bg-sky-400 px-4 py-3 font-semibold text-slate-950"
          >
            Try again (if the teacher let you back in)
          </button>
        ) : endedForClass ? null : error.code === "SESSION_ENDED" ? (
          <Link href="/sessions" className="rounded-lg bg-sky-400 px-4 py-3 font-semibold text-slate-950">
            Saved sessions and replays
          </Link>
        ) : error.code === "NOT_HOST" ? (
          <Link href={`/join/${code}`} className="rounded-lg bg-emerald-400 px-4 py-3 font-semibold text-slate-950">
            Open the student view
          </Link>
        ) : (
          <Link href="/join" className="rounded-lg bg-sky-400 px-4 py-3 font-semibold text-slate-950">
            Enter another code
          </Link>
        )}
        <Link href="/" className="rounded-lg border border-slate-500 px-4 py-3 font-semibold">
          Home
        </Link>
      </div>
    </main>
  );
}

function headline(code: string): string {
  switch (code) {
    case "NO_SUCH_SESSION":
      return "No such session";
    case "SESSION_ENDED":
      return "This session has ended";
    case "NOT_HOST":
      return "This browser is not the host";
    case "ROOM_LOCKED":
      return "The room is locked";
    case "REMOVED":
      return "You were removed";
    default:
      return "Can't join this session";
  }
}
