import { fateOf, type LogStates } from "./checkOrder";
import { formatOp, type CheckedClient, type Op } from "./history";

/**
 * Votes against the log: an acknowledged vote's receipt names where it is in
 * force (its `rev`, docs/protocol.md *Server → client events*), every
 * closed round's final counts equal the votes in force when it closed, one
 * per student, and each student's vote in force is the last one they were
 * told was counted, or a later one whose answer never came (UNCONFIRMED).
 */
export function checkVotes(
  cls: number,
  states: LogStates,
  students: readonly CheckedClient[],
  opsOf: (name: string) => Op[],
  t0: number,
): string[] {
  const problems: string[] = [];
  const events = states.events;

  // Receipts: the vote is in force at the place its rev names (one node), or comes into force at or after it (a
  // cluster's rev is a lower bound: the owner folds the vote into the log after the ack).
  for (const s of students) {
    for (const op of opsOf(s.name).filter((o) => o.event === "poll:vote" && fateOf(o) === "applied")) {
      const receipt = op.answer!.ack.ok ? (op.answer!.ack.data as { pollId: string; round: number; optionId: string; rev: number }) : null;
      if (!receipt) continue;
      const state = receipt.rev === 0 ? states.at(0) : states.afterSeq(receipt.rev);
      const inForceThere = state?.polls[receipt.pollId]?.votes[s.participantId!] === op.payload.optionId;
      const loggedLater = events.some(
        (e) =>
          e.type === "poll:voted" &&
          e.participantId === s.participantId &&
          e.pollId === receipt.pollId &&
          e.optionId === op.payload.optionId &&
          e.seq >= receipt.rev,
      );
      if (receipt.optionId !== op.payload.optionId || receipt.pollId !== op.payload.pollId || !(inForceThere || loggedLater))
        problems.push(
          `class ${cls} ${s.name}: acknowledged vote in force neither at #${receipt.rev}, where its receipt names, nor after it:\n${formatOp(op, t0)}`,
        );
    }
  }

  // Final counts, and each student's vote in force at each close.
  events.forEach((e, i) => {
    if (e.type !== "poll:closed") return;
    const poll = states.at(i).polls[e.pollId];
    if (!poll) return problems.push(`class ${cls}: #${e.seq} closes poll ${e.pollId}, which was never opened`);
    const tally: Record<string, number> = Object.fromEntries(poll.options.map((o) => [o.id, 0]));
    for (const optionId of Object.values(poll.votes)) tally[optionId] = (tally[optionId] ?? 0) + 1;
    const total = Object.values(poll.votes).length;
    if (JSON.stringify(sorted(tally)) !== JSON.stringify(sorted(e.counts)) || total !== e.total)
      problems.push(
        `class ${cls}: poll ${e.pollId} closed (#${e.seq}) with counts ${JSON.stringify(e.counts)} (${e.total}) but the votes in force make ${JSON.stringify(tally)} (${total})`,
      );
    for (const s of students) {
      const votes = opsOf(s.name).filter((o) => o.event === "poll:vote" && o.payload.pollId === e.pollId);
      let lastOk = -1;
      votes.forEach((o, k) => {
        if (fateOf(o) === "applied" && (o.answer!.ack.ok ? (o.answer!.ack.data as { rev: number }).rev : Infinity) < e.seq) lastOk = k;
      });
      const allowed = new Set<string | undefined>(lastOk >= 0 ? [votes[lastOk].payload.optionId as string] : [undefined]);
      for (const o of votes.slice(lastOk + 1)) if (fateOf(o) === "maybe") allowed.add(o.payload.optionId as string);
      const inForce = poll.votes[s.participantId!];
      if (!allowed.has(inForce))
        problems.push(
          `class ${cls} ${s.name}: vote in force when poll ${e.pollId} closed (#${e.seq}) is ${inForce ?? "none"}, but what they were answered allows only ${[...allowed].map((a) => a ?? "none").join(" or ")}:\n${votes.map((o) => formatOp(o, t0)).join("\n")}`,
        );
    }
  });
  return problems;
}

function sorted(counts: Record<string, number>): [string, number][] {
  return Object.entries(counts)
    .filter(([, n]) => n > 0)
    .sort(([a], [b]) => a.localeCompare(b));
}
