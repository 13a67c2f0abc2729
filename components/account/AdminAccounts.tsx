"use client";

import { useLocale, useTranslations } from "next-intl";
import { useEffect, useState } from "react";
import { getJson } from "./api";
import { When } from "@/components/assignments/LessonWords";
import { panel } from "./Field";
import { useAccountErrorText } from "./useAccountErrorText";

interface Row {
  id: string;
  email: string;
  displayName: string;
  admin: boolean;
  createdAt: number;
}

/** The administrator's view of who has an account on this server. */
export function AdminAccounts() {
  const t = useTranslations("account.admin");
  const locale = useLocale();
  const errorText = useAccountErrorText();
  const [rows, setRows] = useState<Row[] | null>(null);
  const [error, setError] = useState("");
  useEffect(() => {
    getJson<{ accounts: Row[] }>("/api/account/admin/accounts").then(
      (r) => setRows(r.accounts),
      (err: unknown) => setError(errorText(err, "loadAccounts")),
    );
  }, [errorText]);
  return (
    <section className={panel} aria-labelledby="admin-heading">
      <h2 id="admin-heading" className="text-2xl font-semibold">
        {t("heading")}
      </h2>
      <p className="mt-1 text-slate-300">
        {t.rich("lead", {
          sessions: (chunks) => (
            <a href="/sessions" className="text-sky-300 underline">
              {chunks}
            </a>
          ),
          lessons: (chunks) => (
            <a href="/lessons" className="text-sky-300 underline">
              {chunks}
            </a>
          ),
          cmd: (chunks) => (
            <code translate="no" dir="ltr">
              {chunks}
            </code>
          ),
        })}
      </p>
      {error && (
        <p role="alert" className="mt-2 text-rose-300">
          {error}
        </p>
      )}
      {rows && (
        // On a phone the table scrolls inside its own region (by keyboard too), not the page.
        <div className="mt-3 overflow-x-auto" tabIndex={0} role="region" aria-labelledby="admin-heading">
          <table className="w-full text-start">
            <thead>
              <tr className="text-slate-300">
                <th scope="col" className="py-1 pe-3 font-medium">
                  {t("name")}
                </th>
                <th scope="col" className="py-1 pe-3 font-medium">
                  {t("email")}
                </th>
                <th scope="col" className="py-1 pe-3 font-medium">
                  {t("role")}
                </th>
                <th scope="col" className="py-1 font-medium">
                  {t("since")}
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.id} className="border-t border-slate-700">
                  <td className="py-2 pe-3 [overflow-wrap:anywhere]" translate="no">
                    {r.displayName}
                  </td>
                  <td className="py-2 pe-3 [overflow-wrap:anywhere]" translate="no">
                    {r.email}
                  </td>
                  <td className="py-2 pe-3">{r.admin ? t("administrator") : t("teacher")}</td>
                  <td className="py-2">
                    <When at={r.createdAt}>{new Intl.DateTimeFormat(locale).format(r.createdAt)}</When>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
