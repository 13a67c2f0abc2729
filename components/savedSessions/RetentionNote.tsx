import type { RetentionPolicy } from "@/lib/protocol/rest";

const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? "" : "s"}`;

function idleText(minutes: number | null): string {
  if (!minutes) return "";
  const span = minutes % 60 === 0 ? plural(minutes / 60, "hour") : plural(minutes, "minute");
  return ` A live session with nobody connected and nothing happening for ${span} is ended automatically.`;
}

/** What the server keeps of a session and for how long, as the server is configured (docs/security.md says the same). */
export function retentionText(policy: RetentionPolicy, admin: boolean): string {
  const kept = "This server keeps each session's log (steps, polls, votes and student nicknames) for replays and exports.";
  const ended =
    policy.endedSessionDays === null
      ? ` Ended sessions are kept until the server's operator deletes them.${admin ? " Set RETENTION_DAYS to delete them on a schedule." : ""}`
      : ` Ended sessions are deleted ${plural(policy.endedSessionDays, "day")} after they end, with their students' sign-in tokens and any share link.`;
  return kept + ended + idleText(policy.idleEndMinutes);
}

export function RetentionNote({ policy, admin }: { policy: RetentionPolicy; admin: boolean }) {
  return (
    <p className="text-slate-300" data-testid="retention-policy">
      {retentionText(policy, admin)}
    </p>
  );
}
