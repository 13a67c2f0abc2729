"use client";

import { useTranslations } from "next-intl";
import { useState } from "react";
import { AdminAccounts } from "./AdminAccounts";
import { postJson } from "./api";
import { CredentialsSection } from "./CredentialsSection";
import { DeleteAccount } from "./DeleteAccount";
import { panel } from "./Field";
import { SignInsSection } from "./SignInsSection";
import { useAccountCodeText, useAccountErrorText } from "./useAccountErrorText";
import { useAccountState } from "./useAccountState";

/** The signed-in teacher's account: who they are, how they sign in, where they are signed in, and deleting it. */
export function AccountPage({ linked, errorCode }: { linked: boolean; errorCode: string | null }) {
  const t = useTranslations("account.page");
  const errorText = useAccountErrorText();
  const [load, reload] = useAccountState();
  const [notice] = useState(() => (linked ? t("linked") : ""));
  const problem = useAccountCodeText()(errorCode);

  if (load.status === "loading") return <p className="mt-6 text-slate-300">{t("loading")}</p>;
  if (load.status !== "ready" || !load.state.account) {
    return (
      <section className={`${panel} mt-6 max-w-2xl`} aria-labelledby="signed-out-heading">
        <h2 id="signed-out-heading" className="text-2xl font-semibold">
          {t("notSignedIn")}
        </h2>
        {load.status === "error" && (
          <p role="alert" className="mt-2 text-rose-300">
            {errorText(load.error, "reach")}
          </p>
        )}
        <p className="mt-3 flex flex-wrap gap-4">
          <a href="/account/sign-in?next=/account" data-testid="sign-in" className="font-semibold text-sky-300 underline">
            {t("signIn")}
          </a>
          <a href="/account/sign-up?next=/account" data-testid="sign-up" className="font-semibold text-sky-300 underline">
            {t("signUp")}
          </a>
        </p>
      </section>
    );
  }

  const { account, oidc, password } = load.state;
  return (
    <div className="mt-6 grid grid-cols-1 gap-6 [&>*]:min-w-0">
      <section className={panel} aria-labelledby="who-heading" data-testid="account-menu" data-account={account.displayName}>
        <h2 id="who-heading" className="text-2xl font-semibold">
          <span translate="no">{account.displayName}</span>
          {account.admin && (
            <span className="ms-3 rounded bg-amber-300 px-2 py-0.5 align-middle text-sm font-bold text-slate-950">
              {t("administrator")}
            </span>
          )}
        </h2>
        <p className="mt-1 text-slate-300" translate="no">
          {account.email}
        </p>
        <p className="mt-3 flex flex-wrap gap-4">
          <a href="/lessons" className="font-semibold text-sky-300 underline">
            {t("lessons")}
          </a>
          <a href="/sessions" className="font-semibold text-sky-300 underline">
            {t("sessions")}
          </a>
        </p>
        <button
          type="button"
          data-testid="sign-out"
          onClick={() => void postJson("/api/account/sign-out").then(() => window.location.assign("/"), reload)}
          className="mt-4 rounded-lg border border-slate-400 px-4 py-2 font-semibold hover:bg-slate-800"
        >
          {t("signOut")}
        </button>
        <p role="status" className="mt-2 text-emerald-300">
          {notice}
        </p>
        {problem && (
          <p role="alert" className="mt-2 text-rose-300">
            {problem}
          </p>
        )}
      </section>
      <CredentialsSection account={account} oidcEnabled={oidc.enabled} minLength={password.minLength} onChange={reload} />
      <SignInsSection onSignedOut={reload} />
      {account.admin && <AdminAccounts />}
      <DeleteAccount email={account.email} />
    </div>
  );
}
