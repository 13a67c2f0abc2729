"use client";

import { useLocale, useTranslations } from "next-intl";
import { useCallback, useEffect, useState } from "react";
import { readReply } from "@/components/account/api";
import { useAccountErrorText } from "@/components/account/useAccountErrorText";
import { When } from "@/components/assignments/LessonWords";
import { allHostKeys, hostKeyHeaders } from "@/components/live/hostKeyStore";
import { MAX_HOST_KEYS_PER_REQUEST, type RetentionPolicy, type SessionDetail, type SessionList } from "@/lib/protocol/rest";
import { RetentionNote } from "./RetentionNote";
import { ShareLink } from "./ShareLink";
import { EXPORTS, download, setSharing, useDuration } from "./sessionFiles";

/** A row of the list: what the API says about one session. */
type SessionRow = SessionDetail;

/**
 * The sessions this browser's keys open (a teacher who is not signed in).
 * Signed in, the account's list replaces it (./MySessions.tsx); the
 * administrator signs in to see every session (ADMIN_TOKEN is for scripts).
 */
export function SessionsList() {
  const t = useTranslations("savedSessions");
  const locale = useLocale();
  const errorText = useAccountErrorText();
  const duration = useDuration();
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
      .catch((err: unknown) => setError(errorText(err, "sharing")));

  const load = useCallback(() => {
    setError(null);
    setHeldKeys(allHostKeys().length);
    fetch("/api/sessions", { headers: hostKeyHeaders() })
      .then(async (res) => {
        const body = await readReply<SessionList>(res);
        setRows(body.sessions);
        setScope(body.scope);
        setRetention(body.retention);
      })
      .catch((err: unknown) => setError(errorText(err, "loadSessionsList")));
  }, [errorText]);

  useEffect(load, [load]);

  return (
    <div className="mt-4 space-y-6">
      <p className="text-slate-300">{scope === "admin" ? t("adminScope") : t("browserLead")}</p>
      {retention && <RetentionNote policy={retention} admin={scope === "admin"} />}
      {scope === "host" && heldKeys > MAX_HOST_KEYS_PER_REQUEST && (
        <p role="status" className="rounded-lg bg-slate-800 px-3 py-2" data-testid="sessions-truncated">
          {t("truncated", { held: heldKeys, shown: MAX_HOST_KEYS_PER_REQUEST })}
        </p>
      )}
      {error && (
        <p role="alert" className="rounded-lg bg-rose-950 px-3 py-2 text-rose-100">
          {error}
        </p>
      )}
      {rows === null && !error && <p role="status">{t("loading")}</p>}
      {rows && rows.length === 0 && <p data-testid="sessions-empty">{scope === "admin" ? t("noneSaved") : t("noneSavedHere")}</p>}
      {rows && rows.length > 0 && (
        <div className="overflow-x-auto" tabIndex={0} role="region" aria-label={t("tableLabel")}>
          <table className="w-full min-w-[760px] text-start" data-testid="sessions-table">
            <thead className="text-sm text-slate-400">
              <tr>
                <th scope="col" className="py-2">
                  {t("columns.title")}
                </th>
                <th scope="col">{t("columns.date")}</th>
                <th scope="col">{t("columns.duration")}</th>
                <th scope="col">{t("columns.peak")}</th>
                <th scope="col">{t("columns.polls")}</th>
                <th scope="col">{t("columns.status")}</th>
                <th scope="col">{t("columns.open")}</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((s) => (
                <tr key={s.id} className="border-t border-slate-800 align-top" data-testid="session-row" data-code={s.code}>
                  <td className="py-2 pe-3">
                    {s.title ? (
                      <span className="font-semibold" translate="no">
                        {s.title}
                      </span>
                    ) : (
                      <span className="font-semibold">{t("untitled")}</span>
                    )}
                    <span className="block font-mono text-sm text-slate-400" translate="no">
                      {s.code}
                    </span>
                  </td>
                  <td className="pe-3">
                    <When at={s.createdAt}>{new Date(s.createdAt).toLocaleString(locale)}</When>
                  </td>
                  <td className="pe-3">{duration(s.durationMs)}</td>
                  <td className="pe-3">{s.peakParticipants}</td>
                  <td className="pe-3">{s.pollCount}</td>
                  <td className="pe-3">
                    {s.status === "live" ? (
                      <a className="text-emerald-300 underline" href={`/host/${s.code}`}>
                        {t("liveOpenConsole")}
                      </a>
                    ) : (
                      t("endedLower")
                    )}
                  </td>
                  <td className="space-x-3 whitespace-nowrap">
                    <a href={`/replay/${s.id}`} className="font-semibold text-sky-300 underline" data-testid="replay-link">
                      {t("replay")}
                    </a>
                    {EXPORTS.map((x) => (
                      <button
                        key={x.query}
                        type="button"
                        className="text-sky-300 underline"
                        data-testid={x.testId}
                        onClick={() => download(s.id, x.query).catch((err: unknown) => setError(errorText(err, "exportFailed")))}
                      >
                        {t(`exports.${x.label}`)}
                      </button>
                    ))}
                    {scope === "host" && (
                      <button
                        type="button"
                        className="text-sky-300 underline"
                        data-testid="share-toggle"
                        onClick={() => void changeSharing(s, !links[s.id] || !s.shared)}
                      >
                        {links[s.id] ? t("stopSharing") : s.shared ? t("showShareLink") : t("share")}
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
