/**
 * "18 of 24 voted": how many students have voted out of those connected; never what they voted.
 * Not a live region of its own: the console's poll status around it already is one.
 */
export function VoteProgress({ voted, total, className }: { voted: number; total: number; className?: string }) {
  return (
    <p className={className} data-testid="vote-progress" data-voted={voted} data-total={total}>
      <span className="font-bold tabular-nums">{voted}</span> of <span className="tabular-nums">{total}</span> voted
    </p>
  );
}
