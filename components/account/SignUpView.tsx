"use client";

import { useTranslations } from "next-intl";
import { useEffect, useState, type FormEvent } from "react";
import { DISPLAY_NAME_MAX, EMAIL_MAX } from "@/lib/account/rest";
import { postJson } from "./api";
import { claimThisBrowser } from "./claim";
import { Field, ProblemAlert, panel, primaryButton, secondaryButton, useProblemOf, type Problem } from "./Field";
import { passkeysAvailable, signUpWithPasskey } from "./passkey";
import { useAccountCodeText } from "./useAccountErrorText";
import { useAccountState } from "./useAccountState";

/**
 * Create a teacher account: a name the classes see, an email, and a password
 * or a passkey. The first account on a server becomes its administrator, and
 * the page says so before it happens.
 */
export function SignUpView({ next }: { next: string }) {
  const t = useTranslations("account.signUp");
  const problemOf = useProblemOf();
  const codeText = useAccountCodeText();
  const [load] = useAccountState();
  const [displayName, setDisplayName] = useState("");
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<Problem | null>(null);
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
    void run(() => postJson("/api/account/sign-up", { email, displayName, password }));
  }

  function withPasskey() {
    // The same two fields name the account; the passkey replaces the password.
    if (!displayName.trim()) return setProblem({ field: "displayName", message: t("enterName") });
    if (!email.trim()) return setProblem({ field: "email", message: t("enterEmail") });
    void run(() => signUpWithPasskey(email, displayName));
  }

  if (load.status === "ready" && !load.state.signup.open) {
    return (
      <section className={`${panel} mt-6`} aria-labelledby="closed-heading">
        <h2 id="closed-heading" className="text-2xl font-semibold">
          {t("closed")}
        </h2>
        <p className="mt-2 text-slate-200">{codeText("SIGNUP_CLOSED")}</p>
        {load.state.oidc.enabled && (
          <a href={`/auth/oidc/start?next=${encodeURIComponent(next)}`} className={`${secondaryButton} mt-4 block text-center`}>
            {t("school")}
          </a>
        )}
      </section>
    );
  }

  const policy = load.status === "ready" ? load.state.password : { minLength: 10, maxLength: 256 };
  const fieldError = (field: string) => (problem?.field === field ? problem.message : null);
  return (
    <form onSubmit={submit} className={`${panel} mt-6 max-w-2xl`} aria-labelledby="signup-heading" noValidate>
      <h2 id="signup-heading" className="text-2xl font-semibold">
        {t("yourAccount")}
      </h2>
      {load.status === "ready" && load.state.signup.firstAccount && (
        <p className="mt-2 rounded-lg border border-amber-300/60 bg-amber-300/10 p-3 text-amber-100" data-testid="first-account-note">
          {t("first")}
        </p>
      )}
      <Field
        id="signup-name"
        label={t("name")}
        hint={t("nameHint")}
        name="displayName"
        autoComplete="name"
        required
        maxLength={DISPLAY_NAME_MAX}
        value={displayName}
        onChange={(e) => setDisplayName(e.target.value)}
        error={fieldError("displayName")}
      />
      <Field
        id="signup-email"
        label={t("email")}
        type="email"
        name="email"
        autoComplete="email"
        required
        maxLength={EMAIL_MAX}
        value={email}
        onChange={(e) => setEmail(e.target.value)}
        error={fieldError("email")}
      />
      <Field
        id="signup-password"
        label={t("password")}
        hint={t("passwordHint", { min: policy.minLength })}
        type="password"
        name="password"
        autoComplete="new-password"
        minLength={policy.minLength}
        maxLength={policy.maxLength}
        value={password}
        onChange={(e) => setPassword(e.target.value)}
        error={fieldError("password")}
      />
      <button type="submit" disabled={busy} data-testid="sign-up-submit" className={primaryButton}>
        {busy ? t("creating") : t("submit")}
      </button>
      {canPasskey && (
        <button type="button" disabled={busy} onClick={withPasskey} data-testid="sign-up-passkey" className={`${secondaryButton} mt-3`}>
          {t("withPasskey")}
        </button>
      )}
      <ProblemAlert problem={problem} />
      <p className="mt-4 text-slate-300">
        {t("haveAccount")}{" "}
        <a
          href={`/account/sign-in?next=${encodeURIComponent(next)}`}
          data-testid="sign-in"
          className="font-semibold text-sky-300 underline"
        >
          {t("signIn")}
        </a>
      </p>
    </form>
  );
}
