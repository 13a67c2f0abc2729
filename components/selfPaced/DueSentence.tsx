"use client";

import { useNow, useTranslations } from "next-intl";
import { useDueWhen } from "./useSelfPacedText";

/**
 * "Due Friday 12 December, 17:00." in the page's language, the date inside
 * the translated sentence as a `<time>` with its instant in `dateTime`: a
 * screen reader and a browser read the date, not just its words, and
 * `translate="no"` says Intl already wrote it in the page's language.
 */
export function DueSentence({ dueAt }: { dueAt: number }) {
  const t = useTranslations("selfPaced");
  // Re-read every half minute: a page left open across the deadline turns to "Was due" as the server starts refusing.
  const now = useNow({ updateInterval: 30_000 });
  const dueWhen = useDueWhen();
  const when = () => (
    <time dateTime={new Date(dueAt).toISOString()} translate="no" data-testid="due-date">
      {dueWhen(dueAt)}
    </time>
  );
  return dueAt < now.getTime() ? t.rich("wasDueOn", { when }) : t.rich("due", { when });
}
