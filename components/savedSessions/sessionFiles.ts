import { hostKeyHeaders } from "@/components/live/hostKeyStore";
import { readApi, type ShareLink } from "@/lib/protocol/rest";

/**
 * What a saved session's row does over HTTP, for both lists (this browser's
 * keys, and the signed-in account's): every request carries this browser's
 * keys in headers, and a signed-in teacher's cookie goes along by itself.
 */

/** Downloads an export (a plain link could not carry the keys). */
export async function download(id: string, query: string): Promise<void> {
  const res = await fetch(`/api/sessions/${id}/export?${query}`, { headers: hostKeyHeaders() });
  if (!res.ok) {
    const reply = await readApi<never>(res);
    throw new Error((!reply.ok && reply.message) || "Export failed.");
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
  const reply = await readApi<ShareLink>(res);
  if (!reply.ok) throw new Error(reply.message || "Could not change sharing.");
  return share ? `${window.location.origin}${reply.body.replayPath}` : null;
}

/** The exports every row offers: the JSON log and the three sheets. */
export const EXPORTS = [
  { query: "format=json", label: "JSON", testId: undefined },
  { query: "format=csv", label: "Poll CSV", testId: undefined },
  { query: "format=csv&sheet=questions", label: "Questions CSV", testId: "questions-csv" },
  { query: "format=csv&sheet=students", label: "Student CSV", testId: "student-csv" },
] as const;

export function duration(ms: number): string {
  const m = Math.round(ms / 60000);
  return m < 1 ? "under a minute" : m < 60 ? `${m} min` : `${Math.floor(m / 60)} h ${m % 60} min`;
}
