"use client";

import { useEffect, useId, useRef, useState, type ReactNode } from "react";
import { useTranslations } from "next-intl";

/**
 * A button for an action that cannot be taken back by accident (end the
 * session, remove a student): the first press asks, in place, and moves focus
 * to the confirming button; Cancel or Escape puts focus back on the button
 * that asked. No browser dialog: nothing modal, and focus never falls to the
 * page, where Space would step the whole class.
 */
export function ConfirmButton({
  children,
  question,
  confirmLabel,
  onConfirm,
  testId,
  className,
  confirmClassName = "rounded-lg bg-rose-300 px-3 py-1.5 font-semibold text-slate-950 hover:bg-rose-200",
}: {
  /** The button's text (and so its name: a student's nickname inside it can be marked as theirs). */
  children: ReactNode;
  /** Asked beside the buttons, and the name of the group they are in: "End this session for everyone?" */
  question: ReactNode;
  confirmLabel: string;
  onConfirm: () => void;
  testId: string;
  className: string;
  confirmClassName?: string;
}) {
  const questionId = useId();
  const common = useTranslations("common");
  const [asking, setAsking] = useState(false);
  const confirmRef = useRef<HTMLButtonElement>(null);
  const askRef = useRef<HTMLButtonElement>(null);
  const returning = useRef(false);
  useEffect(() => {
    if (asking) confirmRef.current?.focus();
    else if (returning.current) {
      returning.current = false;
      askRef.current?.focus();
    }
  }, [asking]);
  const cancel = () => {
    returning.current = true;
    setAsking(false);
  };
  if (!asking)
    return (
      <button ref={askRef} type="button" data-testid={testId} onClick={() => setAsking(true)} className={className}>
        {children}
      </button>
    );
  return (
    <span
      role="group"
      aria-labelledby={questionId}
      className="inline-flex flex-wrap items-center gap-2"
      onKeyDown={(e) => {
        if (e.key === "Escape") {
          e.preventDefault();
          cancel();
        }
      }}
    >
      <span id={questionId} className="text-sm font-semibold text-slate-100">
        {question}
      </span>
      <button
        ref={confirmRef}
        type="button"
        data-testid={`${testId}-confirm`}
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
        className={confirmClassName}
      >
        {confirmLabel}
      </button>
      <button
        type="button"
        data-testid={`${testId}-cancel`}
        onClick={cancel}
        className="rounded-lg border border-slate-500 px-3 py-1.5 font-semibold hover:bg-slate-800"
      >
        {common("cancel")}
      </button>
    </span>
  );
}
