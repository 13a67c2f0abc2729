import { useTranslations } from "next-intl";
import { useCallback } from "react";
import type { ShareLink } from "@/lib/protocol/rest";
import { AccountApiError, readReply } from "@/components/account/api";
import { hostKeyHeaders } from "@/components/live/hostKeyStore";

/**
 * What a saved session's row does over HTTP, for both lists (this browser's
 * keys, and the signed-in account's): every request carries this browser's
 * keys in headers, and a signed-in teacher's cookie goes along by itself.
 * A refusal is thrown as an AccountApiError, for useAccountErrorText to word.
 */

/** Downloads an export (a plain link could not carry the keys). */
export async function download(id: string, query: string): Promise<void> {
  const res = await fetch(`/api/sessions/${id}/export?${query}`, { headers: hostKeyHeaders() });
  if (!res.ok) {
    await readReply<never>(res);
    throw new AccountApiError(res.status, "INTERNAL", "");
  }
  const blob = await res.blob();
  const name = /filename="([^"]+)"/.exec(res.headers.get("content-disposition") ?? "")?.[1] ?? "export";
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  a.click();
  URL.revokeObjectURL(url);
}

/** Starts (POST) or stops (DELETE) sharing a replay; sharing answers with the link to hand out. */
export async function setSharing(id: string, share: boolean): Promise<string | null> {
  const res = await fetch(`/api/sessions/${id}/share`, {
    method: share ? "POST" : "DELETE",
    headers: { ...hostKeyHeaders(), "Content-Type": "application/json" },
  });
  const body = await readReply<ShareLink>(res);
  return share ? `${window.location.origin}${body.replayPath}` : null;
}

/** The exports every row offers: the JSON log and the three sheets (the files' own column names stay English: scripts read them). */
export const EXPORTS = [
  { query: "format=json", label: "json", testId: undefined },
  { query: "format=csv", label: "pollCsv", testId: undefined },
  { query: "format=csv&sheet=questions", label: "questionsCsv", testId: "questions-csv" },
  { query: "format=csv&sheet=students", label: "studentCsv", testId: "student-csv" },
] as const;

/** How long a session ran, in the page's language: "under a minute", "25 min", "1 h 5 min". */
export function useDuration(): (ms: number) => string {
  const t = useTranslations("savedSessions.duration");
  return useCallback(
    (ms: number) => {
      const m = Math.round(ms / 60000);
      return m < 1 ? t("underMinute") : m < 60 ? t("minutes", { m }) : t("hours", { h: Math.floor(m / 60), m: m % 60 });
    },
    [t],
  );
}
