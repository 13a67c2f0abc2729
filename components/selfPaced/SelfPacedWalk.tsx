"use client";

import { useTranslations } from "next-intl";
import { useMemo, useState } from "react";
import type { AnsweredPoll, PublicAssignment, StudentProgressView } from "@/lib/course/rest";
import { builtInDiagram, customDiagram } from "@/lib/lesson/model";
import { getScenario } from "@/lib/lesson/scenarios";
import { LanguageSwitch } from "@/components/i18n/LanguageSwitch";
import { useLocalizedScenario } from "@/components/i18n/useScenario";
import { SequenceDiagram } from "@/components/diagram/SequenceDiagram";
import { StepTrail } from "@/components/diagram/StepTrail";
import { ModeBadge, StepHeader } from "@/components/classroom/StepHeader";
import { FidelityNotes } from "@/components/classroom/FidelityNotes";
import { LabLink } from "@/components/classroom/LabLink";
import { StudentLessonPanels } from "@/components/lessonPanels/LazyPanels";
import { callApi } from "./api";
import { SelfPacedPoll } from "./SelfPacedPoll";
import { useAssignmentErrorText } from "./useSelfPacedText";
import { DueSentence } from "./DueSentence";

/**
 * The walk: the diagram at the student's step with its narration, the
 * object inspector and panels as in class, Back and Next. Where the class
 * was asked "what happens next?", the student answers before going on.
 */
export function SelfPacedWalk({
  assignment,
  token,
  initial,
}: {
  assignment: PublicAssignment;
  token: string;
  initial: StudentProgressView;
}) {
  const t = useTranslations("selfPaced");
  const common = useTranslations("common");
  const errorText = useAssignmentErrorText();
  const [progress, setProgress] = useState(initial);
  const [busy, setBusy] = useState(false);
  // The refusal itself, put into words when shown: a language switch re-words it.
  const [error, setError] = useState<unknown>(null);
  // The built-in lesson's prose in the reader's language where translated (English, marked so, where not);
  // a teacher's lesson is in the teacher's language.
  const localized = useLocalizedScenario(getScenario(assignment.mode, assignment.variant, assignment.kubeVersion));
  const scenario = localized.scenario;
  const custom = assignment.lesson !== null;
  const lessonLang = custom ? undefined : (localized.lang ?? "en");
  const diagram = useMemo(
    () => (assignment.lesson ? customDiagram(assignment.lesson.lesson) : builtInDiagram(scenario)),
    [assignment.lesson, scenario],
  );
  const step = progress.stepIndex;
  const last = assignment.stepCount - 1;
  const poll = assignment.polls.find((p) => p.stepIndex === step);
  const answer = poll ? progress.answers.find((a) => a.pollId === poll.id) : undefined;
  const blocked = poll !== undefined && answer === undefined;
  const closed = assignment.closed !== null;
  const ahead = step + 1 <= progress.furthestStep;
  const path = `/api/assignments/${encodeURIComponent(assignment.id)}`;

  async function go(stepIndex: number) {
    setBusy(true);
    setError(null);
    try {
      setProgress(await callApi<StudentProgressView>(`${path}/progress`, { json: { stepIndex }, token }));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  async function choose(pollId: string, optionId: string) {
    setBusy(true);
    setError(null);
    try {
      const answered = await callApi<AnsweredPoll>(`${path}/answer`, { json: { pollId, optionId }, token });
      setProgress(answered.progress);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  const right = progress.answers.filter((a) => a.correct === true).length;
  const marked = progress.answers.filter((a) => a.correct !== null).length;
  const nextBlockedReason = blocked ? (closed ? t("blockedClosed") : t("answerFirst")) : null;

  return (
    <main className="mx-auto max-w-5xl space-y-4 px-3 py-3 sm:px-5">
      <header className="flex flex-wrap items-center justify-between gap-2">
        <h1 className="min-w-0 text-lg font-bold [overflow-wrap:anywhere]" translate="no">
          {assignment.title}
        </h1>
        <div className="flex flex-wrap items-center gap-2">
          <p className="text-sm text-slate-300" data-testid="selfpaced-due">
            {progress.nickname && <span translate="no">{progress.nickname}</span>}
            {progress.nickname ? " · " : ""}
            {assignment.dueAt !== null ? <DueSentence dueAt={assignment.dueAt} /> : t("ownPace")}
          </p>
          <LanguageSwitch />
        </div>
      </header>
      {closed && (
        <p role="status" className="rounded-lg bg-amber-900/60 p-3 text-amber-50" data-testid="selfpaced-closed">
          {assignment.closed === "ASSIGNMENT_CLOSED" ? t("closedBanner") : t("dueBanner")}
        </p>
      )}
      {progress.finished && (
        <p role="status" className="rounded-lg bg-emerald-900/60 p-3 text-emerald-50" data-testid="selfpaced-finished">
          {marked > 0 ? t("finishedScore", { right, marked }) : t("finished")}
        </p>
      )}
      {!custom && <ModeBadge mode={assignment.mode} scenario={scenario} version={assignment.kubeVersion} />}
      <div data-testid="selfpaced-step" data-step={step + 1} data-total={assignment.stepCount}>
        <StepHeader
          scenario={diagram}
          snapshot={{ stepIndex: step }}
          lessonLang={custom ? undefined : localized.langOf(diagram.steps[step]?.narration)}
          captionLang={custom ? undefined : "en"}
        />
      </div>
      <section aria-label={common("diagram")} className="rounded-2xl border border-slate-800 bg-slate-950/60 p-2">
        {/* The lesson's left-to-right order in every language: lifelines never swap sides. */}
        <div dir="ltr" lang={lessonLang} className="sm:hidden">
          <StepTrail scenario={diagram} stepIndex={step} captionLang={custom ? undefined : "en"} />
        </div>
        <div dir="ltr" lang={lessonLang} className="hidden sm:block">
          <SequenceDiagram scenario={diagram} stepIndex={step} className="h-auto w-full" />
        </div>
      </section>
      {poll && (
        <SelfPacedPoll key={poll.id} poll={poll} answer={answer} disabled={busy || closed} onChoose={(o) => void choose(poll.id, o)} />
      )}
      {error !== null && (
        <p role="alert" className="rounded-lg bg-rose-950 p-3 text-rose-100">
          {errorText(error)}
        </p>
      )}
      <nav aria-label={t("steps")} className="sticky bottom-0 z-10 flex items-center gap-3 bg-slate-950/95 py-3">
        <button
          type="button"
          data-testid="selfpaced-prev"
          disabled={busy || step === 0}
          onClick={() => void go(step - 1)}
          className="min-h-12 rounded-xl border border-slate-500 px-5 text-lg font-semibold disabled:opacity-40"
        >
          {t("back")}
        </button>
        <button
          type="button"
          data-testid="selfpaced-next"
          disabled={busy || step >= last || blocked || (closed && !ahead)}
          aria-describedby={nextBlockedReason ? "selfpaced-next-why" : undefined}
          onClick={() => void go(step + 1)}
          className="min-h-12 flex-1 rounded-xl bg-sky-300 px-5 text-lg font-bold text-slate-950 disabled:opacity-40"
        >
          {step >= last ? t("lastStep") : t("next")}
        </button>
      </nav>
      {nextBlockedReason && (
        <p id="selfpaced-next-why" className="text-slate-300">
          {nextBlockedReason}
        </p>
      )}
      {!custom && <StudentLessonPanels scenario={scenario} stepIndex={step} />}
      {!custom && <FidelityNotes version={assignment.kubeVersion} />}
      {!custom && <LabLink mode={assignment.mode} variant={assignment.variant} version={assignment.kubeVersion} />}
    </main>
  );
}
