"use client";

import { useTranslations } from "next-intl";
import { useAccountState } from "@/components/account/useAccountState";
import { MySessions } from "./MySessions";
import { SessionsList } from "./SessionsList";

/**
 * The saved-sessions page: signed in, the account's sessions (and, for the
 * administrator, every session); signed out, the sessions this browser's
 * keys open, as before accounts.
 */
export function SavedSessionsView() {
  const t = useTranslations("savedSessions");
  const [load] = useAccountState();
  if (load.status === "loading") return <p className="mt-4">{t("loading")}</p>;
  const account = load.status === "ready" ? load.state.account : null;
  if (!account) return <SessionsList />;
  return (
    <>
      <MySessions />
      {account.admin && <MySessions all />}
    </>
  );
}
