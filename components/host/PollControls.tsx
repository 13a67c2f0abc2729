"use client";

import { useEffect, useRef, useState, type FormEvent } from "react";
import { useTranslations } from "next-intl";
import { POLL_DURATIONS_S, POLL_OPTION_MAX, POLL_QUESTION_MAX } from "@/lib/protocol/wire";
import type { HostSnapshot } from "@/lib/session/views";
import { useSend } from "@/components/live/LiveSession";
import { useLiveResults } from "@/components/poll/useLiveResults";
import { TallyBars } from "@/components/poll/TallyBars";
import { Countdown } from "@/components/poll/Countdown";
import { VoteProgress } from "@/components/poll/VoteProgress";
import { focusIfLost } from "./focus";
import { useErrorText } from "@/components/i18n/useErrorText";
import { usePollText } from "@/components/i18n/useScenario";

/** Whose words a poll's are: a teacher's are never translated, the built-in lesson's are English (as the projector's pollWords). */
function pollWords(poll: { kind: string }, custom: boolean): { lang?: string; translate?: "no" } {
  return poll.kind === "custom" || custom ? { translate: "no" } : { lang: "en" };
}

/** Open "what happens next?" or a custom poll, watch the tally, close, reveal, re-open. */
export function PollControls({
  snapshot,
  disabled,
  custom = false,
  showAnswer,
  onShowAnswer,
}: {
  snapshot: HostSnapshot;
  disabled?: boolean;
  /** A teacher's own lesson: its polls are the teacher's words, never translated. */
  custom?: boolean;
  /** The teacher's choice (remembered per browser, see useShowAnswer) to see the answer before the reveal. */
  showAnswer: boolean;
  onShowAnswer: (show: boolean) => void;
}) {
  const t = useTranslations("consolePoll");
  const words = usePollText();
  const send = useSend();
  const poll = snapshot.poll;
  const results = useLiveResults(poll, snapshot.rev);
  const [durationS, setDurationS] = useState(0);
  const [customOpen, setCustomOpen] = useState(false);
  const canOpen = !disabled && (!poll || poll.status !== "open");
  // The answer is on the console only when the teacher asks for it, or once the class has seen it.
  const answerShown = poll?.status === "revealed" || showAnswer;
  const closeRef = useRef<HTMLButtonElement>(null);
  const revealRef = useRef<HTMLButtonElement>(null);
  const openRef = useRef<HTMLButtonElement>(null);

  // The control just used is gone (open → close → reveal): focus goes to the next one, never to the page body.
  // Not on the first render: a reload keeps the teacher's place without pulling focus.
  const seen = useRef<string | null>(null);
  useEffect(() => {
    const key = poll ? `${poll.id}:${poll.round}:${poll.status}` : null;
    const first = seen.current === null;
    seen.current = key ?? "";
    if (!poll || first) return;
    if (poll.status === "open") focusIfLost(closeRef.current);
    else if (poll.status === "closed") focusIfLost(revealRef.current);
    else focusIfLost(document.getElementById("next-step"), openRef.current);
  }, [poll?.id, poll?.round, poll?.status]); // eslint-disable-line react-hooks/exhaustive-deps

  return (
    <section className="rounded-xl border border-slate-700 bg-slate-900/70 p-4" aria-labelledby="poll-heading" data-testid="poll-controls">
      <h2 id="poll-heading" className="text-lg font-semibold" tabIndex={-1}>
        {t("heading")}
      </h2>
      {canOpen && (
        <div className="mt-3 space-y-3">
          <div className="flex flex-wrap items-center gap-3">
            <button
              ref={openRef}
              id="poll-first"
              type="button"
              data-testid="poll-open"
              onClick={(e) => e.detail < 2 && void send("poll:open", { kind: "next-step", durationS })}
              className="rounded-lg bg-violet-400 px-4 py-3 font-semibold text-slate-950 hover:bg-violet-300"
            >
              {t("whatNext")}
            </button>
            <label className="flex items-center gap-2 text-sm">
              {t("timer")}
              <select
                value={durationS}
                onChange={(e) => setDurationS(Number(e.target.value))}
                className="rounded border border-slate-600 bg-slate-950 px-2 py-1.5"
                data-testid="poll-duration"
              >
                {POLL_DURATIONS_S.map((d) => (
                  <option key={d} value={d}>
                    {d === 0 ? t("noTimer") : t("seconds", { seconds: d })}
                  </option>
                ))}
              </select>
            </label>
          </div>
          <button
            type="button"
            onClick={() => setCustomOpen((v) => !v)}
            aria-expanded={customOpen}
            className="text-sm text-sky-300 underline"
          >
            {customOpen ? t("hideCustom") : t("askOwn")}
          </button>
          {customOpen && <CustomPollForm durationS={durationS} onDone={() => setCustomOpen(false)} />}
        </div>
      )}
      {poll && results && (
        <div className="mt-4 space-y-3" data-poll-id={poll.id} data-poll-status={poll.status}>
          <p className="font-semibold">
            {/* A teacher's own question is theirs, as written; the lesson's comes as the lesson gives it. */}
            {poll.kind === "custom" || custom ? (
              <span translate="no">{poll.question}</span>
            ) : (
              <span lang={words.question(poll.question).lang}>{words.question(poll.question).text}</span>
            )}
            {poll.round > 1 && <span className="ms-2 text-sm text-slate-400">{t("round", { round: poll.round })}</span>}
          </p>
          <div className="text-slate-300" aria-live="polite" data-testid="poll-voted">
            {poll.status === "open" ? (
              <div className="flex flex-wrap items-baseline gap-3">
                <VoteProgress voted={results.total} total={snapshot.participantCount} className="text-xl text-slate-100" />
                <Countdown closesAt={poll.closesAt} />
              </div>
            ) : poll.status === "closed" ? (
              t(snapshot.resultsVisible ? "closedSeen" : "closedUnseen", { votes: results.total })
            ) : (
              t("revealed")
            )}
          </div>
          {/* The actions first, under the count: they stay in view however long the options below grow. */}
          <div className="flex flex-wrap gap-2">
            {poll.status === "open" && !disabled && (
              <>
                <button
                  ref={closeRef}
                  type="button"
                  data-testid="poll-close"
                  onClick={(e) => e.detail < 2 && void send("poll:close", { pollId: poll.id })}
                  className="rounded-lg bg-amber-300 px-4 py-2 font-semibold text-slate-950"
                >
                  {t("close")}
                </button>
                <label className="flex items-center gap-2 text-sm">
                  <input
                    type="checkbox"
                    checked={snapshot.resultsVisible}
                    onChange={(e) => void send("results:show", { visible: e.target.checked })}
                    data-testid="poll-show-live"
                    className="h-5 w-5"
                  />
                  {t("showLive")}
                </label>
              </>
            )}
            {poll.status === "closed" && !disabled && (
              <button
                ref={revealRef}
                type="button"
                data-testid="poll-reveal"
                onClick={(e) => e.detail < 2 && void send("poll:reveal", { pollId: poll.id })}
                className="rounded-lg bg-emerald-400 px-4 py-2 font-semibold text-slate-950"
              >
                {t("reveal")}
              </button>
            )}
            {poll.status !== "open" && !disabled && (
              <button
                type="button"
                data-testid="poll-reopen"
                onClick={(e) => e.detail < 2 && void send("poll:reopen", { pollId: poll.id, durationS })}
                className="rounded-lg border border-slate-500 px-4 py-2 font-semibold hover:bg-slate-800"
              >
                {t("askAgain")}
              </button>
            )}
          </div>
          <TallyBars
            options={poll.options}
            results={results}
            correctOptionId={answerShown ? poll.correctOptionId : null}
            optionWords={pollWords(poll, custom)}
          />
          {poll.correctOptionId && poll.status !== "revealed" && (
            <label className="flex items-center gap-2 text-sm text-slate-200">
              <input
                type="checkbox"
                checked={showAnswer}
                onChange={(e) => onShowAnswer(e.target.checked)}
                data-testid="show-answer"
                className="h-5 w-5"
              />
              {t("showAnswer")}
            </label>
          )}
          {poll.history.length > 1 && <RoundShift poll={poll} answerShown={answerShown} custom={custom} />}
          {poll.status === "revealed" && poll.kind === "next-step" && <p className="text-sm text-slate-300">{t("pressNext")}</p>}
        </div>
      )}
    </section>
  );
}

/** First vote versus the latest, per option: did discussion move the class? */
function RoundShift({ poll, answerShown, custom }: { poll: NonNullable<HostSnapshot["poll"]>; answerShown: boolean; custom: boolean }) {
  const t = useTranslations("consolePoll");
  const first = poll.history[0];
  const last = poll.history[poll.history.length - 1];
  // Whole percents, as before: the share is rounded first, then the locale writes it ("42 %", "٤٢٪").
  const share = (n: number, total: number) => (total ? Math.round((n / total) * 100) / 100 : 0);
  return (
    <table className="w-full text-sm" data-testid="poll-shift">
      <caption className="text-start font-semibold text-slate-300">{t("shift", { round: last.round })}</caption>
      <thead>
        <tr className="text-start text-slate-400">
          <th scope="col" className="w-full pe-2 text-start">
            {t("option")}
          </th>
          <th scope="col" className="whitespace-nowrap px-2 text-end">
            {t("roundN", { round: 1 })}
          </th>
          <th scope="col" className="whitespace-nowrap ps-2 text-end">
            {t("roundN", { round: last.round })}
          </th>
        </tr>
      </thead>
      <tbody>
        {poll.options.map((o) => (
          <tr key={o.id} className={answerShown && o.id === poll.correctOptionId ? "text-emerald-200" : ""}>
            <td className="pe-2 [overflow-wrap:anywhere]" {...pollWords(poll, custom)}>
              {o.text}
            </td>
            <td className="px-2 text-end tabular-nums">{t("percent", { share: share(first.counts[o.id] ?? 0, first.total) })}</td>
            <td className="ps-2 text-end tabular-nums">{t("percent", { share: share(last.counts[o.id] ?? 0, last.total) })}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function CustomPollForm({ durationS, onDone }: { durationS: number; onDone: () => void }) {
  const t = useTranslations("consolePoll");
  const errorText = useErrorText();
  const send = useSend();
  const [question, setQuestion] = useState("");
  const [options, setOptions] = useState(["", ""]);
  const [correct, setCorrect] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);

  async function submit(e: FormEvent) {
    e.preventDefault();
    const filled = options.map((o) => o.trim());
    if (!question.trim() || filled.some((o) => !o)) {
      setError(t("fillIn"));
      return;
    }
    const ack = await send("poll:open", { kind: "custom", question, options: filled, correctIndex: correct, durationS });
    if (ack.ok) onDone();
    else setError(errorText(ack.error));
  }

  return (
    <form onSubmit={submit} className="space-y-2 rounded-lg border border-slate-700 p-3" data-testid="custom-poll-form">
      <label htmlFor="custom-question" className="block text-sm font-semibold">
        {t("question")}
      </label>
      <input
        id="custom-question"
        value={question}
        maxLength={POLL_QUESTION_MAX}
        onChange={(e) => setQuestion(e.target.value)}
        placeholder={t.markup("questionPlaceholder", { k8s: (chunks) => chunks })}
        className="w-full rounded border border-slate-600 bg-slate-950 px-2 py-2"
      />
      <fieldset>
        <legend className="text-sm font-semibold">{t("options")}</legend>
        {options.map((o, i) => (
          <div key={i} className="mt-2 flex items-center gap-2">
            <input
              type="radio"
              name="correct"
              checked={correct === i}
              onChange={() => setCorrect(i)}
              aria-label={t("optionCorrect", { n: i + 1 })}
              className="h-5 w-5"
            />
            <input
              value={o}
              maxLength={POLL_OPTION_MAX}
              onChange={(e) => setOptions(options.map((x, j) => (j === i ? e.target.value : x)))}
              aria-label={t("optionN", { n: i + 1 })}
              className="min-w-0 flex-1 rounded border border-slate-600 bg-slate-950 px-2 py-1.5"
            />
            {options.length > 2 && (
              <button
                type="button"
                onClick={() => {
                  setOptions(options.filter((_, j) => j !== i));
                  setCorrect(correct === i ? null : correct !== null && correct > i ? correct - 1 : correct);
                }}
                aria-label={t("removeOption", { n: i + 1 })}
                className="rounded px-2 text-rose-300"
              >
                ✕
              </button>
            )}
          </div>
        ))}
      </fieldset>
      <div className="flex flex-wrap gap-2">
        {options.length < 6 && (
          <button
            type="button"
            onClick={() => setOptions([...options, ""])}
            className="rounded border border-slate-500 px-3 py-1.5 text-sm"
          >
            {t("addOption")}
          </button>
        )}
        <button type="button" onClick={() => setCorrect(null)} className="rounded border border-slate-500 px-3 py-1.5 text-sm">
          {t("noRightAnswer")}
        </button>
        <button type="submit" className="rounded bg-violet-400 px-3 py-1.5 text-sm font-semibold text-slate-950">
          {t("openThis")}
        </button>
      </div>
      {error && (
        <p role="alert" className="text-sm text-rose-300">
          {error}
        </p>
      )}
    </form>
  );
}
