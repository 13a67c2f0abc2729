"use client";

import { useTranslations } from "next-intl";
import { useState, type FormEvent } from "react";
import { postJson } from "./api";
import { Field, ProblemAlert, panel, useProblemOf, type Problem } from "./Field";

/** Deleting the account, confirmed by typing its email (a button alone is one slip away). */
export function DeleteAccount({ email }: { email: string }) {
  const t = useTranslations("account.delete");
  const problemOf = useProblemOf();
  const [confirm, setConfirm] = useState("");
  const [problem, setProblem] = useState<Problem | null>(null);

  async function remove(e: FormEvent) {
    e.preventDefault();
    setProblem(null);
    try {
      await postJson("/api/account/delete", { confirmEmail: confirm });
      window.location.assign("/?account=deleted");
    } catch (err) {
      setProblem(problemOf(err));
    }
  }

  return (
    <form onSubmit={(e) => void remove(e)} className={`${panel} border-rose-400/60`} aria-labelledby="delete-heading" noValidate>
      <h2 id="delete-heading" className="text-2xl font-semibold">
        {t("heading")}
      </h2>
      <p className="mt-1 text-slate-300">{t("explain")}</p>
      <Field
        id="delete-confirm"
        label={t.rich("confirm", { email: () => <span translate="no">{email}</span> })}
        type="email"
        autoComplete="off"
        value={confirm}
        onChange={(e) => setConfirm(e.target.value)}
        error={problem?.field === "confirmEmail" ? problem.message : null}
      />
      <button
        type="submit"
        data-testid="delete-account"
        className="mt-4 rounded-lg bg-rose-700 px-4 py-3 font-semibold text-white hover:bg-rose-800"
      >
        {t("submit")}
      </button>
      <ProblemAlert problem={problem} />
    </form>
  );
}
