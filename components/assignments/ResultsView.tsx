"use client";

import { useLocale, useTranslations } from "next-intl";
import { useEffect, useState } from "react";
import type { ResultsBody } from "@/lib/course/rest";
import type { PollResult } from "@/lib/course/results";
import { callApi } from "@/components/selfPaced/api";
import { useAssignmentErrorText } from "@/components/selfPaced/useSelfPacedText";
import { usePollText } from "@/components/i18n/useScenario";
import { LessonWords, When, useProseText, useShortDate } from "./LessonWords";

/**
 * Results across a course for one lesson: every live session and assignment
 * of it, per question the share of first answers that were right, each wrong
 * answer with the misconception it stands for (most chosen first), the gain
 * where the class answered twice, and per student the misconceptions they
 * chose. The teacher's alone: it names students.
 */
export function ResultsView({ lessonKey }: { lessonKey: string }) {
  const t = useTranslations("results");
  const errorText = useAssignmentErrorText();
  const shortDate = useShortDate();
  const words = useProseText();
  const pollText = usePollText();
  const [body, setBody] = useState<ResultsBody | null>(null);
  const [error, setError] = useState("");
  const path = `/api/results/${encodeURIComponent(lessonKey)}`;
  useEffect(() => {
    callApi<ResultsBody>(path)
      .then(setBody)
      .catch((err: unknown) => setError(errorText(err)));
  }, [path, errorText]);

  if (!body) {
    return (
      <div className="mt-4">
        <h1 className="text-3xl font-bold">{t("heading")}</h1>
        {error ? (
          <p role="alert" className="mt-4 text-lg text-rose-200">
            {error}
          </p>
        ) : (
          <p className="mt-4 text-slate-300">{t("loading")}</p>
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
        <h1 className="text-3xl font-bold [overflow-wrap:anywhere]">
          {t.rich("headingOf", { title: () => <LessonWords words={words(body.title)} /> })}
        </h1>
        <p
          className="mt-1 text-slate-300"
          data-testid="results-sources"
          data-sessions={results.sessions}
          data-assignments={results.assignments}
        >
          {t("sources", { sessions: results.sessions, assignments: results.assignments })}
        </p>
        <div className="mt-3 flex flex-wrap gap-3">
          <a
            href={`${path}/export?sheet=polls`}
            data-testid="results-export-polls"
            className="rounded-lg border border-slate-500 px-4 py-2 font-semibold hover:bg-slate-800"
          >
            {t("downloadPolls")}
          </a>
          <a
            href={`${path}/export?sheet=students`}
            data-testid="results-export-students"
            className="rounded-lg border border-slate-500 px-4 py-2 font-semibold hover:bg-slate-800"
          >
            {t("downloadStudents")}
          </a>
        </div>
      </div>
      {results.polls.length === 0 && <p className="text-lg">{t("noAnswers")}</p>}
      <section aria-labelledby="per-question" className={results.polls.length ? "" : "hidden"}>
        <h2 id="per-question" className="text-2xl font-bold">
          {t("perQuestion")}
        </h2>
        <ol className="mt-3 space-y-5">
          {answered.map((p) => (
            <PollResultCard key={p.key} poll={p} />
          ))}
        </ol>
        {unanswered.length > 0 && (
          <details className="mt-4 rounded-xl border border-slate-800 p-3">
            <summary className="cursor-pointer font-semibold">{t("unanswered", { count: unanswered.length })}</summary>
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
            {t("perStudent")}
          </h2>
          <p className="mt-1 text-slate-300">{t("matching")}</p>
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
                  {l.name ? <span translate="no">{l.name}</span> : t("noNickname")}{" "}
                  <span className="font-normal text-slate-300">{t("learnerRight", { right: l.right, answered: l.answered })}</span>
                </p>
                {l.misconceptions.length > 0 && (
                  <ul className="mt-1 list-disc space-y-1 ps-5 text-slate-200">
                    {l.misconceptions.map((m, i) => (
                      <li key={`${m.pollKey}-${m.source.id}-${i}`}>
                        {t.rich("chose", {
                          note: m.note ? "yes" : "no",
                          question: () => <LessonWords words={pollText.question(m.question)} />,
                          option: () => <LessonWords words={pollText.option(m.text)} />,
                          why: () => (m.note ? <LessonWords words={pollText.note(m.note)} /> : null),
                        })}{" "}
                        <span className="text-slate-400">
                          {t.rich("source", {
                            kind: m.source.kind === "session" ? "session" : "assignment",
                            titled: m.source.title ? "yes" : "no",
                            when: () => <When at={m.source.at}>{shortDate(m.source.at)}</When>,
                            title: () => <LessonWords words={words(m.source.title)} />,
                          })}
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
  const t = useTranslations("results");
  const locale = useLocale();
  const pollText = usePollText();
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
        <LessonWords words={pollText.question(poll.question)} />{" "}
        <span className="font-normal text-slate-300">{t("asked", { count: poll.asked })}</span>
      </h3>
      <p className="mt-1">
        {poll.firstAnswers === 0
          ? t("noFirstAnswers")
          : poll.hasAnswer
            ? t.rich("rightShare", {
                share: poll.rightShare ?? 0,
                count: poll.firstAnswers,
                named: right ? "yes" : "no",
                b: (chunks) => <strong>{chunks}</strong>,
                answer: () => (right ? <LessonWords words={pollText.option(right.text)} /> : null),
              })
            : t("noRightAnswer", { count: poll.firstAnswers })}
      </p>
      {r && (
        <p className="mt-1 text-emerald-200" data-testid="normalized-gain" data-gain={r.gain === null ? "" : r.gain.toFixed(3)}>
          {t("twice", {
            times: r.times,
            before: r.before.total ? r.before.right / r.before.total : 0,
            after: r.after.total ? r.after.right / r.after.total : 0,
            sign: r.shift >= 0 ? "+" : "−",
            points: Math.round(Math.abs(r.shift) * 100),
            hasGain: r.gain !== null ? "yes" : "no",
            gain:
              r.gain === null ? "" : new Intl.NumberFormat(locale, { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(r.gain),
          })}
        </p>
      )}
      {poll.hasAnswer && wrong.length > 0 && (
        <table className="mt-3 w-full text-start">
          <caption className="sr-only">{t("wrongCaption")}</caption>
          <thead className="text-sm text-slate-300">
            <tr>
              <th className="py-1 pe-3">{t("wrongAnswer")}</th>
              <th className="py-1 pe-3">{t("chosen")}</th>
              <th className="py-1">{t("misconception")}</th>
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
                <td className="py-2 pe-3 [overflow-wrap:anywhere]">
                  <LessonWords words={pollText.option(o.text)} />
                </td>
                <td className="py-2 pe-3 font-mono">{o.chosen}</td>
                <td className="py-2 text-slate-200">{o.note ? <LessonWords words={pollText.note(o.note)} /> : "—"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </li>
  );
}
