import { useTranslations } from "next-intl";
import { usePollText } from "@/components/i18n/useScenario";
import type { PollOption } from "@/lib/session/types";
import type { PollResults } from "@/lib/session/views";

/**
 * Votes per option as bars, with the numbers in text: the chart has its own
 * text equivalent, so a screen reader gets the same information.
 */
export function TallyBars({
  options,
  results,
  correctOptionId,
  highlightId,
  large,
  notes,
  optionWords,
  testId = "poll-tally",
}: {
  options: PollOption[];
  results: PollResults;
  correctOptionId?: string | null;
  highlightId?: string | null;
  large?: boolean;
  /** Each option's explanation under its bar (once revealed, when the options carry one). */
  notes?: boolean;
  /** Whose words the options are (pollWords in components/projector/ProjectorView.tsx): a teacher's are never translated. */
  optionWords?: { lang?: string; translate?: "no" };
  testId?: string;
}) {
  const t = useTranslations("tally");
  // The built-in lesson's options and notes in the reader's language (marked English where untranslated); a
  // teacher's own words (translate="no") as written.
  const pollText = usePollText();
  const words = (text: string, kind: "option" | "note") => {
    if (optionWords?.translate === "no") return { text, attrs: optionWords };
    const localized = pollText[kind](text);
    return { text: localized.text, attrs: { lang: localized.lang } };
  };
  const max = Math.max(1, ...Object.values(results.counts));
  return (
    <div data-testid={testId} data-total={results.total} aria-label={t("results", { total: results.total })} role="group">
      <ul className="space-y-2">
        {options.map((o) => {
          const n = results.counts[o.id] ?? 0;
          const pct = results.total ? Math.round((n / results.total) * 100) : 0;
          const correct = correctOptionId === o.id;
          return (
            <li key={o.id} data-option-id={o.id} data-count={n} className={large ? "text-[1.05rem]" : ""}>
              <div className="flex items-baseline justify-between gap-3">
                <span className={`min-w-0 [overflow-wrap:anywhere] ${correct ? "font-bold text-emerald-200" : ""}`}>
                  {correct && <span aria-hidden="true">✓ </span>}
                  <span {...words(o.text, "option").attrs}>{words(o.text, "option").text}</span>
                  {correct && <span className="sr-only"> {t("correctAnswer")}</span>}
                  {highlightId === o.id && <span className="ms-2 rounded bg-sky-400/20 px-1.5 text-sm text-sky-200">{t("yourVote")}</span>}
                </span>
                <span className="shrink-0 tabular-nums text-slate-200">{t("count", { count: n, percent: pct })}</span>
              </div>
              <div className={`mt-1 overflow-hidden rounded bg-slate-800 ${large ? "h-5" : "h-3"}`} aria-hidden="true">
                <div className={`h-full rounded ${correct ? "bg-emerald-400" : "bg-sky-400"}`} style={{ width: `${(n / max) * 100}%` }} />
              </div>
              {notes && o.note && (
                <p
                  className={`mt-1 text-[0.9em] [overflow-wrap:anywhere] ${correct ? "text-emerald-200" : "text-slate-200"}`}
                  data-testid="poll-option-note"
                  {...words(o.note, "note").attrs}
                >
                  {words(o.note, "note").text}
                </p>
              )}
            </li>
          );
        })}
      </ul>
    </div>
  );
}
