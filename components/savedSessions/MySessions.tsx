"use client";

import { useCallback, useEffect, useState } from "react";
import type { AccountSessionList } from "@/lib/account/ownership";
import { requestJson } from "@/components/account/api";
import { claimThisBrowser } from "@/components/account/claim";
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
      setError(err instanceof Error ? err.message : "Could not load your sessions.");
    }
  }, [all]);
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
        {all ? "Every session on this server" : "Your sessions"}
      </h2>
      <p className="text-slate-300">
        {all
          ? "You are this server's administrator: end or delete any teacher's session."
          : "Sessions you started while signed in, those this browser held when you signed in, and those other teachers invited you to. Open any of them here: the replay, the exports, the share link, and the console of a live one."}
      </p>
      {!all && list && <RetentionNote policy={list.retention} admin={false} />}
      <p role="status" className="text-emerald-300">
        {notice}
      </p>
      {error && (
        <p role="alert" className="rounded-lg bg-rose-950 px-3 py-2 text-rose-100">
          {error}
        </p>
      )}
      {list === null && !error && <p>Loading…</p>}
      {list && list.sessions.length === 0 && (
        <p data-testid={`${testId}-empty`}>{all ? "No sessions yet." : "No sessions in your account yet."}</p>
      )}
      <ul className="space-y-3" data-testid={testId} aria-label={all ? "Every session" : "Your sessions"}>
        {list?.sessions.map((s) => (
          <AccountSessionItem key={s.id} session={s} say={say} reload={() => void load()} />
        ))}
      </ul>
    </section>
  );
}
