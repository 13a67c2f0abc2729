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
  testId = "poll-tally",
}: {
  options: PollOption[];
  results: PollResults;
  correctOptionId?: string | null;
  highlightId?: string | null;
  large?: boolean;
  /** Each option's explanation under its bar (once revealed, when the options carry one). */
  notes?: boolean;
  testId?: string;
}) {
  const max = Math.max(1, ...Object.values(results.counts));
  return (
    <div
      data-testid={testId}
      data-total={results.total}
      aria-label={`Results: ${results.total} ${results.total === 1 ? "vote" : "votes"}`}
      role="group"
    >
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
                  {o.text}
                  {correct && <span className="sr-only"> (correct answer)</span>}
                  {highlightId === o.id && <span className="ml-2 rounded bg-sky-400/20 px-1.5 text-sm text-sky-200">your vote</span>}
                </span>
                <span className="shrink-0 tabular-nums text-slate-200">
                  {n} · {pct}%
                </span>
              </div>
              <div className={`mt-1 overflow-hidden rounded bg-slate-800 ${large ? "h-5" : "h-3"}`} aria-hidden="true">
                <div className={`h-full rounded ${correct ? "bg-emerald-400" : "bg-sky-400"}`} style={{ width: `${(n / max) * 100}%` }} />
              </div>
              {notes && o.note && (
                <p
                  className={`mt-1 text-[0.9em] [overflow-wrap:anywhere] ${correct ? "text-emerald-200" : "text-slate-200"}`}
                  data-testid="poll-option-note"
                >
                  {o.note}
                </p>
              )}
            </li>
          );
        })}
      </ul>
    </div>
  );
}
