"use client";

import { useState, type FormEvent } from "react";
import { postJson } from "./api";
import { Field, ProblemAlert, panel, problemOf, type Problem } from "./Field";

/** Deleting the account, confirmed by typing its email (a button alone is one slip away). */
export function DeleteAccount({ email }: { email: string }) {
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
        Delete your account
      </h2>
      <p className="mt-1 text-slate-300">
        This deletes the account, its password and passkeys, and signs out every browser, and with it your lessons and ended sessions (their
        replays and exports). What you shared with a co-teacher passes to them instead, and a session still running keeps running for its
        consoles until it ends. It cannot be undone.
      </p>
      <Field
        id="delete-confirm"
        label={`Type ${email} to confirm`}
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
        Delete my account
      </button>
      <ProblemAlert problem={problem} />
    </form>
  );
}
