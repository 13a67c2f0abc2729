"use client";

import { useTranslations } from "next-intl";
import { useEffect, useRef } from "react";
import type { AnswerFeedback, PublicAssignment } from "@/lib/course/rest";
import { usePollText } from "@/components/i18n/useScenario";

/**
 * "What happens next?" on the student's own: the options as big buttons;
 * once answered, whether it was right and the note for the option chosen (the
 * misconception it stands for), and the right answer with why. The first
 * answer is the one that counts, so the options lock after it.
 */
export function SelfPacedPoll({
  poll,
  answer,
  disabled,
  onChoose,
}: {
  poll: PublicAssignment["polls"][number];
  answer: AnswerFeedback | undefined;
  disabled: boolean;
  onChoose: (optionId: string) => void;
}) {
  const t = useTranslations("selfPaced");
  const common = useTranslations("common");
  // The built-in lesson's polls come in English: in the reader's language where translated.
  const words = usePollText();
  const feedback = useRef<HTMLDivElement>(null);
  const answeredId = answer?.optionId;
  useEffect(() => {
    // The feedback is what the student reads next: take focus there (screen readers announce it too).
    if (answeredId) feedback.current?.focus({ preventScroll: false });
  }, [answeredId]);
  const verdict = answer ? (answer.correct === null ? t("recorded") : answer.correct ? t("right") : common("notQuite")) : null;
  return (
    <section
      aria-labelledby={`poll-${poll.id}`}
      className="rounded-2xl border-2 border-violet-400 bg-violet-950/40 p-4"
      data-testid="selfpaced-poll"
      data-poll-id={poll.id}
    >
      <h2 id={`poll-${poll.id}`} lang={words.question(poll.question).lang} className="text-xl font-bold">
        {words.question(poll.question).text}
      </h2>
      <div className="mt-3 grid gap-2" role="group" aria-label={t("answers")}>
        {poll.options.map((o) => {
          const chosen = answer?.optionId === o.id;
          const isRight = answer?.correctOptionId === o.id;
          const tone = !answer
            ? "border-slate-500 bg-slate-900 hover:border-violet-300"
            : isRight
              ? "border-emerald-300 bg-emerald-950"
              : chosen
                ? "border-rose-300 bg-rose-950"
                : "border-slate-700 bg-slate-900 opacity-70";
          return (
            <button
              key={o.id}
              type="button"
              data-testid="selfpaced-answer"
              data-option-id={o.id}
              aria-pressed={chosen}
              disabled={disabled || answer !== undefined}
              onClick={() => onChoose(o.id)}
              className={`min-h-12 rounded-xl border-2 px-4 py-3 text-start text-lg [overflow-wrap:anywhere] disabled:cursor-default ${tone}`}
            >
              <span lang={words.option(o.text).lang}>{words.option(o.text).text}</span>
              {answer && isRight && <span className="ms-2 font-semibold text-emerald-200">{t("rightAnswer")}</span>}
              {answer && chosen && !isRight && <span className="ms-2 font-semibold text-rose-200">{t("yourAnswer")}</span>}
            </button>
          );
        })}
      </div>
      {answer && (
        <div
          ref={feedback}
          tabIndex={-1}
          role="status"
          className="mt-4 space-y-2 outline-none focus-visible:ring-2 focus-visible:ring-sky-300"
          data-testid="selfpaced-feedback"
          data-correct={answer.correct === null ? "none" : String(answer.correct)}
        >
          <p className={`text-xl font-bold ${answer.correct === false ? "text-rose-200" : "text-emerald-200"}`}>{verdict}</p>
          {answer.note && (
            <p className="text-slate-100" lang={words.note(answer.note).lang}>
              {words.note(answer.note).text}
            </p>
          )}
          {answer.rightNote && (
            <p className="text-emerald-100" lang={words.note(answer.rightNote).lang}>
              {words.note(answer.rightNote).text}
            </p>
          )}
        </div>
      )}
    </section>
  );
}
