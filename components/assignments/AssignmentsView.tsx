"use client";

import { useTranslations } from "next-intl";
import { useCallback, useEffect, useState } from "react";
import type { AssignmentSummary, CreatedAssignment } from "@/lib/course/rest";
import { BUILTIN_LESSON_KEY } from "@/lib/course/pollKeys";
import { useAccountState } from "@/components/account/useAccountState";
import { callApi } from "@/components/selfPaced/api";
import { useAssignmentErrorText } from "@/components/selfPaced/useSelfPacedText";
import { DueSentence } from "@/components/selfPaced/DueSentence";
import { AssignmentLink } from "./AssignmentLink";
import { LessonWords, When, useProseText, useShortDate } from "./LessonWords";
import { NewAssignment } from "./NewAssignment";

/** The teacher's assignments: make one, get its link, and open each one's progress and its lesson's results. */
export function AssignmentsView() {
  const t = useTranslations("assignments");
  const errorText = useAssignmentErrorText();
  const shortDate = useShortDate();
  const words = useProseText();
  const [account] = useAccountState();
  const [list, setList] = useState<AssignmentSummary[] | null>(null);
  const [error, setError] = useState("");
  const [created, setCreated] = useState<CreatedAssignment | null>(null);
  const [preset] = useState(() => {
    if (typeof window === "undefined") return { lesson: null, session: null };
    const q = new URLSearchParams(window.location.search);
    return { lesson: q.get("lesson"), session: q.get("session") };
  });

  const reload = useCallback(() => {
    callApi<{ assignments: AssignmentSummary[] }>("/api/assignments")
      .then((r) => setList(r.assignments))
      .catch((err: unknown) => setError(errorText(err)));
  }, [errorText]);
  const signedIn = account.status === "ready" && account.state.account !== null;
  useEffect(() => {
    if (signedIn) reload();
  }, [signedIn, reload]);

  if (account.status === "loading") return <p className="mt-6 text-slate-300">{t("loading")}</p>;
  if (!signedIn) {
    return (
      <p className="mt-6 text-lg">
        {t.rich("signInFirst", {
          signIn: (chunks) => (
            <a href="/account/sign-in?next=%2Fassignments" className="font-semibold text-sky-200 underline">
              {chunks}
            </a>
          ),
        })}
      </p>
    );
  }
  return (
    <div className="mt-6 space-y-8">
      <NewAssignment
        preset={preset}
        onCreated={(c) => {
          setCreated(c);
          reload();
        }}
      />
      {created && (
        <section aria-label={t("newOne")} className="space-y-2" role="status">
          <p className="text-lg">
            {t.rich("ready", {
              questions: created.assignment.pollCount,
              title: () => (
                <strong>
                  <LessonWords words={words(created.assignment.title)} />
                </strong>
              ),
            })}
            {created.skipped > 0 && <> {t("skipped", { skipped: created.skipped })}</>}
          </p>
          <AssignmentLink id={created.assignment.id} path={created.path} url={created.url} />
          <a href={`/assignments/${created.assignment.id}`} className="inline-block font-semibold text-sky-200 underline">
            {t("watch")}
          </a>
        </section>
      )}
      <section aria-labelledby="your-assignments">
        <h2 id="your-assignments" className="text-2xl font-bold">
          {t("yours")}
        </h2>
        {error && (
          <p role="alert" className="mt-2 text-rose-200">
            {error}
          </p>
        )}
        {list && list.length === 0 && <p className="mt-2 text-slate-300">{t("none")}</p>}
        <ul className="mt-3 divide-y divide-slate-800">
          {list?.map((a) => (
            <li
              key={a.id}
              className="flex flex-wrap items-center justify-between gap-3 py-3"
              data-testid="assignment-item"
              data-assignment-id={a.id}
            >
              <div className="min-w-0">
                <a href={`/assignments/${a.id}`} className="text-lg font-semibold text-sky-200 underline [overflow-wrap:anywhere]">
                  <LessonWords words={words(a.title)} />
                </a>
                <p className="text-sm text-slate-300">
                  {t.rich("made", { when: () => <When at={a.createdAt}>{shortDate(a.createdAt)}</When>, questions: a.pollCount })}
                  {a.dueAt !== null && (
                    <>
                      {" · "}
                      <DueSentence dueAt={a.dueAt} />
                    </>
                  )}
                  {a.closedAt !== null ? ` · ${t("closed")}` : ""}
                </p>
              </div>
              <a href={`/results/${encodeURIComponent(a.lessonKey)}`} className="font-semibold text-sky-200 underline">
                {a.lessonKey === BUILTIN_LESSON_KEY ? t("resultsBuiltIn") : t("resultsLesson")}
              </a>
            </li>
          ))}
        </ul>
      </section>
    </div>
  );
}
