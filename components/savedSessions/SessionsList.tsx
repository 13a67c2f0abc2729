"use client";

import { useCallback, useEffect, useState, type FormEvent } from "react";
import { ADMIN_TOKEN_KEY, allHostKeys, hostKeyHeaders } from "@/components/live/hostKeyStore";
import {
  MAX_HOST_KEYS_PER_REQUEST,
  readApi,
  type RetentionPolicy,
  type SessionDetail,
  type SessionList,
  type ShareLink,
} from "@/lib/protocol/rest";
import { RetentionNote } from "./RetentionNote";

/** A row of the list: what the API says about one session. */
type SessionRow = SessionDetail;

function duration(ms: number): string {
  const m = Math.round(ms / 60000);
  return m < 1 ? "under a minute" : m < 60 ? `${m} min` : `${Math.floor(m / 60)} h ${m % 60} min`;
}

/** Downloads an export with this browser's keys in headers (a plain link could not carry them). */
async function download(id: string, query: string) {
  const res = await fetch(`/api/sessions/${id}/export?${query}`, { headers: hostKeyHeaders() });
  if (!res.ok) {
    const reply = await readApi<never>(res);
    throw new Error((!reply.ok && reply.message) || "Export failed.");
  }
  const blob = await res.blob();
  const name = /filename="([^"]+)"/.exec(res.headers.get("content-disposition") ?? "")?.[1] ?? "export";
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  a.click();
  URL.revokeObjectURL(url);
}

/** Starts (POST) or stops (DELETE) sharing a replay; sharing answers with the link's path. */
async function setSharing(id: string, share: boolean): Promise<string | null> {
  const res = await fetch(`/api/sessions/${id}/share`, {
    method: share ? "POST" : "DELETE",
    headers: { ...hostKeyHeaders(), "Content-Type": "application/json" },
  });
  const reply = await readApi<ShareLink>(res);
  if (!reply.ok) throw new Error(reply.message || "Could not change sharing.");
  return share ? `${window.location.origin}${reply.body.replayPath}` : null;
}

/** The link to hand out, with a copy button; the key lives in the fragment, so it never reaches a server log. */
function ShareLink({ url }: { url: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <span className="mt-1 flex flex-wrap items-center gap-2">
      <label className="sr-only" htmlFor={`share-${url}`}>
        Shared replay link
      </label>
      <input
        id={`share-${url}`}
        readOnly
        value={url}
        data-testid="share-link"
        onFocus={(e) => e.currentTarget.select()}
        className="w-64 rounded border border-slate-600 bg-slate-950 px-2 py-1 font-mono text-xs"
      />
      <button
        type="button"
        className="text-sky-300 underline"
        onClick={() =>
          navigator.clipboard
            ?.writeText(url)
            .then(() => setCopied(true))
            .catch(() => setCopied(false))
        }
      >
        {copied ? "Copied" : "Copy"}
      </button>
    </span>
  );
}

/** The sessions this browser hosted, or every session for an admin. */
export function SessionsList() {
  const [rows, setRows] = useState<SessionRow[] | null>(null);
  const [scope, setScope] = useState<"host" | "admin">("host");
  const [error, setError] = useState<string | null>(null);
  const [token, setToken] = useState("");
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

  function useAdmin(e: FormEvent) {
    e.preventDefault();
    try {
      if (token.trim()) sessionStorage.setItem(ADMIN_TOKEN_KEY, token.trim());
      else sessionStorage.removeItem(ADMIN_TOKEN_KEY);
    } catch {
      // no session storage
    }
    load();
  }

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
          This browser started {heldKeys} sessions; the list shows the {MAX_HOST_KEYS_PER_REQUEST} most recent. The admin token shows all of
          them.
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
                    <button
                      type="button"
                      className="text-sky-300 underline"
                      onClick={() => download(s.id, "format=json").catch((e: Error) => setError(e.message))}
                    >
                      JSON
                    </button>
                    <button
                      type="button"
                      className="text-sky-300 underline"
                      onClick={() => download(s.id, "format=csv").catch((e: Error) => setError(e.message))}
                    >
                      Poll CSV
                    </button>
                    <button
                      type="button"
                      className="text-sky-300 underline"
                      data-testid="questions-csv"
                      onClick={() => download(s.id, "format=csv&sheet=questions").catch((e: Error) => setError(e.message))}
                    >
                      Questions CSV
                    </button>
                    <button
                      type="button"
                      className="text-sky-300 underline"
                      onClick={() => download(s.id, "format=csv&sheet=students").catch((e: Error) => setError(e.message))}
                    >
                      Student CSV
                    </button>
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
      <form onSubmit={useAdmin} className="max-w-md space-y-2 rounded-xl border border-slate-700 p-4">
        <label htmlFor="admin-token" className="block font-semibold">
          Admin token <span className="font-normal text-slate-400">(shows every session; kept for this tab only)</span>
        </label>
        <input
          id="admin-token"
          type="password"
          value={token}
          onChange={(e) => setToken(e.target.value)}
          autoComplete="off"
          className="w-full rounded-lg border border-slate-600 bg-slate-950 px-3 py-2"
        />
        <button type="submit" className="rounded-lg border border-slate-500 px-4 py-2 font-semibold">
          Show sessions
        </button>
      </form>
    </div>
  );
}
