"use client";

import { useTranslations } from "next-intl";
import { useEffect, useState } from "react";
import type { PublicPoll } from "@/lib/session/views";
import { useLive, useLiveActions, useSend } from "@/components/live/LiveSession";
import { TallyBars } from "./TallyBars";
import { useLiveResults } from "./useLiveResults";
import { Countdown } from "./Countdown";
import { useErrorText } from "@/components/i18n/useErrorText";
import { usePollText } from "@/components/i18n/useScenario";

/**
 * What the receipt under the options says: a vote's answer, or, for a vote
 * the server could not confirm, whatever the student's own vote shows now
 * (counted the moment it lands, even after a late answer).
 */
type Receipt = { kind: "ok" | "error"; text: string } | { kind: "checking"; optionId: string; synced: boolean };

type ShownReceipt = { kind: "ok" | "error" | "pending"; text: string } | null;

function shownReceipt(
  receipt: Receipt | null,
  mine: string | null,
  t: (key: "counted" | "notReached" | "checking") => string,
): ShownReceipt {
  if (receipt?.kind !== "checking") return receipt;
  if (mine === receipt.optionId) return { kind: "ok", text: t("counted") };
  if (receipt.synced) return { kind: "error", text: t("notReached") };
  return { kind: "pending", text: t("checking") };
}

/**
 * A student's poll: big tap targets, a receipt for every vote, and after the
 * reveal whether they were right with the note on the option they chose.
 */
export function PollCard({
  poll,
  paused = false,
}: {
  poll: PublicPoll;
  /** The teacher paused the class: no votes until they resume. */ paused?: boolean;
}) {
  const t = useTranslations("poll");
  const common = useTranslations("common");
  const errorText = useErrorText();
  // The built-in lesson's polls arrive in English: the question, options and notes in the reader's language where translated.
  const words = usePollText();
  const send = useSend();
  const actions = useLiveActions();
  const myVote = useLive((s) => s.myVote);
  const snapshotRev = useLive((s) => s.snapshot?.rev ?? 0);
  const [pending, setPending] = useState<string | null>(null);
  const [message, setMessage] = useState<Receipt | null>(null);
  const mine = myVote && myVote.pollId === poll.id && myVote.round === poll.round ? myVote.optionId : null;
  const open = poll.status === "open";
  const liveResults = useLiveResults(poll, snapshotRev);
  const connection = useLive((s) => s.connection);

  // A receipt speaks for the open poll only: it goes when the poll closes (a new round gets a fresh card).
  useEffect(() => {
    if (poll.status !== "open") setMessage(null);
  }, [poll.status]);
  // "Not connected" is stale once the connection is back: clear it, do not leave it beside the green pill.
  useEffect(() => {
    if (connection === "connected") setMessage((m) => (m?.kind === "error" ? null : m));
  }, [connection]);

  async function vote(optionId: string) {
    setPending(optionId);
    const ack = await send("poll:vote", { pollId: poll.id, optionId });
    setPending(null);
    if (!ack.ok && ack.error.code === "UNCONFIRMED") {
      // The vote may have counted after all (a late answer, a server that froze): ask for this student's own
      // vote, and let the receipt follow what the server says, now or when the vote's late answer arrives.
      setMessage({ kind: "checking", optionId, synced: false });
      const synced = await send("session:sync", {});
      setMessage((m) => (m?.kind === "checking" && m.optionId === optionId ? { ...m, synced: synced.ok } : m));
      return;
    }
    if (ack.ok) actions.myVote(ack.data);
    if (ack.ok) setMessage({ kind: "ok", text: t("counted") });
    else setMessage({ kind: "error", text: ack.error.code === "POLL_CLOSED" ? t("closedError") : errorText(ack.error) });
  }
  const receipt = shownReceipt(message, mine, t);

  const chosen = poll.options.find((o) => o.id === mine);
  const total = liveResults?.total ?? 0;
  return (
    <section
      className="rounded-2xl border-2 border-violet-400/70 bg-slate-900 p-4 shadow-xl"
      aria-labelledby="poll-question"
      data-testid="poll-card"
      data-poll-status={poll.status}
    >
      <p className="text-sm font-semibold uppercase tracking-widest text-violet-300">
        {open ? (paused ? t("openPaused") : t("open")) : poll.revealed ? t("revealed") : t("closed")}{" "}
        {open && <Countdown closesAt={poll.closesAt} />}
      </p>
      <h2
        id="poll-question"
        lang={words.question(poll.question).lang}
        className="mt-1 text-xl font-bold [overflow-wrap:anywhere] sm:text-2xl"
      >
        {words.question(poll.question).text}
      </h2>
      {!poll.revealed && (
        // With live results on, each option carries its own bar: one list, not the options and then the bars.
        <ul
          className="mt-4 space-y-3"
          data-testid={liveResults ? "poll-results" : undefined}
          data-total={liveResults ? total : undefined}
          aria-label={liveResults ? t("optionsLive", { total }) : undefined}
        >
          {poll.options.map((o) => {
            const selected = mine === o.id;
            const n = liveResults?.counts[o.id] ?? 0;
            const pct = total ? Math.round((n / total) * 100) : 0;
            return (
              <li key={o.id} data-option-id={o.id} data-count={liveResults ? n : undefined}>
                <button
                  type="button"
                  data-testid="poll-option"
                  data-option-id={o.id}
                  aria-pressed={selected}
                  // A closed poll's options are not buttons any more: nothing to tap, nothing to refuse.
                  disabled={pending !== null || !open || paused}
                  onClick={() => void vote(o.id)}
                  className={`min-h-14 w-full rounded-xl border-2 px-4 py-3 text-start text-lg font-semibold [overflow-wrap:anywhere] ${
                    selected
                      ? "border-sky-300 bg-sky-400 text-slate-950"
                      : open
                        ? "border-slate-600 bg-slate-800 hover:border-sky-300"
                        : "border-dashed border-slate-700 bg-slate-900 text-slate-300"
                  } ${open ? "" : "cursor-default"}`}
                >
                  <span className="flex items-baseline justify-between gap-3">
                    <span className="min-w-0" lang={words.option(o.text).lang}>
                      {selected && <span aria-hidden="true">✓ </span>}
                      {words.option(o.text).text}
                    </span>
                    {liveResults && (
                      <span className="shrink-0 text-base tabular-nums">
                        {n} · {pct}%
                      </span>
                    )}
                  </span>
                  {liveResults && (
                    <span
                      className={`mt-2 block h-2 overflow-hidden rounded ${selected ? "bg-sky-900/40" : "bg-slate-700"}`}
                      aria-hidden="true"
                    >
                      <span className={`block h-full rounded ${selected ? "bg-slate-950" : "bg-sky-400"}`} style={{ width: `${pct}%` }} />
                    </span>
                  )}
                </button>
              </li>
            );
          })}
        </ul>
      )}
      <div aria-live="polite" className="mt-3">
        {receipt && (
          <p
            data-testid="vote-receipt"
            data-kind={receipt.kind}
            className={receipt.kind === "ok" ? "text-emerald-300" : receipt.kind === "pending" ? "text-slate-200" : "text-rose-300"}
            role={receipt.kind === "error" ? "alert" : "status"}
          >
            {receipt.text}
          </p>
        )}
        {!open && !poll.revealed && <p className="text-slate-300">{t("waitReveal")}</p>}
        {poll.revealed && (
          <div data-testid="poll-feedback" data-correct={poll.correctOptionId ? String(mine === poll.correctOptionId) : "none"}>
            {poll.correctOptionId === null ? (
              <p className="text-lg">{t("noSingleAnswer")}</p>
            ) : mine === null ? (
              <p className="text-lg">
                {t("didNotVote", { answer: words.option(poll.options.find((o) => o.id === poll.correctOptionId)?.text ?? "").text })}
              </p>
            ) : mine === poll.correctOptionId ? (
              <p className="text-xl font-bold text-emerald-300">{t("right")}</p>
            ) : (
              <p className="text-xl font-bold text-amber-300">{common("notQuite")}</p>
            )}
            {chosen?.note && (
              <p className="mt-2 text-slate-200" data-testid="poll-note" lang={words.note(chosen.note).lang}>
                {words.note(chosen.note).text}
              </p>
            )}
          </div>
        )}
      </div>
      {liveResults && poll.revealed && (
        <div className="mt-4">
          <TallyBars
            options={poll.options}
            results={liveResults}
            correctOptionId={poll.correctOptionId}
            highlightId={mine}
            testId="poll-results"
          />
        </div>
      )}
    </section>
  );
}
