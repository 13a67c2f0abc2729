"use client";

import { useTranslations } from "next-intl";
import { useEffect, useState } from "react";
import { useLive } from "@/components/live/LiveSession";

/**
 * Seconds left until the server closes the poll, drawn against the server's
 * clock. Drawn with SVG, never an emoji glyph (a projector's machine may have
 * no emoji font). `large` is the projector's: a ring that empties, with the
 * seconds in the middle, readable from the back row.
 */
export function Countdown({ closesAt, large }: { closesAt: number | null; large?: boolean }) {
  const t = useTranslations("countdown");
  const offset = useLive((s) => s.clockOffsetMs);
  const [now, setNow] = useState(() => Date.now());
  // The ring's whole is the time left when this screen first saw the poll (a late projector starts part-empty only if it knew better).
  const [whole, setWhole] = useState<{ closesAt: number | null; ms: number }>({ closesAt: null, ms: 1 });
  useEffect(() => {
    if (closesAt === null) return;
    const timer = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(timer);
  }, [closesAt]);
  if (closesAt === null) return null;
  const leftMs = Math.max(0, closesAt - (now + offset));
  const left = Math.ceil(leftMs / 1000);
  // A new poll or round: the time left now is the whole ring (React's "adjust state while rendering").
  if (whole.closesAt !== closesAt) setWhole({ closesAt, ms: Math.max(leftMs, 1) });
  const label = t("left", { seconds: left });
  if (!large) {
    return (
      <span className="inline-flex items-center gap-1 tabular-nums" data-testid="poll-countdown" role="timer" aria-label={label}>
        <svg viewBox="0 0 16 16" className="h-[1em] w-[1em]" aria-hidden="true" fill="none" stroke="currentColor" strokeWidth="1.6">
          <circle cx="8" cy="9" r="6" />
          <path d="M8 9V5.5M6 1.5h4" strokeLinecap="round" />
        </svg>
        {t("short", { seconds: left })}
      </span>
    );
  }
  const r = 42;
  const circumference = 2 * Math.PI * r;
  const share = Math.min(1, leftMs / whole.ms);
  const urgent = left <= 5;
  return (
    <span
      className="relative inline-grid h-[5.5rem] w-[5.5rem] shrink-0 place-items-center"
      data-testid="poll-countdown"
      data-large=""
      role="timer"
      aria-label={label}
    >
      <svg viewBox="0 0 100 100" className="absolute inset-0 h-full w-full -rotate-90" aria-hidden="true">
        <circle cx="50" cy="50" r={r} fill="none" stroke="rgb(51 65 85)" strokeWidth="10" />
        <circle
          cx="50"
          cy="50"
          r={r}
          fill="none"
          stroke={urgent ? "rgb(253 164 175)" : "rgb(196 181 253)"}
          strokeWidth="10"
          strokeLinecap="round"
          strokeDasharray={circumference}
          strokeDashoffset={circumference * (1 - share)}
          className="transition-[stroke-dashoffset] duration-200 motion-reduce:transition-none"
        />
      </svg>
      <span className={`text-[2rem] font-bold tabular-nums leading-none ${urgent ? "text-rose-200" : "text-white"}`} aria-hidden="true">
        {left}
      </span>
    </span>
  );
}
