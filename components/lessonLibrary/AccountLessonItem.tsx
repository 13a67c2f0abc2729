"use client";

import { useState } from "react";
import type { AccountLesson, RotatedLessonKey } from "@/lib/account/ownership";
import { requestJson } from "@/components/account/api";
import { Coteachers } from "@/components/account/Coteachers";
import { exportMermaid } from "./LessonsList";
import { forgetLessonKey, lessonHeaders, saveLessonKey } from "./lessonKeys";
import { startLessonSession } from "./startLesson";

const secondary = "rounded-lg border border-slate-500 px-3 py-2 hover:bg-slate-800";

function standing(l: AccountLesson): string {
  if (l.relation === "owner") return "Yours";
  if (l.relation === "coteacher") return `Shared with you by ${l.owner ?? "its owner"}`;
  return l.owner ? `${l.owner}'s` : "Owned by no account (written by a browser's key)";
}

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
  const [busy, setBusy] = useState(false);
  const teaches = l.relation === "owner" || l.relation === "coteacher";

  async function remove() {
    if (!window.confirm(`Delete "${l.title}"? Sessions that ran it keep their replays.`)) return;
    const res = await fetch(`/api/lessons/${l.id}`, { method: "DELETE", headers: lessonHeaders(l.id) });
    if (!res.ok) return say("Could not delete that lesson.", true);
    forgetLessonKey(l.id);
    say(`"${l.title}" is deleted.`);
    reload();
  }

  async function rotateKey() {
    setBusy(true);
    try {
      const { lessonKey } = await requestJson<RotatedLessonKey>(`/api/lessons/${l.id}/key`, { method: "POST", body: {} });
      saveLessonKey(l.id, lessonKey);
      say("Other browsers' key to this lesson is revoked: only your account (and this browser) opens it now.");
      reload();
    } catch (err) {
      say(err instanceof Error ? err.message : "Could not revoke the key.", true);
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
          <h3 id={headingId} className="text-lg font-semibold [overflow-wrap:anywhere]">
            {l.title}
          </h3>
          <p className="text-sm text-slate-300">
            {standing(l)} · {l.stepCount} steps · {l.lifelineCount} participants · version {l.version} ·{" "}
            {new Date(l.updatedAt).toLocaleString()}
          </p>
        </div>
        <div className="flex flex-wrap gap-2">
          {teaches && (
            <button
              type="button"
              data-testid="lesson-start"
              onClick={() => void startLessonSession(l.id).then((msg) => msg && say(msg, true))}
              className="rounded-lg bg-emerald-400 px-3 py-2 font-semibold text-slate-950"
            >
              Start a session
            </button>
          )}
          {(teaches || l.relation === "admin") && (
            <a href={`/lessons/edit?id=${l.id}`} className={secondary}>
              Edit
            </a>
          )}
          {teaches && (
            <a href={`/lessons/edit?id=${l.id}&copy=1`} className={secondary}>
              Duplicate
            </a>
          )}
          {teaches && (
            <a href={`/assignments?lesson=${encodeURIComponent(l.id)}`} className={secondary} data-testid="lesson-assign">
              Assign at their own pace
            </a>
          )}
          {teaches && (
            <a href={`/results/${encodeURIComponent(l.id)}`} className={secondary}>
              Results
            </a>
          )}
          <button
            type="button"
            data-testid="lesson-export"
            onClick={() => void exportMermaid(l.id).then((ok) => ok || say("Could not export that lesson.", true))}
            className={secondary}
          >
            Export Mermaid
          </button>
          {(l.relation === "owner" || l.relation === "admin") && (
            <button
              type="button"
              onClick={() => void remove()}
              data-testid="lesson-delete"
              className="rounded-lg border border-rose-400/60 px-3 py-2 text-rose-200 hover:bg-rose-950"
            >
              Delete
            </button>
          )}
        </div>
      </div>
      {l.relation === "owner" && (
        <>
          <p className="mt-2 text-sm text-slate-300">
            {l.keyHere ? "This browser holds the lesson's key." : "The lesson's key is held by the browser that wrote it."}{" "}
            <button
              type="button"
              disabled={busy}
              onClick={() => void rotateKey()}
              data-testid="lesson-rotate-key"
              className="text-sky-300 underline"
            >
              Revoke the key other browsers hold
            </button>
          </p>
          <Coteachers path={`/api/lessons/${l.id}/coteachers`} initial={l.coteachers} what="lesson" />
        </>
      )}
    </li>
  );
}
