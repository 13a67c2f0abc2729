"use client";

import { useLocale, useTranslations } from "next-intl";
import { useEffect, useState, type FormEvent } from "react";
import type { AccountView } from "@/lib/account/rest";
import { del, postJson } from "./api";
import { Field, ProblemAlert, panel, secondaryButton, useProblemOf, type Problem } from "./Field";
import { addPasskey, passkeysAvailable } from "./passkey";
import { When } from "@/components/assignments/LessonWords";

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
  const t = useTranslations("account.credentials");
  const locale = useLocale();
  const day = (ms: number) => new Intl.DateTimeFormat(locale, { dateStyle: "medium" }).format(ms);
  const problemOf = useProblemOf();
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
      account.hasPassword ? t("passwordChanged") : t("passwordSet"),
    );
  }

  const fieldError = (field: string) => (problem?.field === field ? problem.message : null);
  return (
    <section className={panel} aria-labelledby="credentials-heading">
      <h2 id="credentials-heading" className="text-2xl font-semibold">
        {t("heading")}
      </h2>

      <h3 className="mt-5 text-lg font-semibold">{t("passkeys")}</h3>
      {account.passkeys.length === 0 ? (
        <p className="mt-1 text-slate-300">{t("none")}</p>
      ) : (
        <ul className="mt-2 grid gap-2">
          {account.passkeys.map((p, i) => (
            <li key={p.id} className="flex flex-wrap items-center justify-between gap-3 rounded-lg border border-slate-700 p-3">
              <span>
                {t.rich("passkey", {
                  n: i + 1,
                  added: () => <When at={p.createdAt}>{day(p.createdAt)}</When>,
                  used: p.lastUsedAt ? "yes" : "no",
                  lastUsed: () => (p.lastUsedAt ? <When at={p.lastUsedAt}>{day(p.lastUsedAt)}</When> : null),
                  synced: p.backedUp ? "yes" : "no",
                })}
              </span>
              <button
                type="button"
                onClick={() => void act(() => del(`/api/account/passkeys/${p.id}`), t("passkeyRemoved"))}
                className="rounded-lg border border-slate-500 px-3 py-2 font-semibold hover:bg-slate-800"
              >
                {t.rich("removePasskey", { n: i + 1, hidden: (chunks) => <span className="sr-only">{chunks}</span> })}
              </button>
            </li>
          ))}
        </ul>
      )}
      {canPasskey && (
        <button type="button" onClick={() => void act(addPasskey, t("passkeyAdded"))} className={`${secondaryButton} mt-3 md:w-auto`}>
          {t("addPasskey")}
        </button>
      )}

      {oidcEnabled && (
        <>
          <h3 className="mt-6 text-lg font-semibold">{t("school")}</h3>
          {account.hasOidc ? (
            <p className="mt-1 text-slate-200">{t("schoolLinked")}</p>
          ) : (
            <a href="/auth/oidc/start?link=1" className={`${secondaryButton} mt-2 inline-block w-auto`}>
              {t("linkSchool")}
            </a>
          )}
        </>
      )}

      <form onSubmit={savePassword} className="mt-6" aria-labelledby="password-form-heading" noValidate>
        <h3 id="password-form-heading" className="text-lg font-semibold">
          {account.hasPassword ? t("changeHeading") : t("setHeading")}
        </h3>
        {account.hasPassword && (
          <Field
            id="current-password"
            label={t("current")}
            type="password"
            autoComplete="current-password"
            value={current}
            onChange={(e) => setCurrent(e.target.value)}
            error={fieldError("currentPassword")}
          />
        )}
        <Field
          id="new-password"
          label={t("new")}
          hint={t("atLeast", { min: minLength })}
          type="password"
          autoComplete="new-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          error={fieldError("password")}
        />
        <button type="submit" className={`${secondaryButton} mt-4 md:w-auto`}>
          {account.hasPassword ? t("change") : t("set")}
        </button>
      </form>
      <p role="status" className="mt-3 text-emerald-300">
        {notice}
      </p>
      <ProblemAlert problem={problem} />
    </section>
  );
}
