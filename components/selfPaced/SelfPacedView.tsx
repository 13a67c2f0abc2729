"use client";

import { useTranslations } from "next-intl";
import { useCallback, useEffect, useState } from "react";
import type { PublicAssignment, StartedAssignment, StudentProgressView } from "@/lib/course/rest";
import { NICKNAME_MAX } from "@/lib/protocol/wire";
import { LanguageSwitch } from "@/components/i18n/LanguageSwitch";
import { AssignmentApiError, callApi, keepToken, readToken } from "./api";
import { SelfPacedWalk } from "./SelfPacedWalk";
import { useAssignmentErrorText } from "./useSelfPacedText";
import { DueSentence } from "./DueSentence";

type Load =
  | { status: "loading" }
  | { status: "missing"; error: unknown }
  | { status: "start"; assignment: PublicAssignment }
  | { status: "walking"; assignment: PublicAssignment; token: string; progress: StudentProgressView };

/**
 * A student's self-paced assignment (`/a/{id}`): the same lesson as in class,
 * at their own pace. This browser keeps its token, so leaving and coming back
 * on the same device continues where the student stopped.
 */
export function SelfPacedView({ id }: { id: string }) {
  const t = useTranslations("selfPaced");
  const errorText = useAssignmentErrorText();
  const [load, setLoad] = useState<Load>({ status: "loading" });

  const open = useCallback(async () => {
    let assignment: PublicAssignment;
    try {
      assignment = await callApi<PublicAssignment>(`/api/assignments/${encodeURIComponent(id)}`);
    } catch (err) {
      return setLoad({ status: "missing", error: err });
    }
    const token = readToken(id);
    if (!token) return setLoad({ status: "start", assignment });
    try {
      const progress = await callApi<StudentProgressView>(`/api/assignments/${encodeURIComponent(id)}/me`, { token });
      setLoad({ status: "walking", assignment, token, progress });
    } catch (err) {
      // A token the server does not know (the assignment was reset, or storage was copied): start again.
      if (err instanceof AssignmentApiError && err.code === "NOT_A_STUDENT") keepToken(id, null);
      else return setLoad({ status: "missing", error: err });
      setLoad({ status: "start", assignment });
    }
  }, [id]);

  useEffect(() => {
    void open();
  }, [open]);

  if (load.status === "loading") {
    return (
      <main className="mx-auto max-w-md px-5 py-10">
        <h1 className="text-2xl font-bold">{t("opening")}</h1>
      </main>
    );
  }
  if (load.status === "missing") {
    return (
      <main className="mx-auto max-w-md px-5 py-10">
        <div className="mb-3 flex justify-end">
          <LanguageSwitch />
        </div>
        <h1 className="text-2xl font-bold">{t("cannotOpen")}</h1>
        <p role="alert" className="mt-3 text-lg text-slate-200">
          {errorText(load.error)}
        </p>
        <p className="mt-3 text-slate-300">{t("checkLink")}</p>
      </main>
    );
  }
  if (load.status === "start") {
    return (
      <StartForm
        assignment={load.assignment}
        onStarted={(started) => {
          keepToken(id, started.token);
          setLoad({ status: "walking", assignment: load.assignment, token: started.token, progress: started.progress });
        }}
      />
    );
  }
  return <SelfPacedWalk assignment={load.assignment} token={load.token} initial={load.progress} />;
}

function StartForm({ assignment, onStarted }: { assignment: PublicAssignment; onStarted: (s: StartedAssignment) => void }) {
  const t = useTranslations("selfPaced");
  const common = useTranslations("common");
  const errorText = useAssignmentErrorText();
  const [name, setName] = useState("");
  // The refusal itself, put into words when shown: a language switch re-words it.
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const closedText =
    assignment.closed === "ASSIGNMENT_CLOSED" ? t("closedByTeacher") : assignment.closed === "ASSIGNMENT_DUE" ? t("wasDue") : null;
  return (
    <main className="mx-auto flex min-h-screen max-w-md flex-col justify-center px-5 py-8">
      <div className="mb-3 flex justify-end">
        <LanguageSwitch />
      </div>
      <form
        className="space-y-4"
        onSubmit={(e) => {
          e.preventDefault();
          setBusy(true);
          setError(null);
          callApi<StartedAssignment>(`/api/assignments/${encodeURIComponent(assignment.id)}/start`, { json: { nickname: name.trim() } })
            .then(onStarted)
            .catch((err: unknown) => setError(err))
            .finally(() => setBusy(false));
        }}
      >
        <p className="text-sm font-semibold uppercase tracking-widest text-sky-300">{t("kicker")}</p>
        {/* The teacher's own title, shown as written. */}
        <h1 className="text-3xl font-bold [overflow-wrap:anywhere]" translate="no">
          {assignment.title}
        </h1>
        <p className="text-slate-200">{t("summary", { steps: assignment.stepCount, polls: assignment.polls.length })}</p>
        {assignment.dueAt !== null && (
          <p className="text-slate-200" data-testid="selfpaced-due">
            <DueSentence dueAt={assignment.dueAt} />
          </p>
        )}
        {closedText ? (
          <p role="alert" className="rounded-lg bg-amber-900/60 p-3 text-amber-50">
            {closedText} {t("noNewAnswers")}
          </p>
        ) : (
          <>
            <label htmlFor="selfpaced-nickname" className="block text-lg font-medium">
              {common("nickname")}{" "}
              {assignment.requireNickname ? (
                <span className="font-normal text-slate-300">{t("nicknameAsked")}</span>
              ) : (
                <span className="font-normal text-slate-400">{common("optional")}</span>
              )}
            </label>
            <input
              id="selfpaced-nickname"
              value={name}
              maxLength={NICKNAME_MAX}
              required={assignment.requireNickname}
              onChange={(e) => setName(e.target.value)}
              autoComplete="nickname"
              className="w-full rounded-lg border border-slate-600 bg-slate-950 px-3 py-3 text-lg"
              data-testid="selfpaced-nickname"
            />
            {error !== null && (
              <p role="alert" className="text-rose-200">
                {errorText(error)}
              </p>
            )}
            <button
              type="submit"
              disabled={busy}
              data-testid="selfpaced-start"
              className="w-full rounded-lg bg-emerald-400 px-4 py-3 text-lg font-semibold text-slate-950 disabled:opacity-60"
            >
              {t("start")}
            </button>
          </>
        )}
      </form>
    </main>
  );
}
