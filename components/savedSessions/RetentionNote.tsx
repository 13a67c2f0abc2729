"use client";

import { useTranslations } from "next-intl";
import type { RetentionPolicy } from "@/lib/protocol/rest";

/** What the server keeps of a session and for how long, as the server is configured (docs/security.md says the same). */
export function RetentionNote({ policy, admin }: { policy: RetentionPolicy; admin: boolean }) {
  const t = useTranslations("savedSessions.retention");
  const idle = policy.idleEndMinutes;
  const env = (chunks: React.ReactNode) => (
    <code translate="no" dir="ltr">
      {chunks}
    </code>
  );
  const ended =
    policy.endedSessionDays !== null
      ? t("deletedAfter", { days: policy.endedSessionDays })
      : admin
        ? t.rich("keptUntilDeletedAdmin", { env })
        : t("keptUntilDeleted");
  return (
    <p className="text-slate-300" data-testid="retention-policy">
      {t("kept")} {ended}
      {idle ? <> {idle % 60 === 0 ? t("idleHours", { hours: idle / 60 }) : t("idleMinutes", { minutes: idle })}</> : null}
    </p>
  );
}
