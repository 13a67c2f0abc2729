"use client";

import { useTranslations } from "next-intl";
import { useCustomLesson } from "@/components/live/useLesson";
import { useId, useRef, useState } from "react";
import { QUESTION_TEXT_MAX } from "@/lib/protocol/wire";
import { byVotes, targetKey, type ClassQuestion } from "@/lib/session/questions";
import type { QuestionStatus, QuestionTarget } from "@/lib/session/types";
import type { PublicSnapshot } from "@/lib/session/views";
import { useLive, useLiveActions, useSend } from "@/components/live/LiveSession";
import { useDescribeTarget } from "@/components/i18n/useDescribeTarget";
import { useErrorText } from "@/components/i18n/useErrorText";

/** What the student reads once a question is in (its key under `questions`): the class sees it now, or after the teacher approves it. */
export function askedReceipt(status: QuestionStatus): "receiptPending" | "receiptAsked" {
  return status === "pending" ? "receiptPending" : "receiptAsked";
}

/**
 * The student's questions: ask about the part of the diagram in focus (the
 * step being read until they tap something else), and see and upvote the
 * class's questions, most upvoted first; those about the part in focus
 * first of all.
 */
export function StudentQuestions({
  snapshot,
  target,
  onlyTarget,
  onShowAll,
  askingInPlace = false,
  onAskHere,
}: {
  snapshot: PublicSnapshot;
  target: QuestionTarget;
  /** The student tapped a part of the diagram: list only its questions. */
  onlyTarget: boolean;
  onShowAll: () => void;
  /** The ask box is open beside the tapped element: this section's form steps aside, so there is one form, where the student is looking. */
  askingInPlace?: boolean;
  /** The student opens this section's form: the box beside the element closes. */
  onAskHere?: () => void;
}) {
  const t = useTranslations("questions");
  const state = useLive((s) => s.questions);
  const lesson = useCustomLesson();
  const describeTarget = useDescribeTarget(lesson);
  const [open, setOpen] = useState(false);
  const [receipt, setReceipt] = useState<string | null>(null);
  const [wasInPlace, setWasInPlace] = useState(askingInPlace);
  const askButton = useRef<HTMLButtonElement>(null);
  // Adjusted while rendering, not in an effect: a form open here and one beside the element would both hold the hooks tests and screen readers find.
  if (askingInPlace !== wasInPlace) {
    setWasInPlace(askingInPlace);
    if (askingInPlace) {
      setOpen(false);
      setReceipt(null);
    }
  }
  const { mode } = snapshot.questions;
  if (mode === "off" || snapshot.status === "ended") return null;
  const here = { mode: snapshot.mode, variant: snapshot.variant, target };
  const key = targetKey(target);
  const mine = state?.audience === "public" ? state.mine : [];
  const myUpvotes = state?.audience === "public" ? state.myUpvotes : [];
  const all = state?.audience === "public" ? state.questions : [];
  const sameElement = (q: ClassQuestion) => q.mode === snapshot.mode && q.variant === snapshot.variant && targetKey(q.target) === key;
  const listed = (onlyTarget ? all.filter(sameElement) : [...all]).sort(
    (a, b) => Number(sameElement(b)) - Number(sameElement(a)) || byVotes(a, b),
  );
  // "Show all" only when it would show more: never "Show all 0 questions", never a button that changes nothing.
  const hidden = all.length - listed.length;

  return (
    <section
      className="rounded-2xl border border-amber-300/50 bg-slate-900/70 p-3"
      aria-labelledby="questions-heading"
      data-testid="student-questions"
    >
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 id="questions-heading" className="text-lg font-semibold">
          {t("heading")}
        </h2>
        {mode === "moderated" && <p className="text-sm text-slate-300">{t("moderated")}</p>}
      </div>
      <p className="mt-1 text-sm text-slate-300">
        {t.rich("howTo", {
          target: describeTarget(here),
          focus: (chunks) => (
            <span className="font-semibold text-sky-200" data-testid="question-target" data-element={key}>
              {chunks}
            </span>
          ),
        })}
      </p>
      {!open ? (
        <button
          ref={askButton}
          type="button"
          data-testid="ask-question"
          data-element={key}
          onClick={() => {
            onAskHere?.();
            setOpen(true);
            setReceipt(null);
          }}
          className="mt-2 w-full rounded-lg bg-amber-300 px-4 py-3 text-lg font-bold text-slate-950"
        >
          {t("askAbout", { kind: target.kind })}
        </button>
      ) : (
        <AskForm
          snapshot={snapshot}
          target={target}
          autoFocus
          className="mt-2"
          onSent={(status) => {
            setOpen(false);
            setReceipt(t(askedReceipt(status)));
            askButton.current?.focus();
          }}
          onCancel={() => setOpen(false)}
        />
      )}
      {receipt && (
        <p role="status" data-testid="question-receipt" data-kind="ok" className="mt-2 text-emerald-200">
          {receipt}
        </p>
      )}
      {onlyTarget && hidden > 0 && (
        <button
          type="button"
          onClick={onShowAll}
          className="mt-3 text-sm font-semibold text-sky-300 underline"
          data-testid="questions-show-all"
          data-count={all.length}
        >
          {t("showAll", { count: all.length })}
        </button>
      )}
      {listed.length > 0 ? (
        <ul className="mt-3 space-y-2" aria-label={onlyTarget ? t("listAbout", { target: describeTarget(here) }) : t("listAll")}>
          {listed.map((q) => (
            <StudentQuestionItem
              key={q.id}
              question={q}
              mine={mine.includes(q.id)}
              upvoted={myUpvotes.includes(q.id)}
              shown={snapshot.questions.shownId === q.id}
            />
          ))}
        </ul>
      ) : (
        <p className="mt-3 text-sm text-slate-400">{onlyTarget ? t("noneHere") : t("none")}</p>
      )}
    </section>
  );
}

/**
 * One question's text, name choice and send, under the room's rules (names
 * shown, anonymous, or the student's choice); a refusal (paused, limit
 * reached, questions off) stays in the form with the text kept. Used in the
 * Questions section and in the box beside a tapped element.
 */
export function AskForm({
  snapshot,
  target,
  onSent,
  onCancel,
  autoFocus = false,
  compact = false,
  className = "",
}: {
  snapshot: PublicSnapshot;
  target: QuestionTarget;
  onSent: (status: QuestionStatus) => void;
  onCancel: () => void;
  /** Off where the caller moves focus itself, after placing the form (focusing first would scroll to where it was drawn). */
  autoFocus?: boolean;
  compact?: boolean;
  className?: string;
}) {
  const t = useTranslations("questions");
  const common = useTranslations("common");
  const errorText = useErrorText();
  const send = useSend();
  const actions = useLiveActions();
  const describeTarget = useDescribeTarget(useCustomLesson());
  const [text, setText] = useState("");
  const [anonymous, setAnonymous] = useState(false);
  const [busy, setBusy] = useState(false);
  const [refusal, setRefusal] = useState<string | null>(null);
  const textId = useId();
  const { mode, names } = snapshot.questions;
  const here = { mode: snapshot.mode, variant: snapshot.variant, target };
  const willBeAnonymous = names === "anonymous" || (names === "either" && anonymous);

  async function submit() {
    setBusy(true);
    const ack = await send("question:ask", { text, target, anonymous: willBeAnonymous });
    setBusy(false);
    if (!ack.ok) return setRefusal(errorText(ack.error));
    actions.questionAsked(ack.data.questionId);
    setText("");
    setRefusal(null);
    onSent(ack.data.status);
  }

  return (
    <form
      className={`space-y-2 ${className}`}
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <label htmlFor={textId} className="block font-medium">
        {t("yourQuestion", { target: describeTarget(here) })}
      </label>
      <textarea
        id={textId}
        data-testid="question-text"
        value={text}
        maxLength={QUESTION_TEXT_MAX}
        rows={compact ? 2 : 3}
        autoFocus={autoFocus}
        onChange={(e) => setText(e.target.value)}
        className={`w-full rounded-lg border border-slate-600 bg-slate-950 px-3 py-2 ${compact ? "text-base" : "text-lg"}`}
      />
      <p className="text-sm text-slate-400">
        {text.length} / {QUESTION_TEXT_MAX}
      </p>
      {compact && mode === "moderated" && <p className="text-sm text-slate-300">{t("moderated")}</p>}
      {names === "either" && (
        <label className="flex items-center gap-2">
          <input type="checkbox" checked={anonymous} onChange={(e) => setAnonymous(e.target.checked)} data-testid="question-anonymous" />
          {t("askAnonymously")}
        </label>
      )}
      {names !== "either" && <p className="text-sm text-slate-300">{names === "anonymous" ? t("allAnonymous") : t("named")}</p>}
      {refusal && (
        <p role="alert" data-testid="question-receipt" data-kind="error" className="text-rose-200">
          {refusal}
        </p>
      )}
      <div className="flex gap-2">
        <button
          type="submit"
          data-testid="question-submit"
          disabled={busy || text.trim().length === 0}
          className={`flex-1 rounded-lg bg-amber-300 px-4 font-bold text-slate-950 disabled:opacity-50 ${compact ? "py-2" : "py-3"}`}
        >
          {t("ask")}
        </button>
        <button
          type="button"
          onClick={onCancel}
          className={`rounded-lg border border-slate-500 px-4 font-semibold ${compact ? "py-2" : "py-3"}`}
        >
          {common("cancel")}
        </button>
      </div>
    </form>
  );
}

function StudentQuestionItem({
  question: q,
  mine,
  upvoted,
  shown,
}: {
  question: ClassQuestion;
  mine: boolean;
  upvoted: boolean;
  shown: boolean;
}) {
  const t = useTranslations("questions");
  const errorText = useErrorText();
  const send = useSend();
  const actions = useLiveActions();
  const describeTarget = useDescribeTarget(useCustomLesson());
  const [error, setError] = useState<string | null>(null);
  const pending = q.status === "pending";
  return (
    <li
      className={`rounded-xl border p-2 ${shown ? "border-amber-300" : "border-slate-700"} ${q.status === "answered" ? "opacity-80" : ""}`}
      data-testid="question-item"
      data-question-id={q.id}
      data-votes={q.votes}
      data-status={q.status}
    >
      <p className="text-sm text-slate-400">
        {describeTarget(q)}
        {shown && <span className="ms-1 font-semibold text-amber-200">{t("onProjector")}</span>}
      </p>
      <p className="text-lg [overflow-wrap:anywhere]">{q.text}</p>
      <div className="mt-1 flex flex-wrap items-center justify-between gap-2">
        <p className="text-sm text-slate-300">
          {mine ? t("youAsked") : (q.by ?? t("anonymous"))}
          {pending && <span className="ms-1 text-amber-200">{t("waiting")}</span>}
          {q.status === "answered" && <span className="ms-1 text-emerald-200">{t("answered")}</span>}
        </p>
        {!pending && (
          <button
            type="button"
            data-testid="question-upvote"
            aria-pressed={upvoted}
            disabled={mine}
            aria-label={t(upvoted ? "takeBack" : "upvote", { votes: q.votes })}
            onClick={() =>
              void send("question:upvote", { questionId: q.id, upvoted: !upvoted }).then((ack) => {
                if (ack.ok) actions.myUpvote(ack.data);
                setError(ack.ok ? null : errorText(ack.error));
              })
            }
            className={`min-w-20 rounded-lg border-2 px-3 py-2 font-bold tabular-nums disabled:opacity-50 ${
              upvoted ? "border-amber-300 bg-amber-300 text-slate-950" : "border-slate-500 text-slate-100"
            }`}
          >
            ▲ {q.votes}
          </button>
        )}
      </div>
      {error && (
        <p role="alert" className="mt-1 text-sm text-rose-200">
          {error}
        </p>
      )}
    </li>
  );
}
