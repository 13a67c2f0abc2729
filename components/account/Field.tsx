"use client";

import { useTranslations } from "next-intl";
import { useCallback } from "react";
import { AccountApiError } from "./api";
import { useAccountErrorText } from "./useAccountErrorText";

/** A refusal to show: its sentence, and the form field it is about (if any). */
export interface Problem {
  message: string;
  field?: string;
}

/** Turns a refusal into a Problem in the page's language (useAccountErrorText). */
export function useProblemOf(): (err: unknown) => Problem {
  const text = useAccountErrorText();
  const t = useTranslations("accountErrors");
  return useCallback(
    (err: unknown) =>
      err instanceof AccountApiError ? { message: text(err), field: err.field } : { message: t("fallback.somethingWrong") },
    [text, t],
  );
}

/**
 * Says a refusal out loud (role=alert). One about a field is shown beside the
 * field (Field's error), so here it is only announced, not shown twice.
 */
export function ProblemAlert({ problem }: { problem: Problem | null }) {
  return (
    <p role="alert" data-testid="account-error" className={problem?.field ? "sr-only" : "mt-3 text-rose-300 empty:mt-0"}>
      {problem?.message ?? ""}
    </p>
  );
}

/** A labelled input with its hint and its error, tied together for screen readers (aria-describedby, aria-invalid). */
export function Field({
  id,
  label,
  hint,
  error,
  ...input
}: {
  id: string;
  label: React.ReactNode;
  hint?: string;
  error?: string | null;
} & Omit<React.InputHTMLAttributes<HTMLInputElement>, "id">) {
  const described = [hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;
  return (
    <div className="mt-4">
      <label htmlFor={id} className="block font-medium">
        {label}
      </label>
      {hint && (
        <p id={`${id}-hint`} className="mt-1 text-sm text-slate-300">
          {hint}
        </p>
      )}
      <input
        id={id}
        {...input}
        aria-invalid={error ? true : undefined}
        aria-describedby={described}
        className="mt-2 w-full rounded-lg border border-slate-500 bg-slate-950 px-3 py-3 text-lg aria-[invalid=true]:border-rose-400"
      />
      {error && (
        <p id={`${id}-error`} className="mt-1 text-rose-300">
          {error}
        </p>
      )}
    </div>
  );
}

export const primaryButton =
  "mt-5 w-full rounded-lg bg-sky-400 px-4 py-3 text-lg font-semibold text-slate-950 hover:bg-sky-300 disabled:opacity-60";
export const secondaryButton =
  "w-full rounded-lg border border-slate-400 px-4 py-3 text-lg font-semibold text-slate-100 hover:bg-slate-800 disabled:opacity-60";
export const panel = "rounded-2xl border border-slate-700 bg-slate-900/70 p-6";
