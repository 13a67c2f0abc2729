"use client";

import { useLocale, useTranslations } from "next-intl";
import { useState } from "react";
import type { AccountLesson, RotatedLessonKey } from "@/lib/account/ownership";
import { requestJson } from "@/components/account/api";
import { Coteachers } from "@/components/account/Coteachers";
import { useAccountErrorText } from "@/components/account/useAccountErrorText";
import { When } from "@/components/assignments/LessonWords";
import { exportMermaid } from "./LessonsList";
import { forgetLessonKey, lessonHeaders, saveLessonKey } from "./lessonKeys";
import { startLessonSession } from "./startLesson";

const secondary = "rounded-lg border border-slate-500 px-3 py-2 hover:bg-slate-800";

/**
 * One lesson of a signed-in list. Owner and co-teachers start a session from
 * it, edit it (each save a new version), duplicate and export it on any
 * browser; the owner also deletes it, invites co-teachers, and revokes the
 * key the browser that wrote it holds (a new key, kept by this browser); the
 * administrator deletes.
 */
export function AccountLessonItem({
  lesson: l,
  say,
  reload,
}: {
  lesson: AccountLesson;
  say: (message: string, failed?: boolean) => void;
  reload: () => void;
}) {
  const t = useTranslations("library");
  const locale = useLocale();
  const errorText = useAccountErrorText();
  const [busy, setBusy] = useState(false);
  const owner = () => <span translate="no">{l.owner}</span>;
  const standing =
    l.relation === "owner"
      ? t("yours")
      : l.relation === "coteacher"
        ? l.owner
          ? t.rich("sharedBy", { owner })
          : t("sharedByOwner")
        : l.owner
          ? t.rich("ownersLesson", { owner })
          : t("noOwner");
  const teaches = l.relation === "owner" || l.relation === "coteacher";

  async function remove() {
    if (!window.confirm(t("confirmDelete", { title: l.title }))) return;
    const res = await fetch(`/api/lessons/${l.id}`, { method: "DELETE", headers: lessonHeaders(l.id) });
    if (!res.ok) return say(errorText(null, "deleteLesson"), true);
    forgetLessonKey(l.id);
    say(t("deleted", { title: l.title }));
    reload();
  }

  async function rotateKey() {
    setBusy(true);
    try {
      const { lessonKey } = await requestJson<RotatedLessonKey>(`/api/lessons/${l.id}/key`, { method: "POST", body: {} });
      saveLessonKey(l.id, lessonKey);
      say(t("keyRevoked"));
      reload();
    } catch (err) {
      say(errorText(err, "revokeKey"), true);
    } finally {
      setBusy(false);
    }
  }

  const headingId = `lesson-${l.id}`;
  return (
    <li
      data-testid="lesson-item"
      data-lesson-id={l.id}
      data-relation={l.relation}
      aria-labelledby={headingId}
      className="rounded-xl border border-slate-700 bg-slate-900/70 p-4"
    >
      <div className="flex flex-wrap items-center justify-between gap-3">
        <div className="min-w-0">
          <h3 id={headingId} className="text-lg font-semibold [overflow-wrap:anywhere]" translate="no">
            {l.title}
          </h3>
          <p className="text-sm text-slate-300">
            {standing} · {t("facts", { steps: l.stepCount, participants: l.lifelineCount, version: l.version })} ·{" "}
            <When at={l.updatedAt}>{new Date(l.updatedAt).toLocaleString(locale)}</When>
          </p>
        </div>
        <div className="flex flex-wrap gap-2">
          {teaches && (
            <button
              type="button"
              data-testid="lesson-start"
              onClick={() => void startLessonSession(l.id).then((err) => err && say(errorText(err, "startSession"), true))}
              className="rounded-lg bg-emerald-400 px-3 py-2 font-semibold text-slate-950"
            >
              {t("start")}
            </button>
          )}
          {(teaches || l.relation === "admin") && (
            <a href={`/lessons/edit?id=${l.id}`} className={secondary}>
              {t("edit")}
            </a>
          )}
          {teaches && (
            <a href={`/lessons/edit?id=${l.id}&copy=1`} className={secondary}>
              {t("duplicate")}
            </a>
          )}
          {teaches && (
            <a href={`/assignments?lesson=${encodeURIComponent(l.id)}`} className={secondary} data-testid="lesson-assign">
              {t("assign")}
            </a>
          )}
          {teaches && (
            <a href={`/results/${encodeURIComponent(l.id)}`} className={secondary}>
              {t("results")}
            </a>
          )}
          <button
            type="button"
            data-testid="lesson-export"
            onClick={() => void exportMermaid(l.id).then((ok) => ok || say(errorText(null, "exportLesson"), true))}
            className={secondary}
          >
            {t("export")}
          </button>
          {(l.relation === "owner" || l.relation === "admin") && (
            <button
              type="button"
              onClick={() => void remove()}
              data-testid="lesson-delete"
              className="rounded-lg border border-rose-400/60 px-3 py-2 text-rose-200 hover:bg-rose-950"
            >
              {t("delete")}
            </button>
          )}
        </div>
      </div>
      {l.relation === "owner" && (
        <>
          <p className="mt-2 text-sm text-slate-300">
            {l.keyHere ? t("keyHere") : t("keyElsewhere")}{" "}
            <button
              type="button"
              disabled={busy}
              onClick={() => void rotateKey()}
              data-testid="lesson-rotate-key"
              className="text-sky-300 underline"
            >
              {t("revokeKey")}
            </button>
          </p>
          <Coteachers path={`/api/lessons/${l.id}/coteachers`} initial={l.coteachers} what="lesson" />
        </>
      )}
    </li>
  );
}
