import type { ClaimResult } from "@/lib/account/ownership";
import { hostKeyHeaders } from "@/components/live/hostKeyStore";
import { lessonHeaders } from "@/components/lessonLibrary/lessonKeys";
import { requestJson } from "./api";

/**
 * Makes the sessions and lessons this browser holds keys to the signed-in
 * account's, where nobody owns them yet: the browser proves it holds them by
 * sending the keys (in headers, as every list does). Called once a teacher
 * signs in or signs up, and by the signed-in lists each time they load.
 * Never throws: a failed claim leaves the keys working as before.
 */
export async function claimThisBrowser(): Promise<ClaimResult | null> {
  const headers = { ...hostKeyHeaders(), ...lessonHeaders() };
  if (Object.keys(headers).length === 0) return { sessions: 0, lessons: 0 };
  try {
    return await requestJson<ClaimResult>("/api/account/claim", { method: "POST", body: {}, headers });
  } catch {
    return null;
  }
}
