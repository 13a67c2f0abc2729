"use client";

import { DeliberateSelect } from "@/components/host/DeliberateSelect";
import { useEffect, useRef, useState } from "react";
import { useTranslations } from "next-intl";
import { useCustomLesson } from "@/components/live/useLesson";
import { QUESTION_MODES, QUESTION_NAMES } from "@/lib/session/types";
import { groupQuestions, type HostQuestion } from "@/lib/session/questions";
import type { HostSnapshot } from "@/lib/session/views";
import { useLive, useSend } from "@/components/live/LiveSession";
import { useErrorText } from "@/components/i18n/useErrorText";
import { useDescribeTarget } from "@/components/i18n/useDescribeTarget";

/** How many students are looking back at an earlier step right now: a count, never who. */
export function LookingBackCount() {
  const t = useTranslations("hostQuestions");
  const count = useLive((s) => s.lookingBack);
  return (
    <p className="rounded-lg bg-slate-800 px-3 py-2 text-lg" aria-live="polite">
      {t.rich("lookingBack", {
        count,
        n: (chunks) => (
          <span data-testid="looking-back-count" data-count={count} className="font-bold tabular-nums">
            {chunks}
          </span>
        ),
      })}
    </p>
  );
}

/**
 * The teacher's questions: settings, then every question grouped by step
 * and element, most upvoted first, with approve, answered, hide and "show on
 * the projector". An anonymous question shows no name here either: the
 * console may be mirrored on the projector.
 */
export function HostQuestions({ snapshot, disabled }: { snapshot: HostSnapshot; disabled?: boolean }) {
  const t = useTranslations("hostQuestions");
  const send = useSend();
  const state = useLive((s) => s.questions);
  const lesson = useCustomLesson();
  const describeTarget = useDescribeTarget(lesson);
  const questions = state?.audience === "host" ? state.questions : [];
  const groups = groupQuestions(questions);
  const { mode, names, shownId } = snapshot.questions;
  const waiting = questions.filter((q) => q.status === "pending" && !q.hidden).length;
  return (
    <section
      className="rounded-xl border border-amber-300/50 bg-slate-900/70 p-4"
      aria-labelledby="host-questions-heading"
      data-testid="host-questions"
    >
      <h2 id="host-questions-heading" className="text-lg font-semibold" tabIndex={-1}>
        {waiting ? t("headingWaiting", { count: questions.length, waiting }) : t("heading", { count: questions.length })}
      </h2>
      <HidePending waiting={waiting} disabled={disabled} />
      <div className="mt-2 flex flex-wrap gap-3 text-sm">
        <label className="flex items-center gap-2">
          {t("mode")}
          <DeliberateSelect
            testId="questions-mode"
            value={mode}
            options={QUESTION_MODES}
            disabled={disabled}
            onApply={(chosen) => void send("questions:configure", { mode: chosen, names })}
            className="rounded border border-slate-600 bg-slate-950 px-2 py-1.5"
          >
            {QUESTION_MODES.map((m) => (
              <option key={m} value={m}>
                {t("modeOption", { mode: m })}
              </option>
            ))}
          </DeliberateSelect>
        </label>
        <label className="flex items-center gap-2">
          {t("names")}
          <DeliberateSelect
            testId="questions-names"
            value={names}
            options={QUESTION_NAMES}
            disabled={disabled}
            onApply={(chosen) => void send("questions:configure", { mode, names: chosen })}
            className="rounded border border-slate-600 bg-slate-950 px-2 py-1.5"
          >
            {QUESTION_NAMES.map((n) => (
              <option key={n} value={n}>
                {t("namesOption", { names: n })}
              </option>
            ))}
          </DeliberateSelect>
        </label>
      </div>
      {groups.length === 0 ? (
        <p className="mt-3 text-slate-400">{t("none")}</p>
      ) : (
        <div className="mt-3 space-y-3">
          {groups.map((group) => (
            <section key={group.key} aria-labelledby={`question-group-${group.key}`} data-testid="question-group">
              <h3 id={`question-group-${group.key}`} className="text-sm font-semibold uppercase tracking-wider text-amber-200">
                {describeTarget(group)}
              </h3>
              <ul className="mt-1 space-y-2">
                {group.questions.map((q) => (
                  <HostQuestionItem key={q.id} question={q} shown={shownId === q.id} disabled={disabled} />
                ))}
              </ul>
            </section>
          ))}
        </div>
      )}
    </section>
  );
}

/**
 * One action against a flood of questions waiting for approval (a script's
 * identities can send dozens a second): hide them all, and optionally stop
 * their askers asking again. It asks in place first, like ending the session:
 * focus moves to the first choice, Escape or Cancel puts it back, and the
 * outcome is said in a live region. Nothing the class saw changes.
 */
function HidePending({ waiting, disabled }: { waiting: number; disabled?: boolean }) {
  const t = useTranslations("hostQuestions");
  const errorText = useErrorText();
  const common = useTranslations("common");
  const send = useSend();
  const [asking, setAsking] = useState(false);
  const [said, setSaid] = useState("");
  const askRef = useRef<HTMLButtonElement>(null);
  const firstChoiceRef = useRef<HTMLButtonElement>(null);
  /** Where focus goes when the question closes: back to the button (Cancel), or to the heading once the button goes. */
  const returnTo = useRef<"button" | "heading" | null>(null);
  useEffect(() => {
    if (asking) firstChoiceRef.current?.focus();
    else if (returnTo.current) {
      // Once nothing waits the button is gone: the section's heading holds focus, never the page (Space steps the class).
      const target = returnTo.current === "button" ? askRef.current : document.getElementById("host-questions-heading");
      returnTo.current = null;
      target?.focus();
    }
  }, [asking]);
  const close = (to: "button" | "heading" = "button") => {
    returnTo.current = to;
    setAsking(false);
  };
  const hideAll = async (block: boolean) => {
    const count = waiting;
    close("heading");
    const ack = await send("question:hide", { allPending: true, block });
    if (!ack.ok) setSaid(errorText(ack.error));
    else setSaid(t(block ? "hiddenBlocked" : "hidden", { count }));
  };
  const button = "rounded-lg border px-2.5 py-1.5 text-sm font-semibold";
  return (
    <div>
      {!disabled && waiting > 0 && !asking && (
        <button
          ref={askRef}
          type="button"
          data-testid="questions-hide-pending"
          data-count={waiting}
          onClick={() => {
            setSaid("");
            setAsking(true);
          }}
          className={`${button} mt-2 border-rose-300 text-rose-100 hover:bg-rose-950`}
        >
          {t("hideAllWaiting", { count: waiting })}
        </button>
      )}
      {!disabled && asking && (
        <div
          role="group"
          aria-labelledby="hide-pending-question"
          className="mt-2 flex flex-wrap items-center gap-2 rounded-lg border border-rose-300/60 p-2"
          onKeyDown={(e) => {
            if (e.key === "Escape") {
              e.preventDefault();
              close();
            }
          }}
        >
          <p id="hide-pending-question" className="w-full text-sm font-semibold text-slate-100">
            {t("hideQuestion", { count: waiting })}
          </p>
          <button
            ref={firstChoiceRef}
            type="button"
            data-testid="questions-hide-pending-confirm"
            onClick={() => void hideAll(false)}
            className="rounded-lg bg-rose-300 px-3 py-1.5 text-sm font-semibold text-slate-950 hover:bg-rose-200"
          >
            {t("hideThem", { count: waiting })}
          </button>
          <button
            type="button"
            data-testid="questions-hide-pending-block"
            onClick={() => void hideAll(true)}
            className="rounded-lg bg-rose-300 px-3 py-1.5 text-sm font-semibold text-slate-950 hover:bg-rose-200"
          >
            {t("hideAndBlock", { count: waiting })}
          </button>
          <button
            type="button"
            data-testid="questions-hide-pending-cancel"
            onClick={() => close()}
            className="rounded-lg border border-slate-500 px-3 py-1.5 text-sm font-semibold hover:bg-slate-800"
          >
            {common("cancel")}
          </button>
        </div>
      )}
      {/* Always there, so a screen reader announces what is put in it; empty, it takes no room. */}
      <p
        role="status"
        aria-live="polite"
        className={`text-sm text-slate-300 ${said ? "mt-1" : ""}`}
        data-testid="questions-hide-pending-status"
      >
        {said}
      </p>
    </div>
  );
}

function HostQuestionItem({ question: q, shown, disabled }: { question: HostQuestion; shown: boolean; disabled?: boolean }) {
  const t = useTranslations("hostQuestions");
  const send = useSend();
  const visible = q.status !== "pending" && !q.hidden && !q.askerRemoved;
  const button = "rounded-lg border px-2.5 py-1.5 text-sm font-semibold disabled:opacity-40";
  return (
    <li
      className={`rounded-lg border p-2 ${shown ? "border-amber-300 bg-amber-950/30" : "border-slate-700"} ${visible ? "" : "opacity-75"}`}
      data-testid="question-item"
      data-question-id={q.id}
      data-votes={q.votes}
      data-status={q.hidden || q.askerRemoved ? "hidden" : q.status}
    >
      <div className="flex items-start justify-between gap-2">
        <p className="[overflow-wrap:anywhere]" translate="no">
          {q.text}
        </p>
        <span className="shrink-0 rounded-full bg-slate-800 px-2 font-bold tabular-nums" aria-label={t("upvotes", { votes: q.votes })}>
          {t("upvotesShort", { votes: q.votes })}
        </span>
      </div>
      {/* slate-300, not 400: a waiting or hidden question is drawn at 75 % opacity, and its line must still read at 4.5:1. */}
      <p className="text-sm text-slate-300">
        {q.anonymous ? t("anonymous") : <span translate="no">{q.by ?? "?"}</span>}
        {q.status === "pending" && !q.hidden && <span className="text-amber-200"> {t("waitingApproval")}</span>}
        {q.status === "answered" && <span className="text-emerald-200"> {t("answered")}</span>}
        {q.hidden && <span> {t("hiddenTag")}</span>}
        {q.askerBlocked && <span> {t("blockedTag")}</span>}
        {q.askerRemoved && <span> {t("removedTag")}</span>}
        {shown && <span className="text-amber-200"> {t("onProjector")}</span>}
      </p>
      {!disabled && (
        <div className="mt-1 flex flex-wrap gap-1.5">
          {q.status === "pending" && !q.hidden && (
            <button
              type="button"
              data-testid="question-approve"
              onClick={() => void send("question:approve", { questionId: q.id })}
              className={`${button} border-emerald-400 text-emerald-100`}
            >
              {t("approve")}
            </button>
          )}
          {q.status !== "pending" && (
            <button
              type="button"
              data-testid="question-answered"
              aria-pressed={q.status === "answered"}
              onClick={() => void send("question:answer", { questionId: q.id, answered: q.status !== "answered" })}
              className={`${button} border-slate-500`}
            >
              {q.status === "answered" ? t("isAnswered") : t("markAnswered")}
            </button>
          )}
          <button
            type="button"
            data-testid="question-show"
            aria-pressed={shown}
            disabled={!visible}
            onClick={() => void send("question:show", { questionId: shown ? null : q.id })}
            className={`${button} border-amber-300 text-amber-100`}
          >
            {shown ? t("takeOff") : t("show")}
          </button>
          <button
            type="button"
            data-testid="question-hide"
            aria-pressed={q.hidden}
            onClick={() => void send("question:hide", { questionId: q.id, hidden: !q.hidden })}
            className={`${button} border-slate-500`}
          >
            {q.hidden ? (q.askerBlocked ? t("unhideUnblock") : t("unhide")) : q.status === "pending" ? t("reject") : t("hide")}
          </button>
        </div>
      )}
    </li>
  );
}
