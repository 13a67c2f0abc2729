import type { CreatedSessionBody } from "@/lib/protocol/rest";
import { AccountApiError, readReply } from "@/components/account/api";
import { saveHostKey } from "@/components/live/hostKeyStore";
import { lessonHeaders } from "./lessonKeys";

/**
 * Starts a session that runs the lesson's latest version, and opens the
 * console (the host key in the fragment). Answers the refusal, for the caller
 * to word (useAccountErrorText), or null once the console is on its way.
 */
export async function startLessonSession(id: string): Promise<AccountApiError | null> {
  try {
    const res = await fetch("/api/sessions", {
      method: "POST",
      headers: { "content-type": "application/json", ...lessonHeaders(id) },
      body: JSON.stringify({ lesson: { id } }),
    });
    const body = await readReply<CreatedSessionBody>(res);
    saveHostKey(body.code, body.hostKey, Date.now());
    window.location.assign(body.hostPath);
    return null;
  } catch (err) {
    return err instanceof AccountApiError ? err : new AccountApiError(0, "NETWORK", "");
  }
}
