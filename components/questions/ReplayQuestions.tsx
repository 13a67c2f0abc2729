import { useTranslations } from "next-intl";
import type { ReactNode } from "react";
import { byVotes, type ClassQuestion, type HostQuestion, type LessonNames } from "@/lib/session/questions";
import { LIFELINES } from "@/lib/lesson/card";
import { getScenario, isVariantOf } from "@/lib/lesson/scenarios";

/**
 * The questions as they stood at this moment of the replay: asked so far,
 * with their upvotes and status then. The teacher's replay has every
 * question (the teacher's projection); a shared link the class's records
 * only: those the class could see, with no asker on anonymous ones.
 */
export function ReplayQuestions({
  questions: asked,
  shownId,
  lesson,
}: {
  questions: readonly (ClassQuestion | HostQuestion)[];
  /** The question on the projector then. */
  shownId: string | null;
  lesson?: LessonNames;
}) {
  const t = useTranslations("replay");
  const questions = [...asked].sort(byVotes);
  return (
    <section className="rounded-xl border border-slate-700 bg-slate-900/70 p-4" aria-labelledby="replay-questions" aria-live="polite">
      <h2 id="replay-questions" className="text-lg font-semibold">
        {t("questions", { count: questions.length })}
      </h2>
      {questions.length === 0 ? (
        <p className="mt-2 text-slate-400">{t("noQuestions")}</p>
      ) : (
        <ul className="mt-2 space-y-2">
          {questions.map((q) => (
            <li
              key={q.id}
              className="rounded-lg border border-slate-700 p-2"
              data-testid="replay-question"
              data-question-id={q.id}
              data-votes={q.votes}
              data-status={hiddenFromClass(q) ? "hidden" : q.status}
            >
              <p className="text-sm text-slate-400">
                <About question={q} lesson={lesson} />
              </p>
              <p className="[overflow-wrap:anywhere]" translate="no">
                {q.text}
              </p>
              <p className="text-sm text-slate-300">
                ▲ {q.votes} · <Asker name={"anonymous" in q ? (q.anonymous ? null : (q.by ?? "?")) : (q.by ?? null)} /> ·{" "}
                {t("status", { status: hiddenFromClass(q) ? "hidden" : q.status })}
                {shownId === q.id ? ` ${t("onProjector")}` : ""}
              </p>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/**
 * What a question is about, as the console and the exports name it ("Step 5 · NODE CHOSEN, arrow"): the words around
 * it in the reader's language, the step's title and the lifeline's name as the lesson has them (the built-in lesson's
 * English, a teacher's as written).
 */
function About({ question: q, lesson }: { question: ClassQuestion | HostQuestion; lesson?: LessonNames }) {
  const t = useTranslations("replay");
  const index = q.target.stepIndex;
  const step = lesson ? lesson.steps[index] : isVariantOf(q.mode, q.variant) ? getScenario(q.mode, q.variant).steps[index] : undefined;
  const words = (chunks: ReactNode) => (lesson ? <span translate="no">{chunks}</span> : <span lang="en">{chunks}</span>);
  const stepName = step ? t.rich("stepTitled", { step: index + 1, title: step.title, lesson: words }) : t("stepOnly", { step: index + 1 });
  const target = q.target;
  const name =
    target.kind === "lifeline"
      ? ((lesson ? lesson.lifelines : LIFELINES).find((l) => l.id === target.lifeline)?.name ?? target.lifeline)
      : "";
  return <>{t.rich("about", { kind: target.kind, name, lesson: words, s: () => stepName })}</>;
}

/** Who asked: their nickname as they wrote it, or "Anonymous" in the reader's language. */
function Asker({ name }: { name: string | null }) {
  const t = useTranslations("replay");
  return name === null ? <>{t("anonymous")}</> : <span translate="no">{name}</span>;
}

/** A question the teacher hid, or whose asker was removed (only the teacher's records say so). */
function hiddenFromClass(q: ClassQuestion | HostQuestion): boolean {
  return "hidden" in q && (q.hidden || q.askerRemoved);
}
