"use client";

import { useLocale, useTranslations } from "next-intl";
import { useCallback, useEffect, useState } from "react";
import type { SignInView } from "@/lib/account/rest";
import { del, getJson, postJson } from "./api";
import { When } from "@/components/assignments/LessonWords";
import { ProblemAlert, panel, useProblemOf, type Problem } from "./Field";

/** Every browser signed in to the account: end one, or all of them at once. */
export function SignInsSection({ onSignedOut }: { onSignedOut: () => Promise<void> }) {
  const t = useTranslations("account.signIns");
  const locale = useLocale();
  const when = (ms: number) => new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short" }).format(ms);
  const problemOf = useProblemOf();
  const [signIns, setSignIns] = useState<SignInView[] | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [notice, setNotice] = useState("");

  const load = useCallback(async () => {
    try {
      setSignIns((await getJson<{ signIns: SignInView[] }>("/api/account/sign-ins")).signIns);
    } catch (err) {
      setProblem(problemOf(err));
    }
  }, [problemOf]);
  useEffect(() => {
    void load();
  }, [load]);

  async function end(s: SignInView) {
    setProblem(null);
    try {
      await del(`/api/account/sign-ins/${s.id}`);
      if (s.current) return await onSignedOut();
      setNotice(t("ended"));
      await load();
    } catch (err) {
      setProblem(problemOf(err));
    }
  }

  async function everywhere() {
    setProblem(null);
    try {
      await postJson("/api/account/sign-out-everywhere");
      await onSignedOut();
    } catch (err) {
      setProblem(problemOf(err));
    }
  }

  return (
    <section className={panel} aria-labelledby="signins-heading">
      <h2 id="signins-heading" className="text-2xl font-semibold">
        {t("heading")}
      </h2>
      <p className="mt-1 text-slate-300">{t("lead", { days: 30 })}</p>
      {signIns === null ? (
        <p className="mt-3 text-slate-300">{t("loading")}</p>
      ) : (
        <ul className="mt-3 grid gap-2" data-testid="sign-in-list">
          {signIns.map((s) => (
            <li
              key={s.id}
              className="flex flex-wrap items-center justify-between gap-3 rounded-lg border border-slate-700 p-3"
              data-current={s.current}
            >
              {/* A browser's user agent is one long line: it wraps anywhere rather than widen the page. */}
              <div className="min-w-0 [overflow-wrap:anywhere]">
                <p className="font-medium">
                  {s.userAgent ? (
                    <span translate="no" dir="ltr">
                      {s.userAgent}
                    </span>
                  ) : (
                    t("aBrowser")
                  )}{" "}
                  {s.current && <span className="ms-1 rounded bg-sky-300 px-1.5 text-sm font-bold text-slate-950">{t("thisBrowser")}</span>}
                </p>
                <p className="text-sm text-slate-300">
                  {t.rich("how", {
                    method: s.method,
                    since: () => <When at={s.createdAt}>{when(s.createdAt)}</When>,
                    seen: () => <When at={s.lastSeenAt}>{when(s.lastSeenAt)}</When>,
                  })}
                </p>
              </div>
              <button
                type="button"
                onClick={() => void end(s)}
                className="rounded-lg border border-slate-500 px-3 py-2 font-semibold hover:bg-slate-800"
              >
                {t.rich("signOut", {
                  hidden: (chunks) => <span className="sr-only">{chunks}</span>,
                  which: () => (s.current ? t("thisBrowser") : s.userAgent ? <span translate="no">{s.userAgent}</span> : t("thatBrowser")),
                })}
              </button>
            </li>
          ))}
        </ul>
      )}
      <button
        type="button"
        onClick={() => void everywhere()}
        data-testid="sign-out-everywhere"
        className="mt-4 rounded-lg bg-rose-300 px-4 py-3 font-semibold text-slate-950 hover:bg-rose-200"
      >
        {t("everywhere")}
      </button>
      <p role="status" className="mt-2 text-slate-300">
        {notice}
      </p>
      <ProblemAlert problem={problem} />
    </section>
  );
}
