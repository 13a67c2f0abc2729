"use client";

import { useTranslations } from "next-intl";
import { useCallback, useEffect, useState } from "react";
import type { AccountLessonList } from "@/lib/account/ownership";
import { requestJson } from "@/components/account/api";
import { claimThisBrowser } from "@/components/account/claim";
import { useAccountErrorText } from "@/components/account/useAccountErrorText";
import { AccountLessonItem } from "./AccountLessonItem";
import { lessonHeaders } from "./lessonKeys";

/**
 * A signed-in teacher's lessons, on any browser (`my-lessons`): those the
 * account owns and those it was invited to edit, each at its latest version.
 * With `all`, the administrator's list of every lesson (`admin-lessons`).
 * Loading first claims what this browser's lesson keys hold.
 */
export function MyLessons({ all = false }: { all?: boolean }) {
  const t = useTranslations("library");
  const errorText = useAccountErrorText();
  const [list, setList] = useState<AccountLessonList | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState("");

  const load = useCallback(async () => {
    try {
      if (!all) await claimThisBrowser();
      const path = all ? "/api/account/lessons?scope=all" : "/api/account/lessons";
      setList(await requestJson<AccountLessonList>(path, { headers: lessonHeaders() }));
      setError(null);
    } catch (err) {
      setError(errorText(err, "loadLessons"));
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

  const testId = all ? "admin-lessons" : "my-lessons";
  const headingId = `${testId}-heading`;
  return (
    <section className="mt-6 space-y-3" aria-labelledby={headingId}>
      <h2 id={headingId} className="text-2xl font-semibold">
        {all ? t("everyHeading") : t("yourLessons")}
      </h2>
      {all && <p className="text-slate-300">{t("adminLead")}</p>}
      <p role="status" className="text-emerald-300">
        {notice}
      </p>
      {error && (
        <p role="alert" className="rounded-lg bg-rose-950 px-3 py-2 text-rose-100">
          {error}
        </p>
      )}
      {list === null && !error && <p>{t("loading")}</p>}
      {list && list.lessons.length === 0 && (
        <p data-testid={`${testId}-empty`} className="text-slate-300">
          {all ? t("noneYet") : t("noneInAccount")}
        </p>
      )}
      <ul className="space-y-3" data-testid={testId} aria-label={all ? t("every") : t("yourLessons")}>
        {list?.lessons.map((l) => (
          <AccountLessonItem key={l.id} lesson={l} say={say} reload={() => void load()} />
        ))}
      </ul>
    </section>
  );
}
