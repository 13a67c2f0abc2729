"use client";

import { useId, useState, type FormEvent } from "react";
import type { CoteacherList, TeacherView } from "@/lib/account/ownership";
import { requestJson } from "./api";
import { problemOf, type Problem } from "./Field";

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
  /** What the invitation gives, as the owner reads it: "drive this class" or "edit this lesson". */
  what: string;
  onChange?: () => void;
}) {
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
      const added = reply.coteachers.find((t) => t.email === email.trim().toLowerCase());
      setNotice(`${added?.displayName ?? email} can ${what} now.`);
      setEmail("");
      onChange?.();
    } catch (err) {
      setProblem(problemOf(err));
    } finally {
      setBusy(false);
    }
  }

  async function remove(t: TeacherView) {
    setProblem(null);
    try {
      await requestJson(`${path}/${t.id}`, { method: "DELETE" });
      setList((prev) => prev.filter((x) => x.id !== t.id));
      setNotice(`${t.displayName} no longer has it.`);
      onChange?.();
    } catch (err) {
      setProblem(problemOf(err));
    }
  }

  return (
    <div className="mt-3 rounded-lg border border-slate-700 p-3">
      <h4 className="font-semibold">Co-teachers</h4>
      {list.length === 0 ? (
        <p className="text-sm text-slate-300">Nobody else yet.</p>
      ) : (
        <ul className="mt-1 space-y-1" data-testid="coteacher-list">
          {list.map((t) => (
            <li key={t.id} className="flex flex-wrap items-center gap-3" data-testid="coteacher" data-account-id={t.id}>
              <span>
                {t.displayName} <span className="text-sm text-slate-300">({t.email})</span>
              </span>
              <button type="button" onClick={() => void remove(t)} className="text-sm text-rose-200 underline">
                Remove<span className="sr-only"> {t.displayName}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      <form onSubmit={(e) => void invite(e)} data-testid="invite-coteacher" className="mt-2 flex flex-wrap items-end gap-2" noValidate>
        <div>
          <label htmlFor={`${id}-email`} className="block text-sm font-medium">
            Invite a teacher by the email of their account, to {what}
          </label>
          <input
            id={`${id}-email`}
            type="email"
            autoComplete="off"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            aria-invalid={problem ? true : undefined}
            aria-describedby={problem ? `${id}-problem` : undefined}
            className="mt-1 w-72 rounded-lg border border-slate-500 bg-slate-950 px-3 py-2"
          />
        </div>
        <button
          type="submit"
          disabled={busy || email.trim() === ""}
          className="rounded-lg bg-sky-400 px-4 py-2 font-semibold text-slate-950 disabled:opacity-60"
        >
          Invite
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
