import { useTranslations } from "next-intl";

/**
 * "18 of 24 voted": how many students have voted out of those connected; never what they voted.
 * Not a live region of its own: the console's poll status around it already is one.
 */
export function VoteProgress({ voted, total, className }: { voted: number; total: number; className?: string }) {
  const t = useTranslations("tally");
  return (
    <p className={className} data-testid="vote-progress" data-voted={voted} data-total={total}>
      {t.rich("progress", {
        voted,
        total,
        b: (chunks) => <span className="font-bold tabular-nums">{chunks}</span>,
        n: (chunks) => <span className="tabular-nums">{chunks}</span>,
      })}
    </p>
  );
}
