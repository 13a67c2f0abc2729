"use client";

import { useTranslations } from "next-intl";
import { useEffect, useRef, useState } from "react";
import type { PublicPoll } from "@/lib/session/views";
import { useLive } from "@/components/live/LiveSession";
import { usePollText } from "@/components/i18n/useScenario";

/**
 * One live region that is always on the page, so a screen reader hears a
 * poll open, close and reveal (a region created together with its text is
 * often not read out).
 */
export function PollAnnouncer({ poll }: { poll: PublicPoll | null }) {
  const t = useTranslations("announce");
  const myVote = useLive((s) => s.myVote);
  const words = usePollText();
  const [message, setMessage] = useState("");
  const keyOf = (p: PublicPoll) => `${p.id}:${p.round}:${p.status}`;
  // What was already on screen when the page loaded is not news: the card itself is read in page order.
  const last = useRef<string>(poll ? keyOf(poll) : "");

  useEffect(() => {
    if (!poll) return;
    const key = keyOf(poll);
    if (key === last.current) return;
    last.current = key;
    if (poll.status === "open") {
      setMessage(t(poll.round > 1 ? "reopened" : "opened", { question: words.question(poll.question).text, count: poll.options.length }));
    } else if (poll.status === "closed") {
      setMessage(t("closed"));
    } else {
      const correct = poll.options.find((o) => o.id === poll.correctOptionId);
      const mine = myVote && myVote.pollId === poll.id && myVote.round === poll.round ? myVote.optionId : null;
      const verdict = mine === null ? "answerNoVote" : mine === correct?.id ? "answerRight" : "answerWrong";
      // The answer's misconception note is on the card itself (read in page order); the announcement names the answer.
      setMessage(correct ? t(verdict, { answer: words.option(correct.text).text }) : t("results"));
    }
  }, [poll, myVote, t, words]);

  return (
    <div className="sr-only" role="status" aria-live="polite" aria-atomic="true" data-testid="poll-announcer">
      {message}
    </div>
  );
}
