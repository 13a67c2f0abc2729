"use client";

import { useEffect, useRef, useState } from "react";
import { useTranslations } from "next-intl";
import { useLive } from "@/components/live/LiveSession";

/**
 * In the console's header, always in view: how many questions wait for the
 * teacher (to approve, or open and not yet answered). When one arrives the
 * badge lights up for a moment and screen readers hear the new count; a click
 * goes to the list.
 */
export function NewQuestionsCount() {
  const t = useTranslations("console");
  const state = useLive((s) => s.questions);
  const questions = state?.audience === "host" ? state.questions : [];
  const count = questions.filter((q) => !q.hidden && !q.askerRemoved && (q.status === "pending" || q.status === "open")).length;
  const before = useRef(count);
  const [fresh, setFresh] = useState(false);
  useEffect(() => {
    if (count > before.current) {
      setFresh(true);
      const timer = setTimeout(() => setFresh(false), 4_000);
      before.current = count;
      return () => clearTimeout(timer);
    }
    before.current = count;
  }, [count]);
  return (
    <a
      href="#host-questions-heading"
      onClick={(e) => {
        const heading = document.getElementById("host-questions-heading");
        if (!heading) return;
        e.preventDefault();
        heading.scrollIntoView({ block: "start" });
        heading.focus();
      }}
      data-testid="new-questions"
      data-count={count}
      className={`rounded-lg px-3 py-2 text-lg font-semibold transition-colors motion-reduce:transition-none ${
        fresh ? "bg-amber-300 text-slate-950" : count > 0 ? "bg-amber-900/60 text-amber-100" : "bg-slate-800 text-slate-200"
      }`}
    >
      <span aria-live="polite" aria-atomic="true">
        {t.rich("questionsWaiting", { count, n: (chunks) => <span className="tabular-nums">{chunks}</span> })}
      </span>
    </a>
  );
}
