"use client";

import { useTranslations } from "next-intl";
import { useCallback, useEffect, useState } from "react";
import type { AssignmentProgress } from "@/lib/course/views";
import { BUILTIN_LESSON_KEY } from "@/lib/course/pollKeys";
import { callApi } from "@/components/selfPaced/api";
import { useAssignmentErrorText } from "@/components/selfPaced/useSelfPacedText";
import { DueSentence } from "@/components/selfPaced/DueSentence";
import { usePollText } from "@/components/i18n/useScenario";
import { AssignmentLink } from "./AssignmentLink";
import { LessonWords, When, useProseText, useShortDate } from "./LessonWords";
import { ConfirmButton } from "@/components/host/ConfirmButton";

/** How often the teacher's page asks for progress: students step every few seconds at most, and each read is one small query. */
export const PROGRESS_REFRESH_MS = 3_000;

/**
 * One assignment, for its teacher: the link, how many started and finished,
 * each student's step and score, and per question the answer counts, kept up
 * to date while the page is open. Close, reopen, export and delete.
 */
export function AssignmentProgressView({ id }: { id: string }) {
  const t = useTranslations("assignments.progress");
  const errorText = useAssignmentErrorText();
  const shortDate = useShortDate();
  const words = useProseText();
  const pollText = usePollText();
  const [progress, setProgress] = useState<AssignmentProgress | null>(null);
  const [error, setError] = useState("");
  const [deleted, setDeleted] = useState(false);
  const path = `/api/assignments/${encodeURIComponent(id)}`;

  const refresh = useCallback(async () => {
    try {
      setProgress(await callApi<AssignmentProgress>(`${path}?view=progress`));
      setError("");
    } catch (err) {
      setError(errorText(err));
    }
  }, [path, errorText]);

  useEffect(() => {
    void refresh();
    const timer = setInterval(() => {
      if (document.visibilityState === "visible") void refresh();
    }, PROGRESS_REFRESH_MS);
    return () => clearInterval(timer);
  }, [refresh]);

  if (deleted || !progress) {
    return (
      <div className="mt-4">
        <h1 className="text-3xl font-bold">{t("heading")}</h1>
        {deleted ? (
          <p role="status" className="mt-4 text-lg">
            {t("deleted")}
          </p>
        ) : error ? (
          <p role="alert" className="mt-4 text-lg text-rose-200">
            {error}
          </p>
        ) : (
          <p className="mt-4 text-slate-300">{t("loading")}</p>
        )}
      </div>
    );
  }
  const closed = progress.closedAt !== null;
  const patch = async (json: { closed?: boolean }) => {
    try {
      setProgress(await callApi<AssignmentProgress>(path, { method: "PATCH", json }));
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <div className="mt-4 space-y-8">
      <div>
        <h1 className="text-3xl font-bold [overflow-wrap:anywhere]">
          <LessonWords words={words(progress.title)} />
        </h1>
        <p className="mt-1 text-slate-300">
          {t.rich("made", { when: () => <When at={progress.createdAt}>{shortDate(progress.createdAt)}</When> })}
          {progress.dueAt !== null && (
            <>
              {" · "}
              <DueSentence dueAt={progress.dueAt} />
            </>
          )}
          {closed ? ` · ${t("closed")}` : ""}
        </p>
      </div>
      <AssignmentLink id={progress.id} path={`/a/${progress.id}`} url={progress.url} />
      {error && (
        <p role="alert" className="text-rose-200">
          {error}
        </p>
      )}
      <section aria-labelledby="progress-heading">
        <h2 id="progress-heading" className="text-2xl font-bold">
          {t("progress")}
        </h2>
        <p
          className="mt-2 text-xl"
          data-testid="assignment-progress"
          data-started={progress.started}
          data-finished={progress.finished}
          aria-live="polite"
        >
          {t.rich("counts", { started: progress.started, finished: progress.finished, b: (chunks) => <strong>{chunks}</strong> })}
        </p>
        {/* Five columns do not fit a phone: the table scrolls inside its own region (by keyboard too), not the page. */}
        <div className="mt-3 overflow-x-auto" tabIndex={0} role="region" aria-labelledby="progress-heading">
          <table className="w-full text-start">
            <caption className="sr-only">{t("caption")}</caption>
            <thead className="text-sm text-slate-300">
              <tr>
                <th className="py-1 pe-3">{t("student")}</th>
                <th className="py-1 pe-3">{t("stepReached")}</th>
                <th className="py-1 pe-3">{t("answered")}</th>
                <th className="py-1 pe-3">{t("right")}</th>
                <th className="py-1">{t("finished")}</th>
              </tr>
            </thead>
            <tbody>
              {progress.students.map((s) => (
                <tr key={s.id} className="border-t border-slate-800" data-testid="assignment-student" data-student={s.nickname}>
                  <td className="py-2 pe-3 [overflow-wrap:anywhere]">
                    {s.nickname ? <span translate="no">{s.nickname}</span> : <span className="text-slate-400">{t("noNickname")}</span>}
                  </td>
                  <td className="py-2 pe-3">{t("stepOf", { step: s.furthestStep + 1, total: progress.stepCount })}</td>
                  <td className="py-2 pe-3">{s.answered}</td>
                  <td className="py-2 pe-3">{s.right}</td>
                  <td className="py-2">{s.finishedAt !== null ? <When at={s.finishedAt}>{shortDate(s.finishedAt)}</When> : "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
      <section aria-labelledby="answers-heading">
        <h2 id="answers-heading" className="text-2xl font-bold">
          {t("perQuestion")}
        </h2>
        <ol className="mt-3 space-y-4">
          {progress.polls.map((p) => (
            <li
              key={p.id}
              className="rounded-xl border border-slate-700 p-4"
              data-testid="assignment-poll"
              data-poll={p.id}
              data-answered={p.answered}
            >
              <p className="font-semibold">
                {t.rich("question", {
                  step: p.stepIndex + 1,
                  answered: p.answered,
                  question: () => <LessonWords words={pollText.question(p.question)} />,
                  muted: (chunks) => <span className="font-normal text-slate-300">{chunks}</span>,
                })}
              </p>
              <ul className="mt-2 space-y-1">
                {p.options.map((o) => (
                  <li
                    key={o.id}
                    className="flex justify-between gap-3"
                    data-testid="assignment-option"
                    data-count={o.count}
                    data-correct={o.correct}
                  >
                    <span className="[overflow-wrap:anywhere]">
                      <LessonWords words={pollText.option(o.text)} />
                      {o.correct && <span className="ms-2 text-emerald-300">{t("rightMark")}</span>}
                    </span>
                    <span className="font-mono">{o.count}</span>
                  </li>
                ))}
              </ul>
            </li>
          ))}
        </ol>
      </section>
      <div className="flex flex-wrap gap-3">
        <button
          type="button"
          onClick={() => void patch({ closed: !closed })}
          data-testid="assignment-close"
          className="rounded-lg border border-slate-500 px-4 py-2 font-semibold hover:bg-slate-800"
        >
          {closed ? t("reopen") : t("close")}
        </button>
        <a
          href={`${path}/export`}
          className="rounded-lg border border-slate-500 px-4 py-2 font-semibold hover:bg-slate-800"
          data-testid="assignment-export"
        >
          {t("download")}
        </a>
        <a
          href={`/results/${encodeURIComponent(progress.lessonKey)}`}
          className="rounded-lg border border-sky-400 px-4 py-2 font-semibold text-sky-200 hover:bg-slate-800"
        >
          {progress.lessonKey === BUILTIN_LESSON_KEY ? t("resultsBuiltIn") : t("resultsLesson")}
        </a>
        <ConfirmButton
          question={t("confirmDelete")}
          confirmLabel={t("deleteIt")}
          testId="assignment-delete"
          className="rounded-lg border border-rose-400 px-4 py-2 font-semibold text-rose-200 hover:bg-slate-800"
          onConfirm={() => {
            callApi(path, { method: "DELETE" })
              .then(() => setDeleted(true))
              .catch((err: unknown) => setError(errorText(err)));
          }}
        >
          {t("delete")}
        </ConfirmButton>
      </div>
    </div>
  );
}
