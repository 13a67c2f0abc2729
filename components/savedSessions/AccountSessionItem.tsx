"use client";

import { useLocale, useTranslations } from "next-intl";
import { useState } from "react";
import type { AccountSession, ConsoleView, OpenedConsole } from "@/lib/account/ownership";
import { requestJson } from "@/components/account/api";
import { Coteachers } from "@/components/account/Coteachers";
import { useAccountErrorText } from "@/components/account/useAccountErrorText";
import { When } from "@/components/assignments/LessonWords";
import { forgetHostKey, saveHostKey } from "@/components/live/hostKeyStore";
import { ShareLink } from "./ShareLink";
import { EXPORTS, download, setSharing, useDuration } from "./sessionFiles";

const link = "text-sky-300 underline";
const button = "rounded-lg border border-slate-500 px-3 py-1.5 font-semibold hover:bg-slate-800";

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
  const t = useTranslations("savedSessions");
  const locale = useLocale();
  const errorText = useAccountErrorText();
  const duration = useDuration();
  const when = (ms: number) => <When at={ms}>{new Date(ms).toLocaleString(locale)}</When>;
  const owner = () => <span translate="no">{s.owner}</span>;
  const standing =
    s.relation === "owner"
      ? t("yours")
      : s.relation === "coteacher"
        ? s.owner
          ? t.rich("coTaughtWith", { owner })
          : t("coTaughtWithOwner")
        : s.owner
          ? t.rich("ownersSession", { owner })
          : t("noOwner");
  const consoleLabel = (c: ConsoleView) =>
    t.rich("consoleLabel", {
      opener: c.openedBy === null ? "starter" : "account",
      when: () => when(c.createdAt),
      here: c.here ? "yes" : "no",
      who: () => <span translate="no">{c.openedBy}</span>,
    });
  const title = s.title ? <span translate="no">{s.title}</span> : t("untitled");
  const [shareUrl, setShareUrl] = useState<string | null>(null);
  const [shared, setShared] = useState(s.shared);
  const [busy, setBusy] = useState(false);
  const teaches = s.relation === "owner" || s.relation === "coteacher";
  const manages = s.relation === "owner" || s.relation === "admin";
  const consoleHere = s.consoles.some((c) => c.here);
  const fail = (err: unknown, fallback: "didNotWork" | "exportFailed" | "sharing" = "didNotWork") => say(errorText(err, fallback), true);

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
      say(c.here ? t("consoleRevokedHere") : t("consoleRevoked"));
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
      say(share ? t("shareReady") : t("shareStopped"));
    } catch (err) {
      fail(err, "sharing");
    }
  }

  async function end() {
    if (!window.confirm(t("confirmEnd", { title: s.title || t("untitled") }))) return;
    try {
      await requestJson(`/api/sessions/${s.id}/end`, { method: "POST", body: {} });
      say(t("ended"));
      reload();
    } catch (err) {
      fail(err);
    }
  }

  async function remove() {
    if (!window.confirm(t("confirmDelete", { title: s.title || t("untitled") }))) return;
    try {
      await requestJson(`/api/account/sessions/${s.id}`, { method: "DELETE" });
      say(t("deleted"));
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
          {title}{" "}
          <span className="font-mono text-sm font-normal text-slate-300" translate="no">
            {s.code}
          </span>
        </h3>
        <p className={s.status === "live" ? "font-semibold text-emerald-300" : "text-slate-300"}>
          {s.status === "live" ? t("live") : t("endedStatus")}
        </p>
      </div>
      <p className="text-sm text-slate-300">
        {standing} · {when(s.createdAt)} · {duration(s.durationMs)} · {t("facts", { students: s.peakParticipants, polls: s.pollCount })}
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
              {t("openConsole")}
            </a>
          ) : (
            <button
              type="button"
              data-testid="open-console"
              disabled={busy}
              onClick={() => void openConsole()}
              className="rounded-lg bg-emerald-400 px-3 py-1.5 font-semibold text-slate-950 disabled:opacity-60"
            >
              {t("openConsoleHere")}
            </button>
          ))}
        <a href={`/replay/${s.id}`} className={`font-semibold ${link}`} data-testid="replay-link">
          {t("replay")}
        </a>
        {s.status === "ended" && s.pollCount > 0 && s.relation !== "admin" && (
          <a href={`/assignments?session=${encodeURIComponent(s.id)}`} className={link} data-testid="session-assign">
            {t("assignPolls")}
          </a>
        )}
        {EXPORTS.map((x) => (
          <button
            key={x.query}
            type="button"
            className={link}
            data-testid={x.testId}
            onClick={() => download(s.id, x.query).catch((err: unknown) => fail(err, "exportFailed"))}
          >
            {t(`exports.${x.label}`)}
          </button>
        ))}
        {teaches && (
          <button type="button" className={link} data-testid="share-toggle" onClick={() => void changeSharing(!shareUrl || !shared)}>
            {shareUrl ? t("stopSharing") : shared ? t("showShareLink") : t("share")}
          </button>
        )}
        {manages && s.status === "live" && (
          <button type="button" className={button} data-testid="session-end" onClick={() => void end()}>
            {t("end")}
          </button>
        )}
        {manages && s.status === "ended" && (
          <button
            type="button"
            className={`${button} border-rose-400/60 text-rose-200`}
            data-testid="session-delete"
            onClick={() => void remove()}
          >
            {t("delete")}
          </button>
        )}
      </div>
      {shareUrl && <ShareLink url={shareUrl} />}
      {s.consoles.length > 0 && (
        <details className="mt-2">
          <summary className="cursor-pointer font-medium">{t("consoles", { count: s.consoles.length })}</summary>
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
                    {t.rich("revoke", { hidden: (chunks) => <span className="sr-only">{chunks}</span> })}
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
