"use client";

import { useCallback, useEffect, useState } from "react";
import { allHostKeys, hostKeyHeaders } from "@/components/live/hostKeyStore";
import { MAX_HOST_KEYS_PER_REQUEST, readApi, type RetentionPolicy, type SessionDetail, type SessionList } from "@/lib/protocol/rest";
import { RetentionNote } from "./RetentionNote";
import { ShareLink } from "./ShareLink";
import { EXPORTS, download, duration, setSharing } from "./sessionFiles";

/** A row of the list: what the API says about one session. */
type SessionRow = SessionDetail;

/**
 * The sessions this browser's keys open (a teacher who is not signed in).
 * Signed in, the account's list replaces it (./MySessions.tsx); the
 * administrator signs in to see every session (ADMIN_TOKEN is for scripts).
 */
export function SessionsList() {
  const [rows, setRows] = useState<SessionRow[] | null>(null);
  const [scope, setScope] = useState<"host" | "admin">("host");
  const [error, setError] = useState<string | null>(null);
  const [heldKeys, setHeldKeys] = useState(0);
  const [links, setLinks] = useState<Record<string, string>>({});
  const [retention, setRetention] = useState<RetentionPolicy | null>(null);

  const changeSharing = (row: SessionRow, share: boolean) =>
    setSharing(row.id, share)
      .then((url) => {
        setLinks((prev) => {
          const next = { ...prev };
          if (url) next[row.id] = url;
          else delete next[row.id];
          return next;
        });
        setRows((prev) => prev?.map((r) => (r.id === row.id ? { ...r, shared: share } : r)) ?? prev);
      })
      .catch((e: Error) => setError(e.message));

  const load = useCallback(() => {
    setError(null);
    setHeldKeys(allHostKeys().length);
    fetch("/api/sessions", { headers: hostKeyHeaders() })
      .then(async (res) => {
        const reply = await readApi<SessionList>(res);
        if (!reply.ok) throw new Error(reply.message || "Could not load sessions.");
        const body = reply.body;
        setRows(body.sessions);
        setScope(body.scope);
        setRetention(body.retention);
      })
      .catch((err: Error) => setError(err.message));
  }, []);

  useEffect(load, [load]);

  return (
    <div className="mt-4 space-y-6">
      <p className="text-slate-300">
        {scope === "admin"
          ? "Every session on this server (admin)."
          : "Sessions started in this browser. Share a replay to hand out its link: whoever has it sees the lesson and the results you revealed, never student names, individual votes or answers you did not reveal."}
      </p>
      {retention && <RetentionNote policy={retention} admin={scope === "admin"} />}
      {scope === "host" && heldKeys > MAX_HOST_KEYS_PER_REQUEST && (
        <p role="status" className="rounded-lg bg-slate-800 px-3 py-2" data-testid="sessions-truncated">
          This browser started {heldKeys} sessions; the list shows the {MAX_HOST_KEYS_PER_REQUEST} most recent. Sign in to find all of them
          in your account.
        </p>
      )}
      {error && (
        <p role="alert" className="rounded-lg bg-rose-950 px-3 py-2 text-rose-100">
          {error}
        </p>
      )}
      {rows === null && !error && <p role="status">Loading…</p>}
      {rows && rows.length === 0 && (
        <p data-testid="sessions-empty">No saved sessions {scope === "admin" ? "yet" : "from this browser yet"}.</p>
      )}
      {rows && rows.length > 0 && (
        <div className="overflow-x-auto" tabIndex={0} role="region" aria-label="Saved sessions table">
          <table className="w-full min-w-[760px] text-left" data-testid="sessions-table">
            <thead className="text-sm text-slate-400">
              <tr>
                <th scope="col" className="py-2">
                  Title
                </th>
                <th scope="col">Date</th>
                <th scope="col">Duration</th>
                <th scope="col">Peak students</th>
                <th scope="col">Polls</th>
                <th scope="col">Status</th>
                <th scope="col">Open</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((s) => (
                <tr key={s.id} className="border-t border-slate-800 align-top" data-testid="session-row" data-code={s.code}>
                  <td className="py-2 pr-3">
                    <span className="font-semibold">{s.title || "Untitled"}</span>
                    <span className="block font-mono text-sm text-slate-400">{s.code}</span>
                  </td>
                  <td className="pr-3">{new Date(s.createdAt).toLocaleString()}</td>
                  <td className="pr-3">{duration(s.durationMs)}</td>
                  <td className="pr-3">{s.peakParticipants}</td>
                  <td className="pr-3">{s.pollCount}</td>
                  <td className="pr-3">
                    {s.status === "live" ? (
                      <a className="text-emerald-300 underline" href={`/host/${s.code}`}>
                        live: open console
                      </a>
                    ) : (
                      "ended"
                    )}
                  </td>
                  <td className="space-x-3 whitespace-nowrap">
                    <a href={`/replay/${s.id}`} className="font-semibold text-sky-300 underline" data-testid="replay-link">
                      Replay
                    </a>
                    {EXPORTS.map((x) => (
                      <button
                        key={x.query}
                        type="button"
                        className="text-sky-300 underline"
                        data-testid={x.testId}
                        onClick={() => download(s.id, x.query).catch((e: Error) => setError(e.message))}
                      >
                        {x.label}
                      </button>
                    ))}
                    {scope === "host" && (
                      <button
                        type="button"
                        className="text-sky-300 underline"
                        data-testid="share-toggle"
                        onClick={() => void changeSharing(s, !links[s.id] || !s.shared)}
                      >
                        {links[s.id] ? "Stop sharing" : s.shared ? "Show share link" : "Share replay"}
                      </button>
                    )}
                    {links[s.id] && <ShareLink url={links[s.id]} />}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
