"use client";

import { useTranslations } from "next-intl";
import type { ReactNode } from "react";
import { useLive, useLiveMeta } from "@/components/live/LiveSession";
import { useErrorText } from "@/components/i18n/useErrorText";
import { ErrorScreen } from "./ErrorScreen";
import { roomCode } from "@/components/i18n/roomCode";

/**
 * What a view shows before it has a snapshot, and when the server refused it
 * for good: never a spinner forever, never a half-working screen.
 */
export function SessionGate({ children }: { children: ReactNode }) {
  const fatal = useLive((s) => s.fatal);
  const hasSnapshot = useLive((s) => s.snapshot !== null);
  const connection = useLive((s) => s.connection);
  const refusal = useLive((s) => s.lastError);
  const { code, role } = useLiveMeta();
  const t = useTranslations("session");
  const errorText = useErrorText();

  if (fatal) return <ErrorScreen error={fatal} code={code} role={role} />;
  if (!hasSnapshot) {
    return (
      <main className="flex min-h-screen items-center justify-center px-5" aria-busy="true">
        <p
          className="text-xl text-slate-300"
          role="status"
          data-testid="connection-status"
          data-state={connection === "connected" ? "connected" : "reconnecting"}
        >
          {connection !== "reconnecting"
            ? t.rich("joining", { code, ...roomCode })
            : refusal
              ? t("retrying", { reason: errorText(refusal) })
              : t("unreachable")}
        </p>
      </main>
    );
  }
  return <>{children}</>;
}
