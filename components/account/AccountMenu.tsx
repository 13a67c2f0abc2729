"use client";

import { useTranslations } from "next-intl";
import { useState } from "react";
import { LanguageSwitch } from "@/components/i18n/LanguageSwitch";
import { postJson } from "./api";
import { useAccountErrorText } from "./useAccountErrorText";
import { useAccountState } from "./useAccountState";

/**
 * The account controls at the top of a page: "Sign in" and "Create an
 * account" for a visitor, the teacher's name (their account page) and "Sign
 * out" once signed in. Students never need any of it; the join form works the
 * same either way.
 */
export function AccountMenu({ here = "/", languageSwitch = false }: { here?: string; languageSwitch?: boolean }) {
  const t = useTranslations("account.menu");
  const errorText = useAccountErrorText();
  const [load, reload] = useAccountState();
  const [notice, setNotice] = useState("");
  const next = encodeURIComponent(here);
  const link = "rounded-lg px-3 py-2 font-semibold text-sky-200 underline-offset-4 hover:underline";

  async function signOut() {
    try {
      await postJson("/api/account/sign-out");
      setNotice(t("signedOut"));
    } catch (err) {
      setNotice(errorText(err, "signOut"));
    }
    await reload();
  }

  let body: React.ReactNode = null;
  if (load.status === "ready" && load.state.account) {
    const { displayName, admin } = load.state.account;
    body = (
      <nav aria-label={t("yours")} data-testid="account-menu" data-account={displayName} className="flex flex-wrap items-center gap-2">
        <a href="/account" className={link}>
          {t.rich("signedInAs", {
            hidden: (chunks) => <span className="sr-only">{chunks}</span>,
            name: () => <span translate="no">{displayName}</span>,
          })}
          {admin && <span className="ms-2 rounded bg-amber-300 px-1.5 py-0.5 text-xs font-bold text-slate-950">{t("admin")}</span>}
        </a>
        <a href="/assignments" className={link}>
          {t("assignments")}
        </a>
        <a href="/results/builtin" className={link}>
          {t("results")}
        </a>
        <button
          type="button"
          onClick={() => void signOut()}
          data-testid="sign-out"
          className="rounded-lg border border-slate-500 px-3 py-2 font-semibold text-slate-100 hover:bg-slate-800"
        >
          {t("signOut")}
        </button>
      </nav>
    );
  } else if (load.status === "ready") {
    body = (
      <nav aria-label={t("teacherAccount")} className="flex flex-wrap items-center gap-2">
        <a href={`/account/sign-in?next=${next}`} data-testid="sign-in" className={link}>
          {t("signIn")}
        </a>
        <a
          href={`/account/sign-up?next=${next}`}
          data-testid="sign-up"
          className="rounded-lg border border-sky-300 px-3 py-2 font-semibold text-sky-200 hover:bg-slate-800"
        >
          {t("signUp")}
        </a>
      </nav>
    );
  }
  return (
    <div className="flex min-h-11 flex-wrap items-center justify-end gap-3">
      <p role="status" className="text-sm text-slate-300">
        {notice}
      </p>
      {body}
      {languageSwitch && <LanguageSwitch />}
    </div>
  );
}
