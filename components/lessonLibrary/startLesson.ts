import { readApi, type CreatedSessionBody } from "@/lib/protocol/rest";
import { saveHostKey } from "@/components/live/hostKeyStore";
import { lessonHeaders } from "./lessonKeys";

/** Starts a session that runs the lesson's latest version, and opens the console (the host key in the fragment). */
export async function startLessonSession(id: string): Promise<string | null> {
  const res = await fetch("/api/sessions", {
    method: "POST",
    headers: { "content-type": "application/json", ...lessonHeaders(id) },
    body: JSON.stringify({ lesson: { id } }),
  });
  const reply = await readApi<CreatedSessionBody>(res);
  if (!reply.ok) return reply.message || "Could not start a session.";
  saveHostKey(reply.body.code, reply.body.hostKey, Date.now());
  window.location.assign(reply.body.hostPath);
  return null;
}
