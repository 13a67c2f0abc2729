/** "18 of 24 voted": how many students have voted out of those connected; never what they voted. */
export function VoteProgress({ voted, total, className }: { voted: number; total: number; className?: string }) {
  return (
    <p className={className} data-testid="vote-progress" data-voted={voted} data-total={total} aria-live="polite">
      <span className="font-bold tabular-nums">{voted}</span> of <span className="tabular-nums">{total}</span> voted
    </p>
  );
}
