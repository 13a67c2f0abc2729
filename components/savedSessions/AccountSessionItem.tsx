"use client";

import { useState } from "react";
import type { AccountSession, ConsoleView, OpenedConsole } from "@/lib/account/ownership";
import { requestJson } from "@/components/account/api";
import { Coteachers } from "@/components/account/Coteachers";
import { forgetHostKey, saveHostKey } from "@/components/live/hostKeyStore";
import { ShareLink } from "./ShareLink";
import { EXPORTS, download, duration, setSharing } from "./sessionFiles";

const link = "text-sky-300 underline";
const button = "rounded-lg border border-slate-500 px-3 py-1.5 font-semibold hover:bg-slate-800";

function standing(s: AccountSession): string {
  if (s.relation === "owner") return "Yours";
  if (s.relation === "coteacher") return `Co-taught with ${s.owner ?? "its owner"}`;
  return s.owner ? `${s.owner}'s` : "Owned by no account (started by a browser's key)";
}

function consoleLabel(c: ConsoleView): string {
  const who = c.openedBy === null ? "The browser that started the session" : `Opened by ${c.openedBy}`;
  return `${who}, ${new Date(c.createdAt).toLocaleString()}${c.here ? " (this browser)" : ""}`;
}

/**
 * One session of a signed-in list: what it was, and what this account may do
 * with it. The owner and co-teachers open its replay and exports from any
 * browser, share it, and while it is live open a console here (a key of its
 * own, beside the other consoles); the owner also revokes consoles, invites
 * co-teachers, ends and deletes it; the administrator ends and deletes.
 */
export function AccountSessionItem({
  session: s,
  say,
  reload,
}: {
  session: AccountSession;
  /** Tells the list's live region what happened (or went wrong). */
  say: (message: string, failed?: boolean) => void;
  reload: () => void;
}) {
  const [shareUrl, setShareUrl] = useState<string | null>(null);
  const [shared, setShared] = useState(s.shared);
  const [busy, setBusy] = useState(false);
  const teaches = s.relation === "owner" || s.relation === "coteacher";
  const manages = s.relation === "owner" || s.relation === "admin";
  const consoleHere = s.consoles.some((c) => c.here);
  const fail = (err: unknown) => say(err instanceof Error ? err.message : "That did not work.", true);

  async function openConsole() {
    setBusy(true);
    try {
      const opened = await requestJson<OpenedConsole>(`/api/sessions/${s.id}/consoles`, { method: "POST", body: {} });
      saveHostKey(opened.code, opened.hostKey, s.createdAt);
      // A full navigation: the key travels in the fragment, never to the server.
      window.location.assign(opened.hostPath);
    } catch (err) {
      fail(err);
      setBusy(false);
    }
  }

  async function revoke(c: ConsoleView) {
    try {
      await requestJson(`/api/sessions/${s.id}/consoles/${c.id}`, { method: "DELETE" });
      if (c.here) forgetHostKey(s.code);
      say(c.here ? "This browser's console is revoked." : "That console is revoked: its browser can no longer drive the class.");
      reload();
    } catch (err) {
      fail(err);
    }
  }

  async function changeSharing(share: boolean) {
    try {
      const url = await setSharing(s.id, share);
      setShareUrl(url);
      setShared(share);
      say(share ? "The replay link is ready to copy." : "Sharing stopped: the link no longer opens the replay.");
    } catch (err) {
      fail(err);
    }
  }

  async function end() {
    if (!window.confirm(`End "${s.title || "Untitled"}" for the whole class?`)) return;
    try {
      await requestJson(`/api/sessions/${s.id}/end`, { method: "POST", body: {} });
      say("The session has ended.");
      reload();
    } catch (err) {
      fail(err);
    }
  }

  async function remove() {
    if (!window.confirm(`Delete "${s.title || "Untitled"}" with its log, replay and exports? This cannot be undone.`)) return;
    try {
      await requestJson(`/api/account/sessions/${s.id}`, { method: "DELETE" });
      say("The session is deleted.");
      reload();
    } catch (err) {
      fail(err);
    }
  }

  const headingId = `session-${s.id}`;
  return (
    <li
      data-session-id={s.id}
      data-status={s.status}
      data-relation={s.relation}
      data-code={s.code}
      aria-labelledby={headingId}
      className="rounded-xl border border-slate-700 bg-slate-900/70 p-4"
    >
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h3 id={headingId} className="text-lg font-semibold [overflow-wrap:anywhere]">
          {s.title || "Untitled"} <span className="font-mono text-sm font-normal text-slate-300">{s.code}</span>
        </h3>
        <p className={s.status === "live" ? "font-semibold text-emerald-300" : "text-slate-300"}>
          {s.status === "live" ? "Live" : "Ended"}
        </p>
      </div>
      <p className="text-sm text-slate-300">
        {standing(s)} · {new Date(s.createdAt).toLocaleString()} · {duration(s.durationMs)} · {s.peakParticipants} students at most ·{" "}
        {s.pollCount} polls
      </p>
      <div className="mt-2 flex flex-wrap items-center gap-x-4 gap-y-2">
        {s.status === "live" &&
          teaches &&
          (consoleHere ? (
            <a
              href={`/host/${s.code}`}
              data-testid="open-console"
              className="rounded-lg bg-emerald-400 px-3 py-1.5 font-semibold text-slate-950"
            >
              Open the console
            </a>
          ) : (
            <button
              type="button"
              data-testid="open-console"
              disabled={busy}
              onClick={() => void openConsole()}
              className="rounded-lg bg-emerald-400 px-3 py-1.5 font-semibold text-slate-950 disabled:opacity-60"
            >
              Open the console in this browser
            </button>
          ))}
        <a href={`/replay/${s.id}`} className={`font-semibold ${link}`} data-testid="replay-link">
          Replay
        </a>
        {s.status === "ended" && s.pollCount > 0 && s.relation !== "admin" && (
          <a href={`/assignments?session=${encodeURIComponent(s.id)}`} className={link} data-testid="session-assign">
            Assign its polls as homework
          </a>
        )}
        {EXPORTS.map((x) => (
          <button key={x.query} type="button" className={link} data-testid={x.testId} onClick={() => download(s.id, x.query).catch(fail)}>
            {x.label}
          </button>
        ))}
        {teaches && (
          <button type="button" className={link} data-testid="share-toggle" onClick={() => void changeSharing(!shareUrl || !shared)}>
            {shareUrl ? "Stop sharing" : shared ? "Show share link" : "Share replay"}
          </button>
        )}
        {manages && s.status === "live" && (
          <button type="button" className={button} data-testid="session-end" onClick={() => void end()}>
            End
          </button>
        )}
        {manages && s.status === "ended" && (
          <button
            type="button"
            className={`${button} border-rose-400/60 text-rose-200`}
            data-testid="session-delete"
            onClick={() => void remove()}
          >
            Delete
          </button>
        )}
      </div>
      {shareUrl && <ShareLink url={shareUrl} />}
      {s.consoles.length > 0 && (
        <details className="mt-2">
          <summary className="cursor-pointer font-medium">Consoles open on this session ({s.consoles.length})</summary>
          <ul className="mt-1 space-y-1" data-testid="console-list">
            {s.consoles.map((c) => (
              <li
                key={c.id}
                data-testid="console-item"
                data-console-id={c.id}
                data-here={c.here}
                className="flex flex-wrap items-center gap-3"
              >
                <span>{consoleLabel(c)}</span>
                {(s.relation === "owner" || c.here) && (
                  <button
                    type="button"
                    className="text-sm text-rose-200 underline"
                    data-testid="console-revoke"
                    onClick={() => void revoke(c)}
                  >
                    Revoke<span className="sr-only"> this console&apos;s key</span>
                  </button>
                )}
              </li>
            ))}
          </ul>
        </details>
      )}
      {s.relation === "owner" && <Coteachers path={`/api/sessions/${s.id}/coteachers`} initial={s.coteachers} what="session" />}
    </li>
  );
}
