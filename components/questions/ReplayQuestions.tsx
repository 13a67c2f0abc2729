import { byVotes, describeTarget, hostQuestionList } from "@/lib/session/questions";
import type { SessionState } from "@/lib/session/types";
import { diagramOf } from "@/lib/session/lesson";

/**
 * The questions as they stood at this moment of the replay: asked so far,
 * with their upvotes and status then. A shared link's log holds only those
 * the class could see, with no asker on anonymous ones.
 */
export function ReplayQuestions({ state }: { state: SessionState }) {
  const questions = hostQuestionList(state).questions.sort(byVotes);
  const lesson = state.lesson ? diagramOf(state) : undefined;
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
              data-status={q.hidden || q.askerRemoved ? "hidden" : q.status}
            >
              <p className="text-sm text-slate-400">{describeTarget(q, lesson)}</p>
              <p className="[overflow-wrap:anywhere]">{q.text}</p>
              <p className="text-sm text-slate-300">
                ▲ {q.votes} · {q.anonymous ? "Anonymous" : (q.by ?? "?")} ·{" "}
                {q.hidden || q.askerRemoved ? "hidden" : q.status === "pending" ? "waiting for approval" : q.status}
                {state.shownQuestionId === q.id ? " · on the projector" : ""}
              </p>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
