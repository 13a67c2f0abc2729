"use client";

import { useLocale, useTranslations } from "next-intl";
import { useCallback, useEffect, useState } from "react";
import type { LessonList } from "@/lib/protocol/rest";
import { readReply } from "@/components/account/api";
import { useAccountErrorText } from "@/components/account/useAccountErrorText";
import { When } from "@/components/assignments/LessonWords";
import { forgetLessonKey, lessonHeaders } from "./lessonKeys";
import { startLessonSession } from "./startLesson";

/** Where a new lesson starts: a blank sequence diagram, or the built-in lesson's. */
export function NewLessonLinks() {
  const t = useTranslations("library");
  return (
    <p className="flex flex-wrap gap-3">
      <a href="/lessons/edit" data-testid="new-lesson" className="rounded-lg bg-sky-400 px-5 py-2 font-semibold text-slate-950">
        {t("newLesson")}
      </a>
      <a href="/lessons/edit?builtin=1" className="rounded-lg border border-slate-500 px-5 py-2 font-semibold hover:bg-slate-800">
        {t("fromBuiltIn")}
      </a>
    </p>
  );
}

/** Downloads a lesson's Mermaid text (its key, if this browser holds it, or the signed-in teacher's cookie opens it). */
export async function exportMermaid(id: string): Promise<boolean> {
  const res = await fetch(`/api/lessons/${id}/mermaid`, { headers: lessonHeaders(id) });
  if (!res.ok) return false;
  const name = /filename="([^"]+)"/.exec(res.headers.get("content-disposition") ?? "")?.[1] ?? "lesson.mmd";
  const url = URL.createObjectURL(new Blob([await res.text()], { type: "text/plain" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  a.click();
  URL.revokeObjectURL(url);
  return true;
}

/**
 * The lessons this browser wrote (its lesson keys), for a teacher who is not
 * signed in: start, edit, duplicate, export, delete. Signed in, the account's
 * list replaces it (./MyLessons.tsx).
 */
export function LessonsList() {
  const t = useTranslations("library");
  const locale = useLocale();
  const errorText = useAccountErrorText();
  const [list, setList] = useState<LessonList | null>(null);
  const [message, setMessage] = useState<string | null>(null);

  const load = useCallback(async () => {
    try {
      setList(await readReply<LessonList>(await fetch("/api/lessons", { headers: lessonHeaders() })));
    } catch (err) {
      setMessage(errorText(err, "loadLessons"));
    }
  }, [errorText]);
  useEffect(() => {
    void load();
  }, [load]);

  async function remove(id: string, title: string) {
    if (!window.confirm(t("confirmDelete", { title }))) return;
    const res = await fetch(`/api/lessons/${id}`, { method: "DELETE", headers: lessonHeaders(id) });
    if (!res.ok) return setMessage(errorText(null, "deleteLesson"));
    forgetLessonKey(id);
    await load();
  }

  return (
    <div className="mt-6 space-y-4">
      <NewLessonLinks />
      {message && (
        <p role="alert" className="rounded-lg bg-rose-950 px-3 py-2 text-rose-100">
          {message}
        </p>
      )}
      {list && list.lessons.length === 0 && <p className="text-slate-300">{t("noneHere")}</p>}
      <ul className="space-y-3" aria-label={t("yourLessons")}>
        {list?.lessons.map((l) => (
          <li
            key={l.id}
            data-testid="lesson-item"
            data-lesson-id={l.id}
            className="flex flex-wrap items-center justify-between gap-3 rounded-xl border border-slate-700 bg-slate-900/70 p-4"
          >
            <div className="min-w-0">
              <p className="text-lg font-semibold [overflow-wrap:anywhere]" translate="no">
                {l.title}
              </p>
              <p className="text-sm text-slate-300">
                {t("facts", { steps: l.stepCount, participants: l.lifelineCount, version: l.version })} ·{" "}
                <When at={l.updatedAt}>{new Date(l.updatedAt).toLocaleString(locale)}</When>
              </p>
            </div>
            <div className="flex flex-wrap gap-2">
              <button
                type="button"
                data-testid="lesson-start"
                onClick={() => void startLessonSession(l.id).then((err) => err && setMessage(errorText(err, "startSession")))}
                className="rounded-lg bg-emerald-400 px-3 py-2 font-semibold text-slate-950"
              >
                {t("start")}
              </button>
              <a href={`/lessons/edit?id=${l.id}`} className="rounded-lg border border-slate-500 px-3 py-2 hover:bg-slate-800">
                {t("edit")}
              </a>
              <a href={`/lessons/edit?id=${l.id}&copy=1`} className="rounded-lg border border-slate-500 px-3 py-2 hover:bg-slate-800">
                {t("duplicate")}
              </a>
              <button
                type="button"
                data-testid="lesson-export"
                onClick={() => void exportMermaid(l.id).then((ok) => ok || setMessage(errorText(null, "exportLesson")))}
                className="rounded-lg border border-slate-500 px-3 py-2 hover:bg-slate-800"
              >
                {t("export")}
              </button>
              <button
                type="button"
                onClick={() => void remove(l.id, l.title)}
                className="rounded-lg border border-rose-400/60 px-3 py-2 text-rose-200 hover:bg-rose-950"
              >
                {t("delete")}
              </button>
            </div>
          </li>
        ))}
      </ul>
    </div>
  );
}
