"use client";

import { useTranslations } from "next-intl";
import { useId, useState, type FormEvent } from "react";
import type { CoteacherList, TeacherView } from "@/lib/account/ownership";
import { requestJson } from "./api";
import { useProblemOf, type Problem } from "./Field";

/**
 * The teachers invited to a session (to drive its console) or a lesson (to
 * edit it), as its owner manages them: who they are, remove one, and invite
 * another account by email. `path` is `/api/sessions/{id}/coteachers` or
 * `/api/lessons/{id}/coteachers`.
 */
export function Coteachers({
  path,
  initial,
  what,
  onChange,
}: {
  path: string;
  initial: TeacherView[];
  /** What the invitation gives: to drive a session's class, or to edit and teach a lesson. */
  what: "session" | "lesson";
  onChange?: () => void;
}) {
  const t = useTranslations("account.coteachers");
  const problemOf = useProblemOf();
  const id = useId();
  const [list, setList] = useState(initial);
  const [email, setEmail] = useState("");
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [notice, setNotice] = useState("");

  async function invite(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setProblem(null);
    setNotice("");
    try {
      const reply = await requestJson<CoteacherList>(path, { method: "POST", body: { email } });
      setList(reply.coteachers);
      const added = reply.coteachers.find((c) => c.email === email.trim().toLowerCase());
      setNotice(t("added", { name: added?.displayName ?? email, what }));
      setEmail("");
      onChange?.();
    } catch (err) {
      setProblem(problemOf(err));
    } finally {
      setBusy(false);
    }
  }

  async function remove(teacher: TeacherView) {
    setProblem(null);
    try {
      await requestJson(`${path}/${teacher.id}`, { method: "DELETE" });
      setList((prev) => prev.filter((x) => x.id !== teacher.id));
      setNotice(t("removed", { name: teacher.displayName }));
      onChange?.();
    } catch (err) {
      setProblem(problemOf(err));
    }
  }

  return (
    <div className="mt-3 rounded-lg border border-slate-700 p-3">
      <h4 className="font-semibold">{t("heading")}</h4>
      {list.length === 0 ? (
        <p className="text-sm text-slate-300">{t("nobody")}</p>
      ) : (
        <ul className="mt-1 space-y-1" data-testid="coteacher-list">
          {list.map((c) => (
            <li key={c.id} className="flex flex-wrap items-center gap-3" data-testid="coteacher" data-account-id={c.id}>
              <span translate="no">
                {c.displayName} <span className="text-sm text-slate-300">({c.email})</span>
              </span>
              <button type="button" onClick={() => void remove(c)} className="text-sm text-rose-200 underline">
                {t.rich("remove", {
                  hidden: (chunks) => <span className="sr-only">{chunks}</span>,
                  name: () => <span translate="no">{c.displayName}</span>,
                })}
              </button>
            </li>
          ))}
        </ul>
      )}
      <form onSubmit={(e) => void invite(e)} data-testid="invite-coteacher" className="mt-2 flex flex-wrap items-end gap-2" noValidate>
        <div>
          <label htmlFor={`${id}-email`} className="block text-sm font-medium">
            {t("inviteLabel", { what })}
          </label>
          <input
            id={`${id}-email`}
            type="email"
            autoComplete="off"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            aria-invalid={problem ? true : undefined}
            aria-describedby={problem ? `${id}-problem` : undefined}
            className="mt-1 w-72 max-w-full rounded-lg border border-slate-500 bg-slate-950 px-3 py-2"
          />
        </div>
        <button
          type="submit"
          disabled={busy || email.trim() === ""}
          className="rounded-lg bg-sky-400 px-4 py-2 font-semibold text-slate-950 disabled:opacity-60"
        >
          {t("invite")}
        </button>
      </form>
      <p role="status" className="mt-1 text-sm text-emerald-300">
        {notice}
      </p>
      <p role="alert" id={`${id}-problem`} className="text-sm text-rose-300">
        {problem?.message ?? ""}
      </p>
    </div>
  );
}
