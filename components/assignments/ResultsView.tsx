"use client";

import { useEffect, useState } from "react";
import type { ResultsBody } from "@/lib/course/rest";
import type { PollResult } from "@/lib/course/results";
import { callApi, errorText } from "@/components/selfPaced/api";
import { shortDate } from "@/components/selfPaced/dates";

const pct = (x: number) => `${Math.round(x * 100)}%`;
const signedPoints = (x: number) => `${x >= 0 ? "+" : "−"}${Math.round(Math.abs(x) * 100)} points`;

/**
 * Results across a course for one lesson: every live session and assignment
 * of it, per question the share of first answers that were right, each wrong
 * answer with the misconception it stands for (most chosen first), the gain
 * where the class answered twice, and per student the misconceptions they
 * chose. The teacher's alone: it names students.
 */
export function ResultsView({ lessonKey }: { lessonKey: string }) {
  const [body, setBody] = useState<ResultsBody | null>(null);
  const [error, setError] = useState("");
  const path = `/api/results/${encodeURIComponent(lessonKey)}`;
  useEffect(() => {
    callApi<ResultsBody>(path)
      .then(setBody)
      .catch((err: unknown) => setError(errorText(err)));
  }, [path]);

  if (!body) {
    return (
      <div className="mt-4">
        <h1 className="text-3xl font-bold">Results</h1>
        {error ? (
          <p role="alert" className="mt-4 text-lg text-rose-200">
            {error}
          </p>
        ) : (
          <p className="mt-4 text-slate-300">Loading…</p>
        )}
      </div>
    );
  }
  const { results } = body;
  // Questions nobody has answered yet (an assignment asks at every step) fold away below the ones with answers.
  const answered = results.polls.filter((p) => p.firstAnswers > 0 || p.rounds);
  const unanswered = results.polls.filter((p) => !(p.firstAnswers > 0 || p.rounds));
  return (
    <div className="mt-4 space-y-8">
      <div>
        <h1 className="text-3xl font-bold [overflow-wrap:anywhere]">Results: {body.title}</h1>
        <p
          className="mt-1 text-slate-300"
          data-testid="results-sources"
          data-sessions={results.sessions}
          data-assignments={results.assignments}
        >
          From {results.sessions} live {results.sessions === 1 ? "session" : "sessions"} and {results.assignments}{" "}
          {results.assignments === 1 ? "assignment" : "assignments"}. A student&apos;s first answer counts: in class, the vote they left
          when the first round closed.
        </p>
        <div className="mt-3 flex flex-wrap gap-3">
          <a
            href={`${path}/export?sheet=polls`}
            data-testid="results-export-polls"
            className="rounded-lg border border-slate-500 px-4 py-2 font-semibold hover:bg-slate-800"
          >
            Download per question (CSV, no names)
          </a>
          <a
            href={`${path}/export?sheet=students`}
            data-testid="results-export-students"
            className="rounded-lg border border-slate-500 px-4 py-2 font-semibold hover:bg-slate-800"
          >
            Download per student (CSV)
          </a>
        </div>
      </div>
      {results.polls.length === 0 && <p className="text-lg">No answers yet: run a poll in class or make an assignment of this lesson.</p>}
      <section aria-labelledby="per-question" className={results.polls.length ? "" : "hidden"}>
        <h2 id="per-question" className="text-2xl font-bold">
          Per question
        </h2>
        <ol className="mt-3 space-y-5">
          {answered.map((p) => (
            <PollResultCard key={p.key} poll={p} />
          ))}
        </ol>
        {unanswered.length > 0 && (
          <details className="mt-4 rounded-xl border border-slate-800 p-3">
            <summary className="cursor-pointer font-semibold">
              {unanswered.length} {unanswered.length === 1 ? "question" : "questions"} not answered yet
            </summary>
            <ol className="mt-3 space-y-5">
              {unanswered.map((p) => (
                <PollResultCard key={p.key} poll={p} />
              ))}
            </ol>
          </details>
        )}
      </section>
      {results.learners.length > 0 && (
        <section aria-labelledby="per-student">
          <h2 id="per-student" className="text-2xl font-bold">
            Per student
          </h2>
          <p className="mt-1 text-slate-300">
            Students are matched by nickname across sessions and assignments. One without a nickname (or with the class's “Student N”, or a
            nickname two students used in the same class) is counted on their own each time.
          </p>
          <ul className="mt-3 space-y-3">
            {results.learners.map((l) => (
              <li
                key={l.learner}
                className="rounded-xl border border-slate-700 p-3"
                data-testid="learner-row"
                data-learner={l.name}
                data-wrong={l.misconceptions.length}
              >
                <p className="font-semibold [overflow-wrap:anywhere]">
                  {l.name || "(no nickname)"}{" "}
                  <span className="font-normal text-slate-300">
                    {l.right} of {l.answered} first answers right
                  </span>
                </p>
                {l.misconceptions.length > 0 && (
                  <ul className="mt-1 list-disc space-y-1 pl-5 text-slate-200">
                    {l.misconceptions.map((m, i) => (
                      <li key={`${m.pollKey}-${m.source.id}-${i}`}>
                        {m.question} Chose &ldquo;{m.text}&rdquo;{m.note ? `: ${m.note}` : ""}{" "}
                        <span className="text-slate-400">
                          ({m.source.kind === "session" ? "in class" : "assignment"}, {m.source.title || "untitled"},{" "}
                          {shortDate(m.source.at)})
                        </span>
                      </li>
                    ))}
                  </ul>
                )}
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}

function PollResultCard({ poll }: { poll: PollResult }) {
  const wrong = poll.options.filter((o) => !o.correct);
  const right = poll.options.find((o) => o.correct);
  const r = poll.rounds;
  return (
    <li
      className="rounded-xl border border-slate-700 p-4"
      data-testid="poll-result"
      data-poll={poll.key}
      data-first-answers={poll.firstAnswers}
      data-right={poll.right}
    >
      <h3 className="text-lg font-semibold">
        {poll.question}{" "}
        <span className="font-normal text-slate-300">
          (asked {poll.asked} {poll.asked === 1 ? "time" : "times"})
        </span>
      </h3>
      <p className="mt-1">
        {poll.firstAnswers === 0 ? (
          "No first answers yet."
        ) : poll.hasAnswer ? (
          <>
            <strong>{pct(poll.rightShare ?? 0)}</strong> of {poll.firstAnswers} first answers right
            {right ? <> (&ldquo;{right.text}&rdquo;)</> : null}
          </>
        ) : (
          `${poll.firstAnswers} first answers (no right answer set)`
        )}
      </p>
      {r && (
        <p className="mt-1 text-emerald-200" data-testid="normalized-gain" data-gain={r.gain === null ? "" : r.gain.toFixed(3)}>
          Answered twice in class ({r.times}×): {pct(r.before.total ? r.before.right / r.before.total : 0)} right before discussion,{" "}
          {pct(r.after.total ? r.after.right / r.after.total : 0)} after ({signedPoints(r.shift)})
          {r.gain !== null ? `; normalized gain ${r.gain.toFixed(2)}` : ""}.
        </p>
      )}
      {poll.hasAnswer && wrong.length > 0 && (
        <table className="mt-3 w-full text-left">
          <caption className="sr-only">Wrong answers to this question, most chosen first</caption>
          <thead className="text-sm text-slate-300">
            <tr>
              <th className="py-1 pr-3">Wrong answer</th>
              <th className="py-1 pr-3">Chosen</th>
              <th className="py-1">The misconception</th>
            </tr>
          </thead>
          <tbody>
            {wrong.map((o) => (
              <tr
                key={o.text}
                className="border-t border-slate-800 align-top"
                data-testid="misconception-row"
                data-poll={poll.key}
                data-chosen={o.chosen}
                data-option={o.text}
              >
                <td className="py-2 pr-3 [overflow-wrap:anywhere]">{o.text}</td>
                <td className="py-2 pr-3 font-mono">{o.chosen}</td>
                <td className="py-2 text-slate-200">{o.note ?? "—"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </li>
  );
}
