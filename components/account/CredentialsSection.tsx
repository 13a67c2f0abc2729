"use client";

import { useEffect, useState, type FormEvent } from "react";
import type { AccountView } from "@/lib/account/rest";
import { del, postJson } from "./api";
import { Field, ProblemAlert, panel, problemOf, secondaryButton, type Problem } from "./Field";
import { addPasskey, passkeysAvailable } from "./passkey";

const day = (ms: number) => new Date(ms).toLocaleDateString(undefined, { dateStyle: "medium" });

/** How the account signs in: its password, its passkeys, and whether school sign-in is linked. */
export function CredentialsSection({
  account,
  oidcEnabled,
  minLength,
  onChange,
}: {
  account: AccountView;
  oidcEnabled: boolean;
  minLength: number;
  onChange: () => Promise<void>;
}) {
  const [problem, setProblem] = useState<Problem | null>(null);
  const [notice, setNotice] = useState("");
  const [current, setCurrent] = useState("");
  const [password, setPassword] = useState("");
  const [canPasskey, setCanPasskey] = useState(false);
  useEffect(() => setCanPasskey(passkeysAvailable()), []);

  async function act(action: () => Promise<unknown>, done: string) {
    setProblem(null);
    setNotice("");
    try {
      await action();
      setNotice(done);
      await onChange();
    } catch (err) {
      setProblem(problemOf(err));
    }
  }

  function savePassword(e: FormEvent) {
    e.preventDefault();
    void act(
      async () => {
        await postJson("/api/account/password", { currentPassword: account.hasPassword ? current : undefined, password });
        setCurrent("");
        setPassword("");
      },
      account.hasPassword ? "Your password is changed." : "Your password is set.",
    );
  }

  const fieldError = (field: string) => (problem?.field === field ? problem.message : null);
  return (
    <section className={panel} aria-labelledby="credentials-heading">
      <h2 id="credentials-heading" className="text-2xl font-semibold">
        How you sign in
      </h2>

      <h3 className="mt-5 text-lg font-semibold">Passkeys</h3>
      {account.passkeys.length === 0 ? (
        <p className="mt-1 text-slate-300">None yet.</p>
      ) : (
        <ul className="mt-2 grid gap-2">
          {account.passkeys.map((p, i) => (
            <li key={p.id} className="flex flex-wrap items-center justify-between gap-3 rounded-lg border border-slate-700 p-3">
              <span>
                Passkey {i + 1}, added {day(p.createdAt)}
                {p.lastUsedAt ? `, last used ${day(p.lastUsedAt)}` : ", not used yet"}
                {p.backedUp ? " (synced between your devices)" : ""}
              </span>
              <button
                type="button"
                onClick={() => void act(() => del(`/api/account/passkeys/${p.id}`), "The passkey is removed.")}
                className="rounded-lg border border-slate-500 px-3 py-2 font-semibold hover:bg-slate-800"
              >
                Remove<span className="sr-only"> passkey {i + 1}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      {canPasskey && (
        <button type="button" onClick={() => void act(addPasskey, "The passkey is added.")} className={`${secondaryButton} mt-3 md:w-auto`}>
          Add a passkey on this device
        </button>
      )}

      {oidcEnabled && (
        <>
          <h3 className="mt-6 text-lg font-semibold">School account</h3>
          {account.hasOidc ? (
            <p className="mt-1 text-slate-200">Linked: you can sign in with your school account.</p>
          ) : (
            <a href="/auth/oidc/start?link=1" className={`${secondaryButton} mt-2 inline-block w-auto`}>
              Link your school account
            </a>
          )}
        </>
      )}

      <form onSubmit={savePassword} className="mt-6" aria-labelledby="password-form-heading" noValidate>
        <h3 id="password-form-heading" className="text-lg font-semibold">
          {account.hasPassword ? "Change your password" : "Set a password"}
        </h3>
        {account.hasPassword && (
          <Field
            id="current-password"
            label="Current password"
            type="password"
            autoComplete="current-password"
            value={current}
            onChange={(e) => setCurrent(e.target.value)}
            error={fieldError("currentPassword")}
          />
        )}
        <Field
          id="new-password"
          label="New password"
          hint={`At least ${minLength} characters.`}
          type="password"
          autoComplete="new-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          error={fieldError("password")}
        />
        <button type="submit" className={`${secondaryButton} mt-4 md:w-auto`}>
          {account.hasPassword ? "Change password" : "Set password"}
        </button>
      </form>
      <p role="status" className="mt-3 text-emerald-300">
        {notice}
      </p>
      <ProblemAlert problem={problem} />
    </section>
  );
}
