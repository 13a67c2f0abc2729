"use client";

import { useTranslations } from "next-intl";
import { useCallback, useEffect, useState } from "react";
import type { AccountSessionList } from "@/lib/account/ownership";
import { requestJson } from "@/components/account/api";
import { claimThisBrowser } from "@/components/account/claim";
import { useAccountErrorText } from "@/components/account/useAccountErrorText";
import { hostKeyHeaders } from "@/components/live/hostKeyStore";
import { AccountSessionItem } from "./AccountSessionItem";
import { RetentionNote } from "./RetentionNote";

/**
 * A signed-in teacher's sessions, on any browser (`my-sessions`): those the
 * account owns and those it was invited to co-teach, live and ended. With
 * `all`, the administrator's list of every session on the server
 * (`admin-sessions`). Loading first claims what this browser's keys hold.
 */
export function MySessions({ all = false }: { all?: boolean }) {
  const t = useTranslations("savedSessions");
  const errorText = useAccountErrorText();
  const [list, setList] = useState<AccountSessionList | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState("");

  const load = useCallback(async () => {
    try {
      if (!all) await claimThisBrowser();
      // This browser's keys say which console is its own.
      const path = all ? "/api/account/sessions?scope=all" : "/api/account/sessions";
      setList(await requestJson<AccountSessionList>(path, { headers: hostKeyHeaders() }));
      setError(null);
    } catch (err) {
      setError(errorText(err, "loadSessions"));
    }
  }, [all, errorText]);
  useEffect(() => {
    void load();
  }, [load]);

  const say = (message: string, failed = false) => {
    if (failed) setError(message);
    else {
      setError(null);
      setNotice(message);
    }
  };

  const testId = all ? "admin-sessions" : "my-sessions";
  const headingId = `${testId}-heading`;
  return (
    <section className="mt-6 space-y-3" aria-labelledby={headingId}>
      <h2 id={headingId} className="text-2xl font-semibold">
        {all ? t("everyHeading") : t("yourSessions")}
      </h2>
      <p className="text-slate-300">{all ? t("adminLead") : t("accountLead")}</p>
      {!all && list && <RetentionNote policy={list.retention} admin={false} />}
      <p role="status" className="text-emerald-300">
        {notice}
      </p>
      {error && (
        <p role="alert" className="rounded-lg bg-rose-950 px-3 py-2 text-rose-100">
          {error}
        </p>
      )}
      {list === null && !error && <p>{t("loading")}</p>}
      {list && list.sessions.length === 0 && <p data-testid={`${testId}-empty`}>{all ? t("noneYet") : t("noneInAccount")}</p>}
      <ul className="space-y-3" data-testid={testId} aria-label={all ? t("every") : t("yourSessions")}>
        {list?.sessions.map((s) => (
          <AccountSessionItem key={s.id} session={s} say={say} reload={() => void load()} />
        ))}
      </ul>
    </section>
  );
}
