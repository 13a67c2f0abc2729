"use client";

import Link from "next/link";
import { useTranslations } from "next-intl";
import { useErrorText } from "@/components/i18n/useErrorText";
import type { ProtocolError, Role } from "@/lib/protocol/wire";

/* No socket code here: the student's join form shows this before it loads any (components/student/StudentView.tsx). */

/** A refusal that reconnecting will not fix, with the way forward. */
export function ErrorScreen({ error, code, role }: { error: ProtocolError; code: string; role?: Role }) {
  const t = useTranslations("session");
  const errorText = useErrorText();
  const outOfDate = error.code === "CLIENT_TOO_OLD";
  // The headline already says it has ended; saved sessions are the teacher's, and a student's list would be empty.
  const endedForClass = error.code === "SESSION_ENDED" && role !== "host";
  return (
    <main
      className="mx-auto flex min-h-screen max-w-xl flex-col justify-center gap-4 px-5"
      data-testid="session-error"
      data-code={error.code}
    >
      <h1 className="text-3xl font-bold">{outOfDate ? t("outOfDate") : t(`headline.${headline(error.code)}`)}</h1>
      <p className="text-lg text-slate-300" role="alert">
        {endedForClass ? t("thanks") : error.code === "SESSION_ENDED" ? t("endedSaved") : errorText(error)}
      </p>
      <div className="flex flex-wrap gap-3">
        {outOfDate ? (
          <button
            type="button"
            onClick={() => window.location.reload()}
            className="rounded-lg bg-sky-400 px-4 py-3 font-semibold text-slate-950"
          >
            {t("reload")}
          </button>
        ) : error.code === "REMOVED" ? (
          <button
            type="button"
            onClick={() => window.location.reload()}
            className="rounded-lg bg-sky-400 px-4 py-3 font-semibold text-slate-950"
          >
            {t("tryAgainRemoved")}
          </button>
        ) : endedForClass ? null : error.code === "SESSION_ENDED" ? (
          <Link href="/sessions" className="rounded-lg bg-sky-400 px-4 py-3 font-semibold text-slate-950">
            {t("savedSessions")}
          </Link>
        ) : error.code === "NOT_HOST" ? (
          <Link href={`/join/${code}`} className="rounded-lg bg-emerald-400 px-4 py-3 font-semibold text-slate-950">
            {t("openStudentView")}
          </Link>
        ) : (
          <Link href="/join" className="rounded-lg bg-sky-400 px-4 py-3 font-semibold text-slate-950">
            {t("anotherCode")}
          </Link>
        )}
        <Link href="/" className="rounded-lg border border-slate-500 px-4 py-3 font-semibold">
          {t("home")}
        </Link>
      </div>
    </main>
  );
}

const HEADLINES = ["NO_SUCH_SESSION", "SESSION_ENDED", "NOT_HOST", "ROOM_LOCKED", "REMOVED"] as const;

/** Which headline a refusal gets (its catalog key under `session.headline`). */
function headline(code: string): (typeof HEADLINES)[number] | "other" {
  return HEADLINES.find((h) => h === code) ?? "other";
}
