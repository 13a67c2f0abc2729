import { byVotes, describeTarget, type ClassQuestion, type HostQuestion, type LessonNames } from "@/lib/session/questions";

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
  const questions = [...asked].sort(byVotes);
  return (
    <section className="rounded-xl border border-slate-700 bg-slate-900/70 p-4" aria-labelledby="replay-questions" aria-live="polite">
      <h2 id="replay-questions" className="text-lg font-semibold">
        Questions ({questions.length})
      </h2>
      {questions.length === 0 ? (
        <p className="mt-2 text-slate-400">No questions at this point.</p>
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
              <p className="text-sm text-slate-400">{describeTarget(q, lesson)}</p>
              <p className="[overflow-wrap:anywhere]">{q.text}</p>
              <p className="text-sm text-slate-300">
                ▲ {q.votes} · {"anonymous" in q ? (q.anonymous ? "Anonymous" : (q.by ?? "?")) : (q.by ?? "Anonymous")} ·{" "}
                {hiddenFromClass(q) ? "hidden" : q.status === "pending" ? "waiting for approval" : q.status}
                {shownId === q.id ? " · on the projector" : ""}
              </p>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** A question the teacher hid, or whose asker was removed (only the teacher's records say so). */
function hiddenFromClass(q: ClassQuestion | HostQuestion): boolean {
  return "hidden" in q && (q.hidden || q.askerRemoved);
}
