/** "Due Friday 12 December, 17:00" in the reader's own language and time zone. */
export function dueText(dueAt: number, now: number = Date.now()): string {
  const when = new Intl.DateTimeFormat(undefined, {
    weekday: "long",
    day: "numeric",
    month: "long",
    hour: "2-digit",
    minute: "2-digit",
  }).format(dueAt);
  return dueAt < now ? `Was due ${when}.` : `Due ${when}.`;
}

/** A short date and time for lists. */
export function shortDate(at: number): string {
  return new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" }).format(at);
}
