"use client";

import { useTranslations } from "next-intl";
import { useEffect, useState, type FormEvent } from "react";
import { postJson } from "./api";
import { claimThisBrowser } from "./claim";
import { Field, ProblemAlert, panel, primaryButton, secondaryButton, useProblemOf, type Problem } from "./Field";
import { passkeysAvailable, signInWithPasskey } from "./passkey";
import { useAccountCodeText } from "./useAccountErrorText";
import { useAccountState } from "./useAccountState";

/** Sign in with a password, a passkey, or the school's identity provider; then back to where the teacher was. */
export function SignInView({ next, errorCode }: { next: string; errorCode: string | null }) {
  const t = useTranslations("account.signIn");
  const problemOf = useProblemOf();
  const codeText = useAccountCodeText();
  const [load] = useAccountState();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<Problem | null>(() => {
    const message = codeText(errorCode);
    return message ? { message } : null;
  });
  const [canPasskey, setCanPasskey] = useState(false);
  useEffect(() => setCanPasskey(passkeysAvailable()), []);

  async function run(action: () => Promise<unknown>) {
    setBusy(true);
    setProblem(null);
    try {
      await action();
      // What this browser started before signing in (its keys) becomes the account's, to find on any browser.
      await claimThisBrowser();
      window.location.assign(next);
    } catch (err) {
      setProblem(problemOf(err));
      setBusy(false);
    }
  }

  function submit(e: FormEvent) {
    e.preventDefault();
    void run(() => postJson("/api/account/sign-in", { email, password }));
  }

  const state = load.status === "ready" ? load.state : null;
  const fieldError = (field: string) => (problem?.field === field ? problem.message : null);
  return (
    <div className="mt-6 grid gap-6 md:grid-cols-[3fr_2fr]">
      <form onSubmit={submit} className={panel} aria-labelledby="password-heading" noValidate>
        <h2 id="password-heading" className="text-2xl font-semibold">
          {t("withPassword")}
        </h2>
        {state?.account && (
          <p className="mt-2 text-slate-200">
            {t.rich("already", { name: () => <strong translate="no">{state.account?.displayName}</strong> })}{" "}
            <a href={next} className="text-sky-300 underline">
              {t("continue")}
            </a>
          </p>
        )}
        <Field
          id="signin-email"
          label={t("email")}
          type="email"
          name="email"
          autoComplete="username"
          required
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          error={fieldError("email")}
        />
        <Field
          id="signin-password"
          label={t("password")}
          type="password"
          name="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          error={fieldError("password")}
        />
        <button type="submit" disabled={busy} data-testid="sign-in-submit" className={primaryButton}>
          {busy ? t("signingIn") : t("submit")}
        </button>
        <ProblemAlert problem={problem} />
        <p className="mt-2 text-slate-300">
          {t("noAccount")}{" "}
          <a
            href={`/account/sign-up?next=${encodeURIComponent(next)}`}
            data-testid="sign-up"
            className="font-semibold text-sky-300 underline"
          >
            {t("signUp")}
          </a>
        </p>
      </form>
      <section className={panel} aria-labelledby="other-heading">
        <h2 id="other-heading" className="text-2xl font-semibold">
          {t("or")}
        </h2>
        <div className="mt-4 grid gap-3">
          {canPasskey ? (
            <button
              type="button"
              disabled={busy}
              onClick={() => void run(signInWithPasskey)}
              data-testid="sign-in-passkey"
              className={secondaryButton}
            >
              {t("passkey")}
            </button>
          ) : (
            <p className="text-sm text-slate-300">{t("noPasskeys")}</p>
          )}
          {state?.oidc.enabled && (
            <a
              href={`/auth/oidc/start?next=${encodeURIComponent(next)}`}
              data-testid="sign-in-oidc"
              className={`${secondaryButton} block text-center`}
            >
              {t("school")}
            </a>
          )}
        </div>
        <p className="mt-4 text-sm text-slate-300">{t("students")}</p>
      </section>
    </div>
  );
}
